# Paper mi-dp: Cuff, Yu, differential privacy as a mutual information constraint. The paper has no
# numerical figures; these are the project's. Contract: docs/figures.md#mi-dp.
#
# figure  table: leakage.experiments.mi_dp.  plot: leakage.plots.mi_dp.  reproduces
# fig1    figures.fig1                       fig1                         Lemma 1's sandwich on binary randomized response
# fig2    figures.fig2                       fig2                         Lemma 2: the (0, delta)-DP implied by eps-MI-DP
#
# Figures go through the stage rules of figures.smk.
FIGURES["mi-dp"] = [
    # Lemma 1's sandwich on binary randomized response: eps-DP, KL bound, exact MI-DP
    "fig1",
    # Lemma 2: the (0, delta)-DP implied by eps-MI-DP, tight and relaxed
    "fig2",
]
