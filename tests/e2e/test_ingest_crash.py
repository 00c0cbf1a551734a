"""Ingest under crashes and concurrency (issue 15, item 2), on both real stores.

A child process runs a real ingest and is killed with SIGKILL at a chosen point (the test wraps one
store method in the child to send the signal: nothing is mocked, the process just dies there). The
re-run in a new process must end with the counts of a clean load: nothing lost, nothing doubled.
Two ingests into one store are serialised by the ingest lock in the graph.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kalma_graph.ingest import IngestLocked, ingest
from kalma_graph.ingest.lock import LOCK_KEY, ingest_lock
from kalma_graph.ingest.sources import fingerprint
from kalma_graph.store.embedded import EmbeddedStore
from tests.conftest import WIKIDATA_JSON

BATCH = 400  # records per batch: the 300-line sample makes about 8 batches

# The child: ingest FILE into STORE, dying by SIGKILL at the N-th call of CLASS.METHOD that WHEN accepts.
_CHILD = textwrap.dedent(
    """
    import json, os, signal, sys
    from kalma_graph.ingest import ingest
    from kalma_graph.store import open_store
    import kalma_graph.store.embedded as embedded, kalma_graph.store.neo4j_store as neo4j_store

    store_uri, path, batch, target, when, nth, after, setup = sys.argv[1:9]
    exec(setup)
    module, cls_name, method = target.split(".")
    cls = getattr({"embedded": embedded, "neo4j_store": neo4j_store}[module], cls_name)
    original = getattr(cls, method)
    seen = [0]
    accept = eval("lambda args, kwargs: " + when)

    def dying(self, *args, **kwargs):
        hit = accept(args, kwargs)
        if hit:
            seen[0] += 1
        if hit and seen[0] == int(nth) and after == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        out = original(self, *args, **kwargs)
        if hit and seen[0] == int(nth) and after == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    setattr(cls, method, dying)
    store = open_store(store_uri)
    summary = ingest(store, [path], batch_size=int(batch))
    store.close()
    print(json.dumps(summary["files"][0]))
    """
)


def _child(store_uri: str, path: Path, target: str, when: str, nth: int, after: str,
           setup: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, store_uri, str(path), str(BATCH), target, when, str(nth), after, setup],
        capture_output=True, text=True, timeout=600,
    )


def _rerun(store_uri: str, path: Path) -> dict:
    """The user's re-run: a fresh process, the same command."""
    code = (
        "import json, sys\nfrom kalma_graph.ingest import ingest\nfrom kalma_graph.store import open_store\n"
        "s = open_store(sys.argv[1]); out = ingest(s, [sys.argv[2]], batch_size=int(sys.argv[3])); s.close()\n"
        "print(json.dumps(out))"
    )
    done = subprocess.run([sys.executable, "-c", code, store_uri, str(path), str(BATCH)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    import gzip

    path = tmp_path_factory.mktemp("crash") / "wd300.jsonl"
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as source:
        path.write_text("".join(next(source) for _ in range(300)), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def clean_counts(sample, tmp_path_factory) -> dict:
    """What a clean, uninterrupted load of the sample holds."""
    store = EmbeddedStore(tmp_path_factory.mktemp("clean") / "graph.lbdb")
    try:
        summary = ingest(store, [sample], batch_size=BATCH)
        assert summary["totals"]["statements_created"] > 1000
        return summary["stats"]
    finally:
        store.close()


# A first load into the empty embedded store defers every row to one COPY per table at the end of
# the file, or every DEFERRED_STATEMENTS_LIMIT statements, each time with its checkpoint
# (`embedded._Deferred`).
_STATEMENT_COPY = "'COPY' in args[0] and 'STATEMENT' in args[0]"
EMBEDDED_KILLS = {
    # (method, which calls, the n-th, before/after it, setup in the child, entities and statements
    #  in the killed store: none | some | all, the re-run resumes after a checkpoint)
    # three batches planned and deferred, nothing written
    "all-deferred": ("embedded.EmbeddedStore.load_batch", "True", 3, "after", "", ("none", "none"), False),
    # writing the deferred tables: entities and entity statements committed, value statements not
    "mid-deferred-writes": ("embedded.EmbeddedStore._execute", _STATEMENT_COPY, 2, "before", "", ("all", "some"),
                            False),
    # every deferred table written, its checkpoint not
    "deferred-written-before-checkpoint": ("embedded.EmbeddedStore.set_meta", "args[0].startswith('ingest:')", 1,
                                           "before", "", ("all", "all"), False),
    # deferred rows written every 500 statements: between the 3rd such write and its checkpoint
    "between-flushes": ("embedded.EmbeddedStore.set_meta", "args[0].startswith('ingest:')", 3, "before",
                        "embedded.DEFERRED_STATEMENTS_LIMIT = 500", ("some", "some"), True),
}


def _holds(state: str, n: int, clean: int) -> bool:
    return {"none": n == 0, "some": 0 < n < clean, "all": n == clean}[state]


@pytest.mark.parametrize("kill", sorted(EMBEDDED_KILLS))
def test_embedded_sigkill_then_rerun_equals_a_clean_load(kill, sample, clean_counts, tmp_path):
    uri = f"embedded:{tmp_path / 'graph.lbdb'}"
    target, when, nth, after, setup, (entities, statements), resumes = EMBEDDED_KILLS[kill]
    died = _child(uri, sample, target, when, nth, after, setup)
    assert died.returncode == -signal.SIGKILL, died.stderr[-3000:]
    partial = EmbeddedStore(tmp_path / "graph.lbdb")
    try:
        partial_counts = partial.stats().as_dict()
        assert _holds(entities, partial_counts["entities"], clean_counts["entities"]), partial_counts
        assert _holds(statements, partial_counts["statements"], clean_counts["statements"]), partial_counts
        assert partial.get_meta(LOCK_KEY)  # … holding the ingest lock
    finally:
        partial.close()
    assert (tmp_path / "graph.lbdb.deferred").exists()  # the killed load's deferred rows, left behind
    summary = _rerun(uri, sample)
    report = summary["files"][0]
    assert report["status"] == "done"
    # resumed from the last checkpoint, or from line 1 when the killed load had written none
    assert (report["resumed_after_line"] > 0) is resumes
    assert summary["stats"] == clean_counts  # the killed process's lock was taken over (its pid is gone)
    assert not (tmp_path / "graph.lbdb.deferred").exists()


NEO4J_KILLS = {
    # inside the 3rd batch's transaction, before it commits: the server rolls it back
    "mid-transaction": ("neo4j_store.Neo4jStore._write", "args[1] == 'create_entity_statements'", 3, "before"),
    # right after the 3rd batch (and its checkpoint, same transaction) committed
    "after-commit": ("neo4j_store.Neo4jStore.execute_write", "kwargs.get('what') == 'ingest batch'", 3, "after"),
}


@pytest.mark.neo4j
@pytest.mark.parametrize("kill", sorted(NEO4J_KILLS))
def test_neo4j_sigkill_then_rerun_equals_a_clean_load(kill, sample, clean_counts, neo4j_store, neo4j_server, tmp_path):
    target, when, nth, after = NEO4J_KILLS[kill]
    died = _child(neo4j_server["uri"], sample, target, when, nth, after)
    assert died.returncode == -signal.SIGKILL, died.stderr[-3000:]
    partial = neo4j_store.stats().as_dict()
    assert 0 < partial["statements"] < clean_counts["statements"]
    checkpoint = json.loads(neo4j_store.get_meta(f"ingest:{fingerprint(sample)}"))
    assert checkpoint["done"] is False and checkpoint["line"] > 0
    # The store holds exactly what the checkpoint says: a clean load of the lines up to it.
    prefix = tmp_path / "prefix.jsonl"
    prefix.write_text("".join(sample.read_text(encoding="utf-8").splitlines(keepends=True)[: checkpoint["line"]]))
    reference = EmbeddedStore(tmp_path / "prefix.lbdb")
    try:
        assert ingest(reference, [prefix], batch_size=BATCH)["stats"] == partial
    finally:
        reference.close()
    summary = _rerun(neo4j_server["uri"], sample)
    assert summary["files"][0]["resumed_after_line"] == checkpoint["line"]
    assert summary["stats"] == clean_counts


@pytest.mark.neo4j
def test_two_concurrent_ingests_into_neo4j_never_double_a_statement(sample, clean_counts, neo4j_store, neo4j_server):
    code = (
        "import sys\nfrom kalma_graph.ingest import ingest, IngestLocked\nfrom kalma_graph.store import open_store\n"
        "s = open_store(sys.argv[1])\ntry:\n    ingest(s, [sys.argv[2]], batch_size=50)\n    print('done')\n"
        "except IngestLocked as exc:\n    print('locked:', exc)\nfinally:\n    s.close()\n"
    )
    runs = [subprocess.Popen([sys.executable, "-c", code, neo4j_server["uri"], str(sample)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=600) for p in runs]
    assert all(p.returncode == 0 for p in runs), [err[-2000:] for _, err in outputs]
    said = sorted(out.strip().split(":")[0] for out, _ in outputs)
    assert "done" in said  # at least one loaded; the other waited its turn or was refused
    assert neo4j_store.stats().as_dict() == clean_counts
    assert neo4j_store.get_meta(LOCK_KEY) is None  # both released what they held


def test_a_live_ingest_lock_refuses_a_second_ingest_and_changes_nothing(store, sample):
    before = store.stats().as_dict()
    with ingest_lock(store) as holder:
        with pytest.raises(IngestLocked, match=rf"another ingest \(pid {os.getpid()} on .*--break-lock"):
            ingest(store, [sample], batch_size=BATCH)
        assert store.stats().as_dict() == before
        assert json.loads(store.get_meta(LOCK_KEY))["token"] == holder["token"]
    assert store.get_meta(LOCK_KEY) is None  # released
    assert ingest(store, [sample], batch_size=BATCH)["files"][0]["status"] == "done"
    assert store.get_meta(LOCK_KEY) is None


def test_a_lock_held_on_another_machine_needs_break_lock(store, sample):
    foreign = json.dumps({"host": "another-machine", "pid": 1, "since": "2026-01-01T00:00:00", "token": "x"})
    store.set_meta(LOCK_KEY, foreign)
    with pytest.raises(IngestLocked, match="another-machine"):
        ingest(store, [sample], batch_size=BATCH)
    assert store.stats().statements == 0
    summary = ingest(store, [sample], batch_size=BATCH, break_lock=True)
    assert summary["files"][0]["status"] == "done"
    assert store.get_meta(LOCK_KEY) is None


def test_cli_names_the_holder_and_the_way_out(tmp_path, sample):
    path = tmp_path / "graph.lbdb"
    store = EmbeddedStore(path)
    store.bootstrap()
    store.set_meta(LOCK_KEY, json.dumps({"host": "build-7", "pid": 4242, "since": "2026-11-24T10:00:00", "token": "y"}))
    store.close()
    cli = [sys.executable, "-m", "kalma_graph", "ingest", str(sample), "--store", f"embedded:{path}", "--no-progress"]
    refused = subprocess.run(cli, capture_output=True, text=True, timeout=600)
    assert refused.returncode == 2
    assert "pid 4242 on build-7" in refused.stderr and "--break-lock" in refused.stderr
    assert "Traceback" not in refused.stderr
    taken = subprocess.run([*cli, "--break-lock"], capture_output=True, text=True, timeout=600)
    assert taken.returncode == 0, taken.stderr[-2000:]
