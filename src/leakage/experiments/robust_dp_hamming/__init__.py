"""robust-dp-hamming: Kalantari & Sarwate, robust DP/MI leakage vs Hamming distortion.

``figures`` builds the figure tables and checks the claims; the other modules hold the
paper's own programs."""

from leakage.experiments.robust_dp_hamming.figures import FIGURES, check_claims

__all__ = ["FIGURES", "check_claims"]
