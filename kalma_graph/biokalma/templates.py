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
