# Paper empirical-pml: figures go through the generic rules of figures.smk.
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
