"""`Neo4jStore`: the graph in a Neo4j 5 server over the official driver.

Every call names the database; every batch is one transaction (`execute_write`), so a failed or
interrupted batch leaves the graph as it was before it. Writes use `UNWIND $rows` with CREATE for
what the load plan proved new (fast fresh loads) and MATCH … SET for updates (idempotent re-runs).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from . import queries
from .base import EntityRecord, LoadResult, StatementRecord, StoreError
from .common import ReadOps, Rows, result_of

BACKEND = "neo4j"


class Neo4jStore(ReadOps):
    backend = BACKEND

    def __init__(
        self,
        uri: str,
        user: str | None = None,
        password: str | None = None,
        database: str = "neo4j",
        write_batch_size: int = 5000,
    ) -> None:
        import neo4j

        self.uri = uri
        self.database = database
        self.write_batch_size = write_batch_size
        auth = (user or "neo4j", password) if password is not None else None
        # Server notifications (e.g. "property key does not exist" on an empty graph) are not
        # errors; the driver would log each one.
        self._driver = neo4j.GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF")
        try:
            self._driver.verify_connectivity()
        except neo4j.exceptions.AuthError as exc:
            self._driver.close()
            raise StoreError(
                f"Neo4j at {uri} refused the credentials: set KALMA_NEO4J_PASSWORD (and KALMA_NEO4J_USER) "
                "or start the server with `kalma-graph neo4j start`, which records them."
            ) from exc
        except (neo4j.exceptions.ServiceUnavailable, OSError) as exc:
            self._driver.close()
            raise StoreError(
                f"no Neo4j answers at {uri}: start one with `kalma-graph neo4j start` "
                "(or `docker compose -f docker/compose.yaml up -d`)"
            ) from exc
        self._bootstrapped = False

    # --- plumbing ------------------------------------------------------------------------------
    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        if not self._bootstrapped:
            self.bootstrap()
        records, _, _ = self._driver.execute_query(
            queries.load(name, BACKEND), dict(params or {}), database_=self.database
        )
        return [record.data() for record in records]

    # --- GraphStore ----------------------------------------------------------------------------
    def bootstrap(self) -> None:
        # Constraints and indexes exist before the first row is written.
        for statement in queries.load_script("schema", BACKEND):
            self._driver.execute_query(statement, database_=self.database)
        self._driver.execute_query("CALL db.awaitIndexes(300)", database_=self.database)
        self._bootstrapped = True

    def load_batch(
        self,
        entities: Sequence[EntityRecord],
        statements: Sequence[StatementRecord],
        default_kb: str = "wikidata",
    ) -> LoadResult:
        if not self._bootstrapped:
            self.bootstrap()
        with self._driver.session(database=self.database) as session:
            return session.execute_write(self._load_tx, list(entities), list(statements), default_kb)

    def _load_tx(self, tx, entities, statements, default_kb) -> LoadResult:
        # The lookups run inside the write transaction, so the plan sees exactly what it writes over.
        reader = _TxReader(tx)
        plan = reader._plan(entities, statements, default_kb)
        self._write(tx, "create_entities", "rows", plan.entities_new)
        self._write(tx, "update_entities", "rows", plan.entities_changed)
        self._write(tx, "create_values", "rows", plan.values_new)
        self._write(tx, "create_name_keys", "keys", plan.name_keys_new)
        self._write(tx, "create_names", "rows", plan.names_new)
        self._write(tx, "create_entity_statements", "rows", plan.entity_statements_new)
        self._write(tx, "create_value_statements", "rows", plan.value_statements_new)
        return result_of(plan)

    def _write(self, tx, name: str, param: str, rows: list) -> None:
        text = queries.load(name, BACKEND)
        for start in range(0, len(rows), self.write_batch_size):
            tx.run(text, {param: rows[start : start + self.write_batch_size]}).consume()

    def set_meta(self, key: str, value: str) -> None:
        self._run("meta_set", {"key": key, "value": value})

    def clear(self) -> None:
        text = queries.load("delete_all_batch", BACKEND)
        while True:
            records, _, _ = self._driver.execute_query(text, {"limit": 20000}, database_=self.database)
            if not records or records[0]["deleted"] == 0:
                break

    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> "Neo4jStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _TxReader(ReadOps):
    """The read operations run inside an open transaction (for load planning)."""

    backend = BACKEND

    def __init__(self, tx) -> None:
        self._tx = tx

    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        return [record.data() for record in self._tx.run(queries.load(name, BACKEND), dict(params or {}))]
