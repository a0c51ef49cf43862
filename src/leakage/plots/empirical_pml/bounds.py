"""Plots of empirical-pml fig2a, fig2b (Fig. 2), fig3a, fig3b (Fig. 3), drawn from their tables."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps

from leakage.plots.style import color, new_figure

#: Legend text of the fig2 series (the paper calls the sampled values "true").
SERIES_LABELS = {
    "sample": r"true $D_\infty(P_Y\,\|\,Q_Y)$, random $Q_X$",
    "bound": "bound (32), Theorem 4",
    "exact": r"exact sup over the ball $\mathcal{B}_\beta(P_X)$",
}


def _draw_fig2(table, settings, title):
    fig, axes = new_figure()
    ax = axes[0, 0]
    sample = table[table["series"] == "sample"]
    ax.scatter(
        sample["beta"], sample["leakage_increase"], s=2, alpha=0.25, color=color("sample"),
        linewidths=0, label=SERIES_LABELS["sample"], rasterized=True,
    )
    for series, style in (("bound", "-"), ("exact", "--")):
        part = table[table["series"] == series].sort_values("beta")
        ax.plot(part["beta"], part["leakage_increase"], style, color=color(series), label=SERIES_LABELS[series])
    ax.set_xlabel(r"$\ell_1$ distance $\beta = \|P_X - Q_X\|_1$")
    ax.set_ylabel("leakage increase [nats]")
    ax.set_xlim(0, table["beta"].max() * 1.02)
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.legend(loc="upper left", markerscale=4)
    return fig


def fig2a(table, settings):
    eps = settings["eps"]
    return _draw_fig2(table, settings, rf"Example 1: mechanism (34), $\varepsilon$ = {eps:.3f} nats")


def fig2b(table, settings):
    n, k, eps = settings["n_symbols"], settings["k"], settings["eps"]
    return _draw_fig2(
        table, settings, rf"Example 2: {k}-singular mechanism, N = {n}, $\varepsilon$ = {eps:.3f} nats"
    )


def _shades(count):
    cmap = colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.0, 0.85, max(count, 1))]


def fig3a(table, settings):
    fig, axes = new_figure()
    ax = axes[0, 0]
    eps = settings["eps"]
    ms = sorted(table["m"].unique())
    floor = 1e-16
    for m, shade in zip(ms, _shades(len(ms))):
        part = table[table["m"] == m].sort_values("eps_prime")
        # values below the axis (down to 0 after underflow) run off its bottom edge
        ax.plot(
            part["eps_prime"] - eps, np.maximum(part["delta_min"], floor / 10), color=shade,
            label=f"m = {m:.0e}".replace("e+0", "e"),
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(floor, 3.0)
    ax.set_xlabel(r"leakage increase $\varepsilon' - \varepsilon$ [nats]")
    ax.set_ylabel(r"$\delta_{\min}(\varepsilon')$, Corollary 3")
    n = settings["n_symbols"]
    ax.set_title(rf"N = {n}, $\varepsilon$ = {eps:.3f} nats (log {np.exp(eps):.0f}); $\delta_{{\min}}$ capped at 1")
    ax.legend(loc="lower left")
    return fig


def fig3b(table, settings):
    fig, axes = new_figure()
    ax = axes[0, 0]
    values = sorted(table["eps"].unique())
    m_min = float(table["m"].min())
    starts = []
    for eps, shade in zip(values, _shades(len(values))):
        part = table[table["eps"] == eps].sort_values("m")
        ax.plot(part["m"], part["eps_prime"], color=shade, label=rf"$\varepsilon$ = {eps:.3f} (log {np.exp(eps):.0f})")
        ax.axhline(eps, color=shade, ls="--", lw=1)
        if len(part) and float(part["m"].iloc[0]) > 1.01 * m_min:
            starts.append((float(part["m"].iloc[0]), float(part["eps_prime"].iloc[0])))
    if starts:
        ax.plot(*zip(*starts), ls="none", marker="|", ms=10, mew=2, color="0.2",
                label=r"curve starts: below this m, $\beta^*(\delta)e^\varepsilon \geq 2$ (no bound)")
    ax.set_xscale("log")
    ax.set_xlabel("number of samples m")
    ax.set_ylabel(r"$\varepsilon'(\delta)$ [nats], eq. (38)")
    delta, n = settings["delta"], settings["n_symbols"]
    ax.set_title(rf"N = {n}, $\delta$ = {delta:g}; dashed: $\varepsilon$ for the estimate")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2, frameon=False)
    return fig


PLOTS = {"fig2a": fig2a, "fig2b": fig2b, "fig3a": fig3a, "fig3b": fig3b}
