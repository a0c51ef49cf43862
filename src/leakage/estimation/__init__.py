"""Estimation and uncertainty: concentration of the empirical distribution (beta*, delta) and
PML on sets of priors (privacy regions, l1-balls, leakage capacity and sensitivity)."""
