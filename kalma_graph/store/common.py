"""Read-side logic shared by both stores: row → record conversion and deterministic ordering.

Engines return rows in whatever order suits them; everything a store returns is sorted here so
that the two stores compare equal.
"""

from __future__ import annotations

import random
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from kalma_graph.kg.triples import Entity, Triple

from .base import ID_PAGE, NEIGHBOUR_LABELS_LIMIT, LoadResult, StoreStats, name_key, value_id
from .loading import (
    BatchPlan,
    StoreHolds,
    WrittenSoFar,
    entity_keys,
    plan_batch,
    referenced_ids,
    subjects_of,
    value_ids_of,
)

Rows = list[dict[str, Any]]
RunQuery = Callable[[str, Mapping[str, Any]], Rows]


def to_entity(row: Mapping[str, Any]) -> Entity:
    return Entity(
        id=row["id"],
        kb=row.get("kb"),
        name=row.get("name"),
        aliases=tuple(row.get("aliases") or ()),
        description=row.get("description"),
        types=tuple(row.get("types") or ()),
        cvt=bool(row.get("cvt")),
    )


def to_triples(rows: Iterable[Mapping[str, Any]]) -> list[Triple]:
    triples = {
        Triple(
            subject=r["subject"],
            pid=r["pid"],
            label=r["label"],
            value=r["value"],
            object_id=r.get("object_id"),
            datatype=r.get("datatype"),
        )
        for r in rows
    }
    return sorted(triples, key=lambda t: (t.subject, t.pid, t.value, t.object_id or "", t.datatype or ""))


def sample_positions(n: int, k: int, seed: int) -> list[int]:
    """The positions a seeded draw of `k` of `n` sorted items takes (all when k >= n): those
    `random.Random(seed).sample(sorted_items, k)` takes, since `random.sample` picks by position."""
    if k >= n:
        return list(range(n))
    return random.Random(seed).sample(range(n), k)


class ReadOps:
    """The named read operations, written once over a `run(query_name, params) -> rows` callable."""

    backend: str

    def _run(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:  # pragma: no cover
        raise NotImplementedError

    def query(self, name: str, params: Mapping[str, Any] | None = None) -> Rows:
        """Run the named statement of `cypher/` for this backend; rows as dicts. The public door
        for stage-specific operations (CAQA, BioKaLMA, run results) kept outside the interface."""
        return self._run(name, params or {})

    def get_entity(self, entity_id: str) -> Entity | None:
        found = self.get_entities([entity_id])
        return found[0] if found else None

    def get_entities(self, entity_ids: Iterable[str]) -> list[Entity]:
        ids = sorted(set(entity_ids))
        if not ids:
            return []
        return sorted(to_entity(r) for r in self._run("entities_by_ids", {"ids": ids}))

    def entities_by_name(self, name: str, types: Sequence[str] | None = None) -> list[Entity]:
        key = name_key(name)
        if not key:
            return []
        found = sorted({to_entity(r) for r in self._run("entities_by_name_key", {"key": key})})
        if types:
            wanted = set(types)
            found = [e for e in found if wanted.intersection(e.types)]
        return found

    def entities_by_names(self, names: Iterable[str]) -> dict[str, list[Entity]]:
        """Batch form of `entities_by_name` (no type filter): name key → entities sorted by id,
        for every key of `names` (empty list when none matches)."""
        keys = sorted({name_key(n) for n in names} - {""})
        found: dict[str, set[Entity]] = {k: set() for k in keys}
        if keys:
            for r in self._run("entities_by_name_keys", {"keys": keys}):
                found[r["key"]].add(to_entity(r))
        return {k: sorted(v) for k, v in found.items()}

    def one_hop(self, entity_id: str) -> list[Triple]:
        return to_triples(self._run("one_hop", {"id": entity_id}))

    def one_hop_many(self, entity_ids: Iterable[str]) -> dict[str, list[Triple]]:
        """Batch form of `one_hop`: id → its outgoing statements (every requested id present)."""
        ids = sorted(set(entity_ids))
        out: dict[str, list[Triple]] = {i: [] for i in ids}
        if ids:
            for t in to_triples(self._run("one_hop_many", {"ids": ids})):
                out[t.subject].append(t)
        return out

    def statements_between(self, entity_ids: Sequence[str]) -> list[Triple]:
        ids = sorted(set(entity_ids))
        if not ids:
            return []
        return to_triples(self._run("statements_between", {"ids": ids}))

    def value_holders(self, values: Iterable[str]) -> list[Triple]:
        ids = sorted({value_id(v, "string") for v in values if v.strip()})
        if not ids:
            return []
        return to_triples(self._run("value_holders", {"ids": ids}))

    def neighbour_labels(self, entity_id: str, limit: int = NEIGHBOUR_LABELS_LIMIT) -> list[str]:
        params = {"id": entity_id, "limit": limit}
        rows = [*self._run("neighbour_labels_out", params), *self._run("neighbour_labels", params)]
        return sorted({r["label"] for r in rows if r["label"]})

    def out_degree(self, entity_id: str) -> int:
        return _count(self._run("out_degree", {"id": entity_id}))

    def same_name_entities(
        self, min_count: int = 2, limit: int | None = None, kb: str | None = None
    ) -> list[tuple[str, list[str]]]:
        rows = self._run("same_name_entities", {"min_count": min_count, "kb": kb or ""})
        groups = sorted((r["key"], sorted(r["ids"])) for r in rows)
        return groups[:limit] if limit is not None else groups

    def entity_ids_of_type(self, type_id: str) -> list[str]:
        return list(self.iter_entity_ids_of_type(type_id))

    def iter_entity_ids_of_type(self, type_id: str, page: int = ID_PAGE) -> Iterator[str]:
        # Keyset pages (`id > last ORDER BY id LIMIT page`): an index range seek per page on both
        # engines, so memory stays one page however many entities have the type.
        after = ""
        while True:
            ids = [r["id"] for r in self._run("entity_ids_of_type", {"type_id": type_id, "after": after, "page": page})]
            yield from ids
            if len(ids) < page:
                return
            after = ids[-1]

    def count_entities_of_type(self, type_id: str) -> int:
        return _count(self._run("count_entities_of_type", {"type_id": type_id}))

    def random_entities_of_type(self, type_id: str, k: int, seed: int = 0) -> list[str]:
        # The draw picks positions in the sorted ids, then streams the ids once (up to the last
        # position) and keeps those: one page in memory, the ids a draw from the whole list gives.
        wanted = set(sample_positions(self.count_entities_of_type(type_id), k, seed))
        if not wanted:
            return []
        stream = islice(self.iter_entity_ids_of_type(type_id), max(wanted) + 1)
        return [entity_id for index, entity_id in enumerate(stream) if index in wanted]

    def stats(self) -> StoreStats:
        per_kb: dict[str, int] = {}
        entities = named = cvt = 0
        for r in self._run("stats_entities"):
            n = int(r["n"])
            per_kb[r["kb"] or ""] = per_kb.get(r["kb"] or "", 0) + n
            entities += n
            named += int(r["named"] or 0)
            cvt += int(r["cvt"] or 0)
        values = _count(self._run("stats_values"))
        ent_st = _count(self._run("stats_entity_statements"))
        val_st = _count(self._run("stats_value_statements"))
        return StoreStats(
            entities=entities,
            named_entities=named,
            cvt_entities=cvt,
            values=values,
            statements=ent_st + val_st,
            entity_statements=ent_st,
            value_statements=val_st,
            per_kb=per_kb,
        )

    def get_meta(self, key: str) -> str | None:
        rows = self._run("meta_get", {"key": key})
        return rows[0]["value"] if rows else None

    # --- load: the lookups every backend needs before writing a batch ---------------------------
    # A store that defers writes (the embedded store's first load) adds what it holds back.
    def _pending_entities(self, ids: set[str]) -> list[Entity]:
        return []

    def _pending_name_pairs(self, ids: set[str]) -> set[tuple[str, str]]:
        return set()

    def _pending_statement_ids(self, subjects: set[str]) -> set[str]:
        return set()

    def _plan(self, entities, statements, default_kb: str, written: WrittenSoFar | None = None) -> BatchPlan:
        ids = referenced_ids(entities, statements)
        if written is None:
            candidate_keys = sorted({k for e in entities for k in entity_keys(e)})
            existing = {e.id: e for e in self.get_entities(ids)} if ids else {}
            keys = (
                {r["key"] for r in self._run("existing_name_keys", {"keys": candidate_keys})}
                if candidate_keys else set()
            )
            vids = value_ids_of(statements)
            values = {r["id"] for r in self._run("existing_value_ids", {"ids": vids})} if vids else set()
        else:
            # A fresh load: what this ingest wrote is all the store holds, so keys and values need no
            # lookup. Of the entities written before, only those that come again as explicit records
            # can change (their stored fields are read); one met again as a mere object is unchanged
            # by it, and a bare view of it is enough to plan no write.
            explicit = {e.id for e in entities}
            again = [i for i in ids if i in written.entity_ids]
            reread = [i for i in again if i in explicit]
            existing = {e.id: e for e in self.get_entities(reread)} if reread else {}
            existing.update((e.id, e) for e in self._pending_entities(set(reread)))
            for i in again:
                existing.setdefault(i, Entity(i, kb=default_kb))
            keys = written.name_keys  # the plan only asks whether a key or a value is among them
            values = written.value_ids
        # Entities new to the store can have neither name pairs nor statements yet: on a fresh
        # load these lookups shrink to nothing.
        named_ids = sorted({e.id for e in entities if (e.name or e.aliases) and e.id in existing})
        subjects = [s for s in subjects_of(statements) if s in existing]
        pairs = (
            {(r["key"], r["id"]) for r in self._run("existing_name_pairs", {"ids": named_ids})} if named_ids else set()
        ) | self._pending_name_pairs(set(named_ids))
        sids = (
            {r["sid"] for r in self._run("existing_statement_ids", {"subjects": subjects})} if subjects else set()
        ) | self._pending_statement_ids(set(subjects))
        return plan_batch(entities, statements, default_kb=default_kb, ids=ids,
                          holds=StoreHolds(existing, values, pairs, keys, sids))


def result_of(plan: BatchPlan) -> LoadResult:
    return LoadResult(
        entities_created=len(plan.entities_new),
        entities_updated=len(plan.entities_changed),
        values_created=len(plan.values_new),
        statements_created=len(plan.entity_statements_new) + len(plan.value_statements_new),
    )


def _count(rows: Rows) -> int:
    return int(rows[0]["n"]) if rows else 0
