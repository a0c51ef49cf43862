"""Estimation and uncertainty: concentration of the empirical distribution (beta*, delta),
PML on sets of priors (privacy regions, l1-balls, leakage capacity and sensitivity), and the
frequencies of the records behind a release (``frequency``)."""
