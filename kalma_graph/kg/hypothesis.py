"""A triple as text: every way kalma-graph writes (subject, property, value) for an NLI model or a language
model to read, in one place (`HYPOTHESES`, by name).

Each format's output is what the NLI caches were keyed on and what the reported figures were computed with:
changing a string here changes scores and invalidates caches, so each one is pinned by an example.

>>> [HYPOTHESES[name]("Oscar Hertwig", "employer", "University of Jena") for name in HYPOTHESES]
... # doctest: +NORMALIZE_WHITESPACE
['employer: University of Jena',
 "Oscar Hertwig's employer is University of Jena",
 'The employer of Oscar Hertwig is University of Jena.',
 'Oscar Hertwig — employer: University of Jena',
 'The employer of Oscar Hertwig is University of Jena.',
 'Oscar Hertwig employer University of Jena.',
 "Oscar Hertwig's employer is University of Jena."]
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Callable

Verbaliser = Callable[[str, str, str], str]
"""`(subject name, property label, value) -> text`."""

#: a label whose last word is one of these reads as a relation between two things ("part of", "located in")
RELATIONAL_END = frozenset({"of", "in", "for", "at", "by", "on", "to", "with", "from"})
POS_KINDS = ("noun", "participle", "verb")
_PREPOSITIONS = frozenset({"of", "by", "at", "in", "after", "for", "to", "from", "with", "on", "into"})
_IRREGULAR_PARTICIPLES = frozenset({"born", "known", "given", "taken", "written", "drawn", "shown", "held", "led"})


def prop_value(subject: str, label: str, value: str) -> str:
    """The citation's own words, the paper's NLI hypothesis (seed 000, Appendix B.3); the subject is left out."""
    return f"{label}: {value}"


def possessive(subject: str, label: str, value: str) -> str:
    """`Oscar Hertwig's employer is University of Jena` (no final period): alignment's `verbalised` format."""
    return f"{subject}'s {label} is {value}"


def the_of_sentence(subject: str, label: str, value: str) -> str:
    """`The employer of Oscar Hertwig is University of Jena.`: the verifier's stage two."""
    return f"The {label} of {subject} is {value}."


def subject_citation(subject: str, label: str, value: str) -> str:
    """`Oscar Hertwig — employer: University of Jena`: an NLI training pair's hypothesis."""
    return f"{subject} — {prop_value(subject, label, value)}"


def is_relational(label: str) -> bool:
    """`part of`, `located in`: a label that ends in a preposition."""
    return label.rsplit(" ", 1)[-1] in RELATIONAL_END


def relational_sentence(subject: str, label: str, value: str) -> str:
    """`X is part of Y.` for a relational label, else `The employer of X is Y.`: NLI training pairs' sentences.

    >>> relational_sentence("Ghent", "located in", "Belgium")
    'Ghent is located in Belgium.'
    """
    if is_relational(label):
        return f"{subject} is {label} {value}."
    return the_of_sentence(subject, label, value)


def plain_sentence(subject: str, label: str, value: str) -> str:
    """`Stephen Crane place of birth Newark.`: the SCK score's hypothesis of a triplet (seed 004)."""
    return f"{subject} {label} {value}."


@lru_cache(maxsize=1)
def relation_table() -> dict[str, Any]:
    """The packaged table `data/relation_pos.json`: `templates` (pos → format string) and `labels` (label → pos)."""
    path = resources.files("kalma_graph").joinpath("data", "relation_pos.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["labels"] = {" ".join(k.casefold().split()): v for k, v in data["labels"].items()}
    unknown = {v for v in data["labels"].values()} - set(POS_KINDS)
    if unknown or set(data["templates"]) != set(POS_KINDS):
        raise ValueError(
            f"relation_pos.json: unknown parts of speech {sorted(unknown)} or templates {sorted(data['templates'])}")
    return data


def relation_pos(label: str) -> str:
    """`noun`, `participle` or `verb` for a property label: the table, else a spelling rule.

    >>> relation_pos("doctoral advisor"), relation_pos("inspired by"), relation_pos("witness to")
    ('noun', 'participle', 'participle')
    """
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


def pos_sentence(subject: str, relation: str, value: str) -> str:
    """BioKaLMA's template sentence (seed 000, Appendix A.3: "three templates depending on the POS of the
    relation"), subject given by its name.

    >>> pos_sentence("Artemisia", "place of birth", "Rome")
    "Artemisia's place of birth is Rome."
    >>> pos_sentence("Oscar Hertwig", "influenced by", "Ernst Haeckel")
    'Oscar Hertwig was influenced by Ernst Haeckel.'
    >>> pos_sentence("Jim Lovell", "participated in", "Apollo 13")
    'Jim Lovell participated in Apollo 13.'
    """
    template = relation_table()["templates"][relation_pos(relation)]
    return template.format(subject=subject.strip(), relation=" ".join(relation.split()), value=value.strip())


HYPOTHESES: dict[str, Verbaliser] = {
    "prop_value": prop_value,  # alignment and [NA] (the paper's), NLI pairs' `citation` style
    "verbalised": possessive,  # alignment's --hypothesis-format verbalised
    "sentence": the_of_sentence,  # the verifier's stage two
    "subject_citation": subject_citation,  # NLI pairs
    "relational": relational_sentence,  # NLI pairs' `sentence` style
    "plain": plain_sentence,  # SCK
    "pos": pos_sentence,  # BioKaLMA's eq. 1 templates and relevance check
}
