"""statistical-inference: Calmon & Fawaz, privacy against statistical inference.

``figures`` builds the figure tables and checks the claims; the other modules hold the
paper's own programs."""

from leakage.experiments.statistical_inference.figures import FIGURES, check_claims

__all__ = ["FIGURES", "check_claims"]
