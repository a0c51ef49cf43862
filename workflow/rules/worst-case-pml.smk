# Paper worst-case-pml: Song, Oechtering, worst-case utility privacy mechanism via pointwise maximal
# leakage. Contract: docs/figures.md#worst-case-pml; mathematics: docs/papers/worst-case-pml.md.
#
# figure  table: leakage.experiments.worst_case_pml.  plot: leakage.plots.worst_case_pml.  reproduces
# fig1    figures.fig1                                draw_fig1                             counting query (Sec. IV-A): worst-case utility vs eps
# fig2    figures.fig2                                _draw_optimality                      Sec. IV-B: eps_US(k) vs the LP optimum eps*(k), one low three high
# fig3    figures.fig3                                _draw_optimality                      the same, three low one high
#
# Figures go through the stage rules of figures.smk.
FIGURES["worst-case-pml"] = [
    # counting query: worst-case utility vs eps (utility-safe, exponential, randomized response)
    "fig1",
    # optimality of the utility-safe mechanism: eps_US(k) vs the LP optimum eps*(k)
    "fig2",
    "fig3",
]
