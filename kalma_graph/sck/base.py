"""Records shared by the SCK sub-scores (seed 004): a sub-score with its evidence, linked mentions.

Every sub-score is a `SubScore`: a value in [0, 1], or `None` when it is undefined for this input
(no entity mentioned, no description to compare, no sentence judged, ...). `None` is never turned
into a number silently: the combinations (`combine.py`) leave undefined parts out, rescale the
remaining weights and record which parts they used.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Sequence

from kalma_graph.store.base import name_key

#: The seven question intents of Table 3 (NFQA's six non-factoid categories + factoid), in the
#: paper's order.
INTENTS = ("instruction", "reason", "evidence-based", "comparison", "experience", "debate", "factoid")


@dataclass(frozen=True)
class SubScore:
    """One score with what it was computed from. `value` is None when the score is undefined."""

    name: str
    value: float | None
    evidence: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "evidence": self.evidence}


@dataclass(frozen=True)
class EntityMention:
    """An entity mention of a text and the graph entity it was linked to (None: not in the graph).

    `text` is the cleaned surface form, `label` the NER label, `reason` the linker's explanation.
    """

    text: str
    label: str
    entity_id: str | None = None
    entity_name: str | None = None
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def linked_ids(mentions: Iterable[EntityMention]) -> list[str]:
    """Distinct ids of the linked mentions, in order of first mention."""
    return list(dict.fromkeys(m.entity_id for m in mentions if m.entity_id))


def distinct_entities(mentions: Sequence[EntityMention]) -> tuple[list[str], list[str]]:
    """The distinct entities mentioned: (linked entity ids, surface keys of unlinked mentions).

    A linked entity counts once however it is written ("Barack Obama", "Obama"); an unlinked mention
    counts once per case-folded surface form, and not at all when the same surface is linked
    elsewhere in the text.

    >>> distinct_entities([EntityMention("Obama", "PERSON", "Q76"), EntityMention("Barack Obama", "PERSON", "Q76"),
    ...                    EntityMention("Foo Corp", "ORG"), EntityMention("foo corp", "ORG")])
    (['Q76'], ['foo corp'])
    """
    ids = linked_ids(mentions)
    linked_surfaces = {name_key(m.text) for m in mentions if m.entity_id}
    unlinked = list(dict.fromkeys(
        name_key(m.text) for m in mentions if not m.entity_id and name_key(m.text) not in linked_surfaces))
    return ids, unlinked
