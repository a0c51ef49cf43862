"""Leakage measures: PML, LDP, mutual information and the relations between DP notions."""
