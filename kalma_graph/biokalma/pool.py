"""The knowledge pool (BioKaLMA, Appendix A.2): the one-hop subgraphs of both persons.

"we extract the one-hop sub-graph centered around each person node ... We call the extracted
graphs 'knowledge pool'." Every triple of a minimum knowledge set comes from the pool, so every gold
triple is a statement of the graph by construction (checked again at the end, `checks.py`).

Candidates for rounds 2..5 are the pool minus what the set already holds, minus
`DEFAULT_EXCLUDED_PIDS` (Wikimedia bookkeeping and the trivial `instance of: human`), minus objects
the graph knows only by id (a sentence "X's father is Q123" says nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from kalma_graph.kg.knowledge import is_unlabelled, knowledge_block
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.store.base import GraphStore

from .disambiguation import Resolution

#: instance of (P31: human for every person), topic's main category (P910), topic's main infobox (P1424),
#: described by source (P1343: "Obalky knih.cz", a catalogue) and list of works (P1455: "list of
#: compositions by …"): catalogue entries, not facts of a life; eq. 1 favours them for being rare, and
#: the 1.5B rebuild's first 13 entries spent 3 of 52 rounds on them.
DEFAULT_EXCLUDED_PIDS: tuple[str, ...] = ("P31", "P910", "P1424", "P1343", "P1455")


@dataclass(frozen=True)
class Pool:
    persons: tuple[Entity, Entity]  # (a, b)
    triples: tuple[Triple, ...]  # one_hop(a) + one_hop(b), sorted

    @property
    def ids(self) -> tuple[str, str]:
        return (self.persons[0].id, self.persons[1].id)

    def name_of(self, entity_id: str) -> str:
        for person in self.persons:
            if person.id == entity_id:
                return person.name or person.id
        raise KeyError(entity_id)

    def relations_of(self, entity_id: str) -> set[str]:
        """The relation ids (PIDs) a person holds: one `Count_r` document."""
        return {t.pid for t in self.triples if t.subject == entity_id}

    def link_triples(self, resolution: Resolution) -> list[Triple]:
        """The pool statements behind the resolved link (`a -[pid]-> b` and/or its inverse)."""
        wanted = {(link.a_id if link.direction == "forward" else link.b_id, link.pid,
                   link.b_id if link.direction == "forward" else link.a_id) for link in resolution.links}
        return [t for t in self.triples if (t.subject, t.pid, t.object_id) in wanted]

    def candidates(self, taken: Iterable[Triple], excluded_pids: Sequence[str] = DEFAULT_EXCLUDED_PIDS) -> list[Triple]:
        """Pool triples a round may add, in pool order."""
        taken = set(taken)
        excluded = set(excluded_pids)
        return [
            t
            for t in self.triples
            if t not in taken and t.pid not in excluded and not is_unlabelled(t) and t.value.strip()
        ]

    def knowledge_blocks(self) -> str:
        """Both persons in the paper's `{qid: …, name: …, property: value}` form (Table 9)."""
        return " ".join(
            knowledge_block(person, [t for t in self.triples if t.subject == person.id]) for person in self.persons
        )


def knowledge_pool(store: GraphStore, a_id: str, b_id: str) -> Pool:
    found = {e.id: e for e in store.get_entities([a_id, b_id])}
    persons = (found.get(a_id) or Entity(a_id), found.get(b_id) or Entity(b_id))
    triples = sorted(set(store.one_hop(a_id)) | set(store.one_hop(b_id)), key=triple_order)
    return Pool(persons, tuple(triples))


def triple_order(t: Triple) -> tuple:
    """The stores' order (`store.common.to_triples`): subject, pid, value, object id, datatype."""
    return (t.subject, t.pid, t.value, t.object_id or "", t.datatype or "")
