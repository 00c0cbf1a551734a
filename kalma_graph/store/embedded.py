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

import shutil
import threading
import warnings
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from kalma_graph.kg.triples import Entity, Triple

from . import queries
from .base import EntityRecord, LoadOptions, LoadResult, StatementRecord, StoreError
from .common import ReadOps, Rows, result_of, to_entity
from .loading import StatementRows
from .timeouts import QueryTimeoutError, Timeouts, is_write, timeout_message

BACKEND = "embedded"
#: `one_hop_many` of up to this many ids looks each up by its key; more are read in one scan (measured at 1M
#: statements: a lookup 0.4 ms, a scan 7 ms and growing with the graph)
ONE_HOP_LOOKUPS_UP_TO = 16
# A first load writes its deferred rows (`_Deferred`) at least every this many statements, each time
# with a checkpoint: a killed load redoes at most this many. Each such write into a relationship
# table rewrites what the table holds, so the cost grows with the number of writes.
DEFERRED_STATEMENTS_LIMIT = 10_000_000

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
        self._deferred: _Deferred | None = None  # a first load's rows not written yet (`_Deferred`)
        self._deferred_folder = self.path.with_name(self.path.name + ".deferred")

    # --- plumbing ------------------------------------------------------------------------------
    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        if not self._bootstrapped:
            self.bootstrap()
        if self._deferred is not None and name not in _BLIND_TO_DEFERRED:
            self.finish_load()  # a read sees every batch loaded so far
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
            assert not isinstance(result, list)  # one statement, one result
            count = result.get_num_tuples()
            # chunk_size = the row count: Arrow's default chunk (1M rows, allocated per call) cost about 1.5 ms a
            # query whatever its size, most of a one-hop at a million statements (bench/scale.py)
            rows = result.get_as_arrow(chunk_size=count).to_pylist() if count else []
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

    # --- GraphStore ----------------------------------------------------------------------------
    def one_hop_many(self, entity_ids: Iterable[str]) -> dict[str, list[Triple]]:
        """A few ids (what `verify` and `answer` ask: the persons of one answer) by their primary key, one
        prepared `one_hop` each; many by one `WHERE s.id IN $ids`, which Ladybug answers by scanning every
        entity: 0.4 ms a lookup against 7 ms a scan at a million statements, the scan growing with the graph."""
        ids = sorted(set(entity_ids))
        if len(ids) > ONE_HOP_LOOKUPS_UP_TO:
            return super().one_hop_many(ids)
        return {i: self.one_hop(i) for i in ids}

    def bootstrap(self) -> None:
        for statement in queries.load_script("schema", BACKEND):
            self._execute(statement, {})
        self._bootstrapped = True

    def load_batch(self, entities: Sequence[EntityRecord], statements: Sequence[StatementRecord],
                   options: LoadOptions = LoadOptions()) -> LoadResult:
        if options.written is None:
            if self._deferred is not None:
                self.finish_load()  # this plan looks up values, keys and statements in the store
            elif self._deferred_folder.exists():  # left by a killed first load (the ingest lock is held)
                shutil.rmtree(self._deferred_folder, ignore_errors=True)
        plan = self._plan(entities, statements, options.default_kb, options.written)
        if options.written is None:
            self.write_plan(plan)
            if options.checkpoint is not None:  # after the whole batch: a crash before it redoes the batch
                self.set_meta(*options.checkpoint)
            return result_of(plan)
        # A first load: every row deferred (`_Deferred`) but updates of entities that an earlier
        # `finish_load` of this load wrote already, which are made now.
        deferred = self._deferred = self._deferred or _Deferred(self._deferred_folder)
        in_store = deferred.add_plan(plan)
        if in_store:
            self._execute(queries.load("update_entities", BACKEND), {"rows": _table(in_store, _ENTITY_SCHEMA)})
        deferred.checkpoint = options.checkpoint or deferred.checkpoint
        options.written.record(plan)
        if deferred.statements >= DEFERRED_STATEMENTS_LIMIT:
            self.finish_load()
        return result_of(plan)

    def finish_load(self) -> None:
        """Write what a first load deferred: one COPY per table for all its batches, then the
        checkpoint of the last of them. The ingest calls this at the end of each file, on Ctrl-C
        and before anything reads the store; any read through this store calls it first too."""
        deferred, self._deferred = self._deferred, None
        if deferred is None:
            return
        try:
            for name, table in deferred.tables():
                self._execute(queries.load(name, BACKEND), {"rows": table})
            if deferred.checkpoint is not None:
                self.set_meta(*deferred.checkpoint)
        finally:
            deferred.discard()

    def _pending_entities(self, ids: set[str]) -> list[Entity]:
        return self._deferred.entities_of(ids) if self._deferred is not None else []

    def _pending_name_pairs(self, ids: set[str]) -> set[tuple[str, str]]:
        return self._deferred.pairs_of(ids) if self._deferred is not None else set()

    def _pending_statement_ids(self, subjects: set[str]) -> set[str]:
        return self._deferred.sids_of(subjects) if self._deferred is not None else set()

    def write_plan(self, plan: Any) -> None:
        """The writes of a load plan: one COPY per table. Nodes before relationships; every COPY
        holds only rows the plan proved new."""
        if plan.entities_new:
            self._execute(queries.load("copy_entities", BACKEND), {"rows": _table(plan.entities_new, _ENTITY_SCHEMA)})
        if plan.entities_changed:
            self._execute(queries.load("update_entities", BACKEND),
                          {"rows": _table(plan.entities_changed, _ENTITY_SCHEMA)})
        for name, table in _tables_after_entities(plan):
            self._execute(queries.load(name, BACKEND), {"rows": table})

    def set_meta(self, key: str, value: str) -> None:
        self._run("meta_set", {"key": key, "value": value})

    # --- evaluation runs (store/results.py builds the rows) --------------------------------------
    def ensure_run_tables(self) -> None:
        if not self._bootstrapped:
            self.bootstrap()
        from .results import run_schema_statements

        for statement in run_schema_statements(BACKEND):
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
                                       for s in rows["sentences"]],
             arrow_schema((("position", "int"),), ("from", "to")))
        copy("run_copy_cites", linked, arrow_schema(CITE_COLUMNS, ("from", "to")))

    def clear(self) -> None:
        self._run("delete_all")

    def close(self) -> None:
        if self._deferred is not None:  # a load that stopped on an error: its re-run redoes them
            self._deferred.discard()
            self._deferred = None
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


# Reads that never touch a deferred table (Meta: the lock, checkpoints; any_entity, which an ingest
# asks before it starts), and the three lookups the plan completes itself from the deferred rows
# (`_Deferred.entities_of` / `pairs_of` / `sids_of`). Any other read writes the deferred rows first.
_BLIND_TO_DEFERRED = frozenset({
    "entities_by_ids", "any_entity", "meta_get", "meta_set", "meta_take", "meta_swap", "meta_drop",
    "existing_name_pairs", "existing_statement_ids",
})


def _tables_after_entities(plan: Any) -> Iterator[tuple[str, pa.Table]]:
    """A plan's rows other than entities, as (COPY statement, Arrow table), in the order they must
    be written: nodes (values, name keys) before the relationships that reach them."""
    if plan.values_new:
        yield "copy_values", _table(plan.values_new, _VALUE_SCHEMA)
    if plan.name_keys_new:
        yield "copy_name_keys", pa.table({"key": pa.array(plan.name_keys_new, pa.string())}, schema=_KEY_SCHEMA)
    if plan.names_new:
        yield "copy_names", _table(plan.names_new, _NAMES_SCHEMA, ("key", "id"))
    if plan.entity_statements_new:
        yield "copy_entity_statements", _statement_table(plan.entity_statements_new)
    if plan.value_statements_new:
        yield "copy_value_statements", _statement_table(plan.value_statements_new)


class _Deferred:
    """The rows of a first load (an ingest into an empty store), kept on disk until `finish_load`
    writes each table with one COPY.

    Why: a COPY into a table that already holds rows costs more the more it holds, so batch after
    batch the COPYs grow quadratically: 1M statements in 5 relationship COPYs took 7.7 s, in one
    3.4 s (3M: 18.3 s in 3, 9.2 s in one); 1M entities in 50 node COPYs 11.8 s, in one 1.5 s.

    The load plan reads little of these rows back: values and name keys it knows (`WrittenSoFar`);
    an entity it meets again, and the name pairs and statement ids of one (an N-Triples subject
    whose lines span two batches, an entity named in two files), it reads from the store and from
    here (`entities_of`, `pairs_of`, `sids_of`: an Arrow filter over the files, only for entities
    that have rows here). A changed entity is a later row that replaces the earlier one when the
    table is written (one written already is updated in the store at once).

    Each batch's rows are an Arrow IPC file beside the store (memory stays one batch), read back
    memory-mapped. The checkpoint of the last batch waits with them: a crash before `finish_load`
    leaves the store's checkpoint where it was, and the re-run redoes these batches (idempotently:
    it plans with lookups if the crash left some rows in the store)."""

    def __init__(self, folder: Path) -> None:
        shutil.rmtree(folder, ignore_errors=True)  # left by a killed run (the ingest lock is held)
        folder.mkdir(parents=True)
        self.folder = folder
        self.entity_ids: set[str] = set()  # entities with a row here
        self.ids: set[str] = set()  # entities with statements or names here
        self.statements = 0
        self.replaced = False  # whether some entity has a later row replacing an earlier one
        self.checkpoint: tuple[str, str] | None = None
        self._files: dict[str, list[Path]] = {name: [] for name in _DEFERRED_ORDER}

    def add_plan(self, plan: Any) -> list[dict]:
        """Keep a load plan's rows; returns the changed entities that are in the store already."""
        here = [r for r in plan.entities_changed if r["id"] in self.entity_ids]
        if plan.entities_new or here:
            self._add("copy_entities", _table(plan.entities_new + here, _ENTITY_SCHEMA))
        self.replaced = self.replaced or bool(here)
        self.entity_ids.update(r["id"] for r in plan.entities_new)
        for name, table in _tables_after_entities(plan):
            self._add(name, table)
        self.ids.update(plan.entity_statements_new.subject)
        self.ids.update(plan.value_statements_new.subject)
        self.ids.update(r["id"] for r in plan.names_new)
        self.statements += len(plan.entity_statements_new) + len(plan.value_statements_new)
        return [r for r in plan.entities_changed if r["id"] not in self.entity_ids]

    def _add(self, name: str, table: pa.Table) -> None:
        path = self.folder / f"{name}.{len(self._files[name]):06d}.arrow"
        with pa.ipc.new_file(str(path), table.schema) as writer:
            writer.write_table(table)
        self._files[name].append(path)

    def _read(self, name: str) -> pa.Table | None:
        if not self._files[name]:
            return None
        return pa.concat_tables(pa.ipc.open_file(pa.memory_map(str(path))).read_all() for path in self._files[name])

    def tables(self) -> Iterator[tuple[str, pa.Table]]:
        for name in _DEFERRED_ORDER:
            table = self._read(name)
            if table is not None:
                yield name, _last_row_per_id(table) if name == "copy_entities" and self.replaced else table

    def _where(self, name: str, column: str, wanted: set[str]) -> list[dict]:
        table = self._read(name) if wanted else None
        if table is None:
            return []
        return table.filter(pc.is_in(table[column], value_set=pa.array(sorted(wanted), pa.string()))).to_pylist()

    def entities_of(self, ids: set[str]) -> list[Entity]:
        latest = {r["id"]: r for r in self._where("copy_entities", "id", ids & self.entity_ids)}  # rows in plan order
        return [to_entity(r) for r in latest.values()]

    def pairs_of(self, ids: set[str]) -> set[tuple[str, str]]:
        return {(r["from"], r["to"]) for r in self._where("copy_names", "to", ids & self.ids)}

    def sids_of(self, subjects: set[str]) -> set[str]:
        return {r["sid"] for name in ("copy_entity_statements", "copy_value_statements")
                for r in self._where(name, "from", subjects & self.ids)}

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _last_row_per_id(table: pa.Table) -> pa.Table:
    """One row per `id`, the last one (rows are in the order they were planned)."""
    last = {entity_id: row for row, entity_id in enumerate(table["id"].to_pylist())}
    return table.take(pa.array(sorted(last.values()), pa.int64()))


_DEFERRED_ORDER = ("copy_entities", "copy_values", "copy_name_keys", "copy_names", "copy_entity_statements",
                   "copy_value_statements")


def _table(rows: list[dict], schema: pa.Schema, keys: Sequence[str] | None = None) -> pa.Table:
    """The Arrow table of `rows`, one column per field of `schema`, read from the rows under `keys`
    (default: the field names). Built column by column: `Table.from_pylist` walks every row's dict
    per field in Python and took about a tenth of a first load."""
    keys = keys or schema.names
    return pa.Table.from_arrays([pa.array([r[k] for r in rows], type=f.type) for k, f in zip(keys, schema)],
                                schema=schema)


def _statement_table(rows: StatementRows) -> pa.Table:
    """A plan's statement rows (columns already) as the relationship table `_STATEMENT_SCHEMA`."""
    return pa.Table.from_arrays([pa.array(column, pa.string()) for column in rows.columns()], schema=_STATEMENT_SCHEMA)
