"""worst-case-pml figures, drawn from their tidy tables only."""

from __future__ import annotations

from leakage.plots.style import color, label, new_figure

from leakage.plots.style import marker

#: The exact worst cases of the exponential mechanism and randomized response coincide (both at the
#: global minimum for every eps < eps_max): line styles keep them apart.
_EXACT_STYLE = {"utility_safe": "-", "exponential": "--", "randomized_response": ":"}


def draw_fig1(table, settings):
    """Worst-case utility against eps: the exact worst case as lines (steps), the Monte Carlo minimum
    over ``repetitions`` draws as markers. A minimum over finitely many draws lies on or above the
    exact worst case: it estimates it, it is not a better utility."""
    fig, axes = new_figure(figsize=(6.0, 4.4))
    ax = axes[0, 0]
    draws = int(settings["repetitions"])
    for name in ("utility_safe", "exponential", "randomized_response"):
        t = table[table.mechanism == name].sort_values("eps")
        if t.empty:
            continue
        ax.step(t.eps, t.min_utility_exact, where="post", color=color(name), ls=_EXACT_STYLE[name],
                lw=2.2 if name == "utility_safe" else 1.8, label=f"{label(name)}: exact worst case", zorder=3)
        ax.plot(t.eps, t.min_utility_mc, ls="none", marker=marker(name), ms=3.5, mfc="none", mew=0.8,
                color=color(name), label=f"{label(name)}: min over {draws} draws (Monte Carlo)", zorder=2)
    floor = float(table.min_utility_exact.min())
    others = table[table.mechanism != "utility_safe"]
    if len(others) and (others.min_utility_exact == floor).all():
        ax.annotate(f"exponential and randomized response: exact worst case = {floor:g} for every eps",
                    (0.98, 0.04), xycoords="axes fraction", ha="right", va="bottom", fontsize="small")
    ax.set_xlabel(r"PML level $\varepsilon$ (nats)")
    ax.set_ylabel(r"worst-case utility $\min\, u(x, y)$")
    ax.set_title("counting query, n = %d" % int(settings["n_records"]))
    ax.set_ylim(floor - 0.08 * abs(floor) - 4, max(0.0, float(table.min_utility_mc.max())) + 2)
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
