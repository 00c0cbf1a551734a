"""`ingest`: stream files through a reader into a store, in batches, resumably.

Guarantees (each has a test):
- idempotent: every batch is an upsert keyed by entity id / statement digest, so re-ingesting a file
  changes nothing;
- resumable: with each written batch the store records `(file fingerprint → last line)`; a re-run
  skips finished files and resumes unfinished ones after the checkpoint; Ctrl-C finishes the batch
  in hand, records it and stops (a second Ctrl-C aborts at once; the re-run redoes that batch);
- malformed lines are reported as `file:line: reason`; with `on_error="fail"` the run stops before
  writing the batch that holds the bad line, so the store is as it was after the previous batch;
- crash-safe: a process killed anywhere (SIGKILL) leaves a store whose re-run ends with the counts of
  a clean load, and two ingests never write one store at once (`lock.py`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Iterable, Literal, Sequence

from kalma_graph.errors import BadInputError, RunInterrupted
from kalma_graph.kg.triples import Entity

from ..store.base import EntityRecord, GraphStore, LoadOptions, LoadResult, StatementRecord, name_key
from ..store.loading import WrittenSoFar
from .formats import detect_format, make_reader
from .lock import ingest_lock
from .read_ahead import read_ahead, worth_reading_ahead
from .readers.base import UNRESOLVED_LABEL, LineError, ParsedLine
from .readers.biokalma import BioKaLMAReader
from .sources import bytes_read, fingerprint
from .subset import Subset, check_store_subset, collect_members, labelled_objects
from .writer import BatchWriter

OnError = Literal["skip", "fail"]
MAX_REPORTED_ERRORS = 100
# Records per batch of a first load into an empty embedded store: its rows wait for one COPY per
# table per file (`embedded._Deferred`), one Arrow file per batch and table, and each batch plans
# with a few lookups, so large batches cost least (Neo4j keeps `batch_size`: its batch is one
# transaction held in the server's memory).
FRESH_BATCH_SIZE = 200_000
DEFAULT_BATCH_SIZE = 20_000


class IngestError(BadInputError, RuntimeError):
    """A malformed line under `on_error="fail"`; the message carries `file:line: reason`."""


class IngestInterrupted(RunInterrupted, RuntimeError):
    """Ctrl-C: the batch in hand was written and checkpointed; re-run to continue."""


@dataclass
class FileReport:
    path: str
    format: str
    status: str = "pending"  # done | already-ingested | interrupted | failed
    resumed_after_line: int = 0
    lines: int = 0
    entities_created: int = 0
    entities_updated: int = 0
    values_created: int = 0
    statements_created: int = 0
    labels_linked: int = 0
    labels_kept_as_values: int = 0
    labels_already_stated: int = 0
    labels_refused_class: int = 0  # a name matched, but the entity's class does not fit the property
    labels_refused_short_alias: int = 0  # matched only through a short alias (`LI`): kept as a Value
    error_count: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, result: LoadResult) -> None:
        self.entities_created += result.entities_created
        self.entities_updated += result.entities_updated
        self.values_created += result.values_created
        self.statements_created += result.statements_created

    def error(self, err: LineError) -> str:
        message = f"{self.path}:{err.line}: {err.reason}"
        self.error_count += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(message)
        return message


ProgressHook = Callable[[str, int, int], None]  # (path, bytes done, bytes total)


def ingest(
    store: GraphStore,
    paths: Sequence[str | Path],
    *,
    fmt: str | None = None,
    on_error: OnError = "skip",
    batch_size: int | None = None,
    force: bool = False,
    progress: ProgressHook | None = None,
    on_line_error: Callable[[str], None] | None = None,
    break_lock: bool = False,
    subset: Subset | None = None,
    read_ahead: bool | None = None,
) -> dict:
    """Load `paths` into `store`; returns a JSON-able summary (per file and totals).

    One ingest at a time per store (`ingest_lock`; `break_lock` takes a lock whose holder cannot be
    checked, e.g. one left by a machine that crashed). `subset` (`subset.parse_subset`) loads part of
    the files: its members and their allowed statements, then the names of the objects outside it.
    `read_ahead`: read each file in a second process (`read_ahead.py`); default (None): for files of
    4 MB and more, except BioKaLMA records (small files whose labels are linked as they load)."""
    if on_error not in ("skip", "fail"):
        raise ValueError("on_error must be 'skip' or 'fail'")
    store.bootstrap()
    files = [Path(p) for p in paths]
    for path in files:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    # Detect every format before writing anything: a typo in the last path fails fast.
    formats = [fmt or detect_format(path) for path in files]
    reports: list[FileReport] = []
    started = time.perf_counter()
    subset_report: dict | None = None
    with ingest_lock(store, break_lock=break_lock), _GracefulInterrupt() as interrupt, no_cycle_collection():
        check_store_subset(store, subset)
        # Into an empty store (and nobody else writes: the lock), what this load wrote is all there
        # is: batches plan without lookups, and the embedded store takes large ones.
        written = None if store.query("any_entity") else WrittenSoFar()
        if batch_size is None:
            batch_size = FRESH_BATCH_SIZE if written is not None and store.backend == "embedded" else DEFAULT_BATCH_SIZE
        if subset is not None:
            subset_report = {"rule": subset.canonical(), "fingerprint": subset.fingerprint}
            if any(subset.needs_collection(f) for f in formats):
                t0 = time.perf_counter()
                subset.members = collect_members(subset, [(p, make_reader(f)) for p, f in zip(files, formats)])
                subset_report.update(members=len(subset.members), collect_seconds=round(time.perf_counter() - t0, 3))
        for path, file_format in zip(files, formats):
            report = FileReport(str(path), file_format)
            reports.append(report)
            _ingest_file(store, path, file_format, report, on_error, batch_size, force, progress, on_line_error,
                         interrupt, subset, written, read_ahead)
        if subset is not None and subset_report is not None:
            subset_report["labelled_objects"] = _label_objects(store, files, formats, subset, batch_size, force)
    summary = _summary(store, reports, time.perf_counter() - started)
    summary["fresh_load"] = written is not None
    summary["batch_size"] = batch_size
    if subset_report is not None:
        summary["subset"] = subset_report
    return summary


def _label_objects(store: GraphStore, files: list[Path], formats: list[str], subset: Subset, batch_size: int,
                   force: bool) -> int:
    """The last pass of a subset ingest: name the objects outside the subset (stubs) from their own
    lines in the files; checkpointed per file like the load pass."""
    written = 0
    for path, file_format in zip(files, formats):
        key = f"ingest-labels:{fingerprint(path)}:{subset.fingerprint[:16]}"
        if _read_checkpoint(store, key).get("done") and not force:
            continue
        wanted = {row["id"] for row in store.query("unnamed_entity_ids")}
        reader = make_reader(file_format)
        batch: list[EntityRecord] = []
        for record in labelled_objects((i for i in reader.read(path) if isinstance(i, ParsedLine)), wanted):
            batch.append(record)
            if len(batch) >= batch_size:
                written += store.load_batch(batch, [], LoadOptions(default_kb=reader.kb)).entities_updated
                batch = []
        if batch:
            written += store.load_batch(batch, [], LoadOptions(default_kb=reader.kb)).entities_updated
        _write_checkpoint(store, key, path, 0, done=True)
    return written


def _ingest_file(store, path, file_format, report, on_error, batch_size, force, progress, on_line_error, interrupt,
                 subset: Subset | None = None, written: WrittenSoFar | None = None, ahead: bool | None = None):
    started = time.perf_counter()
    reader = make_reader(file_format)
    # A subset's checkpoints are its own: the same file under another rule is another load.
    key = f"ingest:{fingerprint(path)}" + (f":{subset.fingerprint[:16]}" if subset is not None else "")
    checkpoint = _read_checkpoint(store, key)
    if checkpoint.get("done") and not force:
        report.status = "already-ingested"
        return
    resume_after = 0 if force else int(checkpoint.get("line", 0))
    report.resumed_after_line = resume_after
    # Only BioKaLMA records hold labels to link (`UNRESOLVED_LABEL`); other formats skip two passes
    # over every batch.
    linker = _LabelLinker(store, reader.prescan(path)) if isinstance(reader, BioKaLMAReader) else None
    total = path.stat().st_size
    batch: list[ParsedLine] = []
    pending = 0
    last_line = resume_after
    writer = BatchWriter(background=store.concurrent_writes)

    def flush() -> None:
        nonlocal batch, pending
        if not batch:
            return
        entities, statements = _collect(batch)
        extra: list[EntityRecord] = []
        if linker is not None and any(st.datatype == UNRESOLVED_LABEL for st in statements):
            writer.wait()  # linking reads the store, which must hold every batch before this one
            statements, extra = linker.link(statements, report)
        # The checkpoint commits with its batch where the store has transactions (Neo4j); the
        # embedded store writes it right after the batch (its COPYs commit one by one), or on a
        # first load after the rows it defers (`finish_load`); a crash in between only makes the
        # re-run redo idempotent batches.
        checkpoint = (key, _checkpoint_value(path, batch[-1].line, done=False))
        options = LoadOptions(default_kb=reader.kb, checkpoint=checkpoint, written=written)
        writer.submit(lambda: store.load_batch(entities + extra, statements, options), report.add)
        batch, pending = [], 0

    try:
        if ahead is None:
            ahead = linker is None and worth_reading_ahead(path)
        for item in read_ahead(file_format, path) if ahead else reader.read(path):
            if item.line <= resume_after:
                continue
            last_line = item.line
            if isinstance(item, LineError):
                _line_error(item, report, on_line_error, on_error)
                continue
            # Flush only between positions: several records may share one (BioKaLMA question
            # files), and the checkpoint must never fall in the middle of a position.
            if pending >= batch_size and item.line != batch[-1].line:
                flush()
                if progress:
                    progress(str(path), bytes_read(path), total)
                if interrupt.requested:
                    report.status = "interrupted"
                    raise IngestInterrupted(f"interrupted after {path}:{last_line - 1}; run the same command to resume")
            if subset is not None:
                item = subset.apply(item)
            batch.append(item)
            pending += len(item.entities) + len(item.statements)
        flush()
        writer.wait()
        store.finish_load()
    except BaseException as exc:
        _settle_after(exc, writer, store)
        raise
    finally:
        report.lines = last_line
        report.seconds = round(time.perf_counter() - started, 3)
    _write_checkpoint(store, key, path, last_line, done=True)
    if progress:
        progress(str(path), total, total)
    report.status = "done"


def _line_error(item: LineError, report: FileReport, on_line_error: Callable[[str], None] | None,
                on_error: str) -> None:
    """A malformed line: reported with file:line (and to `on_line_error`); with `on_error="fail"` the load stops."""
    message = report.error(item)
    if on_line_error:
        on_line_error(message)
    if on_error == "fail":
        report.status = "failed"
        raise IngestError(message)


def _settle_after(exc: BaseException, writer: BatchWriter, store: GraphStore) -> None:
    """Leave the store as after the last batch written when a load stops on `exc`."""
    if isinstance(exc, KeyboardInterrupt):
        # A second Ctrl-C: stop after the one batch in flight has committed with its checkpoint, so
        # the caller never gets the store back with a write still running on it (and after what a
        # first load deferred is written, one COPY per table); a third Ctrl-C (or the writer's own
        # error) stops the wait, and the re-run redoes what was not checkpointed.
        with contextlib.suppress(BaseException):
            writer.wait()
            store.finish_load()
        return
    writer.wait()  # a failed line or an error stops the run as after the last batch written
    with contextlib.suppress(Exception):  # (if this fails too, the error above is the one to see)
        store.finish_load()


def _collect(batch: Iterable[ParsedLine]) -> tuple[list[EntityRecord], list[StatementRecord]]:
    entities: list[EntityRecord] = []
    statements: list[StatementRecord] = []
    for parsed in batch:
        entities.extend(parsed.entities)
        statements.extend(parsed.statements)
    return entities, statements


class _LabelLinker:
    """Links value labels (BioKaLMA) to an entity when exactly one entity of the same knowledge
    base — in the store or among the file's own records — has that name or alias; otherwise the
    label stays a string Value.

    A fact the subject already states with that label (as a linked entity or as a Value) is not
    written again: linking depends on which entities exist, and without this rule a re-ingest
    after loading more entities would add the same fact a second time in its other form."""

    def __init__(self, store: GraphStore, file_names: dict[str, set[str]]) -> None:
        self.store = store
        self.file_names = file_names
        self.cache: dict[str, list[Entity]] = {}
        self.rules = link_rules()

    def _lookup(self, labels: Iterable[str]) -> None:
        missing = {name_key(label) for label in labels} - set(self.cache)
        if missing:
            found = self.store.entities_by_names(missing)
            for key in missing:
                self.cache[key] = [e for e in found.get(key, []) if e.kb in (None, "", "wikidata")]

    def candidates(self, label: str, pid: str = "", report: FileReport | None = None) -> set[str]:
        """The entities `label` may link to for property `pid`: same name or alias, a class that fits the
        property (`link_classes.json`), never only through a short alias; the file's own records too."""
        key = name_key(label)
        ok: set[str] = set()
        refused = ""
        refused_ids: set[str] = set()
        for e in self.cache.get(key, []):
            if name_key(e.name or "") != key and len(key) <= self.rules.short_alias_max:
                refused = refused or "alias"
            elif not self.rules.fits(pid, e.types):
                refused = "class"
            else:
                ok.add(e.id)
                continue
            refused_ids.add(e.id)
        # the file's own records (their types unknown until loaded), unless the store already refused them
        own = {i for i in self.file_names.get(key, set()) - refused_ids if self.rules.fits(pid, ())}
        if not (ok | own) and refused and report is not None:
            if refused == "class":
                report.labels_refused_class += 1
            else:
                report.labels_refused_short_alias += 1
        return ok | own

    def link(self, statements: list[StatementRecord],
             report: FileReport) -> tuple[list[StatementRecord], list[EntityRecord]]:
        labelled = [st for st in statements if st.datatype == UNRESOLVED_LABEL]
        self._lookup(st.value or "" for st in labelled)
        stated = {
            (t.subject, t.pid, name_key(t.value))
            for triples in self.store.one_hop_many({st.subject for st in labelled}).values()
            for t in triples
        }
        out: list[StatementRecord] = []
        types: list[EntityRecord] = []
        for st in statements:
            if st.datatype != UNRESOLVED_LABEL:
                out.append(st)
                continue
            if (st.subject, st.pid, name_key(st.value or "")) in stated:
                report.labels_already_stated += 1
                continue
            ids = self.candidates(st.value or "", st.pid, report)
            if len(ids) == 1:
                (object_id,) = ids
                out.append(StatementRecord(st.subject, st.pid, st.label, object_id=object_id))
                report.labels_linked += 1
                if st.pid == "P31":
                    types.append(EntityRecord(st.subject, "wikidata", types=(object_id,)))
            else:
                out.append(StatementRecord(st.subject, st.pid, st.label, value=st.value, datatype="string"))
                report.labels_kept_as_values += 1
        return out, types


@dataclass(frozen=True)
class LinkRules:
    """`kalma_graph/data/link_classes.json`: the classes a linked value must (or must not) have, by property."""

    require_any: dict[str, frozenset[str]]
    forbid: dict[str, frozenset[str]]
    unknown_fits: frozenset[str]  # properties whose candidates of unknown class may still be linked
    short_alias_max: int

    def fits(self, pid: str, types: Iterable[str]) -> bool:
        types = set(types)
        if pid in self.require_any and not types & self.require_any[pid]:
            # unknown types fit only where the rule allows it: a surname linked to a country is worse than a Value
            return not types and pid in self.unknown_fits
        return not types & self.forbid.get(pid, frozenset())


@functools.lru_cache(maxsize=1)
def link_rules() -> LinkRules:
    data = json.loads(resources.files("kalma_graph").joinpath("data/link_classes.json").read_text(encoding="utf-8"))
    require: dict[str, frozenset[str]] = {}
    forbid: dict[str, frozenset[str]] = {}
    unknown: set[str] = set()
    for rule in data["rules"]:
        for pid in rule["pids"]:
            if rule.get("require_any"):
                require[pid] = frozenset(rule["require_any"])
            if rule.get("forbid"):
                forbid[pid] = frozenset(rule["forbid"])
            if rule.get("unknown_types_fit"):
                unknown.add(pid)
    return LinkRules(require, forbid, frozenset(unknown), int(data.get("short_alias_max", 3)))


def _read_checkpoint(store: GraphStore, key: str) -> dict:
    raw = store.get_meta(key)
    return json.loads(raw) if raw else {}


def _checkpoint_value(path: Path, line: int, done: bool) -> str:
    return json.dumps({"path": str(path), "line": line, "done": done})


def _write_checkpoint(store: GraphStore, key: str, path: Path, line: int, done: bool) -> None:
    store.set_meta(key, _checkpoint_value(path, line, done))


def _summary(store: GraphStore, reports: list[FileReport], seconds: float) -> dict:
    totals = {
        k: sum(getattr(r, k) for r in reports)
        for k in ("entities_created", "entities_updated", "values_created", "statements_created", "error_count")
    }
    return {
        "store": store.uri,
        "files": [asdict(r) for r in reports],
        "totals": totals,
        "seconds": round(seconds, 3),
        "statements_per_second": round(totals["statements_created"] / seconds, 1) if seconds > 0 else None,
        "stats": store.stats().as_dict(),
    }


@contextlib.contextmanager
def no_cycle_collection():
    """Python's cyclic GC, left automatic, walks every live object again and again while a batch of
    a few hundred thousand records is alive, and finds nothing: records, rows and batches hold no
    reference cycles, so reference counting frees them. It cost a tenth to a quarter of a first
    load, varying run to run (and 0.9 s of 1M statements when run once per batch). It is off during
    an ingest, and one collection runs after it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


class _GracefulInterrupt:
    """First Ctrl-C: finish and checkpoint the batch in hand, then stop. Second: abort now."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Callable[[int, FrameType | None], Any] | int | None = None  # signal.signal's

    def __enter__(self) -> "_GracefulInterrupt":
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
