# Paper robust-dp-hamming: Kalantari, Sankar, Sarwate, robust privacy-utility tradeoffs under
# differential privacy and Hamming distortion. Contract: docs/figures.md#robust-dp-hamming.
#
# figure  table: leakage.experiments.robust_dp_hamming.  plot: leakage.plots.robust_dp_hamming.  reproduces
# fig1    figures.fig1                                   draw_fig1                                the three source-set classes on the M = 3 simplex
# fig4    figures.dp_figure                              draw_dp                                  least DP leakage vs Hamming distortion, M = 6, Theorem 3 bounds
# fig5    figures.dp_figure                              draw_dp                                  the same, M = 10
# fig6    figures.mi_figure                              draw_mi                                  worst-case MI leakage vs DP leakage, M = 6
# fig7    figures.mi_figure                              draw_mi                                  the same, M = 10
#
# The source sets (Tables I-IV, the fig1 examples) are data, an input of every table.
FIGURES["robust-dp-hamming"] = [
    # the three source-set classes on the M = 3 simplex
    "fig1",
    # least DP leakage vs Hamming distortion, M = 6 and M = 10
    "fig4",
    "fig5",
    # worst-case MI leakage vs DP leakage, M = 6 and M = 10
    "fig6",
    "fig7",
]

for _fig in FIGURES["robust-dp-hamming"]:
    FIGURE_INPUTS[("robust-dp-hamming", _fig)] = {
        "source_sets": "workflow/data/robust-dp-hamming/source_sets.yaml"
    }

# One LP per eps step (about 6 per D point), one convex program per MI evaluation: a minute at most.
for _fig in ("fig4", "fig5", "fig6", "fig7"):
    FIGURE_RESOURCES[("robust-dp-hamming", _fig)] = {"mem_mb": 1000, "runtime": 15}
