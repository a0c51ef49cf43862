# Paper empirical-pml: figures registered here go through the generic rules of figures.smk.
FIGURES["empirical-pml"] = []
