"""The build's template text around its facts: the relation as a question names it, the facts a specific
question asks, the template questions. The template *sentence* of one triple that eq. 1's coherence term scores
(BioKaLMA, Appendix A.3: "three templates depending on the POS of the relation") is
`kalma_graph.kg.hypothesis.pos_sentence`, with the other ways a triple is written as text.
"""

from __future__ import annotations

from typing import Any

from kalma_graph.kg.hypothesis import relation_pos
from kalma_graph.verification.lexicon import load_lexicon


def question_noun(relation: str) -> str | None:
    """The relation as a question names it: its label when the label is a noun ("employer"), else its noun
    in `relation_cues.json` ("influences" for `influenced by`), else None (a template question leaves it out).

    >>> question_noun("employer"), question_noun("influenced by"), question_noun("present in work")
    ('employer', 'influences', None)
    """
    words = " ".join(relation.split())
    if relation_pos(words) == "noun":
        return words
    nouns = load_lexicon().relation(words).nouns
    return nouns[0] if nouns else None


def asked_facts_phrase(names: dict[str, str], facts: list[tuple[str, str]]) -> str | None:
    """Each person's relations named once, as nouns, in the facts' order ("Friedrich Schiller's employer and
    influences, and Johann Wolfgang von Goethe's ethnic group"); relations without a noun are left out; None
    when nothing is left. What the specific question is asked to ask for, and the template question's body.

    >>> names = {"Q1": "Friedrich Schiller", "Q2": "Johann Wolfgang von Goethe"}
    >>> asked_facts_phrase(names, [("Q1", "employer"), ("Q1", "influenced by"), ("Q2", "ethnic group"),
    ...                            ("Q1", "employer")])
    "Friedrich Schiller's employer and influences, and Johann Wolfgang von Goethe's ethnic group"
    >>> asked_facts_phrase(names, [("Q1", "present in work")]) is None
    True
    """
    by_person = _nouns_by_person(names, facts)
    if not by_person:
        return None
    return ", and ".join(f"{names[p]}'s {_listed(nouns)}" for p, nouns in by_person.items())


def prompt_facts(names: dict[str, str], facts: list[tuple[str, str]]) -> str:
    """What the specific-question prompt asks the model to ask for: `asked_facts_phrase`, and when only one
    person has facts, how the other was connected to them (else the 1.5B model wrote a question about the one
    person and never named the other).

    >>> names = {"Q1": "Philip Roth", "Q2": "James Joyce"}
    >>> prompt_facts(names, [("Q1", "influenced by"), ("Q1", "employer")])
    "Philip Roth's influences and employer, and how James Joyce was connected to this person"
    >>> prompt_facts(names, [])
    'how Philip Roth and James Joyce were connected'
    """
    (a, name_a), (b, name_b) = list(names.items())[:2]
    by_person = _nouns_by_person(names, facts)
    if not by_person:
        return f"how {name_a} and {name_b} were connected"
    body = asked_facts_phrase(names, facts)
    assert body is not None  # some person has a relation named by a noun (by_person)
    if len(by_person) == 1:
        other = b if next(iter(by_person)) == a else a
        return f"{body}, and how {names[other]} was connected to this person"
    return body


def _nouns_by_person(names: dict[str, str], facts: list[tuple[str, str]]) -> dict[str, list[str]]:
    by_person: dict[str, list[str]] = {}
    for subject, relation in facts:
        noun = question_noun(relation)
        if subject in names and noun and noun not in by_person.setdefault(subject, []):
            by_person[subject].append(noun)
    return {p: nouns for p, nouns in by_person.items() if nouns}


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def fallback_question(prompt: dict[str, Any], names: dict[str, str], facts: list[tuple[str, str]]) -> str:
    """The specific question written from the minimum knowledge set when the model's questions failed: each
    person's relations named once, as nouns (`asked_facts_phrase`), in the set's order; both persons named once.

    >>> prompt = {"fallback": "What {be} {facts}?",
    ...           "fallback_one": "What {be} {facts}, and how was {other} connected to this person?",
    ...           "fallback_none": "How were {a} and {b} connected?"}
    >>> names = {"Q1": "Friedrich Schiller", "Q2": "Johann Wolfgang von Goethe"}
    >>> fallback_question(prompt, names, [("Q1", "influenced by"), ("Q1", "medical condition"), ("Q1", "employer"),
    ...                                   ("Q2", "ethnic group"), ("Q1", "employer")])
    "What were Friedrich Schiller's influences, medical condition and employer, and Johann Wolfgang von
    Goethe's ethnic group?"
    >>> fallback_question(prompt, names, [("Q2", "genre")])
    "What was Johann Wolfgang von Goethe's genre, and how was Friedrich Schiller connected to this person?"
    >>> fallback_question(prompt, names, [])
    'How were Friedrich Schiller and Johann Wolfgang von Goethe connected?'
    """
    (a, name_a), (b, name_b) = list(names.items())[:2]
    by_person = _nouns_by_person(names, facts)
    if not by_person:
        return prompt["fallback_none"].format(a=name_a, b=name_b)
    body = asked_facts_phrase(names, facts)
    be = "were" if sum(len(r) for r in by_person.values()) > 1 else "was"
    if len(by_person) == 2:
        return prompt["fallback"].format(be=be, facts=body)
    named = next(iter(by_person))
    other = b if named == a else a
    return prompt["fallback_one"].format(be=be, facts=body, other=names[other])
