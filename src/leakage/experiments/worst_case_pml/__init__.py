"""worst-case-pml: Song & Oechtering, worst-case utility under PML.

``figures`` builds the figure tables and checks the claims; the other modules hold the
paper's own programs."""

from leakage.experiments.worst_case_pml.figures import FIGURES, check_claims

__all__ = ["FIGURES", "check_claims"]
