"""The ucimlrepo source of UCI Adult (docs/data.md, "ucimlrepo"), against a local HTTP server.

The real client (``ucimlrepo.fetch_ucirepo``) runs unchanged; only its module constant
``API_BASE_URL`` is pointed at a server on 127.0.0.1 that answers as the UCI service does: the
API's JSON for ``?id=2`` (whose ``data_url`` names the table) and the table as CSV. The served CSV
is written here from the shipped raw sample with plain string operations, in the service's layout:
a header line, the records of adult.data then adult.test, the test records' income with the
trailing ``.`` and their missing values as empty fields (adult.data's as ``?``). The server serves
only while a test runs and shuts itself down after ``SERVER_LIFETIME`` seconds in any case.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import ucimlrepo.fetch

from leakage.data.adult import (
    AcquisitionError,
    acquire_raw,
    acquire_table,
    build_adult,
    normalise_ucimlrepo,
    parse_raw,
)
from leakage.tables import read_table
from shipped_config import shipped
from test_adult import SAMPLE, SAMPLE_COUNTS, SAMPLE_DIGESTS, FakeUCI, no_network, no_pip, settings

SERVER_LIFETIME = 60.0

HEADER = (
    "age,workclass,fnlwgt,education,education-num,marital-status,occupation,relationship,race,sex,"
    "capital-gain,capital-loss,hours-per-week,native-country,income"
)

#: The sample's records per file, counted with grep in tests/data/adult_sample/README.md.
SAMPLE_PARTS = {"adult.data": 300, "adult.test": 200}


def service_csv(order=None) -> str:
    """The sample as the UCI service's table (see the module docstring); ``order``: a row permutation."""
    rows = []
    for name in ("adult.data", "adult.test"):
        for line in (SAMPLE / name).read_text().splitlines():
            if not line.strip() or line.startswith("|"):
                continue
            fields = [f.strip() for f in line.split(",")]
            if name == "adult.test":
                fields = ["" if f == "?" else f for f in fields]
            rows.append(",".join(fields))
    if order is not None:
        rows = [rows[i] for i in order]
    return HEADER + "\n" + "\n".join(rows) + "\n"


def api_json(data_url: str) -> dict:
    """The API's answer for Adult, with the fields ucimlrepo reads (and a few it passes through)."""
    names = HEADER.split(",")
    variables = [
        {"name": n, "role": "Target" if n == "income" else "Feature", "type": "Categorical",
         "demographic": None, "description": None, "units": None, "missing_values": "no"}
        for n in names
    ]  # fmt: skip
    return {
        "status": 200,
        "statusCode": 200,
        "message": "OK",
        "data": {
            "uci_id": 2, "name": "Adult", "repository_url": "https://archive.ics.uci.edu/dataset/2/adult",
            "data_url": data_url, "num_instances": 48842, "num_features": 14, "target_col": ["income"],
            "index_col": None, "has_missing_values": "yes", "dataset_doi": "10.24432/C5XW20",
            "additional_info": {"summary": "Predict whether income exceeds $50K/yr based on census data."},
            "intro_paper": None, "variables": variables,
        },
    }  # fmt: skip


class Service:
    """A local stand-in of the UCI service: ``/api/dataset?id=N`` and ``/static/public/2/data.csv``."""

    def __init__(self, csv: str | None = None, api_status: int = 200, silent: bool = False):
        self.csv, self.api_status, self.silent = csv or service_csv(), api_status, silent
        self.requests: list[str] = []
        self.stopped = threading.Event()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the base class's name)
                service.requests.append(self.path)
                if service.silent:
                    service.stopped.wait(SERVER_LIFETIME)  # no answer until the service stops
                    return
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/api/dataset":
                    query = urllib.parse.parse_qs(url.query)
                    if service.api_status != 200 or query.get("id") != ["2"]:
                        body = {"status": 404, "statusCode": 404, "message": "Dataset not found"}
                    else:
                        body = api_json(f"{service.base}/static/public/2/data.csv")
                    self._send(json.dumps(body).encode(), "application/json")
                elif url.path == "/static/public/2/data.csv":
                    self._send(service.csv.encode(), "text/csv")
                else:
                    self.send_error(404)

            def _send(self, body: bytes, kind: str):
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.timer = threading.Timer(SERVER_LIFETIME, lambda: (self.stopped.set(), self.server.shutdown()))
        self.timer.daemon = True

    def __enter__(self):
        self.thread.start()
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def serve(monkeypatch):
    """``serve(**kwargs)``: a running :class:`Service` with ucimlrepo's API URL pointed at it."""
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    started = []

    def start(**kwargs):
        service = Service(**kwargs).__enter__()
        started.append(service)
        monkeypatch.setattr(ucimlrepo.fetch, "API_BASE_URL", f"{service.base}/api/dataset")
        return service

    yield start
    for service in started:
        service.__exit__(None, None, None)


def uci_settings(**overrides):
    return settings(**{"path": None, "sources": ["ucimlrepo"], "timeout": 5, **overrides})


def test_client_table_gives_the_same_csv_bytes_as_the_raw_files(serve, tmp_path):
    service = serve()
    a, b = tmp_path / "client", tmp_path / "raw"
    prov = build_adult(uci_settings(), a / "adult.csv", a / "prov.json", fetch_url=no_network, pip_download=no_pip)
    build_adult(settings(), b / "adult.csv", b / "prov.json")
    assert (a / "adult.csv").read_bytes() == (b / "adult.csv").read_bytes()
    assert service.requests == ["/api/dataset?id=2", "/static/public/2/data.csv"]
    data_url = f"{service.base}/static/public/2/data.csv"
    assert prov["source"] == "ucimlrepo"
    assert prov["tried"] == [{"source": "ucimlrepo", "outcome": "ok", "location": f"fetch_ucirepo(id=2): {data_url}"}]
    assert prov["files"] == {"uci_id": 2, "data_url": data_url}
    assert prov["parts"] == SAMPLE_PARTS and prov["counts"] == SAMPLE_COUNTS
    written = json.loads((a / "prov.json").read_text())
    assert written["source"] == "ucimlrepo" and written["parts"] == SAMPLE_PARTS


def test_split_recovered_from_the_labels_matches_the_raw_files():
    """The first 300 records of the client's table are adult.data's, the last 200 adult.test's."""
    import pandas as pd
    from io import StringIO

    table, parts = normalise_ucimlrepo(pd.read_csv(StringIO(service_csv())))
    assert parts == SAMPLE_PARTS
    pd.testing.assert_frame_equal(table, parse_raw(SAMPLE / "adult.data", SAMPLE / "adult.test"))


def test_raw_sources_report_the_same_parts():
    _, prov = acquire_table(settings())
    assert prov["source"] == "local" and prov["parts"] == SAMPLE_PARTS and prov["files"] == SAMPLE_DIGESTS


def test_shuffled_table_is_rejected_and_the_next_source_serves(serve, tmp_path):
    """Test records before training records: the split cannot be recovered, so the table is refused."""
    order = list(range(500))
    order[0], order[-1] = order[-1], order[0]
    serve(csv=service_csv(order))
    table, prov = acquire_table(uci_settings(sources=["ucimlrepo", "uci"]), fetch_url=FakeUCI())
    assert prov["source"] == "uci"
    assert prov["tried"][0]["outcome"] == "failed"
    assert "not all after those of adult.data" in prov["tried"][0]["reason"]
    assert len(table) == 500


def test_table_with_wrong_counts_is_rejected(serve):
    serve()
    with pytest.raises(AcquisitionError, match=r"ucimlrepo: failed: table from source 'ucimlrepo' rejected: .*rows expected 48842, actual 500"):
        acquire_table(uci_settings(expected=shipped("adult")["expected"]))


def test_unknown_dataset_and_unreachable_service_fall_through_in_config_order(serve, tmp_path, monkeypatch):
    serve(api_status=404)
    table, prov = acquire_table(uci_settings(sources=["ucimlrepo", "local"], path=str(SAMPLE)))
    assert [t["outcome"] for t in prov["tried"]] == ["failed", "ok"]
    assert "DatasetNotFoundError: Dataset not found" in prov["tried"][0]["reason"]
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    monkeypatch.setattr(ucimlrepo.fetch, "API_BASE_URL", f"http://127.0.0.1:{port}/api/dataset")
    with pytest.raises(AcquisitionError, match=r"ucimlrepo: failed: fetch_ucirepo\(id=2\) failed: ConnectionError"):
        acquire_table(uci_settings())


def test_silent_service_gives_up_after_the_configured_timeout(serve):
    """The server accepts and never answers (until it stops): the client's read times out (the
    message says so; a server that hung up would read RemoteDisconnected), the next source is tried."""
    service = serve(silent=True)
    table, prov = acquire_table(uci_settings(timeout=0.5, sources=["ucimlrepo", "local"], path=str(SAMPLE)))
    assert prov["source"] == "local" and service.requests == ["/api/dataset?id=2"]
    assert prov["tried"][0]["reason"] == "fetch_ucirepo(id=2) failed: TimeoutError: timed out"
    assert socket.getdefaulttimeout() is None  # restored


def test_raw_file_acquisition_skips_the_client(tmp_path):
    prov = acquire_raw(settings(sources=["ucimlrepo", "local"]), tmp_path)
    assert prov["tried"][0] == {"source": "ucimlrepo", "outcome": "skipped",
                                "reason": "delivers a table, not the raw files adult.data and adult.test"}  # fmt: skip
    assert prov["source"] == "local"


@pytest.mark.network
def test_real_fetch_through_ucimlrepo(tmp_path):
    """End to end over the network: fetch_ucirepo(id=2) from UCI, the real counts and split."""
    out = tmp_path / "results" / "data"
    prov = build_adult(shipped("adult", {"sources": ["ucimlrepo"]}), out / "adult.csv", out / "prov.json")
    assert prov["source"] == "ucimlrepo"
    assert prov["parts"] == {"adult.data": 32561, "adult.test": 16281}
    t = read_table(out / "adult.csv")
    assert len(t) == 48842 and (t["income"] == ">50K").sum() == 11687 and (t["sex"] == "Female").sum() == 16192
