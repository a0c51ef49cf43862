"""adult-design (a study beyond the papers): PML mechanisms designed from estimated distributions
of Adult's categorical attributes, against optimal LDP and randomized response.

``stages`` holds the study's stages (estimate -> design -> release, and the Monte Carlo of fig1
and fig4); ``figures`` builds the figure tables from their outputs and checks the claims."""

from leakage.experiments.adult_design.figures import FIGURES, check_claims

__all__ = ["FIGURES", "check_claims"]
