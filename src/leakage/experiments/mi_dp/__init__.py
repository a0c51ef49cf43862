"""mi-dp: Cuff & Yu, differential privacy as a mutual-information constraint.

``figures`` builds the figure tables and checks the claims; the other modules hold the
paper's own programs."""

from leakage.experiments.mi_dp.figures import FIGURES, check_claims

__all__ = ["FIGURES", "check_claims"]
