"""Plots of empirical-pml fig4, fig5, fig6, fig7."""

PLOTS = {}
