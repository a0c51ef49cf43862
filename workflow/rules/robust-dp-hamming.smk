# Paper robust-dp-hamming: figures registered here go through the generic rules of
# figures.smk. The source sets (Tables I-IV, the fig1 examples) are data, an input of every table.
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
