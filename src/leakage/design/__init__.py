"""The design engine (docs/design-engine.md): optimal mechanisms by the loop of master LP, duals,
pricing of each vertex family and certificate, beside closed forms and one-LP design.

Mechanism design: closed forms, the design polytopes of PML under prior uncertainty, LP design.

``leakage.design.polytope`` holds the closed-form mechanisms (Theorem 5, k-singular) and the
polytope M(eps, B_beta(P̂)) as linear constraints with LP design for linear utilities.
"""

from leakage.design.polytope import (
    Design,
    DesignLP,
    design_epsilon,
    design_mechanism,
    design_mechanism_for_estimate,
    design_polytope,
    in_design_polytope,
    k_singular_mechanism,
    optimal_binary_mechanism,
)
from leakage.design.optimal import OptimalDesign, optimal_mechanism, optimal_mechanism_for_estimate

__all__ = [
    "Design",
    "DesignLP",
    "design_epsilon",
    "design_mechanism",
    "design_mechanism_for_estimate",
    "design_polytope",
    "in_design_polytope",
    "k_singular_mechanism",
    "optimal_binary_mechanism",
    "OptimalDesign",
    "optimal_mechanism",
    "optimal_mechanism_for_estimate",
]
