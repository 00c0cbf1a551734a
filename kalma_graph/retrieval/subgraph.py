"""One-hop subgraphs of the entities a question names (their knowledge block: `kalma_graph.kg.knowledge`)."""

from __future__ import annotations

from dataclasses import asdict

from ..kg.knowledge import knowledge_block, unlabelled
from ..kg.triples import Entity
from ..store.base import GraphStore

_ID_PREFIXES = ("Q", "P", "m.", "g.", "cvt.")


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
