"""Plots of empirical-pml fig2a, fig2b, fig3a, fig3b."""

PLOTS = {}
