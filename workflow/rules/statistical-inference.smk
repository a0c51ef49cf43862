# Paper statistical-inference: Calmon, Fawaz, privacy against statistical inference. The paper has
# no numerical figures; these are the project's. Contract: docs/figures.md#statistical-inference.
#
# figure  table: leakage.experiments.statistical_inference.  plot: leakage.plots.statistical_inference.  reproduces
# fig1    figures.fig1                                       draw_fig1                                    counting query: min average / minmax leakage vs distortion, geometric DP
# fig2    figures.fig2                                       draw_fig2                                    Theorem 4: an eps-DP mechanism leaking without bound in n
#
# Figures go through the stage rules of figures.smk.
FIGURES["statistical-inference"] = [
    # counting query: minimum average / minmax leakage vs distortion, geometric DP mechanism
    "fig1",
    # Theorem 4: an eps-DP mechanism leaking without bound in n
    "fig2",
]
