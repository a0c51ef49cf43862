"""Plots of empirical-pml: ``bounds`` draws fig2-fig3, ``noise`` fig4-fig7."""

from leakage.plots.empirical_pml import bounds, noise

PLOTS = {**bounds.PLOTS, **noise.PLOTS}
