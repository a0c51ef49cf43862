import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture
def repo_root() -> pathlib.Path:
    return ROOT
