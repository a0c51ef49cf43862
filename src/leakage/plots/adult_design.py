"""Plots of the study adult-design (beyond the papers): one drawing per figure table."""

from __future__ import annotations

import numpy as np

from leakage.plots.style import color, label, new_figure

#: Colours and labels of the study's methods (the shared ones for pml and ldp).
_COLORS = {"pml_prop2": "#17becf", "rr": "#9467bd", "pml_mse": "#d62728", "ldp_mse": "#2ca02c", "oue": "#8c564b", "ss": "#bcbd22",
           "olh": "#e377c2"}
_LABELS = {"pml_prop2": "PML, route (44)", "rr": "randomized response", "pml_mse": "PML, MSE-optimal",
           "ldp_mse": "LDP, MSE-optimal", "oue": "OUE", "olh": "OLH", "ss": "SS"}


def _c(method):
    return _COLORS.get(method) or color(method)


def _l(method):
    return _LABELS.get(method) or label(method)


def _panels(n):
    ncols = min(n, 4)
    nrows = int(np.ceil(n / ncols))
    fig, axes = new_figure(ncols=ncols, nrows=nrows)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat


def _attribute_panels(table):
    """One panel per attribute (in table order): the figure and (axis, attribute, its rows)."""
    attributes = list(dict.fromkeys(table["attribute"]))
    fig, axes = _panels(len(attributes))
    return fig, [(ax, a, table[table["attribute"] == a]) for ax, a in zip(axes, attributes)]


def fig1(table, settings):
    fig, panels = _attribute_panels(table)
    for ax, attribute, part in panels:
        for method, g in part.groupby("method", sort=False):
            g = g.sort_values("m")
            ax.errorbar(g["m"], g["mi_mean"], yerr=g["mi_std"], marker="o", ms=3, capsize=2,
                        color=_c(method), label=_l(method))  # fmt: skip
        ax.set_xscale("log")
        ax.set_xlabel("records m")
        ax.set_ylabel("empirical MI (67) [nats]")
        ax.set_title(f"{attribute}, eps = {part['eps'].iloc[0]:g}")
        ax.legend()
    fig.tight_layout()
    return fig


def fig2(table, settings):
    fig, panels = _attribute_panels(table)
    for ax, attribute, part in panels:
        for method, g in part.groupby("method", sort=False):
            g = g.sort_values("eps")
            ax.plot(g["eps"], g["mi"], marker=".", color=_c(method), label=_l(method))
        ax.set_xlabel("eps [nats]")
        ax.set_ylabel("I(X;Y) under P̂ [nats]")
        ax.set_title(attribute)
        ax.legend()
    fig.tight_layout()
    return fig


def fig3(table, settings):
    methods = list(dict.fromkeys(table["method"]))
    fig, axes = new_figure(ncols=len(methods), figsize=(6.5 * len(methods), 5.5))
    for ax, method in zip(axes[0], methods):
        part = table[table["method"] == method]
        n_x, n_y = int(part["x"].max()) + 1, int(part["y"].max()) + 1
        grid = np.zeros((n_x, n_y))
        grid[part["x"].to_numpy(int), part["y"].to_numpy(int)] = part["probability"].to_numpy(float)
        names_x = part.drop_duplicates("x").sort_values("x")["x_category"].tolist()
        names_y = part.drop_duplicates("y").sort_values("y")["y_category"].tolist()
        im = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
        ax.set_xticks(range(n_y), names_y, rotation=90, fontsize=6)
        ax.set_yticks(range(n_x), names_x, fontsize=6)
        ax.set_xlabel("released category y")
        if ax is axes[0][0]:
            ax.set_ylabel("true category x")
        ax.set_title(f"{_l(method)}: {part['attribute'].iloc[0]}, eps = {part['eps'].iloc[0]:g}")
        ax.grid(False)
        fig.colorbar(im, ax=ax, label="P(y|x)", fraction=0.046, pad=0.02)
    fig.tight_layout()
    return fig


def fig4(table, settings):
    fig, panels = _attribute_panels(table)
    for ax, attribute, part in panels:
        g = part.sort_values("m")
        ax.plot(g["m"], g["mi_exact"], marker="o", ms=3, color=_c("pml"), label="exact optimum on B_beta(P̂)")
        ax.plot(g["m"], g["mi_prop2"], marker="s", ms=3, color=_c("pml_prop2"), label=_l("pml_prop2"))
        ax.set_xscale("log")
        ax.set_xlabel("records m")
        ax.set_ylabel("I(X;Y) under P̂ [nats]")
        ax.set_title(f"{attribute}, eps = {g['eps'].iloc[0]:g}")
        ax.legend()
    fig.tight_layout()
    return fig


def fig5(table, settings):
    fig, panels = _attribute_panels(table)
    for ax, attribute, part in panels:
        for method, g in part.groupby("method", sort=False):
            g = g.sort_values("eps")
            ax.plot(g["eps"], g["mse"], marker="o", ms=3, color=_c(method), label=_l(method))
            ax.plot(g["eps"], g["mse_theory"], ls=":", color=_c(method))
            if "mse_bound" in g and g["mse_bound"].notna().any():  # the engine's lower bound; x: uncertified
                ax.plot(g["eps"], g["mse_bound"].where(g["mse_bound"] > 0), ls="none", marker="_", ms=9,
                        color=_c(method))
                unc = g[g["certified"].astype(str).str.lower() != "true"]
                ax.plot(unc["eps"], unc["mse_theory"], ls="none", marker="x", ms=6, color=_c(method))
        ax.set_yscale("log")
        ax.set_xlabel("eps [nats]")
        ax.set_ylabel("MSE of the histogram (sum over categories)")
        ax.set_title(f"{attribute}, m = {int(part['m'].iloc[0])} (dotted: formula; -: bound; x: uncertified)")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def fig6(table, settings):
    methods = list(dict.fromkeys(table["method"]))
    fig, axes = new_figure(ncols=len(methods), figsize=(5.5 * len(methods), 4.5))
    for ax, method in zip(axes[0], methods):
        part = table[table["method"] == method]
        x = np.arange(len(part))
        ax.bar(x, part["true_frequency"], color="#cccccc", label="truth")
        err = np.vstack([part["estimate"] - part["lower"], part["upper"] - part["estimate"]])
        ax.errorbar(x, part["estimate"], yerr=err, fmt="o", ms=3, color=_c(method), label="estimate, 95 % interval")
        ax.set_xticks(x, part["category"], rotation=90, fontsize=6)
        ax.set_ylabel("frequency")
        ax.set_title(f"{_l(method)}: {part['attribute'].iloc[0]}, eps = {part['eps'].iloc[0]:g}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


PLOTS = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "fig5": fig5, "fig6": fig6}
