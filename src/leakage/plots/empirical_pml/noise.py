"""Plots of empirical-pml fig4, fig5 (Laplace on Adult) and fig6, fig7 (Gaussian vs pLDP)."""

from __future__ import annotations

import matplotlib.pyplot as plt

from leakage.plots.style import color, label, new_figure

_LINESTYLES = ["-", "--", ":", "-."]
_MARKERS = ["o", "s", "^", "D", "v"]


def _mi_axes(ax, feature):
    ax.set_xscale("log")
    ax.set_xlabel("number of samples m")
    ax.set_ylabel("empirical mutual information Î(X;Y) [nats]")
    ax.set_title(f"feature: {feature}")


def _band(ax, g, **kwargs):
    g = g.sort_values("m")
    line = ax.plot(g.m, g.mi_mean, markersize=3.5, **kwargs)[0]
    ax.fill_between(g.m, g.mi_mean - g.mi_std, g.mi_mean + g.mi_std, color=line.get_color(), alpha=0.12, lw=0)


def draw_fig4(table, settings):
    features = list(dict.fromkeys(table.feature))
    fig, axes = new_figure(ncols=len(features), sharey=False)
    eps_values = sorted(table.eps.unique())
    for ax, feature in zip(axes[0], features):
        t = table[table.feature == feature]
        for i, eps in enumerate(eps_values):
            for method in ("pml", "ldp"):
                g = t[(t.eps == eps) & (t.method == method)]
                delta = g.delta.iloc[0]
                name = f"{label(method)}, ε={eps:g}" + (f", δ={delta:.0e}" if method == "pml" else "")
                _band(ax, g, color=color(method), ls=_LINESTYLES[i % 4], marker=_MARKERS[i % 5], label=name)
        _mi_axes(ax, feature)
        ax.legend(ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    fig.suptitle("Laplace mechanism on Adult: PML (b from (50)) vs LDP (b = 2/ε); mean ± std over iterations", y=1.03)
    return fig


def draw_fig5(table, settings):
    features = list(dict.fromkeys(table.feature))
    fig, axes = new_figure(ncols=len(features), sharey=False)
    deltas = sorted(table[table.method == "pml"].delta.unique(), reverse=True)
    blues = plt.get_cmap("Blues")
    for ax, feature in zip(axes[0], features):
        t = table[table.feature == feature]
        for i, delta in enumerate(deltas):
            g = t[(t.method == "pml") & (t.delta == delta)]
            shade = blues(0.95 - 0.5 * i / max(1, len(deltas) - 1))
            _band(ax, g, color=shade, ls="-", marker=_MARKERS[i % 5], label=f"{label('pml')}, δ={delta:.0e}")
        g = t[t.method == "ldp"]
        _band(ax, g, color=color("ldp"), ls="--", marker="x", label=f"{label('ldp')} (δ=0)")
        _mi_axes(ax, feature)
        ax.legend(loc="best")
    eps = table.eps.iloc[0]
    fig.suptitle(f"Laplace mechanism on Adult, ε = {eps:.4g} nats (log 2): effect of δ; mean ± std over iterations", y=1.03)
    return fig


def _draw_gauss(table, settings, title):
    panels = list(dict.fromkeys(table.panel))
    fig, axes = new_figure(ncols=len(panels), sharey=True)
    blues = plt.get_cmap("Blues")
    xmax = float(table[table.method == "pldp"].eps_star.max())
    delta2 = settings.get("delta2")
    for ax, panel in zip(axes[0], panels):
        t = table[table.panel == panel]
        ms = sorted(t[t.method == "pml"].m.dropna().unique())
        stops = []
        for i, m in enumerate(ms):
            g = t[(t.method == "pml") & (t.m == m)].sort_values("eps_star")
            g = g[g.eps_star <= xmax]
            shade = blues(0.4 + 0.55 * i / max(1, len(ms) - 1))
            ax.plot(g.eps_star, g.delta_star, color=shade, label=f"{label('pml')}, m = {int(m):.0e}".replace("e+0", "e"))
            if len(g) and float(g.eps_star.iloc[-1]) < 0.97 * xmax:
                stops.append((float(g.eps_star.iloc[-1]), float(g.delta_star.iloc[-1])))
        g = t[t.method == "pldp"].sort_values("eps_star")
        ax.plot(g.eps_star, g.delta_star, color=color("pldp"), ls="--", label=label("pldp"))
        if delta2:
            ax.axhline(delta2, color="0.4", lw=0.8, ls=":", label=f"δ₂ = {delta2:g}")
        if stops:
            ax.plot(*zip(*stops), ls="none", marker="|", ms=10, mew=2, color="0.2",
                    label="curve ends: beyond it β e^ε ≥ 2 (no PML guarantee)")
        ax.set_yscale("log")
        ax.set_xlim(0, xmax)
        low = min(float(t[t.method == 'pml'].delta_star.min()), delta2 or 1.0)
        ax.set_ylim(max(1e-12, 0.01 * low), 1.5)
        sigma, p_hat = t.sigma.iloc[0], t.p_hat.iloc[0]
        tag = f"({panel}) " if len(panels) > 1 else ""
        ax.set_title(f"{tag}σ = {sigma:g}, " + r"$\hat{P}_X$" + f" = ({p_hat:g}, {1 - p_hat:g})")
        ax.set_xlabel("ε* [nats]")
        ax.set_ylabel("δ* (probability of failure)")
    entries = {}
    for ax in axes[0]:
        for h, text in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(text, h)
    fig.legend(list(entries.values()), list(entries), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=2 * len(panels),
               frameon=False)
    fig.tight_layout()
    fig.suptitle(title, y=1.03)
    return fig


def draw_fig6(table, settings):
    return _draw_gauss(table, settings, "Gaussian mechanism: (ε*, δ*)-PML from an estimate vs (ε, δ)-pLDP")


def draw_fig7(table, settings):
    return _draw_gauss(table, settings, "Gaussian mechanism, skewed estimate: (ε*, δ*)-PML vs (ε, δ)-pLDP")


PLOTS = {"fig4": draw_fig4, "fig5": draw_fig5, "fig6": draw_fig6, "fig7": draw_fig7}
