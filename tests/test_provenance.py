"""leakage.provenance: the versions recorded with the results."""

import platform

from leakage.provenance import RESULT_PACKAGES, software_versions


def test_versions_of_the_interpreter_and_the_packages_behind_the_numbers():
    v = software_versions()
    assert v["python"] == platform.python_version()
    assert set(RESULT_PACKAGES) <= set(v)
    for name in ("numpy", "scipy", "highspy", "cvxpy", "matplotlib"):
        assert v[name][0].isdigit(), (name, v[name])
    assert software_versions(["no-such-package-xyz"])["no-such-package-xyz"] == "not installed"
