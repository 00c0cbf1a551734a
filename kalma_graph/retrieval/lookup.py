"""The one store query a question's linking makes: every candidate name key at once.

`cypher/name_matches.*.cypher` returns, for each key of `$keys` that is a name or alias in the graph
(`(:NameKey)-[:NAMES]->(:Entity)`), the entities it names and each entity's number of outgoing
statements (the tie-break prior of re-ranking). It runs through the store's public door for named
stage-specific statements (`GraphStore.query`), so both stores answer it from their own dialect's
file and the result is sorted here, never by the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from kalma_graph.kg.triples import Entity
from kalma_graph.store.base import GraphStore, name_key
from kalma_graph.store.common import to_entity

__all__ = ["NameMatches", "lookup_names"]

QUERY = "name_matches"


@dataclass
class NameMatches:
    """Key → entities named so (sorted by id; every asked key present), and id → outgoing statement
    count for every entity found."""

    by_key: dict[str, list[Entity]] = field(default_factory=dict)
    statements: dict[str, int] = field(default_factory=dict)

    def get(self, name: str) -> list[Entity]:
        return self.by_key.get(name_key(name), [])


def lookup_names(store: GraphStore, names: Iterable[str]) -> NameMatches:
    """Exact, case-insensitive lookup of many names in one store query (none when `names` is
    empty). Names are turned into keys with `name_key`, as ingest does."""
    keys = sorted({name_key(n) for n in names} - {""})
    found: dict[str, set[Entity]] = {k: set() for k in keys}
    statements: dict[str, int] = {}
    if keys:
        for row in store.query(QUERY, {"keys": keys}):
            if row.get("id") is None:  # a key left without entities (the embedded OPTIONAL MATCH)
                continue
            entity = to_entity(row)
            found[row["key"]].add(entity)
            statements[entity.id] = int(row.get("statements") or 0)
    return NameMatches({k: sorted(v) for k, v in found.items()}, statements)
