"""Privacy mechanisms: additive noise (Laplace, Gaussian) with their PML and pLDP calibration."""
