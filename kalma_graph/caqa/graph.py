"""`GraphView`: the build's read-only window on a store — the named CAQA operations plus small
caches (the graph does not change during a build, so a neighbourhood is read once)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Iterable, TypeVar

from kalma_graph.caqa import graph_queries as caqa_ops
from kalma_graph.caqa.model import Fact, Query
from kalma_graph.store.base import GraphStore, name_key

T = TypeVar("T")

#: relations never used to build questions: classes (the answer would be a class, not an entity)
#: and web-page bookkeeping
SKIP_PIDS = frozenset({"P31", "P279", "common.topic.webpage./common.webpage.category"})
SKIP_PID_PREFIXES = ("common.topic.webpage", "common.webpage")


def usable_pid(pid: str) -> bool:
    return pid not in SKIP_PIDS and not pid.startswith(SKIP_PID_PREFIXES)


class _LRU(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_or(self, key, make: Callable[[], T]) -> T:
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = make()
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)
        return value


class GraphView:
    """Cached access to the CAQA operations of one store. Every method is a read."""

    def __init__(self, store: GraphStore, cache_size: int = 20000) -> None:
        self.store = store
        self._out = _LRU(cache_size)
        self._in = _LRU(cache_size)
        self._candidates: dict[tuple[str, str], list[tuple[str, str, tuple[str, ...]]]] = {}
        self.types: dict[str, tuple[str, ...]] = {}
        self._namesakes: dict[tuple[str, str, str], list[str]] = {}
        self._kb: dict[str, str] = {}
        self.calls = 0

    # neighbourhoods ---------------------------------------------------------------------------
    def out_facts(self, entity_id: str) -> list[Fact]:
        def make():
            self.calls += 1
            facts, types = caqa_ops.hop_out(self.store, entity_id)
            self.types.update(types)
            return facts

        return self._out.get_or(entity_id, make)

    def in_facts(self, entity_id: str) -> list[Fact]:
        def make():
            self.calls += 1
            facts, types = caqa_ops.hop_in(self.store, entity_id)
            self.types.update(types)
            return facts

        return self._in.get_or(entity_id, make)

    def entity_types(self, entity_id: str) -> tuple[str, ...]:
        if entity_id not in self.types:
            found = self.store.get_entity(entity_id)
            self.types[entity_id] = tuple(sorted(found.types)) if found else ()
        return self.types[entity_id]

    def kb_of(self, entity_id: str) -> str:
        if entity_id not in self._kb:
            found = self.store.get_entity(entity_id)
            self._kb[entity_id] = (found.kb if found else None) or (
                "freebase" if entity_id.startswith(("m.", "g.")) else "wikidata")
        return self._kb[entity_id]

    # named operations ---------------------------------------------------------------------------
    def kgqa_fact(self, subject: str, pid: str, obj: str) -> Fact | None:
        self.calls += 1
        fact, types = caqa_ops.kgqa_fact(self.store, subject, pid, obj)
        if fact is not None:
            self.types[fact.object] = types
        return fact

    def named_entities(self, kb: str) -> list[str]:
        self.calls += 1
        return caqa_ops.named_entities(self.store, kb)

    def namesake_facts(self, fact: Fact, kb: str | None = None) -> list[Fact]:
        """Facts (e_i, r0, x) of the entities of e0's knowledge base named like e0 (the union
        extension): namesakes from caqa_extend_union, their r0 facts from caqa_hop_out."""
        key = name_key(fact.subject_name or "")
        if not key:
            return []
        kb = kb or self.kb_of(fact.subject)
        cache_key = (key, fact.subject, kb)
        if cache_key not in self._namesakes:
            self.calls += 1
            self._namesakes[cache_key] = caqa_ops.extend_union(self.store, key, fact.subject, kb)
        return [f for x in self._namesakes[cache_key] for f in self.out_facts(x) if f.pid == fact.pid]

    def head_candidates(self, entity_id: str, exclude_pids: Iterable[str], exclude_ids: Iterable[str]) -> list[Fact]:
        self.calls += 1
        return caqa_ops.extend_head(self.store, entity_id, exclude_pids, exclude_ids)

    def answer_candidates(self, answer_id: str, exclude_pids: Iterable[str], exclude_ids: Iterable[str]) -> list[Fact]:
        self.calls += 1
        return caqa_ops.extend_answer(self.store, answer_id, exclude_pids, exclude_ids)

    def same_type_candidates(self, pid: str, slot: str) -> list[tuple[str, str, tuple[str, ...]]]:
        key = (pid, slot)
        if key not in self._candidates:
            self.calls += 1
            self._candidates[key] = caqa_ops.same_type_candidates(self.store, pid, slot)
        return self._candidates[key]

    def ground(self, facts) -> list[Fact]:
        self.calls += 1
        return caqa_ops.ground(self.store, facts)

    def edit_partial(self, facts, deleted) -> list[Fact]:
        self.calls += 1
        return caqa_ops.edit_partial(self.store, facts, deleted)

    def edit_contradictory(self, facts, answer: str, replacement: str) -> list[Fact]:
        self.calls += 1
        return caqa_ops.edit_contradictory(self.store, facts, answer, replacement)

    def irrelevant_out(self, entity_id: str, exclude_pids, exclude_ids) -> list[Fact]:
        self.calls += 1
        return caqa_ops.irrelevant_out(self.store, entity_id, exclude_pids, exclude_ids)

    def irrelevant_in(self, entity_id: str, exclude_pids, exclude_ids) -> list[Fact]:
        self.calls += 1
        return caqa_ops.irrelevant_in(self.store, entity_id, exclude_pids, exclude_ids)

    # query answering over the whole graph --------------------------------------------------------
    def answers(self, query: Query, cap: int = 5000) -> set[str]:
        """All answers of `query` in the graph (the exclusion set for the contradictory edit).
        Frontiers larger than `cap` nodes are cut (sorted, deterministic) to bound the work."""
        results: list[set[str]] = []
        for branch in query.branches:
            frontier = {branch.anchor}
            for hop in branch.hops:
                nxt: set[str] = set()
                for node in sorted(frontier)[:cap]:
                    if hop.reverse:
                        nxt.update(f.subject for f in self.in_facts(node) if f.pid == hop.pid)
                    else:
                        nxt.update(f.object for f in self.out_facts(node) if f.pid == hop.pid)
                frontier = nxt
            results.append(frontier)
        if query.op == "or":
            return set().union(*results) if results else set()
        out = results[0] if results else set()
        for r in results[1:]:
            out &= r
        return out
