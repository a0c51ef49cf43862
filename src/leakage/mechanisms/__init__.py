"""Privacy mechanisms: additive noise (Laplace, Gaussian) with their PML and pLDP calibration,
releasing records through a channel (``release``), and the LDP frequency oracles GRR, OUE, OLH,
subset selection and Hadamard response with their estimators (``frequency_oracles``)."""
