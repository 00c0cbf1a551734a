"""`Neo4jStore`: the graph in a Neo4j 5 server over the official driver.

Every call names the database; every batch is one transaction (`execute_write`), so a failed or
interrupted batch leaves the graph as it was before it. Writes use `UNWIND $rows` with CREATE for
what the load plan proved new (fast fresh loads) and MATCH … SET for updates (idempotent re-runs).

Every transaction carries a timeout the server enforces (`kalma_graph.store.timeouts`: the read limit
for a read, the write limit for an ingest batch or any other write), and the driver gives up opening a
connection after `KALMA_NEO4J_CONNECT_TIMEOUT_S`. A transaction past its limit is rolled back by the
server and raises `QueryTimeoutError`.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Sequence, TypeVar

from . import queries
from .base import EntityRecord, LoadOptions, LoadResult, StatementRecord, StoreError
from .common import ReadOps, Rows, result_of
from .loading import BatchPlan
from .timeouts import QueryTimeoutError, Timeouts, is_write, timeout_message

T = TypeVar("T")

BACKEND = "neo4j"


class Neo4jStore(ReadOps):
    backend = BACKEND
    concurrent_writes = True  # the driver is thread-safe; each batch opens its own session

    def __init__(
        self,
        uri: str,
        user: str | None = None,
        password: str | None = None,
        database: str = "neo4j",
        write_batch_size: int = 5000,
        *,
        timeouts: Timeouts | None = None,
    ) -> None:
        import neo4j

        self.uri = uri
        self.database = database
        self.write_batch_size = write_batch_size
        self.timeouts = timeouts if timeouts is not None else Timeouts.from_env()
        auth = (user or "neo4j", password) if password is not None else None
        # Server notifications (e.g. "property key does not exist" on an empty graph) are not
        # errors; the driver would log each one.
        # connection_timeout bounds the TCP connect; the acquisition timeout (which must exceed it)
        # bounds the whole opening, Bolt handshake included, so a server that accepts but never
        # answers is given up on after 2 x KALMA_NEO4J_CONNECT_TIMEOUT_S, not the driver's 60 s.
        self._driver = neo4j.GraphDatabase.driver(
            uri,
            auth=auth,
            notifications_min_severity="OFF",
            connection_timeout=self.timeouts.connect_s,
            connection_acquisition_timeout=2 * self.timeouts.connect_s,
        )
        try:
            self._driver.verify_connectivity()
        except neo4j.exceptions.AuthError as exc:
            self._driver.close()
            raise StoreError(
                f"Neo4j at {uri} refused the credentials: set KALMA_NEO4J_PASSWORD (and KALMA_NEO4J_USER) "
                "or start the server with `kalma-graph neo4j start`, which records them."
            ) from exc
        except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.DriverError, OSError) as exc:
            self._driver.close()
            raise StoreError(
                f"no Neo4j answers at {uri}: start one with `kalma-graph neo4j start` (or "
                "`docker compose -f docker/compose.yaml up -d`); connection timeout "
                f"{self.timeouts.connect_s:g} s (KALMA_NEO4J_CONNECT_TIMEOUT_S)"
            ) from exc
        self._bootstrapped = False

    # --- plumbing ------------------------------------------------------------------------------
    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        if not self._bootstrapped:
            self.bootstrap()
        return self._execute(queries.load(name, BACKEND), params or {})

    def _execute(self, text: str, params: Mapping[str, Any] | None = None, *, write: bool | None = None) -> Rows:
        """One statement in its own transaction, under the read or write timeout (by its text)."""
        import neo4j

        write = is_write(text) if write is None else write
        seconds = self.timeouts.for_query(write)
        query = neo4j.Query(text, timeout=seconds)
        try:
            if write:
                records, _, _ = self._driver.execute_query(
                    query, dict(params or {}), database_=self.database, routing_=neo4j.RoutingControl.WRITE
                )
                return [record.data() for record in records]
            return self._read(query, dict(params or {}))
        except neo4j.exceptions.Neo4jError as exc:
            if (timed_out := _timed_out(exc, seconds, write, text)) is None:
                raise
            raise timed_out from exc

    def _read(self, query: Any, params: dict[str, Any], attempts: int = 3) -> Rows:
        """A read as one auto-commit statement: one round trip (RUN + PULL) where a managed
        transaction takes two (BEGIN + RUN + PULL, then COMMIT) — the second round trip was most of
        a one-hop's time on a busy machine; the plan itself is an index seek and an expand
        (PROFILE in docs/ingest.md). READ access routes it to a reader of a cluster, and the
        driver's bookmark manager (shared with every write here) makes it see our own writes there.
        A transient or routing error is retried, as a managed transaction would be."""
        import neo4j

        for attempt in range(attempts):
            try:
                with self._session(neo4j.READ_ACCESS) as session:
                    return [record.data() for record in session.run(query, params)]
            except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as exc:
                if attempt + 1 == attempts or not exc.is_retryable():
                    raise
                time.sleep(0.2 * 2**attempt)
        raise AssertionError("unreachable")

    def _session(self, access_mode: str) -> Any:
        """A session on our database that shares the driver's bookmark manager with `execute_query`,
        so reads and writes through any path are causally chained (read-your-writes on a cluster)."""
        return self._driver.session(
            database=self.database,
            default_access_mode=access_mode,
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        )

    def execute_write(self, work: Callable[..., T], *args: Any, what: str = "") -> T:
        """`work(tx, *args)` in one managed write transaction under the write timeout (retried by
        the driver on transient errors; rolled back as a whole on failure)."""
        import neo4j

        seconds = self.timeouts.write_s
        try:
            with self._session(neo4j.WRITE_ACCESS) as session:
                return session.execute_write(neo4j.unit_of_work(timeout=seconds)(work), *args)
        except neo4j.exceptions.Neo4jError as exc:
            if (timed_out := _timed_out(exc, seconds, True, what or getattr(work, "__name__", ""))) is None:
                raise
            raise timed_out from exc

    # --- GraphStore ----------------------------------------------------------------------------
    def bootstrap(self, await_s: int = 300) -> None:
        # Constraints and indexes exist before the first row is written (or, after `neo4j import`,
        # are built over the imported graph: that can take longer than an empty store's `await_s`).
        for statement in queries.load_script("schema", BACKEND):
            self._execute(statement, write=True)
        self._execute("CALL db.awaitIndexes($seconds)", {"seconds": await_s}, write=True)
        self._bootstrapped = True

    def load_batch(self, entities: Sequence[EntityRecord], statements: Sequence[StatementRecord],
                   options: LoadOptions = LoadOptions()) -> LoadResult:
        if not self._bootstrapped:
            self.bootstrap()
        plan = self.execute_write(self._load_tx, list(entities), list(statements), options, what="ingest batch")
        if options.written is not None:  # only once the transaction committed
            options.written.record(plan)
        return result_of(plan)

    def _load_tx(self, tx, entities, statements, options: LoadOptions) -> BatchPlan:
        # The lookups run inside the write transaction, so the plan sees exactly what it writes over.
        reader = _TxReader(tx)
        plan = reader._plan(entities, statements, options.default_kb, options.written)
        self._write(tx, "create_entities", "rows", plan.entities_new)
        self._write(tx, "update_entities", "rows", plan.entities_changed)
        self._write(tx, "create_values", "rows", plan.values_new)
        self._write(tx, "create_name_keys", "keys", plan.name_keys_new)
        self._write(tx, "create_names", "rows", plan.names_new)
        self._write(tx, "create_entity_statements", "rows", plan.entity_statements_new.rows())
        self._write(tx, "create_value_statements", "rows", plan.value_statements_new.rows())
        if options.checkpoint is not None:  # commits with the batch, or neither does
            key, value = options.checkpoint
            tx.run(queries.load("meta_set", BACKEND), {"key": key, "value": value}).consume()
        return plan

    def _write(self, tx, name: str, param: str, rows: list) -> None:
        text = queries.load(name, BACKEND)
        for start in range(0, len(rows), self.write_batch_size):
            tx.run(text, {param: rows[start : start + self.write_batch_size]}).consume()

    def execute_in_transactions(self, name: str, params: Mapping[str, Any] | None = None) -> None:
        """A named statement that commits in batches itself (`CALL { … } IN TRANSACTIONS`): the server
        runs that only as an auto-commit statement, not inside a transaction of ours."""
        import neo4j

        if not self._bootstrapped:
            self.bootstrap()
        text = queries.load(name, BACKEND)
        seconds = self.timeouts.write_s
        try:
            with self._session(neo4j.WRITE_ACCESS) as session:
                session.run(neo4j.Query(text, timeout=seconds), dict(params or {})).consume()
        except neo4j.exceptions.Neo4jError as exc:
            if (timed_out := _timed_out(exc, seconds, True, text)) is None:
                raise
            raise timed_out from exc

    def finish_load(self) -> None:
        pass  # every batch is written when load_batch returns

    def set_meta(self, key: str, value: str) -> None:
        self._run("meta_set", {"key": key, "value": value})

    # --- evaluation runs (store/results.py builds the rows) --------------------------------------
    def ensure_run_tables(self) -> None:
        from .results import run_schema_statements

        for statement in run_schema_statements(BACKEND):
            self._execute(statement, write=True)

    def delete_run_rows(self, run_id: str) -> None:
        self.execute_write(_delete_run_tx, run_id, what=f"delete run {run_id}")

    def write_run_rows(self, run_id: str, rows: Mapping[str, list[dict]], linked: list[dict],
                       batch: int = 5000) -> None:
        """Replace a run in one transaction: delete its nodes, create them again (no null properties)."""
        from .results import CITE_FIELDS

        self.ensure_run_tables()

        def clean(row: Mapping[str, Any]) -> dict:  # Neo4j stores no null properties
            return {k: v for k, v in row.items() if v is not None}

        def work(tx) -> None:
            _delete_run_tx(tx, run_id)
            tx.run(queries.load("run_create_run", BACKEND), {"props": clean(rows["run"][0])}).consume()
            for name, items in (("run_create_answers", [clean(a) for a in rows["answers"]]),
                                ("run_create_sentences", [clean(s) for s in rows["sentences"]]),
                                ("run_create_cites", [{"from": c["from"], "to": c["to"],
                                                       "props": clean({k: c[k] for k in CITE_FIELDS})}
                                                      for c in linked])):
                for start in range(0, len(items), batch):
                    tx.run(queries.load(name, BACKEND), {"rows": items[start:start + batch]}).consume()

        self.execute_write(work, what=f"write run {run_id}")

    def clear(self) -> None:
        for name in ("delete_relationships_batch", "delete_all_batch"):
            text = queries.load(name, BACKEND)
            while True:
                records = self._execute(text, {"limit": 20000}, write=True)
                if not records or records[0]["deleted"] == 0:
                    break

    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> "Neo4jStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _timed_out(exc: Exception, seconds: float, write: bool, what: str) -> QueryTimeoutError | None:
    """A `QueryTimeoutError` for the server's "transaction timed out" (the driver's timeout or
    `db.transaction.timeout`), else None."""
    code = getattr(exc, "code", None) or ""
    if "TransactionTimedOut" not in code:
        return None
    return QueryTimeoutError(timeout_message(BACKEND, seconds, write, what))


def _delete_run_tx(tx, run_id: str) -> None:
    from .results import RUN_DELETES

    for name in RUN_DELETES:
        tx.run(queries.load(name, BACKEND), {"run_id": run_id}).consume()


class _TxReader(ReadOps):
    """The read operations run inside an open transaction (for load planning)."""

    backend = BACKEND

    def __init__(self, tx) -> None:
        self._tx = tx

    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        return [record.data() for record in self._tx.run(queries.load(name, BACKEND), dict(params or {}))]
