# Paper mi-dp: figures registered here go through the generic rules of figures.smk.
FIGURES["mi-dp"] = []
