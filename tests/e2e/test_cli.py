"""The CLI end to end, as a user runs it: real processes, real files, real stores."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO, SAMPLE_DUMPS, WIKIDATA_JSON

sys.path.insert(0, str(REPO / "bench"))
from ingest import generate  # noqa: E402  (bench/ingest.py's Wikidata-shaped dump generator)


def kg(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "kalma_graph.cli.main", *args],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=900,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:{proc.stdout}\nstderr:{proc.stderr}")
    return proc


def test_ingest_stats_show_on_the_embedded_store(tmp_path):
    store = f"embedded:{tmp_path}/g.lbdb"
    summary = json.loads(kg("ingest", *map(str, SAMPLE_DUMPS), "--store", store, "--json").stdout)
    assert [f["status"] for f in summary["files"]] == ["done", "done", "done"]
    stats = json.loads(kg("stats", "--store", store, "--json").stdout)
    assert stats == summary["stats"] and stats["statements"] > 90000
    again = json.loads(kg("ingest", *map(str, SAMPLE_DUMPS), "--store", store, "--json").stdout)
    assert [f["status"] for f in again["files"]] == ["already-ingested"] * 3
    assert json.loads(kg("stats", "--store", store, "--json").stdout) == stats
    shown = kg("show", "Stephen Crane", "--store", store).stdout
    assert "Q206534" in shown and "place of birth" in shown and "{qid: Q206534, name: Stephen Crane" in shown


def test_store_from_environment_and_default(tmp_path):
    env = {"KALMA_STORE": f"embedded:{tmp_path}/env.lbdb"}
    kg("ingest", str(WIKIDATA_JSON), "--no-progress", env=env)
    assert (tmp_path / "env.lbdb").exists()
    env = {"KALMA_DATA_DIR": str(tmp_path / "data")}
    env_no_store = {k: v for k, v in os.environ.items() if k != "KALMA_STORE"} | env
    proc = subprocess.run([sys.executable, "-m", "kalma_graph.cli.main", "stats", "--json"],
                          capture_output=True, text=True, env=env_no_store, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "data" / "graph.lbdb").exists()


def test_a_closed_embedded_store_opens_in_another_process(tmp_path):
    """Ladybug keeps its file lock while a prepared statement lives; close() must drop them, or the
    CLI cannot open a store a Python caller has read from and closed."""
    from kalma_graph.ingest import ingest
    from kalma_graph.store.embedded import EmbeddedStore

    store = EmbeddedStore(tmp_path / "g.lbdb")
    ingest(store, [WIKIDATA_JSON])
    assert store.one_hop("Q206534")  # reads go through prepared statements
    store.close()
    stats = json.loads(kg("stats", "--store", f"embedded:{tmp_path}/g.lbdb", "--json").stdout)
    assert stats["entities"] > 0


def test_bad_input_gets_a_clear_error_and_exit_code(tmp_path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "item", "id": "Q1"}\n{oops\n', encoding="utf-8")
    proc = kg("ingest", str(broken), "--store", f"embedded:{tmp_path}/g", "--on-error", "fail", check=False)
    assert proc.returncode == 2
    assert f"{broken}:2: invalid JSON" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = kg("ingest", str(broken), "--store", "mysql://nope", check=False)
    assert proc.returncode == 2 and "unrecognised store" in proc.stderr
    proc = kg("show", "Q1", "--store", f"embedded:{tmp_path}/empty", check=False)
    assert proc.returncode == 2 and "no entity" in proc.stderr


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_the_rerun_completes(tmp_path):
    dump = tmp_path / "big.json.gz"
    generate(dump, 150_000)
    store = f"embedded:{tmp_path}/g.lbdb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kalma_graph.cli.main", "ingest", str(dump), "--store", store,
         "--batch-size", "5000", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    # Wait until a batch has been loaded: a first load's batch leaves its deferred rows beside the
    # store (`embedded._Deferred`), which the interrupted run must write with their checkpoint.
    deferred = tmp_path / "g.lbdb.deferred"
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline and not any(deferred.glob("*.arrow")):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    if proc.returncode == 0:
        pytest.skip("the ingest finished before the interrupt arrived (machine too fast for this sample)")
    assert proc.returncode == 130, err
    assert "interrupted after" in err and "resume" in err
    resumed = json.loads(kg("ingest", str(dump), "--store", store, "--json").stdout)
    report = resumed["files"][0]
    assert report["status"] == "done" and report["resumed_after_line"] > 0
    fresh = json.loads(kg("ingest", str(dump), "--store", f"embedded:{tmp_path}/fresh.lbdb", "--json").stdout)
    assert resumed["stats"] == fresh["stats"]


@pytest.mark.neo4j
@pytest.mark.slow
def test_ingest_bench_never_touches_the_users_neo4j_home(tmp_path, monkeypatch):
    """bench/ingest.py once rewrote the user's home to auth off and cleared its data: it must run
    its own throwaway server and ignore the user's KALMA_NEO4J_URI (its database would be cleared)."""
    from contextlib import ExitStack

    import ingest as bench  # bench/ingest.py
    from kalma_graph.neo4j_server import default_home

    home = default_home()
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file() and "lib" not in p.parts
              and "plugins" not in p.parts and "maven" not in p.parts and p.name != ".install.lock"}
    monkeypatch.setenv("KALMA_NEO4J_URI", "bolt://127.0.0.1:1")  # the user's server: must not be used
    monkeypatch.delenv("KALMA_BENCH_NEO4J_URI", raising=False)
    with ExitStack() as stack:
        uri = bench._neo4j_uri(stack)
        assert uri != "bolt://127.0.0.1:1"
        from kalma_graph.store import open_store

        store = open_store(uri)
        assert store.stats().entities == 0
        store.close()
    after = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p in before}
    assert after == before and all(p.exists() for p in before)
