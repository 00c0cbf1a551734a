"""Query timeouts of both stores (kalma_graph.store.timeouts): configured in one place, and a real
query past a tiny limit is stopped by the database with a clear `QueryTimeoutError` — on the embedded
store (Ladybug) always, on Neo4j when the test session has a server (see conftest.py)."""

from __future__ import annotations

import socket
import time

import pytest

from kalma_graph.store import QueryTimeoutError, StoreError, Timeouts, open_store, queries
from kalma_graph.store.embedded import EmbeddedStore
from kalma_graph.store.timeouts import is_write, server_tx_timeout_s
from tests.conftest import open_neo4j

#: Sums over 10^12 rows streamed from two small lists (little memory): hours on either engine.
SLOW_READ = "UNWIND range(1, 1000000) AS a UNWIND range(1, 1000000) AS b RETURN sum(a + b) AS s"
#: The same over 9 million rows: well under a second.
QUICK_READ = "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b RETURN sum(a + b) AS s"
TINY = 0.3


def test_defaults_and_environment(monkeypatch):
    for name in ("KALMA_QUERY_TIMEOUT_S", "KALMA_WRITE_TIMEOUT_S", "KALMA_NEO4J_CONNECT_TIMEOUT_S",
                 "KALMA_NEO4J_TX_TIMEOUT_S"):
        monkeypatch.delenv(name, raising=False)
    assert Timeouts.from_env() == Timeouts(read_s=600, write_s=3600, connect_s=15)
    assert server_tx_timeout_s() == 3600
    monkeypatch.setenv("KALMA_QUERY_TIMEOUT_S", "2.5")
    monkeypatch.setenv("KALMA_WRITE_TIMEOUT_S", "0")  # 0 = no limit
    monkeypatch.setenv("KALMA_NEO4J_CONNECT_TIMEOUT_S", "4")
    assert Timeouts.from_env() == Timeouts(read_s=2.5, write_s=0, connect_s=4)
    for name, value in (("KALMA_QUERY_TIMEOUT_S", "soon"), ("KALMA_WRITE_TIMEOUT_S", "-1"),
                        ("KALMA_NEO4J_CONNECT_TIMEOUT_S", "0"), ("KALMA_QUERY_TIMEOUT_S", "inf")):
        monkeypatch.setenv(name, value)
        with pytest.raises(StoreError, match=name):
            Timeouts.from_env()
        monkeypatch.setenv(name, "1")


def test_every_shipped_statement_is_classed_read_or_write():
    """Writes get the write limit, reads the read limit: the class comes from the statement's text."""
    writes = {(name, backend) for name in queries.names() for backend in queries.BACKENDS
              if _has(name, backend) and is_write(queries.load(name, backend))}
    write_names = {name for name, _ in writes}
    prefixes = ("copy_", "create_", "update_", "delete_", "meta_set", "meta_take", "meta_swap", "meta_drop",
                "run_copy_", "run_create_", "run_delete", "run_schema", "schema")
    assert write_names == {n for n in queries.names() if n.startswith(prefixes)}
    assert not is_write("// the deleted statements are left out\nMATCH (n) WHERE n.x = 'SET' RETURN n")
    assert is_write("MATCH (n) DETACH DELETE n") and is_write("copy Entity FROM $rows")


def _has(name: str, backend: str) -> bool:
    try:
        queries.load(name, backend)
        return True
    except KeyError:
        return False


def test_open_store_reads_the_timeouts_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("KALMA_QUERY_TIMEOUT_S", "7")
    store = open_store(f"embedded:{tmp_path / 'g.lbdb'}")
    try:
        assert store.timeouts.read_s == 7
    finally:
        store.close()
    monkeypatch.setenv("KALMA_QUERY_TIMEOUT_S", "x")
    with pytest.raises(StoreError, match="KALMA_QUERY_TIMEOUT_S"):
        open_store(f"embedded:{tmp_path / 'g.lbdb'}")


# --- embedded --------------------------------------------------------------------------------------


def test_embedded_read_past_its_timeout_is_stopped(tmp_path):
    store = EmbeddedStore(tmp_path / "g.lbdb", timeouts=Timeouts(read_s=TINY))
    try:
        store.bootstrap()
        started = time.perf_counter()
        with pytest.raises(QueryTimeoutError) as err:
            store._execute(SLOW_READ, {})
        assert time.perf_counter() - started < 30
        message = str(err.value)
        assert message.startswith("embedded store: a read query ran past its 0.3 s timeout and was stopped")
        assert SLOW_READ in message and "KALMA_QUERY_TIMEOUT_S" in message
        assert store.stats().entities == 0  # the connection is still usable, quick reads pass
        assert store.get_meta("never-set") is None
    finally:
        store.close()


def test_embedded_write_past_its_timeout_is_stopped_and_leaves_nothing(tmp_path):
    store = EmbeddedStore(tmp_path / "g.lbdb", timeouts=Timeouts(write_s=TINY))
    try:
        store.bootstrap()
        slow_write = SLOW_READ.replace("RETURN sum(a + b) AS s",
                                       "WITH sum(a + b) AS s CREATE (:Meta {key: 'k', value: 'v'})")
        with pytest.raises(QueryTimeoutError, match=r"a write query ran past its 0.3 s timeout.*KALMA_WRITE_TIMEOUT_S"):
            store._execute(slow_write, {})
        assert store.get_meta("k") is None
        assert store._execute(QUICK_READ, {})[0]["s"] == 27009000000  # reads keep their own (default) limit
    finally:
        store.close()


def test_embedded_without_a_limit_runs_to_the_end(tmp_path):
    store = EmbeddedStore(tmp_path / "g.lbdb", timeouts=Timeouts(read_s=0))
    try:
        assert store._execute(QUICK_READ, {})[0]["s"] == 27009000000
    finally:
        store.close()


# --- Neo4j -------------------------------------------------------------------------------------------


def test_neo4j_that_never_answers_is_given_up_on(tmp_path):
    """A port that accepts connections but never speaks Bolt: the store gives up after 2 x the connect
    timeout (the driver alone would wait 60 s)."""
    pytest.importorskip("neo4j")
    from kalma_graph.store.neo4j_store import Neo4jStore

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        uri = f"bolt://127.0.0.1:{silent.getsockname()[1]}"
        started = time.perf_counter()
        with pytest.raises(StoreError, match="no Neo4j answers at .*connection timeout 0.5 s"):
            Neo4jStore(uri, timeouts=Timeouts(connect_s=0.5))
        assert time.perf_counter() - started < 10


@pytest.mark.neo4j
def test_neo4j_read_past_its_timeout_is_stopped(neo4j_server):
    from kalma_graph.store.neo4j_store import Neo4jStore

    store = Neo4jStore(neo4j_server["uri"], user=neo4j_server["user"], password=neo4j_server["password"],
                       timeouts=Timeouts(read_s=TINY))
    try:
        started = time.perf_counter()
        with pytest.raises(QueryTimeoutError) as err:
            store._execute(SLOW_READ)
        assert time.perf_counter() - started < 60
        message = str(err.value)
        assert message.startswith("neo4j store: a read query ran past its 0.3 s timeout and was stopped")
        assert "KALMA_QUERY_TIMEOUT_S" in message
        assert "TransactionTimedOut" in err.value.__cause__.code
        assert store.get_meta("never-set") is None  # quick reads pass
    finally:
        store.close()


@pytest.mark.neo4j
def test_neo4j_write_past_its_timeout_is_rolled_back(neo4j_server):
    from kalma_graph.store.neo4j_store import Neo4jStore

    store = Neo4jStore(neo4j_server["uri"], user=neo4j_server["user"], password=neo4j_server["password"],
                       timeouts=Timeouts(write_s=TINY))
    marker = "timeout-test-marker"

    def slow_write(tx) -> None:
        tx.run("CREATE (:TimeoutProbe {id: $id})", id=marker).consume()
        tx.run(SLOW_READ).consume()

    try:
        with pytest.raises(QueryTimeoutError, match=r"a write query ran past its 0.3 s timeout .*slow probe.*"
                                                    r"KALMA_WRITE_TIMEOUT_S"):
            store.execute_write(slow_write, what="slow probe")
        rows = store._execute("MATCH (p:TimeoutProbe {id: $id}) RETURN count(p) AS n", {"id": marker})
        assert rows == [{"n": 0}]  # the whole transaction was rolled back
    finally:
        store.close()


@pytest.mark.neo4j
def test_neo4j_store_from_the_fixture_has_the_default_limits(neo4j_server, monkeypatch):
    for name in ("KALMA_QUERY_TIMEOUT_S", "KALMA_WRITE_TIMEOUT_S", "KALMA_NEO4J_CONNECT_TIMEOUT_S"):
        monkeypatch.delenv(name, raising=False)
    store = open_neo4j(neo4j_server)
    try:
        assert store.timeouts == Timeouts()
        assert store._execute("RETURN 1 AS one") == [{"one": 1}]
    finally:
        store.close()
