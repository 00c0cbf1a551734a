"""`EmbeddedStore`: the default store, on Ladybug (the maintained Kùzu fork), in-process, no server.

Dialect notes that shaped this module (see `cypher/*.embedded.cypher`):
- tables are declared (schema bootstrap), lists are 1-based, `label(n)` instead of `n:Label`;
- writes go through `COPY <table> FROM $arrow_table` (row-by-row UNWIND is pathologically slow);
- a COPY that meets an existing primary key crashes the process in 0.22, so every COPY is fed only
  rows the load plan has proven new;
- COPY inside an explicit transaction is unreliable in 0.22, so each COPY commits on its own; a
  batch interrupted half-way is completed by the idempotent re-run (checkpoints advance only after a
  whole batch is written);
- every statement runs under a timeout (`Connection.set_query_timeout`): the read or the write limit
  of `kalma_graph.store.timeouts`, chosen by the statement's text; Ladybug stops a statement past its
  limit with "Interrupted.", which becomes a `QueryTimeoutError`.
"""

from __future__ import annotations

import threading
import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

import pyarrow as pa

from . import queries
from .base import EntityRecord, LoadOptions, LoadResult, StatementRecord, StoreError
from .common import ReadOps, Rows, result_of
from .timeouts import QueryTimeoutError, Timeouts, is_write, timeout_message

BACKEND = "embedded"

_ENTITY_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("kb", pa.string()),
        ("name", pa.string()),
        ("name_lc", pa.string()),
        ("aliases", pa.list_(pa.string())),
        ("aliases_text", pa.string()),
        ("description", pa.string()),
        ("types", pa.list_(pa.string())),
        ("cvt", pa.bool_()),
    ]
)
_VALUE_SCHEMA = pa.schema([("id", pa.string()), ("value", pa.string()), ("datatype", pa.string())])
_KEY_SCHEMA = pa.schema([("key", pa.string())])
_NAMES_SCHEMA = pa.schema([("from", pa.string()), ("to", pa.string())])
_STATEMENT_SCHEMA = pa.schema(
    [("from", pa.string()), ("to", pa.string()), ("sid", pa.string()), ("pid", pa.string()), ("label", pa.string())]
)


class EmbeddedStore(ReadOps):
    backend = BACKEND
    concurrent_writes = False  # a Ladybug connection is used from the thread that opened it

    def __init__(self, path: str | Path, read_only: bool = False, *, timeouts: Timeouts | None = None) -> None:
        import ladybug  # imported here so that `--help` stays fast

        self.timeouts = timeouts if timeouts is not None else Timeouts.from_env()
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.uri = f"embedded:{self.path}"
        try:
            self._db = ladybug.Database(str(self.path), read_only=read_only)
        except RuntimeError as exc:  # e.g. another process holds the write lock
            raise StoreError(f"cannot open embedded store at {self.path}: {exc}") from exc
        self._conn = ladybug.Connection(self._db)
        self._lock = threading.Lock()  # one connection; serialise callers from worker threads
        self._prepared: dict[str, Any] = {}
        self._timeout_ms: int | None = None  # what the connection is set to now
        # A read-only store cannot create tables: it reads whatever schema the writer made.
        self._bootstrapped = read_only

    # --- plumbing ------------------------------------------------------------------------------
    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        if not self._bootstrapped:
            self.bootstrap()
        return self._execute(queries.load(name, BACKEND), params or {})

    def _execute(self, text: str, params: Mapping[str, Any]) -> Rows:
        write = is_write(text)
        seconds = self.timeouts.for_query(write)
        with self._lock:
            timeout_ms = max(1, round(seconds * 1000)) if seconds > 0 else 0
            if timeout_ms != self._timeout_ms:  # applied by Ladybug before the next statement
                self._conn.set_query_timeout(timeout_ms)
                self._timeout_ms = timeout_ms
            try:
                result = self._conn.execute(self._statement(text), dict(params))
            except RuntimeError as exc:
                if timeout_ms and str(exc).strip() == "Interrupted.":
                    raise QueryTimeoutError(timeout_message(BACKEND, seconds, write, text)) from exc
                raise
            rows = result.get_as_arrow().to_pylist() if result.get_num_tuples() else []
            result.close()
        return rows

    def _statement(self, text: str):
        """A prepared statement for reads (planning once cuts one-hop latency about 4x); bulk
        statements that take Arrow tables (COPY, LOAD FROM) are sent as text."""
        if text.startswith(("COPY", "LOAD", "CREATE")):
            return text
        prepared = self._prepared.get(text)
        if prepared is None:
            with warnings.catch_warnings():
                # Ladybug 0.22 marks separate prepare() as deprecated but keeps it; we pin 0.22.
                warnings.simplefilter("ignore", DeprecationWarning)
                prepared = self._prepared[text] = self._conn.prepare(text)
        return prepared

    def _copy(self, name: str, rows: list[dict], schema: pa.Schema) -> None:
        if rows:
            table = pa.Table.from_pylist(rows, schema=schema)
            self._execute(queries.load(name, BACKEND), {"rows": table})

    # --- GraphStore ----------------------------------------------------------------------------
    def bootstrap(self) -> None:
        for statement in queries.load_script("schema", BACKEND):
            self._execute(statement, {})
        self._bootstrapped = True

    def load_batch(self, entities: Sequence[EntityRecord], statements: Sequence[StatementRecord],
                   options: LoadOptions = LoadOptions()) -> LoadResult:
        plan = self._plan(entities, statements, options.default_kb, options.written)
        self.write_plan(plan)
        if options.written is not None:
            options.written.record(plan)
        if options.checkpoint is not None:  # after the whole batch: a crash before it redoes the batch
            self.set_meta(*options.checkpoint)
        return result_of(plan)

    def write_plan(self, plan: Any) -> None:
        """The writes of a load plan: one COPY per table (bench/ingest.py times this alone as the raw
        COPY speed). Nodes before relationships; every COPY holds only rows the plan proved new."""
        self._copy("copy_entities", plan.entities_new, _ENTITY_SCHEMA)
        if plan.entities_changed:
            table = pa.Table.from_pylist(plan.entities_changed, schema=_ENTITY_SCHEMA)
            self._execute(queries.load("update_entities", BACKEND), {"rows": table})
        self._copy("copy_values", plan.values_new, _VALUE_SCHEMA)
        self._copy("copy_name_keys", [{"key": k} for k in plan.name_keys_new], _KEY_SCHEMA)
        self._copy("copy_names", [{"from": r["key"], "to": r["id"]} for r in plan.names_new], _NAMES_SCHEMA)
        self._copy("copy_entity_statements", _edges(plan.entity_statements_new), _STATEMENT_SCHEMA)
        self._copy("copy_value_statements", _edges(plan.value_statements_new), _STATEMENT_SCHEMA)

    def set_meta(self, key: str, value: str) -> None:
        self._run("meta_set", {"key": key, "value": value})

    # --- evaluation runs (store/results.py builds the rows) --------------------------------------
    def ensure_run_tables(self) -> None:
        if not self._bootstrapped:
            self.bootstrap()
        for statement in queries.load_script("run_schema", BACKEND):
            self._execute(statement, {})

    def delete_run_rows(self, run_id: str) -> None:
        from .results import RUN_DELETES

        self.ensure_run_tables()
        for name in RUN_DELETES:
            self._execute(queries.load(name, BACKEND), {"run_id": run_id})

    def write_run_rows(self, run_id: str, rows: Mapping[str, list[dict]], linked: list[dict]) -> None:
        """Replace a run: delete its nodes, then one COPY per table (Ladybug 0.22 must not COPY over an
        existing key, hence the delete first)."""
        from .results import ANSWER_COLUMNS, CITE_COLUMNS, RUN_COLUMNS, SENTENCE_COLUMNS, arrow_schema

        self.delete_run_rows(run_id)

        def copy(name: str, table_rows: list[dict], schema: pa.Schema) -> None:
            if table_rows:
                self._execute(queries.load(name, BACKEND), {"rows": pa.Table.from_pylist(table_rows, schema=schema)})

        copy("run_copy_run", rows["run"], arrow_schema(RUN_COLUMNS))
        copy("run_copy_answers", rows["answers"], arrow_schema(ANSWER_COLUMNS))
        copy("run_copy_sentences", rows["sentences"], arrow_schema(SENTENCE_COLUMNS))
        copy("run_copy_has_answer", [{"from": run_id, "to": a["id"]} for a in rows["answers"]],
             arrow_schema((), ("from", "to")))
        copy("run_copy_has_sentence", [{"from": s["answer_id"], "to": s["id"], "position": s["position"]}
                                       for s in rows["sentences"]], arrow_schema((("position", "int"),), ("from", "to")))
        copy("run_copy_cites", linked, arrow_schema(CITE_COLUMNS, ("from", "to")))

    def clear(self) -> None:
        self._run("delete_all")

    def close(self) -> None:
        # A live prepared statement keeps Ladybug's file lock after Database.close(), so another
        # process (the CLI after a Python caller) could not open the store: drop them first.
        with self._lock:
            self._prepared.clear()
            self._conn.close()
            self._db.close()

    def __enter__(self) -> "EmbeddedStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _edges(rows: list[dict]) -> list[dict]:
    return [{"from": r["subject"], "to": r["object"], "sid": r["sid"], "pid": r["pid"], "label": r["label"]} for r in rows]
