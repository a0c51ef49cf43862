"""Seeded random streams: one config seed, an independent stream per figure id.

``stream(seed, "empirical-pml/fig4")`` always returns the same generator for the same pair, and
streams of different ids are statistically independent (numpy ``SeedSequence`` spawn keys), so a
figure's numbers do not change when another figure's parameters change.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key(label: str) -> list[int]:
    """A stable integer key for a label (not Python's salted ``hash``)."""
    digest = hashlib.sha256(label.encode("utf-8")).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]


def seed_sequence(seed: int, *labels: str) -> np.random.SeedSequence:
    """The ``SeedSequence`` of ``seed`` keyed by the labels (e.g. paper, figure, sub-stream)."""
    from leakage.validation import check_count

    seed = check_count(seed, "seed", low=0)
    key: list[int] = []
    for label in labels:
        key.extend(_key(str(label)))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(key))


def stream(seed: int, *labels: str) -> np.random.Generator:
    """An independent ``numpy.random.Generator`` for ``labels`` under the config ``seed``."""
    return np.random.default_rng(seed_sequence(seed, *labels))
