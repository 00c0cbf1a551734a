"""Entity mentions of questions, answers and sentences: NER + entity linking
(`kalma_graph.retrieval.linking`) over the graph, as the SCK sub-scores need them.

`GraphLinker.link(texts)` runs NER on all texts in one batch, links each text's mentions to the
graph and returns `EntityMention`s. Mentions whose NER label is not an entity type (dates, numbers,
money: the type map marks them "do not link") are dropped: they are values, not entities, and
would make every dated sentence look unverifiable. Results are memoised per text (a question scored
with several answers is linked once); the linked `Entity` records are kept for ER.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Sequence

from kalma_graph.kg.triples import Entity
from kalma_graph.sck.base import EntityMention
from kalma_graph.store.base import GraphStore

if TYPE_CHECKING:
    from kalma_graph.models.protocols import MentionDetector
    from kalma_graph.retrieval.linking import TypeMap


class GraphLinker:
    def __init__(self, store: GraphStore, ner: MentionDetector, *, type_map: TypeMap | None = None,
                 type_policy: str = "strict", memo_size: int = 8192) -> None:
        from kalma_graph.retrieval.linking import load_type_map

        self.store = store
        self.ner = ner
        self.type_map = type_map or load_type_map()
        self.type_policy = type_policy
        self.entities: dict[str, Entity] = {}
        self._memo: OrderedDict[str, list[EntityMention]] = OrderedDict()
        self._memo_size = memo_size

    def header(self) -> dict[str, Any]:
        header = dict(self.ner.header()) if hasattr(self.ner, "header") else {"ner": repr(self.ner)}
        return {**header, **self.type_map.header(), "type_policy": self.type_policy}

    def link(self, texts: Sequence[str]) -> list[list[EntityMention]]:
        from kalma_graph.retrieval.linking import link_entities

        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            batch = getattr(self.ner, "mentions_batch", None)
            all_mentions = batch(todo) if batch else [self.ner.mentions(t) for t in todo]
            for text, mentions in zip(todo, all_mentions):
                linked = link_entities(self.store, text, self.ner, type_map=self.type_map,
                                       type_policy=self.type_policy, mentions=mentions)
                out = []
                for lm in linked:
                    if not self.type_map.linkable(lm.ner_label):
                        continue
                    entity = lm.selected
                    if entity is not None:
                        self.entities[entity.id] = entity
                    out.append(EntityMention(lm.mention, lm.ner_label, entity.id if entity else None,
                                             (entity.name or entity.id) if entity else None, lm.reason))
                self._memo[text] = out
                while len(self._memo) > self._memo_size:
                    self._memo.popitem(last=False)
        results = []
        for text in texts:
            if text not in self._memo:  # evicted by a very large batch
                self._memo[text] = self.link([text])[0]
            results.append(self._memo[text])
        return results

    def entity(self, entity_id: str) -> Entity | None:
        if entity_id not in self.entities:
            found = self.store.get_entity(entity_id)
            if found is None:
                return None
            self.entities[entity_id] = found
        return self.entities[entity_id]
