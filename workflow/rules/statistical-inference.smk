# Paper statistical-inference: figures registered here go through the generic rules of figures.smk.
FIGURES["statistical-inference"] = []
