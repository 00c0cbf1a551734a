"""Namesakes: the graph's person of a name the question asks of who is not the one it asks of.

"Who was John Cleland, … his literary prowess?" asks of the novelist; a graph holding only a researcher named John
Cleland at the University of Hull holds nothing about him, and an answer citing the researcher's triples states
nothing the graph supports (the labelling rules: a claim only a namesake's triple holds is not held). The question
says which one it means by the field it gives the person ("literary", "his path in football", "his political
career"); the graph says what its person does (`person_fields.profile_relations`: occupation, field of work,
position held, sport, …). A person with a profile that fits none of the fields the question gives them is a
namesake. A person the graph says nothing of that kind about is never judged: no profile is no evidence.
"""

from __future__ import annotations

from typing import Sequence

from .lexicon import Lexicon, PersonField, load_lexicon
from .records import GraphEntity, GraphTriple
from .structure import GraphView, Mention, entity_mentions
from .text import Token, fold, phrase, tokenize


def namesakes(question_tokens: Sequence[Token], mentions: Sequence[Mention], view: GraphView,
              lexicon: Lexicon) -> dict[str, str]:
    """Entity id → why, for each person the question names whose graph profile fits none of the fields the
    question gives them. `mentions` are the question's entity mentions (`structure.entity_mentions`)."""
    given: dict[str, set[tuple[PersonField, str]]] = {}  # person -> (field, the question's word for it)
    persons = [m for m in mentions if m.kind == "entity" and m.ids]
    for i, token in enumerate(question_tokens):
        if not token.word:
            continue
        fields = [f for f in lexicon.person_fields if token.norm in f.asked]
        if not fields:
            continue
        whom = _whom(question_tokens, persons, i, lexicon)
        for eid in whom.ids if whom is not None else ():
            given.setdefault(eid, set()).update((f, token.norm) for f in fields)
    out = {}
    for eid, asked in given.items():
        profile = [t for t in view.by_subject.get(eid, ()) if fold(t.label) in lexicon.profile_relations]
        if profile and not any(_fits(f, word, profile) for f, word in asked):
            does = ", ".join(dict.fromkeys(t.value for t in profile if fold(t.label) == "occupation")) \
                or profile[0].value
            words = ", ".join(sorted({word for _, word in asked}))
            out[eid] = (f"the graph's {view.label(eid)} ({does}) is not the one the question asks of ({words}): "
                        "a namesake")
    return out


def _whom(tokens: Sequence[Token], persons: Sequence[Mention], i: int, lexicon: Lexicon) -> Mention | None:
    """The person a field word at `i` is given to: the one named last before it, unless a family word stands
    between ("his father's career in engineering" gives the father the field) or a plural pronoun ("Cao Cao and
    his relatives, including … Xiahou Dun, shape their political and personal lives": several persons, any of whom
    may be the one in the field); else the first named after it."""
    before = [m for m in persons if m.end <= i]
    if before:
        last = before[-1]
        kin = {w for words in lexicon.kin_words.values() for w in words}
        between = tokens[last.end:i]
        return None if any(t.norm in kin or t.norm in lexicon.plural_pronouns for t in between) else last
    return next((m for m in persons if m.start > i), None)


def _fits(f: PersonField, word: str, profile: Sequence[GraphTriple]) -> bool:
    if f.any_of and any(fold(t.label) in f.any_of for t in profile):
        return True
    stems = (f.held[f.asked.index(word)],) if f.same_word else f.held
    return any(w.startswith(stems) for t in profile for w in phrase(t.value))


def question_namesakes(question: str, shown: Sequence[GraphTriple], entities: Sequence[GraphEntity],
                       lexicon: Lexicon | None = None) -> dict[str, str]:
    """`namesakes` of a question over a graph (what a planner calls before it plans anything of them)."""
    lexicon = lexicon or load_lexicon()
    view = GraphView.build(shown, entities, lexicon)
    tokens = tokenize(question)
    return namesakes(tokens, entity_mentions(tokens, view), view, lexicon)
