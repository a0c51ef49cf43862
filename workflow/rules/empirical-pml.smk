# Paper empirical-pml: Grosse, Saeidian, Oechtering, Skoglund, privacy mechanism design based on
# empirical distributions. Contract of each figure: docs/figures.md#empirical-pml.
#
# figure  table: leakage.experiments.empirical_pml.  plot: leakage.plots.empirical_pml.  reproduces
# fig2a   bounds.fig2a                               bounds.fig2a                         Theorem 4 bound (32) vs the true leakage increase, Example 1
# fig2b   bounds.fig2b                               bounds.fig2b                         the same for Example 2 (k-singular mechanism (35))
# fig3a   bounds.fig3a                               bounds.fig3a                         Corollary 3: delta_min vs eps' for m samples
# fig3b   bounds.fig3b                               bounds.fig3b                         eq. (38): eps'(delta) vs the number of samples m
# fig4    noise.fig4                                 noise.draw_fig4                      Adult, Laplace: empirical MI (67), PML scale (50) vs LDP
# fig5    noise.fig5                                 noise.draw_fig5                      Adult, Laplace: the effect of delta
# fig6    noise.fig6                                 noise.draw_fig6                      Gaussian (eps*, delta*) curves (64)-(65) vs pLDP (70)
# fig7    noise.fig7                                 noise.draw_fig7                      the same for a skewed estimate
#
# Every figure goes through the stage rules of figures.smk; each job's code inputs are the modules
# its figure imports (workflow/lib/code_graph.py): bounds and noise rerun separately.
FIGURES["empirical-pml"] = [
    # leakage sensitivity on l1-balls, (eps, delta) trade-off of estimation
    "fig2a",
    "fig2b",
    "fig3a",
    "fig3b",
    # additive noise: Laplace on Adult, Gaussian vs pLDP
    "fig4",
    "fig5",
    "fig6",
    "fig7",
]

# The Adult experiments read the verified data table.
FIGURE_INPUTS[("empirical-pml", "fig4")] = {"adult": "results/data/adult.csv"}
FIGURE_INPUTS[("empirical-pml", "fig5")] = {"adult": "results/data/adult.csv"}
