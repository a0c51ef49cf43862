"""Plots of mi-dp fig1 (Lemma 1's sandwich) and fig2 (Lemma 2), drawn from the tables."""

from __future__ import annotations

import numpy as np

from leakage.plots.style import color, new_figure

#: measure -> (legend label, line style); the papers' names for the levels.
FIG1_SERIES = {
    "eps_dp": (r"$\epsilon$-DP level $\epsilon$", dict(color=color("eps_dp"), ls="-")),
    "kl_relaxed": (r"Property 1 relaxed: $\epsilon^2/2$", dict(color=color("kl_relaxed"), ls=":")),
    "kl_bound": (r"KL-DP bound $\epsilon\tanh(\epsilon/2)$ (Property 1)", dict(color=color("kl_bound"), ls="-")),
    "kl_exact": (
        "max KL between the two rows (exact)",
        dict(color=color("kl_exact"), ls="none", marker="o", ms=3, mfc="none", markevery=3),
    ),
    "mi_dp_exact": ("MI-DP level = capacity (exact)", dict(color=color("mi_dp_exact"), ls="-")),
}


def fig1(table, settings):
    fig, axes = new_figure()
    ax = axes[0, 0]
    for measure, (text, style) in FIG1_SERIES.items():
        part = table[table["measure"] == measure].sort_values("eps")
        if len(part):
            ax.plot(part["eps"], part["value"], label=text, **style)
    eps_max = float(table["eps"].max())
    ax.set_xlim(0, eps_max)
    ax.set_ylim(0, eps_max * 1.05)
    ax.set_xlabel(r"DP parameter $\epsilon$ of randomized response (nats)")
    ax.set_ylabel("privacy level (nats)")
    ax.set_title(r"Lemma 1: $\epsilon$-DP $\Rightarrow$ KL-DP $\Rightarrow$ MI-DP (binary randomized response)")
    ax.legend(loc="upper left")
    return fig


def fig2(table, settings):
    fig, axes = new_figure()
    ax = axes[0, 0]
    t = table.sort_values("eps_mi")
    eps, tight, relaxed = (t[c].to_numpy(dtype=float) for c in ("eps_mi", "delta_tight", "delta_relaxed"))
    ax.plot(eps, tight, color=color("exact"), label=r"tight (28): $1 - 2h^{-1}(\log 2 - \epsilon)$")
    informative = relaxed < 1.0
    ax.plot(eps[informative], relaxed[informative], color=color("bound"), ls="--", label=r"relaxed (27): $\sqrt{2\epsilon}$")
    if np.any(~informative):
        ax.plot(
            eps[~informative],
            np.ones(int((~informative).sum())),
            color=color("bound"),
            ls=":",
            label=r"relaxed, vacuous ($\sqrt{2\epsilon} \geq 1$, clipped at 1)",
        )
    ax.set_xlim(0, float(eps.max()))
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(r"MI-DP parameter $\epsilon$ (nats)")
    ax.set_ylabel(r"implied $\delta$ of $(0,\delta)$-DP (probability)")
    ax.set_title(r"Lemma 2: $\epsilon$-MI-DP $\Rightarrow$ $(0,\delta)$-DP")
    ax.legend(loc="lower right")
    return fig


PLOTS = {"fig1": fig1, "fig2": fig2}
