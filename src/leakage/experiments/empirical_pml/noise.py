"""empirical-pml fig4, fig5, fig6, fig7."""

FIGURES = {}


def check_claims(tables, settings):
    return []
