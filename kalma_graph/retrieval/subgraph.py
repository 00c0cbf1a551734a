"""One-hop subgraphs and the paper's knowledge block (`{qid: Q212657, name: …, place of birth: Rome}`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Sequence

from ..store.base import Entity, GraphStore, Triple

_ID_PREFIXES = ("Q", "P", "m.", "g.", "cvt.")


def knowledge_block(entity: Entity, triples: Sequence[Triple]) -> str:
    """The KaLMA prompt's rendering of one entity (seed 000, Table 13): one `{…}` per entity with
    `qid` and `name` first and every statement as `property: value`; several values of a property
    are joined with `, ` in the order retrieval sorted them. An object the graph knows only by its id
    (`occupation: Q6625963`) is left out: it tells the model nothing, and the model copied such ids into
    its prose (`member of: Q329464, Q414188, …`); `unlabelled` counts them.

    >>> from kalma_graph.store.base import Triple
    >>> knowledge_block(Entity("Q1", name="Ann"), [Triple("Q1", "P106", "occupation", "poet", object_id="Q49757"),
    ...                                            Triple("Q1", "P106", "occupation", "Q6625963", object_id="Q6625963")])
    '{qid: Q1, name: Ann, occupation: poet}'
    """
    parts = [f"qid: {entity.id}", f"name: {entity.name or entity.id}"]
    by_label: dict[str, list[str]] = {}
    for t in triples:
        if is_unlabelled(t):
            continue
        by_label.setdefault(t.label, []).append(t.value)
    parts += [f"{label}: {', '.join(values)}" for label, values in by_label.items()]
    return "{" + ", ".join(parts) + "}"


def is_unlabelled(t: Triple) -> bool:
    """A statement whose object the graph knows only by its id (no label in any loaded source)."""
    return bool(t.object_id) and t.value == t.object_id


def unlabelled(triples: Sequence[Triple]) -> int:
    """How many statements a knowledge block leaves out for want of their object's label."""
    return sum(is_unlabelled(t) for t in triples)


def resolve_entities(store: GraphStore, text: str) -> list[Entity]:
    """An id when `text` looks like one and exists, else exact name/alias matches."""
    if text.startswith(_ID_PREFIXES):
        found = store.get_entity(text)
        if found:
            return [found]
    return store.entities_by_name(text)


def describe_entity(store: GraphStore, text: str) -> dict:
    """Entities matching `text` with their one-hop statements and knowledge block."""
    entities = resolve_entities(store, text)
    if not entities:
        from ..store.base import StoreError

        raise StoreError(f"no entity with id or name {text!r} in {store.uri}")
    out = []
    for ent in entities:
        triples = store.one_hop(ent.id)
        out.append(
            {
                **asdict(ent),
                "statements": [asdict(t) for t in triples],
                "knowledge_block": knowledge_block(ent, triples),
                "unlabelled_left_out": unlabelled(triples),
            }
        )
    return {"query": text, "store": store.uri, "entities": out}
