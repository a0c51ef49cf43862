"""The cheap first try of step 3 of the design loop: candidate columns proposed before any exact
search runs.

Cheap candidate columns for the MI pricing, tried before the exact searches.

Two-level columns over the prefixes and suffixes of the w / P order, then a local search that
flips one letter at a time while it improves; with ``cap``, the lift vectors a short box search
finds at that cap (the route-(44) columns of a ball, cap = H). Any column with positive reduced
cost improves the master; only the exact searches bound the pricing.
"""

from __future__ import annotations

import numpy as np

from leakage.design.cone import Cone, column_utility
from leakage.design.pricing.box import box_search
from leakage.design.vertices import two_level

#: nodes of the short box search of the heuristic
_BOX_NODES = 200


def heuristic_columns(cone: Cone, duals, cap: float | None) -> np.ndarray:
    """Candidate columns (N x K, polished into the cone) for the duals; see the module docstring."""
    p, n, w = cone.prior, cone.n, np.asarray(duals, dtype=float)
    order = np.argsort(w / p, kind="stable")
    masks = np.zeros((n, 2 * (n - 1)), bool)
    for k in range(1, n):  # prefixes and suffixes of the w / P order
        masks[order[:k], k - 1] = True
        masks[order[k:], n - 2 + k] = True
    cands = [two_level(cone, masks)]
    vals = column_utility(p, cands[0]) - w @ cands[0]
    k = int(np.argmax(vals))
    cur, cur_val = masks[:, k].copy(), vals[k]
    for _ in range(n):
        flips = np.repeat(cur[:, None], n, axis=1)
        flips[np.arange(n), np.arange(n)] ^= True
        okc = flips.any(axis=0) & ~flips.all(axis=0)
        if not okc.any():
            break
        fl = flips[:, okc]
        vv = two_level(cone, fl)
        fv = column_utility(p, vv) - w @ vv
        j = int(np.argmax(fv))
        cands.append(vv[:, fv > 1e-9])
        if fv[j] <= cur_val + 1e-12:
            break
        cur, cur_val = fl[:, j].copy(), fv[j]
    if cap is not None:
        res = box_search(p, w, cap, tol=1e-6, collect=0.0, max_nodes=_BOX_NODES, keep=2 * n)
        if res.found:
            cands.append(np.array(res.found).T)
    return cone.polish(np.concatenate(cands, axis=1))

#: An implementation module of the design engine: its functions trust their inputs, which
#: leakage.design.optimal_mechanism validates once (docs/validation.md).
__all__: list[str] = []
