# Paper statistical-inference: figures go through the generic rules of figures.smk.
FIGURES["statistical-inference"] = [
    # counting query: minimum average / minmax leakage vs distortion, geometric DP mechanism
    "fig1",
    # Theorem 4: an eps-DP mechanism leaking without bound in n
    "fig2",
]
