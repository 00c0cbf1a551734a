"""Type evidence from the graph and the question's wording: the `graph` type policy (issue 18).

The paper's filter (`strict`) trusts the NER label: a person spaCy calls ORG is removed, and a
namesake without any class is kept instead of the Wikidata human. Under `graph` the label is one
piece of evidence among three:

- the **NER label**'s classes (`kalma_graph/data/ner_type_map.json`), when the mention has one;
- the **wording** around the mention: `who was X` / an honorific before it / `X's parents` → human;
  `born in X` → place; `the film X` → creative work (`wording_classes`);
- the **graph**: when the exact matches include a human, the human classes are right too — a full
  name that the graph gives to a person is not vetoed by an ORG label.

The candidates of a right class are kept and the others removed; a candidate without any class
never beats one of the right class. When none has a right class, every match is kept and
re-ranking decides (the label is then evidently wrong). A mention without NER label and without a
wording cue (a phrase found only in the graph) accepts any class, so a typed candidate still
beats an untyped namesake.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from kalma_graph.kg.triples import Entity

__all__ = ["TypeEvidence", "graph_type_filter", "wording_classes"]

_KIN = (
    r"parents|father|mother|sons?|daughters?|wife|husband|children|brothers?|sisters?|siblings|family|"
    r"spouse|life|career|death|birth|childhood|marriage|works|influences?|legacy|reign"
)
_PERSON_BEFORE = re.compile(r"\b(?:who|whom)\s+(?:was|is|were|are)\s+$", re.IGNORECASE)
_PERSON_AFTER = re.compile(rf"^(?:['\u2019]s?)\s+(?:{_KIN})\b", re.IGNORECASE)
_PLACE_BEFORE = re.compile(r"\b(?:born|died|raised|located|situated|buried|lived)\s+in\s+(?:the\s+)?$", re.IGNORECASE)
_WORK_BEFORE = re.compile(
    r"\bthe\s+(?:film|movie|novel|book|song|album|painting|play|opera|poem|series|show)\s+$", re.IGNORECASE
)


def wording_classes(text: str, start: int, end: int, type_map) -> tuple[frozenset[str], str]:
    """Classes the words around `text[start:end]` imply, and the cue (empty when none)."""
    before, after = text[max(0, start - 40) : start], text[end : end + 40]
    person = type_map.classes("PERSON") or frozenset()
    honorific = next(
        (h for h in sorted(type_map.honorifics, key=len, reverse=True)
         if re.search(rf"\b{re.escape(h)}\.?\s+$", before)),
        None,
    )
    if honorific and person:
        return person, f"honorific {honorific!r} before it"
    if _PERSON_BEFORE.search(before) and person:
        return person, "'who was' before it"
    if _PERSON_AFTER.match(after) and person:
        return person, f"{after.split()[1]!r} after it" if len(after.split()) > 1 else "possessive after it"
    if _PLACE_BEFORE.search(before) and type_map.classes("GPE"):
        return type_map.classes("GPE"), f"{before.split()[-2]!r} in before it"
    if _WORK_BEFORE.search(before) and type_map.classes("WORK_OF_ART"):
        return type_map.classes("WORK_OF_ART"), f"'the {before.split()[-1]}' before it"
    return frozenset(), ""


@dataclass(frozen=True)
class TypeEvidence:
    """What the `graph` policy kept, which classes the label and wording prefer (the first tie-break
    after the neighbour score), and the note for the mention's reason."""

    kept: list[Entity]
    preferred: frozenset[str]
    note: str


def graph_type_filter(
    found: Sequence[Entity], label: str, type_map, cue_classes: frozenset[str], cue: str
) -> TypeEvidence:
    """Keep the candidates of a right class (see the module docstring); the note names the evidence,
    what was removed, and an NER label the graph overruled."""
    label_classes = type_map.classes(label) if label else None
    person = type_map.classes("PERSON") or frozenset()
    preferred = frozenset(label_classes or ()) | cue_classes
    humans = [e for e in found if person.intersection(e.types)]
    right = set(preferred) | (set(person) if humans else set())
    if not right:  # no label, no cue, no human: any class is right
        kept = [e for e in found if e.types]
        basis = "any class (no NER label)"
    else:
        kept = [e for e in found if right.intersection(e.types)]
        why = []
        if label_classes is not None:
            why.append(f"NER {label}→{'/'.join(type_map.label_groups.get(label) or ())}")
        if cue:
            why.append(f"wording: {cue}")
        if humans and not person <= preferred:
            why.append("an exact match is human")
        basis = ", ".join(why)
    if not kept:
        note = f"no candidate of a class from {basis}; all kept" if label or cue else ""
        return TypeEvidence(list(found), preferred, note)
    parts = []
    dropped = [e.id for e in found if e not in kept]
    if dropped:
        parts.append(f"type evidence ({basis}) removed {', '.join(dropped)}")
    if label_classes and not any(label_classes.intersection(e.types) for e in kept):
        parts.append(f"NER label {label} overruled by the graph")
    return TypeEvidence(kept, preferred, "; ".join(parts))
