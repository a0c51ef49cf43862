"""The suite's xdist scheduler (tests/conftest.py): its groups name tests that exist."""

import re

import conftest


def test_every_shared_cache_prefix_names_a_test():
    """Each node-id prefix of SHARED_CACHE names a test function of its file (a renamed test would
    silently leave its group, and the cached computation would run twice), and each group holds
    at least two prefixes."""
    units = {}
    for prefix, unit in conftest.SHARED_CACHE.items():
        path, name = prefix.split("::", 1)
        source = (conftest.ROOT / path).read_text()
        assert re.search(rf"^def {re.escape(name.split('[', 1)[0])}", source, re.M), prefix
        units[unit] = units.get(unit, 0) + 1
    assert units and all(count >= 2 for count in units.values()), units
