# Paper robust-dp-hamming: figures registered here go through the generic rules of figures.smk.
FIGURES["robust-dp-hamming"] = []
