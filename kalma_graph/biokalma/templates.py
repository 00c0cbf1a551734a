"""Knowledge → simple sentence, by the part of speech of the relation (BioKaLMA, Appendix A.3).

The coherence term of eq. 1 scores the paragraph extended by one *template sentence* per candidate
triple. The paper has three templates "depending on the POS of the relation" and shows one
(`[Artemisia, place of birth, Rome]` → "Artemisia's place of birth is Rome"). Ours, from
`kalma_graph/data/relation_pos.json`:

>>> verbalise("Artemisia", "place of birth", "Rome")
"Artemisia's place of birth is Rome."
>>> verbalise("Oscar Hertwig", "influenced by", "Ernst Haeckel")
'Oscar Hertwig was influenced by Ernst Haeckel.'
>>> verbalise("Jim Lovell", "participated in", "Apollo 13")
'Jim Lovell participated in Apollo 13.'
>>> relation_pos("doctoral advisor"), relation_pos("inspired by"), relation_pos("witness to")
('noun', 'participle', 'participle')
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

POS_KINDS = ("noun", "participle", "verb")
_PREPOSITIONS = frozenset({"of", "by", "at", "in", "after", "for", "to", "from", "with", "on", "into"})
_IRREGULAR_PARTICIPLES = frozenset({"born", "known", "given", "taken", "written", "drawn", "shown", "held", "led"})


@lru_cache(maxsize=1)
def relation_table() -> dict[str, Any]:
    """The packaged table: `templates` (pos → format string) and `labels` (label → pos)."""
    path = resources.files("kalma_graph").joinpath("data", "relation_pos.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["labels"] = {" ".join(k.casefold().split()): v for k, v in data["labels"].items()}
    unknown = {v for v in data["labels"].values()} - set(POS_KINDS)
    if unknown or set(data["templates"]) != set(POS_KINDS):
        raise ValueError(f"relation_pos.json: unknown parts of speech {sorted(unknown)} or templates {sorted(data['templates'])}")
    return data


def relation_pos(label: str) -> str:
    """`noun`, `participle` or `verb` for a property label: the table, else a spelling rule."""
    key = " ".join(label.casefold().split())
    known = relation_table()["labels"].get(key)
    if known:
        return known
    words = key.split()
    if len(words) >= 2:
        first, last = words[0], words[-1]
        if (first.endswith("ed") and len(first) > 4) or first in _IRREGULAR_PARTICIPLES:
            return "participle"
        if last in _PREPOSITIONS:
            return "participle"
    return "noun"


def verbalise(subject: str, relation: str, value: str) -> str:
    """The template sentence of one triple (subject given by its name)."""
    template = relation_table()["templates"][relation_pos(relation)]
    return template.format(subject=subject.strip(), relation=" ".join(relation.split()), value=value.strip())


def fallback_question(prompt: dict[str, Any], names: dict[str, str], facts: list[tuple[str, str]]) -> str:
    """The specific question written from the minimum knowledge set when the model's questions failed: each
    person's relations named once, in words, in the set's order; both persons always named.

    >>> prompt = {"fallback": "What {be} {facts}?", "fallback_one": "What {be} {facts}, and how was {other} connected to {name}?",
    ...           "fallback_none": "How were {a} and {b} connected?"}
    >>> names = {"Q1": "Friedrich Schiller", "Q2": "Johann Wolfgang von Goethe"}
    >>> fallback_question(prompt, names, [("Q1", "medical condition"), ("Q1", "employer"), ("Q1", "ethnic group"),
    ...                                   ("Q2", "ethnic group"), ("Q1", "employer")])
    "What were Friedrich Schiller's medical condition, employer and ethnic group, and Johann Wolfgang von Goethe's ethnic group?"
    >>> fallback_question(prompt, names, [("Q2", "genre")])
    "What was Johann Wolfgang von Goethe's genre, and how was Friedrich Schiller connected to Johann Wolfgang von Goethe?"
    >>> fallback_question(prompt, names, [])
    'How were Friedrich Schiller and Johann Wolfgang von Goethe connected?'
    """
    (a, name_a), (b, name_b) = list(names.items())[:2]
    by_person: dict[str, list[str]] = {}
    for subject, relation in facts:
        words = " ".join(relation.split())
        if subject in names and words not in by_person.setdefault(subject, []):
            by_person[subject].append(words)
    if not by_person:
        return prompt["fallback_none"].format(a=name_a, b=name_b)

    def listed(items: list[str]) -> str:
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    parts = [f"{names[p]}'s {listed(rels)}" for p, rels in by_person.items()]
    be = "were" if sum(len(r) for r in by_person.values()) > 1 else "was"
    if len(parts) == 2:
        return prompt["fallback"].format(be=be, facts=", and ".join(parts))
    named = next(iter(by_person))
    other = b if named == a else a
    return prompt["fallback_one"].format(be=be, facts=parts[0], other=names[other], name=names[named])
