"""Retrieval for one question (seed 000, §3.1–3.2; issue 18): mentions (NER, and under the default
`graph` policy the graph's names found in the question) → linking with type evidence → re-ranking →
the one-hop subgraph of every selected entity, rendered as the paper's knowledge blocks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from kalma_graph.kg.knowledge import knowledge_blocks
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.store.base import GraphStore

from .linking import DEFAULT_TYPE_POLICY, LinkedMention, TypeMap, link_question, selected_entities

__all__ = ["Retrieval", "retrieve", "candidate_dict", "linked_dict"]


@dataclass
class Retrieval:
    """What retrieval found for a question: the linked mentions, the selected entities (each once, in
    order of first mention) and their one-hop statements (grouped by entity in that order). `reason`
    says why no entity was selected ("no entity: no mention in the question", ...) and what was
    bounded; it is empty when entities were found and nothing was cut."""

    question: str
    linked: list[LinkedMention]
    entities: list[Entity]
    triples: list[Triple] = field(default_factory=list)
    reason: str = ""

    def blocks(self, triples: Sequence[Triple] | None = None) -> list[str]:
        """Knowledge blocks of the selected entities over `triples` (default: all retrieved)."""
        return knowledge_blocks(self.entities, self.triples if triples is None else triples)

    def shown_entities(self, store: GraphStore, shown: Sequence[Triple]) -> list[Entity]:
        """The entities whose blocks the prompt shows when an experiment changed the graph to `shown`.

        Knowledge withheld from the selected entities (conscious incompetence) keeps their blocks,
        empty ones included: the model still learns who the question is about. A graph replaced by
        other entities' subgraphs (retrieval ablation: no shown triple is about a selected entity)
        shows only those other entities. Subjects not selected by retrieval are looked up in the
        store, in order of first appearance in `shown`."""
        selected = {e.id: e for e in self.entities}
        subjects = list(dict.fromkeys(t.subject for t in shown))
        replaced = bool(shown) and not any(s in selected for s in subjects)
        extra_ids = [s for s in subjects if s not in selected]
        found = {e.id: e for e in store.get_entities(extra_ids)} if extra_ids else {}
        extra = [found.get(s) or Entity(id=s, name=s) for s in extra_ids]
        return extra if replaced else [*self.entities, *extra]


def retrieve(
    store: GraphStore,
    question: str,
    ner: Any,
    *,
    type_map: TypeMap | None = None,
    type_policy: str = DEFAULT_TYPE_POLICY,
    partial: bool = True,
    graph_mentions: bool | None = None,
    batched: bool = False,
) -> Retrieval:
    """Link `question` (`linking.link_question`) and fetch the one-hop statements of each selected
    entity. Never raises for odd input: a question without any name gets no entities and a reason.
    `batched`: `verify`'s path, where round trips dominate: one `one_hop_many` for all of them and no scoring of a
    mention with one candidate (the answering path keeps one `one_hop` per entity, the order its prompts were
    built and measured with, and records every candidate's matched labels)."""
    linking = link_question(store, question, ner, type_map=type_map, type_policy=type_policy, partial=partial,
                            graph_mentions=graph_mentions, score_single=not batched)
    entities = selected_entities(linking.linked)
    entities += [e for e in linking.holders if e not in entities]
    triples: list[Triple] = []
    fetched = store.one_hop_many([e.id for e in entities]) if batched else {}
    for entity in entities:
        triples += fetched[entity.id] if batched else store.one_hop(entity.id)
    return Retrieval(question=question, linked=linking.linked, entities=entities, triples=triples,
                     reason=linking.reason)


def candidate_dict(c: Any) -> dict[str, Any]:
    return {
        "id": c.entity.id,
        "name": c.entity.name,
        "score": c.score,
        "types": list(c.entity.types),
        "matched_labels": list(c.matched_labels),
    }


def linked_dict(lm: LinkedMention) -> dict[str, Any]:
    return {
        "mention": lm.mention,
        "ner_label": lm.ner_label or None,
        "source": lm.source,
        "selected": lm.selected.id if lm.selected is not None else None,
        "reason": lm.reason,
        "candidates": [candidate_dict(c) for c in lm.candidates],
    }
