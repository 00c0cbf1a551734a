"""The BioKaLMA build's graph queries (`cypher/biokalma_*.cypher`, loaded by the store like every query).

Plain functions over a `GraphStore` (through the public `store.query(name, params)`); results are sorted
here so that the embedded store and Neo4j answer identically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kalma_graph.store.base import GraphStore


@dataclass(frozen=True, order=True)
class PersonLink:
    """One statement `a -[pid]-> b` between two entities of the wanted type."""

    a_id: str
    pid: str
    b_id: str
    label: str
    a_name: str | None = None
    b_name: str | None = None


@dataclass(frozen=True, order=True)
class NameLink:
    """An edge that connects an entity named like `a` with one named like `b`.

    `direction` is `forward` (`a -[pid]-> b`) or `inverse` (`b -[pid]-> a`)."""

    a_id: str
    b_id: str
    pid: str
    label: str
    direction: str


def person_links(store: GraphStore, pids: Sequence[str], type_id: str = "Q5") -> list[PersonLink]:
    """Every statement whose property is in `pids` between two distinct entities of `type_id`."""
    if not pids:
        return []
    rows = store.query("biokalma_person_pairs", {"pids": sorted(set(pids)), "type_id": type_id})
    links = {
        PersonLink(r["a_id"], r["pid"], r["b_id"], r["label"], r.get("a_name"), r.get("b_name")) for r in rows
    }
    return sorted(links)


def linked_by_names(
    store: GraphStore,
    name_a: str,
    name_b: str,
    forward: Sequence[str],
    inverse: Sequence[str] = (),
    type_id: str = "Q5",
) -> list[NameLink]:
    """Name disambiguation (BioKaLMA A.2): every entity of `type_id` named `name_a` (name or alias,
    case-folded; `entities_by_name_key`), every one named `name_b`, and of those the pairs joined by
    an edge matching the relation (`biokalma_links_between`); sorted."""
    a_ids = [e.id for e in store.entities_by_name(name_a, types=[type_id])]
    b_ids = [e.id for e in store.entities_by_name(name_b, types=[type_id])]
    return links_between(store, a_ids, b_ids, forward, inverse)


def links_between(
    store: GraphStore, a_ids: Sequence[str], b_ids: Sequence[str], forward: Sequence[str], inverse: Sequence[str] = ()
) -> list[NameLink]:
    """Edges `a -[forward]-> b` and `b -[inverse]-> a` between the two id sets (a != b); sorted."""
    if not a_ids or not b_ids:
        return []
    rows = store.query(
        "biokalma_links_between",
        {
            "a_ids": sorted(set(a_ids)),
            "b_ids": sorted(set(b_ids)),
            "forward": sorted(set(forward)),
            "inverse": sorted(set(inverse)),
        },
    )
    return sorted(
        {NameLink(r["a_id"], r["b_id"], r["pid"], r["label"], r["direction"]) for r in rows if r["a_id"] != r["b_id"]}
    )
