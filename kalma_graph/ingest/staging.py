"""`StagingStore`: the ingest pipeline writing CSV files for `neo4j-admin import` instead of a database.

It is a store for `ingest()` (readers, subsets, the labels pass, `file:line` errors and checkpoints all
run unchanged) that keeps in memory what the planner needs to know about the graph so far — entity
records, value ids, name keys and pairs, statement ids — and plans every batch with the same
`loading.plan_batch` as the engines, so the staged graph is the graph an ingest through the driver
writes. Values, name keys, statements and NAMES are written to CSV as planned; entities (whose fields
later records can still merge into) and Meta (checkpoints, the subset rule) at `finish()`.

Every node gets a number, in its label's integer ID space, when first planned (`neo4j_csv`: the
import maps integers far faster than our string ids); relationships name their end nodes by it.

Memory grows with the graph (about 0.5 kB per entity and 0.1 kB per statement): it is for subsets
that fit one server, as the import itself is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from kalma_graph.kg.triples import Entity

from ..store.base import EntityRecord, LoadOptions, LoadResult, StatementRecord, StoreError, StoreStats
from ..store.common import result_of
from ..store.loading import StoreHolds, entity_row, plan_batch
from .lock import LOCK_KEY
from .neo4j_csv import CsvFiles, entity_columns

#: Entities written per `write_columns` call at `finish` (their rows as dicts: about 100 MB).
ENTITY_CHUNK = 100_000


class StagingStore:
    backend = "neo4j-import"
    concurrent_writes = False

    def __init__(self, folder: Path) -> None:
        self.uri = f"csv:{folder}"
        self.files = CsvFiles.create(folder)
        self.entities: dict[str, EntityRecord] = {}
        # Node numbers (`neo4j_csv.NODE_FILES`), by id; the planner asks only whether an id is there.
        self.entity_numbers: dict[str, int] = {}
        self.value_numbers: dict[str, int] = {}
        self.name_key_numbers: dict[str, int] = {}
        self.name_pairs: set[tuple[str, str]] = set()
        self.sids: set[str] = set()
        self.meta: dict[str, str] = {}
        self.entity_statements = 0
        self.value_statements = 0

    # --- what ingest() asks of a store -------------------------------------------------------------
    def bootstrap(self) -> None:
        pass  # constraints and indexes are created on the server after the import

    def load_batch(self, entities: Sequence[EntityRecord], statements: Sequence[StatementRecord],
                   options: LoadOptions = LoadOptions()) -> LoadResult:
        # options.written is not read: the whole graph so far is in memory, nothing to look up
        # the whole graph so far is what the store holds; the plan adds the batch's statement ids to self.sids
        holds = StoreHolds(self.entities, self.value_numbers, self.name_pairs,  # type: ignore[arg-type]
                           self.name_key_numbers, self.sids)
        plan = plan_batch(entities, statements, default_kb=options.default_kb, holds=holds)
        _number(self.entity_numbers, [row["id"] for row in plan.entities_new])
        self.entities.update(plan.records)
        values = plan.values_new
        value_ids = [v["id"] for v in values]
        self.files.write_columns("values", [_number(self.value_numbers, value_ids), value_ids,
                                            [v["value"] for v in values], [v["datatype"] for v in values]])
        self.files.write_columns("name_keys", [_number(self.name_key_numbers, plan.name_keys_new), plan.name_keys_new])
        entity = self.entity_numbers.__getitem__
        keys, ids = [n["key"] for n in plan.names_new], [n["id"] for n in plan.names_new]
        self.files.write_columns("names", [list(map(self.name_key_numbers.__getitem__, keys)), list(map(entity, ids))])
        self.name_pairs.update(zip(keys, ids))
        for stem, rows, number_object in (("entity_statements", plan.entity_statements_new, entity),
                                          ("value_statements", plan.value_statements_new,
                                           self.value_numbers.__getitem__)):
            self.files.write_columns(stem, [list(map(entity, rows.subject)), list(map(number_object, rows.object)),
                                            rows.sid, rows.pid, rows.label])
        self.entity_statements += len(plan.entity_statements_new)
        self.value_statements += len(plan.value_statements_new)
        if options.checkpoint is not None:
            self.set_meta(*options.checkpoint)
        return result_of(plan)

    def query(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict]:
        """The few named statements ingest() runs itself, answered from memory."""
        p = dict(params or {})
        if name == "meta_take":
            return [{"value": self.meta.setdefault(p["key"], p["value"])}]
        if name == "meta_swap":
            if self.meta.get(p["key"]) == p["expected"]:
                self.meta[p["key"]] = p["value"]
            return [{"value": self.meta.get(p["key"])}] if p["key"] in self.meta else []
        if name == "meta_drop":
            if self.meta.get(p["key"]) == p["value"]:
                del self.meta[p["key"]]
            return []
        if name == "any_entity":
            return [{"id": next(iter(self.entities))}] if self.entities else []
        if name == "unnamed_entity_ids":
            return [{"id": i} for i, rec in self.entities.items() if not rec.name]
        raise StoreError(f"{name!r} is not available while staging a Neo4j import")

    def get_meta(self, key: str) -> str | None:
        return self.meta.get(key)

    def finish_load(self) -> None:
        pass  # every batch is written when load_batch returns

    def set_meta(self, key: str, value: str) -> None:
        self.meta[key] = value

    def entities_by_names(self, names: Iterable[str]) -> dict[str, list[Entity]]:
        if list(names):  # only BioKaLMA label linking asks, and import_files refuses that format
            raise StoreError("linking labels needs the graph in a database: use `kalma-graph ingest`")
        return {}

    def one_hop_many(self, entity_ids: Iterable[str]) -> dict:
        if list(entity_ids):
            raise StoreError("linking labels needs the graph in a database: use `kalma-graph ingest`")
        return {}

    def stats(self) -> StoreStats:
        per_kb: dict[str, int] = {}
        for rec in self.entities.values():
            per_kb[rec.kb or ""] = per_kb.get(rec.kb or "", 0) + 1
        return StoreStats(
            entities=len(self.entities),
            named_entities=sum(1 for r in self.entities.values() if r.name is not None),
            cvt_entities=sum(1 for r in self.entities.values() if r.cvt),
            values=len(self.value_numbers),
            statements=self.entity_statements + self.value_statements,
            entity_statements=self.entity_statements,
            value_statements=self.value_statements,
            per_kb=per_kb,
        )

    def finish(self) -> CsvFiles:
        """Write the entities and Meta (the ingest lock is released by then) and close."""
        records, number = list(self.entities.values()), self.entity_numbers.__getitem__
        for start in range(0, len(records), ENTITY_CHUNK):  # the rows of a chunk at a time in memory
            chunk = records[start:start + ENTITY_CHUNK]
            self.files.write_columns("entities",
                                     [[number(r.id) for r in chunk], *entity_columns([entity_row(r) for r in chunk])])
        meta = sorted((k, v) for k, v in self.meta.items() if k != LOCK_KEY)
        self.files.write_columns("meta", [list(range(len(meta))), [k for k, _ in meta], [v for _, v in meta]])
        self.files.close()
        return self.files

    def close(self) -> None:
        self.files.close()


def _number(numbers: dict[str, int], new_ids: Sequence[str]) -> list[int]:
    """Number `new_ids` (none of them numbered yet, no repeats: a plan's new nodes) on from the last
    number of their ID space; their numbers, in order."""
    first = len(numbers)
    numbers.update(zip(new_ids, range(first, first + len(new_ids))))
    if len(numbers) != first + len(new_ids):
        raise StoreError("staging met a node twice in one ID space")  # a planner bug, not bad input
    return list(range(first, len(numbers)))
