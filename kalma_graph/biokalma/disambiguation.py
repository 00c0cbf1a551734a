"""Name disambiguation (BioKaLMA, seed 000, Appendix A.2), as one named Cypher query.

"We ... retrieve all entities associated with the name ... we select the two entities obtained
from the query if they are connected to each other ... the connecting edge should align with the
relation specified in the triple." Both names are looked up (name or alias, case-folded,
`cypher/entities_by_name_key.cypher`), humans kept, and `cypher/biokalma_links_between.cypher`
returns the candidate pairs joined by an edge of the relation (`a -[pid]-> b`) or of its inverse
(`b -[inverse]-> a`, e.g. `child` for `father`).

A pair resolves when exactly one (a, b) id pair is so connected; otherwise it is reported as
`not_found` (no connected pair) or `ambiguous` (several), and skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kalma_graph.biokalma.graph_queries import NameLink, linked_by_names
from kalma_graph.store.base import GraphStore

from .pairs import HUMAN, PERSON_RELATIONS, PersonPair


@dataclass(frozen=True)
class Resolution:
    pair: PersonPair
    status: str  # "resolved" | "not_found" | "ambiguous"
    a_id: str | None = None
    b_id: str | None = None
    links: tuple[NameLink, ...] = ()  # the matching edges of the resolved pair (1 or 2: both directions)
    candidates: tuple[tuple[str, str], ...] = field(default=())  # every connected (a, b) id pair

    @property
    def ok(self) -> bool:
        return self.status == "resolved"

    @property
    def entry_id(self) -> str:
        """Stable id of the dataset entry built from this pair."""
        if not self.ok:
            raise ValueError(f"pair {self.pair.a!r} / {self.pair.b!r} is {self.status}")
        return f"biokalma-{self.a_id}-{self.pair.relation}-{self.b_id}"


def disambiguate(store: GraphStore, pair: PersonPair, *, type_id: str = HUMAN) -> Resolution:
    relation = PERSON_RELATIONS[pair.relation]
    links = linked_by_names(store, pair.a, pair.b, forward=[relation.pid], inverse=relation.inverse, type_id=type_id)
    candidates = tuple(sorted({(link.a_id, link.b_id) for link in links}))
    if relation.inverse == (relation.pid,):  # symmetric (spouse, sibling): (x, y) and (y, x) are one pair
        candidates = tuple(sorted({min(c, c[::-1]) for c in candidates}))
    if not candidates:
        return Resolution(pair, "not_found")
    if len(candidates) > 1:
        return Resolution(pair, "ambiguous", candidates=candidates)
    a_id, b_id = candidates[0]
    kept = tuple(link for link in links if {link.a_id, link.b_id} == {a_id, b_id})
    if kept and (kept[0].a_id, kept[0].b_id) != (a_id, b_id):  # symmetric pair met the other way round
        a_id, b_id = kept[0].a_id, kept[0].b_id
    return Resolution(pair, "resolved", a_id, b_id, kept, candidates)
