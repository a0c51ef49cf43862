# Paper worst-case-pml: figures registered here go through the generic rules of figures.smk.
FIGURES["worst-case-pml"] = []
