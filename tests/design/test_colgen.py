"""leakage.design.colgen: the bound at aggregated duals against the optimum over every vertex."""

import math

import numpy as np
import pytest

from design_instances import prior
from leakage.design import optimal_mechanism
from leakage.design.colgen import aggregated_bound, heavy_letters
from leakage.design.cone import Cone, column_utility
from leakage.design.master import Master
from leakage.design.vertices import enumerate_vertices


def _heavy_instances(rng, count):
    """Small priors with a letter heavier than 1 - 1/C (C = e^eps for the known prior, H for a ball),
    at small eps, on the known prior or a ball wider than 2 min P."""
    made = 0
    while made < count:
        n = int(rng.integers(4, 8))
        p = prior(rng, n)
        eps = float(rng.uniform(0.05, 0.8))
        beta = 0.0 if rng.random() < 0.4 else float(rng.uniform(2.2 * p.min(), max(0.3, 3.0 * p.min())))
        cone = Cone.of(p, eps, beta, "pml")
        heavy = heavy_letters(cone)
        if heavy is None:
            continue
        made += 1
        yield p, eps, beta, cone, heavy


@pytest.mark.parametrize("seed", range(3))
def test_the_bound_at_aggregated_duals_holds_against_enumeration(seed):
    """Masters on random subsets of the vertices (and on all of them): the bound is never below the
    optimum over every vertex (one LP, method="enumerate"); with every vertex in the master it is
    below the bound at duals proportional to the prior, log C, which the heavy letters keep the
    optimum away from."""
    rng = np.random.default_rng([43, seed])
    below_flat = 0
    for p, eps, beta, cone, heavy in _heavy_instances(rng, 6):
        n = p.size
        opt = optimal_mechanism(p, eps, beta=beta, method="enumerate").value
        verts = cone.polish(enumerate_vertices(cone))
        for share in (0.05, 0.3, 1.0):
            pick = rng.random(verts.shape[1]) < share
            cols = np.concatenate([np.ones((n, 1)), verts[:, pick]], axis=1)
            master = Master(n)
            master.add(cols, column_utility(p, cols))
            val, _, _ = master.solve()
            bound, _ = aggregated_bound(cone, master, heavy, val=val, scale=1e-9 * (1 + abs(val)))
            assert bound >= opt - 1e-10 * (1 + opt)
            if share == 1.0:
                cap = cone.E if beta == 0.0 else cone.top
                below_flat += bound < math.log(cap) - 1e-6
    assert below_flat >= 3


def test_heavy_letters_are_those_never_zero_at_the_cap():
    p = np.array([0.5, 0.3, 0.15, 0.05])
    # known prior at eps = 0.2: 1 - e^-0.2 = 0.181 (two letters heavier); LDP: none asked
    assert heavy_letters(Cone.of(p, 0.2, 0.0, "pml")).tolist() == [True, True, False, False]
    assert heavy_letters(Cone.of(p, 0.2, 0.0, "ldp")) is None
    assert heavy_letters(Cone.of(p, 3.0, 0.0, "pml")) is None  # 1 - e^-3 = 0.95: none
    cone = Cone.of(p, 0.2, 0.2, "pml")  # a ball: the cap is H < e^eps, more letters are heavy
    assert heavy_letters(cone).tolist() == (p > 1 - 1 / cone.top).tolist()


def test_a_design_prints_nothing():
    """A design writes nothing to the process's standard output. HiGHS prints its banner from C the
    first time a process builds an instance (so a fresh process is needed to see it); quiet_highs
    builds it with file descriptor 1 on the null device, and the descriptor is restored after."""
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "from leakage.design import optimal_mechanism\n"
            "p = np.random.default_rng(4).dirichlet(np.ones(16))\n"
            "optimal_mechanism(p, 1.0, beta=0.05)\n"  # column generation: the MI master LP
            "optimal_mechanism(p[:6] / p[:6].sum(), 1.0, utility=np.eye(6))\n"  # label generation
            "print('still here')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "still here\n"
