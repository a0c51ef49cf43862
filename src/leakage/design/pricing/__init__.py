"""Pricing for the design engine's column generation: one search per vertex family.

:mod:`~leakage.design.pricing.mutual_information` says which searches cover which cone;
:mod:`~leakage.design.pricing.linear` prices linear utilities; :mod:`~leakage.design.pricing.heuristic`
proposes cheap columns first.
"""
__all__: list[str] = []
