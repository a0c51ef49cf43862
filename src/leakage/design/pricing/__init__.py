"""Step 3 of the design loop, the pricing: one exact search per vertex family of the cone.

Pricing for the design engine's column generation: one search per vertex family.

:mod:`~leakage.design.pricing.mutual_information` says which searches cover which cone;
:mod:`~leakage.design.pricing.linear` prices linear utilities; :mod:`~leakage.design.pricing.heuristic`
proposes cheap columns first.
"""
__all__: list[str] = []
