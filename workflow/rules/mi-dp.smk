# Paper mi-dp [mi-dp, Cuff & Yu]: figures go through the generic rules of figures.smk.
FIGURES["mi-dp"] = [
    # Lemma 1's sandwich on binary randomized response: eps-DP, KL bound, exact MI-DP
    "fig1",
    # Lemma 2: the (0, delta)-DP implied by eps-MI-DP, tight and relaxed
    "fig2",
]
