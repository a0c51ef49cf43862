"""Privacy mechanisms: additive noise (Laplace, Gaussian) with their PML and pLDP calibration,
releasing records through a channel (``release``), and the LDP frequency oracles GRR, OUE, OLH
and subset selection with their estimators (``frequency_oracles``)."""
