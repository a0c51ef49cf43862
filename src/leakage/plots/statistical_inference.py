"""statistical-inference figures, drawn only from their tables."""

from __future__ import annotations

from leakage.plots.style import color, new_figure

LABELS = {
    "average_leakage": "minimum average leakage $I(S;U)$ (Thm. 1)",
    "maximum_leakage": r"minmax leakage $\max_u H(S)-H(S|U=u)$ (Thm. 2)",
    "geometric_dp": r"truncated geometric $\epsilon$-DP mechanism, $I(S;U)$",
}
MARKERS = {"average_leakage": "o", "maximum_leakage": "s", "geometric_dp": "^"}


def draw_fig1(table, settings):
    """Leakage (nats) vs the distortion budget E(Y-U)^2 on the counting query."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    for method in ("average_leakage", "maximum_leakage", "geometric_dp"):
        t = table[table["method"] == method].sort_values("distortion")
        if t.empty:
            continue
        ax.plot(t["distortion"], t["leakage"], marker=MARKERS[method], markersize=3, markevery=5,
                color=color(method), label=LABELS[method])
    n, p = table["n"].iloc[0], table["p"].iloc[0]
    ax.set_xlabel(r"distortion budget $\Delta$ in $E[(Y-U)^2] \leq \Delta$ (counts$^2$)")
    ax.set_ylabel("information leakage (nats)")
    ax.set_title(f"Counting query, n = {n}, p = {p:g}")
    ax.set_ylim(bottom=0)
    ax.legend()
    return fig


def draw_fig2(table, settings):
    """Theorem 4: lower bound and exact I(Y;U) (nats) vs n, log axis for n."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    t = table.sort_values("n")
    ax.plot(t["n"], t["mi_exact"], marker="o", markersize=3, color=color("exact"),
            label=r"exact $I(Y;U)$, truncated geometric")
    ax.plot(t["n"], t["mi_lower_bound"], marker="s", markersize=3, linestyle="--", color=color("bound"),
            label=r"bound $(1-e^{-k\epsilon/2})\log(1+n/k)-\log 2$")
    ax.set_xscale("log")
    ax.set_xlabel("database size n (log scale)")
    ax.set_ylabel("average information leakage (nats)")
    eps, k = t["eps"].iloc[0], t["k"].iloc[0]
    ax.set_title(rf"Theorem 4: $\epsilon$-DP with $\epsilon$ = {eps:g}, comb prior (45), k = {k}")
    ax.legend()
    return fig


PLOTS = {"fig1": draw_fig1, "fig2": draw_fig2}
