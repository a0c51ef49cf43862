"""empirical-pml fig2a, fig2b, fig3a, fig3b."""

FIGURES = {}


def check_claims(tables, settings, rng=None):
    return []
