"""empirical-pml: Grosse, Saeidian, Oechtering, Skoglund, PML mechanism design from
empirical distributions.

Two parts: ``bounds`` (fig2a, fig2b, fig3a, fig3b: leakage sensitivity on l1-balls and the
(eps, delta) trade-off of estimation) and ``noise`` (fig4-fig7: Laplace and Gaussian mechanisms,
the Adult experiment).
"""

from leakage.experiments.empirical_pml import bounds, noise

FIGURES = {**bounds.FIGURES, **noise.FIGURES}


def check_claims(tables, settings, rng=None):
    """The claims of every figure of the paper (``bounds`` and ``noise``); ``rng``: unused, may be None."""
    from leakage.validation import check_claims_call

    tables, settings = check_claims_call(tables, settings, rng, figures=FIGURES)
    return bounds.check_claims(tables, settings, rng) + noise.check_claims(tables, settings, rng)
