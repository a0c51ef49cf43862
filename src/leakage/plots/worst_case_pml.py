"""worst-case-pml figures, drawn from their tidy tables only."""

from __future__ import annotations

from leakage.plots.style import color, label, new_figure

_MARKERS = {"utility_safe": "o", "exponential": "s", "randomized_response": "^"}
_MC_STYLE = {"utility_safe": "-", "exponential": "--", "randomized_response": ":"}


def draw_fig1(table, settings):
    """Minimum utility against eps: Monte Carlo minimum (markers) and exact worst case (steps)."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    for name in ("utility_safe", "exponential", "randomized_response"):
        t = table[table.mechanism == name].sort_values("eps")
        if t.empty:
            continue
        ax.plot(
            t.eps, t.min_utility_mc, _MC_STYLE[name], marker=_MARKERS[name], markersize=3,
            markevery=4, color=color(name), label=f"{label(name)} (Monte Carlo)",
        )
        ax.step(
            t.eps, t.min_utility_exact, where="post", color=color(name), alpha=0.35, linewidth=3,
            label=f"{label(name)} (exact)",
        )
    ax.set_xlabel(r"PML level $\varepsilon$ (nats)")
    ax.set_ylabel(r"worst-case utility $\min\, u(x, y)$")
    ax.set_title("counting query, n = %d" % int(settings["n_records"]))
    ax.set_ylim(top=max(0.0, float(table.min_utility_mc.max())) + 2)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=2, frameon=False)
    return fig


def _draw_optimality(table, settings):
    ks = sorted(table.k.unique())
    fig, axes = new_figure(ncols=len(ks))
    for ax, k in zip(axes[0], ks):
        t = table[table.k == k].sort_values("p_low")
        ax.plot(t.p_low, t.eps_utility_safe, "-", color=color("utility_safe"),
                label=r"utility-safe $\varepsilon_{US}(k)$ (Cor. 1)")
        ax.plot(t.p_low, t.eps_optimal, "--", color=color("optimal"),
                label=r"optimal $\varepsilon^*(k)$ (LP)")
        ax.set_xlabel(r"low prior probability $p_{low}$")
        ax.set_ylabel(r"minimal PML level $\varepsilon$ (nats)")
        ax.set_title(f"{str(t.pattern.iloc[0]).replace('_', '-')}, k = {int(k)}")
        ax.legend()
    return fig


PLOTS = {"fig1": draw_fig1, "fig2": _draw_optimality, "fig3": _draw_optimality}
