"""One-hop subgraphs and the paper's knowledge block (`{qid: Q212657, name: …, place of birth: Rome}`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Sequence

from ..store.base import Entity, GraphStore, Triple

_ID_PREFIXES = ("Q", "P", "m.", "g.", "cvt.")


def knowledge_block(entity: Entity, triples: Sequence[Triple]) -> str:
    """The KaLMA prompt's rendering of one entity (seed 000, Table 13): one `{…}` per entity with
    `qid` and `name` first and every statement as `property: value`; several values of a property
    are joined with `, ` in the order retrieval sorted them."""
    parts = [f"qid: {entity.id}", f"name: {entity.name or entity.id}"]
    by_label: dict[str, list[str]] = {}
    for t in triples:
        by_label.setdefault(t.label, []).append(t.value)
    parts += [f"{label}: {', '.join(values)}" for label, values in by_label.items()]
    return "{" + ", ".join(parts) + "}"


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
            }
        )
    return {"query": text, "store": store.uri, "entities": out}
