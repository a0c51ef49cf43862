"""Data sets used by the experiments (UCI Adult)."""
