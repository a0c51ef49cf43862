"""leakage: privacy-mechanism design with pointwise maximal leakage (PML), LDP/pLDP and
mutual-information leakage.

Conventions used throughout the package
---------------------------------------
* Logarithms are natural: every leakage, epsilon and mutual information is in nats.
* A *channel* (mechanism) is a row-stochastic matrix ``channel[x, y] = P(y | x)``.
* A *prior* is a probability vector over the rows of a channel.
* Argument order is always ``(channel, prior)``.
* Invalid input raises ``ValueError`` (or ``TypeError``) naming the parameter and the valid range.

Modules are organised by concept (measures, estimation, mechanisms, design, experiments, plots),
not by paper; ``leakage.experiments.<paper>`` wires the concepts into one paper's figures.
"""

__version__ = "0.1.0"
