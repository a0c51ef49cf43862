# Paper worst-case-pml: figures go through the generic rules of figures.smk.
FIGURES["worst-case-pml"] = [
    # counting query: worst-case utility vs eps (utility-safe, exponential, randomized response)
    "fig1",
    # optimality of the utility-safe mechanism: eps_US(k) vs the LP optimum eps*(k)
    "fig2",
    "fig3",
]
