"""What a question asks of the graph: the (person, relation) facts it names, in its order, with their direction.

`asked_triples(question, entities, shown)` reads a question clause by clause ("…, and …"): a person it names
and a relation it names there — by its label (or its noun, "influences" for `influenced by`), else by a cue word
of `relation_cues.json`, kinship by its words ("parents" asks father and mother) — that the given triples hold for that
person. A relation named by its label outranks one that only shares a cue word ("which record label did he play for"
asks no `instrument`); "who was influenced by X" and "which philosopher did X influence" ask the triples whose *value*
is X. The grounded cite strategy plans its answer from it; the BioKaLMA build checks a question against its gold set
with it.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from kalma_graph.kg.triples import Entity, Triple

from .lexicon import load_lexicon
from .text import find_phrase, find_stem, fold, phrase, tokenize

_CLAUSE_RE = re.compile(r",\s*and\s+|;|:|\?\s+")


def asked_facts(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> set[tuple[str, str]]:
    """(entity id, relation label) pairs the question asks for: per clause ("…, and …"), a person it names
    and a relation it names there (its label or a cue of it, `relation_cues.json`) that the graph shown holds
    for that person; a clause that names no person (a list after a colon) asks of every person named. A
    question that asks who stands in the relation *to* a person ("Who was influenced by Russell?", "Which
    philosopher did Adorno influence?") asks the triples whose value is that person (see `asked_triples`)."""
    return set(asked_in_order(question, entities, shown))


def asked_in_order(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> list[tuple[str, str]]:
    """`asked_facts` in the question's order: clause by clause, each clause's relations where it names them."""
    return list(dict.fromkeys((t.subject, t.label) for t in asked_triples(question, entities, shown)))


def asked_triples(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> list[Triple]:
    """The shown triples that answer the question, in its order (see `asked_facts`)."""
    return [t for t, _ in asked_readings(question, entities, shown)]


def asked_readings(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> list[tuple[Triple, bool]]:
    """`asked_triples`, each with whether the question names its relation by its label or noun (True) or only by a
    cue or family word ("where did he die", "his parents"), a looser reading."""
    lexicon = load_lexicon()
    clauses = [tokenize(c) for c in _CLAUSE_RE.split(question) if c.strip()]
    found = [_named(tokens, entities) for tokens in clauses]
    everyone = {i for people in found for i in people}
    persons = {t.subject for t in shown if t.label == "instance of" and fold(t.value) in lexicon.human_values}
    found = _pronouns_resolved(clauses, found, persons)
    names = {e.name.casefold(): e.id for e in entities if e.name}
    out: dict[Triple, tuple[int, int, bool]] = {}  # triple -> (clause, token naming its relation, by its label?)
    for index, (tokens, people) in enumerate(zip(clauses, found)):
        hits: dict[Triple, tuple[bool, tuple[int, int]]] = {}  # named by its label?, the first span naming it
        for t in shown:
            if t.label == "name" or t in out:
                continue
            label_words = phrase(t.label)
            rel = lexicon.relation(t.label)
            # its label, or its name as a noun ("John Updike's influences" names `influenced by`)
            by_label = [span for words in (label_words, *map(phrase, rel.nouns)) if words
                        for span in find_phrase(tokens, words)]
            spans = by_label + [span for cue in rel.cues for span in find_stem(tokens, cue)]
            # kinship is named by its words, whole ("parents" asks father and mother; "son" is no "song")
            spans += [span for word in lexicon.kin_words.get(rel.kin or "", ())
                      for span in find_phrase(tokens, (word,))]
            spans = [span for span in spans if not _noun_lives(tokens, span[0])]
            if not spans:
                continue
            start, end = min(spans)
            value_person = t.object_id if t.object_id in people else names.get(t.value.casefold())
            if (t.label.endswith(" by") and value_person in people
                and _inverse(tokens, start, end, people[value_person])):
                # asked of the person who is its value: "who was influenced by X"
                hits[t] = (bool(by_label), (start, end))
            elif t.subject in (people or everyone) and not (
                    t.label.endswith(" by") and _inverse(tokens, start, end, people.get(t.subject, -1))):
                hits[t] = (bool(by_label), (start, end))
        # A relation the clause names by its label ("which record label did he play for") outranks those
        # whose cue word it only shares ("play": instrument, genre).
        labelled = any(by_label for by_label, _ in hits.values())
        out.update({t: (index, span[0], by_label) for t, (by_label, span) in hits.items() if by_label or not labelled})
    return [(t, out[t][2]) for t in sorted(out, key=lambda t: out[t][:2])]


def _named(tokens: Sequence[Any], entities: Sequence[Entity]) -> dict[str, int]:
    """Where the clause first names each entity (`name_spans`)."""
    spans = name_spans(tokens, {e.id: e.name for e in entities if e.name})
    return {entity_id: own[0][0] for entity_id, own in spans.items() if own}


def name_spans(tokens: Sequence[Any], names: dict[str, str]) -> dict[str, list[tuple[int, int]]]:
    """Where each name (keyed as given) occurs, not counting where it is part of another's ("Gaius Laelius" in
    "Gaius Laelius Sapiens")."""
    spans = {key: find_phrase(tokens, phrase(name)) for key, name in names.items()}
    return {key: [(s, e) for s, e in own if not any(o != key and os <= s and e <= oe and (os, oe) != (s, e)
                                                  for o, other in spans.items() for os, oe in other)]
            for key, own in spans.items()}


def _pronouns_resolved(clauses: Sequence[Sequence[Any]], found: list[dict[str, int]],
                       persons: set[str] | None = None) -> list[dict[str, int]]:
    """A clause that names no person but speaks of "he"/"his"/"her" asks of the person named last before it
    ("What were Bukowski's influences, and in which period did Kafka live, and what was his medical
    condition?" asks Kafka's), a human where the graph shown says who is one ("Was Alex Van Halen born in the
    Netherlands, and who was his father?" asks Alex's father, not the Netherlands'); one without such a pronoun (a
    list after a colon) still asks of everyone."""
    singular = load_lexicon().singular_pronouns
    out: list[dict[str, int]] = []
    last: str | None = None
    for tokens, people in zip(clauses, found):
        if not people and last is not None and any(t.norm in singular for t in tokens):
            people = {last: -1}  # named before this clause: never after a relation's words in it
        elif people:
            humans = {i: at for i, at in people.items() if i in (persons or ())} or people
            last = max(humans, key=humans.__getitem__)
        out.append(people)
    return out


def _noun_lives(tokens: Sequence[Any], i: int) -> bool:
    """"the lives of X and Y", "how were their lives connected" (the fallback questions' words) ask no residence."""
    return tokens[i].norm == "lives" and i > 0 and tokens[i - 1].norm in load_lexicon().lives_determiners


def _inverse(tokens: Sequence[Any], start: int, end: int, person_at: int) -> bool:
    """Whether a person named at token `person_at` is the *value* of a "… by" relation named at tokens
    [start, end): after a passive cue ("influenced by X"), or before an active one ("did X influence")."""
    if person_at < 0:
        return False
    if tokens[start].norm.startswith(load_lexicon().influence_nouns) and any(
            t.possessive for t in tokens[max(min(start - 3, person_at), 0):start]):
        # "Oates's primary influence", "Bukowski's religion and influences": a noun of the person's own
        # relation, not "Oates influenced"
        return False
    passive = any(t.norm == "by" for t in tokens[start + 1:end + 1])  # "influenced by", whichever span matched
    return person_at >= end if passive else person_at < start
