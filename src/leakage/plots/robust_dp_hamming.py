"""robust-dp-hamming figures, drawn from their tables only."""

from __future__ import annotations

import numpy as np
from matplotlib.legend_handler import HandlerTuple
from matplotlib.patches import Patch

from leakage.plots.style import color, label, new_figure

#: Colour and legend label of each source set (the paper's names: Class I, II, III), from the
#: project's one palette.
SET_COLORS = {name: color(name) for name in ("class_I", "class_II", "class_III", "class_III_a", "class_III_b",
                                              "class_III_c")}
SET_LABELS = {name: label(name) for name in SET_COLORS}
#: Line style and drawing order (smaller sets on top, so a curve equal to a larger set's shows).
SET_LINES = {
    "class_I": ("-", 1),
    "class_II": ("-", 5),
    "class_III_a": ("--", 4),
    "class_III_b": ("-.", 3),
    "class_III_c": (":", 2),
}
#: Below this width (nats) Theorem 3's band is invisible; the legend then says the bounds are tight.
BAND_TOL = 1e-6
D_LABEL = "worst-case Hamming distortion $D$ (probability)"


def _ternary(p):
    """Barycentric (p1, p2, p3) -> plane: P1 at the left, P2 at the right, P3 at the top."""
    p = np.atleast_2d(p)
    return p[:, 1] + 0.5 * p[:, 2], np.sqrt(3) / 2 * p[:, 2]


def _hull_order(xy):
    """Vertices of a convex polygon in angular order around their mean."""
    c = xy.mean(axis=0)
    return xy[np.argsort(np.arctan2(xy[:, 1] - c[1], xy[:, 0] - c[0]))]


def draw_fig1(table, settings):
    fig, axes = new_figure(figsize=(4.6, 4.2))
    ax = axes[0, 0]
    corners = np.eye(3)
    x, y = _ternary(np.vstack([corners, corners[:1]]))
    ax.plot(x, y, color="black", lw=1)
    # the boundaries P_i = P_j between the M! = 6 ordered regions (Fig. 2 of the paper)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        end = np.full(3, 0.0)
        end[a] = end[b] = 0.5
        mx, my = _ternary(np.vstack([end, np.full(3, 1 / 3)]))
        k = 3 - a - b
        ox, oy = _ternary(corners[k])
        ax.plot([mx[0], ox[0]], [my[0], oy[0]], color="grey", lw=0.7, ls=":")
    ux, uy = _ternary(np.full(3, 1 / 3))
    ax.plot(ux, uy, marker="*", color="black", ms=9, ls="none", label="uniform")
    for name, rows in table.groupby("source_set", sort=False):
        pts = rows[["p1", "p2", "p3"]].to_numpy(float)
        xy = np.column_stack(_ternary(pts))
        set_color = SET_COLORS.get(name)
        cls = rows["source_class"].iloc[0] if "source_class" in rows else ""
        lab = f"{SET_LABELS.get(name, name)} (classified {cls})" if cls else SET_LABELS.get(name, name)
        if len(xy) >= 3:
            poly = _hull_order(xy)
            ax.fill(poly[:, 0], poly[:, 1], color=set_color, alpha=0.35, lw=1.2, ec=set_color, label=lab)
        else:
            ax.plot(xy[:, 0], xy[:, 1], color=set_color, lw=2.5, marker="o", ms=4, label=lab)
    for k, (name, ha, va) in enumerate(
        (("$P_1 = 1$", "right", "top"), ("$P_2 = 1$", "left", "top"), ("$P_3 = 1$", "center", "bottom"))
    ):
        cx, cy = _ternary(corners[k])
        ax.annotate(name, (cx[0], cy[0]), ha=ha, va=va, xytext=(0, -4 if va == "top" else 4),
                    textcoords="offset points")
    ax.set_aspect("equal")
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.1, 0.95)
    ax.axis("off")
    ax.set_title("Source sets on the probability simplex, $M = 3$")
    # below the simplex, so that no entry covers the corner labels
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2, frameon=False)
    return fig


def _draw_bounds(ax, rows, set_color):
    """Theorem 3's bounds of a Class III set (columns eps_dp_lower/upper, if any): a light band
    between them edged by thin dashed lines, under the exact curve."""
    if "eps_dp_lower" not in rows or "eps_dp_upper" not in rows:
        return
    rows = rows.dropna(subset=["eps_dp_lower", "eps_dp_upper"])
    if rows.empty:
        return
    ax.fill_between(rows.D, rows.eps_dp_lower, rows.eps_dp_upper, color=set_color, alpha=0.25, lw=0, zorder=1)
    for col in ("eps_dp_lower", "eps_dp_upper"):
        ax.plot(rows.D, rows[col], color=set_color, ls=(0, (2, 2)), lw=0.6, alpha=0.8, zorder=1.5)


def _curve_axes(table, settings, *, with_mi):
    fig, axes = new_figure()
    ax = axes[0, 0]
    m = int(table.M.iloc[0])
    for name, rows in table.groupby("source_set", sort=False):
        rows = rows.sort_values("D")
        set_color, lab = SET_COLORS.get(name), SET_LABELS.get(name, name)
        if with_mi:
            ax.plot(rows.D, rows.eps_dp, color=set_color, label=f"{lab}, DP leakage")
            ax.plot(rows.D, rows.eps_mi, color=set_color, ls="--", label=f"{lab}, MI leakage")
        else:
            ls, z = SET_LINES.get(name, ("-", 1))
            ax.plot(rows.D, rows.eps_dp, color=set_color, ls=ls, zorder=2 + z, label=lab)
            _draw_bounds(ax, rows, set_color)
    ax.set_xlabel(D_LABEL)
    ax.set_ylabel("least leakage (nats)")
    ax.set_xlim(0, (m - 1) / m * 1.02)
    ax.set_ylim(bottom=0)
    handles, labels = ax.get_legend_handles_labels()
    if not with_mi and "eps_dp_lower" in table and table.eps_dp_lower.notna().any():
        width = float((table.eps_dp_upper - table.eps_dp_lower).max())
        lab = ("Theorem 3 bounds: equal to the exact Class III curves" if width <= BAND_TOL
               else "Theorem 3 bounds: band in the\nset's colour (tight where not visible)")
        banded = [name for name, rows in table.groupby("source_set", sort=False) if rows.eps_dp_lower.notna().any()]
        swatches = tuple(Patch(color=SET_COLORS.get(name), alpha=0.35, lw=0) for name in banded)
        handles.append(swatches)
        labels.append(lab)
    ax.legend(handles, labels, frameon=False, loc="upper left", bbox_to_anchor=(1.02, 1.0),
              handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})
    if not with_mi:
        hidden = _hidden_under(table, "class_II")
        if hidden:
            ax.text(1.02, 0.0, f"{', '.join(hidden)} equal Class II\nwhere not visible: Class II is\ndrawn on top of them",
                    transform=ax.transAxes, ha="left", va="bottom", fontsize="small")
    return fig, ax, m


def _hidden_under(table, top, tol=1e-9):
    """The labels of the sets whose eps_dp equals ``top``'s at some D of both (drawn beneath it)."""
    curves = table.pivot_table(index="D", columns="source_set", values="eps_dp")
    if top not in curves:
        return []
    out = []
    for name in dict.fromkeys(table.source_set):
        if name == top or not name.startswith("class_III"):
            continue
        both = curves[[name, top]].dropna()
        if len(both) and (np.abs(both[name] - both[top]) <= tol).any():
            out.append(SET_LABELS.get(name, name))
    return out


def draw_dp(table, settings):
    fig, ax, m = _curve_axes(table, settings, with_mi=False)
    ax.set_ylabel(r"DP leakage $\epsilon^*_{DP}(\mathcal{P}, D)$ (nats)")
    ax.set_title(f"DP leakage-distortion tradeoff, $M = {m}$")
    return fig


def draw_mi(table, settings):
    fig, ax, m = _curve_axes(table, settings, with_mi=True)
    ax.set_ylabel(r"leakage $\epsilon^*_{DP}$, $\epsilon^*_{I}$ (nats)")
    ax.set_title(f"MI vs DP leakage, $M = {m}$")
    return fig


PLOTS = {"fig1": draw_fig1, "fig4": draw_dp, "fig5": draw_dp, "fig6": draw_mi, "fig7": draw_mi}
