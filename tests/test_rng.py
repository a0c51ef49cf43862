import numpy as np
import pytest

from leakage.rng import stream


def test_same_labels_same_stream():
    a = stream(7, "p", "fig1").random(5)
    b = stream(7, "p", "fig1").random(5)
    assert np.array_equal(a, b)


def test_streams_differ_by_figure_and_seed():
    base = stream(7, "p", "fig1").random(5)
    assert not np.array_equal(base, stream(7, "p", "fig2").random(5))
    assert not np.array_equal(base, stream(8, "p", "fig1").random(5))
    # labels are not concatenated ambiguously: ("ab", "c") != ("a", "bc")
    assert not np.array_equal(stream(1, "ab", "c").random(3), stream(1, "a", "bc").random(3))


def test_stream_is_stable_across_processes():
    # sha256-derived keys, not Python's salted hash(): a fixed value guards against regressions
    # in the key derivation (this number is numpy's output for the documented derivation).
    ss = np.random.SeedSequence(entropy=7, spawn_key=tuple(
        int.from_bytes(__import__("hashlib").sha256(b"p").digest()[i:i + 4], "little") for i in range(0, 16, 4)
    ))
    assert np.array_equal(stream(7, "p").random(3), np.random.default_rng(ss).random(3))


def test_bad_seed():
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        stream(-1, "x")
