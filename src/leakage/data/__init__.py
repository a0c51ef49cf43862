"""Data sets used by the experiments: UCI Adult (``adult``), and categorical tables split into a
design and a release part for the adult-design study on any data (``categorical``)."""
