"""Plots of the study adult-design (beyond the papers): one drawing per figure table.

The panels of a figure share one legend, below them, so that no legend covers data. Colours, labels
and markers of the methods come from :mod:`leakage.plots.style`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D

from leakage.plots.style import color as _c
from leakage.plots.style import label as _l
from leakage.plots.style import marker as _m
from leakage.plots.style import new_figure

#: Drawing order: the study's main method (pml) last, so that it lies on top of the others.
_MAIN = "pml"


def _methods(part):
    """The methods of a table part, the main one last (drawn on top)."""
    methods = list(dict.fromkeys(part["method"]))
    return [m for m in methods if m != _MAIN] + [m for m in methods if m == _MAIN]


def _panels(n):
    ncols = min(n, 3)
    nrows = int(np.ceil(n / ncols))
    fig, axes = new_figure(ncols=ncols, nrows=nrows, layout="constrained")
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat


def _attribute_panels(table):
    """One panel per attribute (in table order): the figure and (axis, attribute, its rows)."""
    attributes = list(dict.fromkeys(table["attribute"]))
    fig, axes = _panels(len(attributes))
    return fig, [(ax, a, table[table["attribute"] == a]) for ax, a in zip(axes, attributes)]


def _shared_legend(fig, handles=None, ncols=4):
    """One legend for all panels, below them (outside the data)."""
    if handles is None:
        seen = {}
        for ax in fig.axes:
            for h, text in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(text, h)
        handles = [(h, t) for t, h in seen.items()]
    fig.legend([h for h, _ in handles], [t for _, t in handles], loc="outside lower center", ncols=ncols,
               frameon=False)


def _wrap(parts, width=48):
    """``parts`` joined by commas, in lines of at most about ``width`` characters."""
    lines, line = [], ""
    for part in parts:
        if line and len(line) + len(part) + 2 > width:
            lines.append(line + ",")
            line = part
        else:
            line = f"{line}, {part}" if line else part
    return "\n".join(lines + [line])


def _note(ax, title, text):
    """The panel's title with a note under it (what the panel does not show), outside the data."""
    ax.set_title(f"{title}\n{text}", fontsize="medium")


def fig1(table, settings):
    """Exact I(X;Y) of the design from m records (line) beside the plug-in estimate (67) of it from the
    m released records (markers, mean +- std over the iterations)."""
    fig, panels = _attribute_panels(table)
    for ax, attribute, part in panels:
        for z, method in enumerate(_methods(part)):
            g = part[part["method"] == method].sort_values("m")
            main = method == _MAIN
            ax.plot(g["m"], g["mi_exact_mean"], color=_c(method), lw=2.2 if main else 1.3, zorder=3 + z,
                    label=f"{_l(method)}")
            ax.errorbar(g["m"], g["mi_mean"], yerr=g["mi_std"], ls="none", marker=_m(method), ms=4, capsize=2,
                        color=_c(method), mfc="none", zorder=3 + z)
        ax.set_xscale("log")
        ax.set_xlabel("records m")
        ax.set_ylabel("I(X;Y) [nats]")
        ax.set_title(f"{attribute}, eps = {part['eps'].iloc[0]:g}")
    handles = [(Line2D([], [], color=_c(m), marker=_m(m), mfc="none"), _l(m)) for m in _methods(table)]
    handles += [(Line2D([], [], color="0.2"), "line: exact I(X;Y) of the design"),
                (Line2D([], [], color="0.2", ls="none", marker="o", mfc="none"),
                 "markers: plug-in estimate (67), mean ± std")]
    _shared_legend(fig, handles, ncols=3)
    return fig


def fig2(table, settings):
    """Exact I(X;Y) under P̂ against eps; the main method (pml) drawn last, thickest."""
    fig, panels = _attribute_panels(table)
    styles = {"pml": "-", "pml_prop2": "--", "ldp": "-.", "rr": ":"}
    for ax, attribute, part in panels:
        for z, method in enumerate(_methods(part)):
            g = part[part["method"] == method].sort_values("eps")
            main = method == _MAIN
            ax.plot(g["eps"], g["mi"], ls=styles.get(method, "-"), marker=_m(method), ms=4 if main else 7,
                    mfc="none" if not main else _c(method), lw=2.4 if main else 1.3, color=_c(method),
                    zorder=3 + z, label=_l(method))
        ax.set_xscale("log")
        ax.set_xlabel("eps [nats]")
        ax.set_ylabel("I(X;Y) under P̂ [nats]")
        ax.set_title(attribute)
    _shared_legend(fig)
    return fig


def fig3(table, settings):
    """The channels P(y|x) as heatmaps: rows are the true categories, columns the outputs of the
    design, which are labels without meaning (an MI-optimal channel may merge categories), numbered."""
    methods = list(dict.fromkeys(table["method"]))
    fig, axes = new_figure(ncols=len(methods), figsize=(5.0 * len(methods), 5.0), layout="constrained")
    vmax = float(table["probability"].max())
    for ax, method in zip(axes[0], methods):
        part = table[table["method"] == method]
        n_x, n_y = int(part["x"].max()) + 1, int(part["y"].max()) + 1
        grid = np.zeros((n_x, n_y))
        grid[part["x"].to_numpy(int), part["y"].to_numpy(int)] = part["probability"].to_numpy(float)
        names_x = part.drop_duplicates("x").sort_values("x")["x_category"].tolist()
        im = ax.imshow(grid, vmin=0.0, vmax=vmax, cmap="viridis", aspect="auto")
        step = max(1, n_y // 8)
        ax.set_xticks(range(0, n_y, step), [str(y) for y in range(0, n_y, step)])
        ax.set_yticks(range(n_x), names_x)
        ax.set_xlabel("output y (a label, not a category)")
        if ax is axes[0][0]:
            ax.set_ylabel("true category x")
        ax.set_title(f"{_l(method)}: {part['attribute'].iloc[0]}, eps = {part['eps'].iloc[0]:g}")
        ax.grid(False)
    fig.colorbar(im, ax=list(axes[0]), label="P(y|x)", fraction=0.046, pad=0.02)
    return fig


def fig4(table, settings):
    """The exact optimum on B_beta(P̂) and route (44), mean +- std over the draws of m records."""
    fig, panels = _attribute_panels(table)
    for ax, attribute, part in panels:
        g = part.sort_values("m")
        ax.errorbar(g["m"], g["mi_prop2"], yerr=g["mi_prop2_std"], marker=_m("pml_prop2"), ms=7, mfc="none", capsize=2, ls="--",
                    color=_c("pml_prop2"), label=_l("pml_prop2"), zorder=3)
        ax.errorbar(g["m"], g["mi_exact"], yerr=g["mi_exact_std"], marker=_m("pml"), ms=4, capsize=2, lw=2,
                    color=_c("pml"), label="PML, exact optimum on B_beta(P̂)", zorder=4)
        ax.set_xscale("log")
        ax.set_xlabel("records m")
        ax.set_ylabel("I(X;Y) under P̂ [nats]")
        ax.set_title(f"{attribute}, eps = {g['eps'].iloc[0]:g}")
        empty = g[g["prop2_feasible"].astype(float) < 1.0] if "prop2_feasible" in g else g.iloc[:0]
        if len(empty):
            _note(ax, ax.get_title(), f"route (44) empty (eps' < 0, MI 0) in some draws at m <= {int(empty['m'].max())}")
    _shared_legend(fig, ncols=2)
    return fig


def fig5(table, settings):
    """Empirical MSE of the histogram (markers and line) and its formula (dotted), per method; a note
    names the methods absent from a panel (a design that merges categories cannot be decoded)."""
    fig, panels = _attribute_panels(table)
    everyone = _methods(table)
    for ax, attribute, part in panels:
        all_eps = sorted(set(table["eps"].astype(float)))
        missing = {}
        for z, method in enumerate(_methods(part)):
            g = part[part["method"] == method].sort_values("eps")
            g = g[np.isfinite(g["mse"].astype(float))]
            lacking = [e for e in all_eps if not np.isclose(g["eps"].astype(float), e).any()]
            if lacking:
                missing[method] = lacking
            if g.empty:
                continue
            ax.plot(g["eps"], g["mse"], marker=_m(method), ms=5, mfc="none", color=_c(method), zorder=3 + z,
                    label=_l(method))
            ax.plot(g["eps"], g["mse_theory"], ls=":", color=_c(method), zorder=2)
            if "mse_bound" in g and g["mse_bound"].notna().any():  # a design's certified lower bound
                bounded = g[g["mse_bound"].astype(float) > 0]
                ax.plot(bounded["eps"], bounded["mse_bound"], ls="none", marker="_", ms=10, mew=1.5,
                        color=_c(method), zorder=3 + z)
                unc = g[g["certified"].astype(str).str.lower() == "false"]
                ax.plot(unc["eps"], unc["mse_theory"], ls="none", marker="x", ms=7, color=_c(method), zorder=3 + z)
        ax.set_yscale("log")
        ax.set_xlabel("eps [nats]")
        ax.set_ylabel("MSE of the histogram")
        ax.set_title(f"{attribute}, m = {int(part['m'].iloc[0])}")
        for method in everyone:
            if method not in set(part["method"]):
                missing[method] = all_eps
        if missing:
            parts = [_l(m) + ("" if len(e) == len(all_eps) else " (eps " + ", ".join(f"{x:g}" for x in e) + ")")
                     for m, e in missing.items()]
            _note(ax, ax.get_title(), "no estimate (design merges categories):\n" + _wrap(parts))
    handles = [(Line2D([], [], color=_c(m), marker=_m(m), mfc="none"), _l(m)) for m in everyone]
    handles.append((Line2D([], [], color="0.2", ls=":"), "dotted: the MSE formula"))
    if "mse_bound" in table:
        handles.append((Line2D([], [], color="0.2", ls="none", marker="_", ms=10, mew=1.5),
                        "a design's certified lower bound"))
        handles.append((Line2D([], [], color="0.2", ls="none", marker="x"), "x: design not certified"))
    _shared_legend(fig, handles, ncols=4)
    return fig


def fig6(table, settings):
    methods = list(dict.fromkeys(table["method"]))
    fig, axes = new_figure(ncols=len(methods), figsize=(5.5 * len(methods), 4.8), layout="constrained")
    for ax, method in zip(axes[0], methods):
        part = table[table["method"] == method]
        x = np.arange(len(part))
        ax.bar(x, part["true_frequency"], color="#cccccc", label="truth")
        err = np.vstack([part["estimate"] - part["lower"], part["upper"] - part["estimate"]])
        ax.errorbar(x, part["estimate"], yerr=err, fmt="o", ms=3, color=_c(method), label="estimate, 95 % interval")
        ax.set_xticks(x, part["category"], rotation=90)
        ax.set_ylabel("frequency")
        ax.set_title(f"{_l(method)}: {part['attribute'].iloc[0]}, eps = {part['eps'].iloc[0]:g}")
        ax.legend(loc="upper right")
    return fig


PLOTS = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig5": fig5, "fig6": fig6}
