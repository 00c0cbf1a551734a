"""Does a question ask for its gold set? The BioKaLMA build keeps a specific question only when it does
(`evolve.evolve_entry`), and `checks.question_gold_consistency` reports it over a built dataset.

A question is **consistent** with its entry's minimum knowledge set when every fact it asks (read by
`verification.asked`: a relation it names, of a person it names, in its direction) has a gold triple of that
subject and relation (and value, when it asks who stands in the relation to the other person), and it names
each of the entry's two persons exactly once. `gold_asked` counts the gold triples the question asks for.
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.verification.asked import asked_readings, asked_triples, name_spans
from kalma_graph.verification.text import find_phrase, phrase, tokenize

#: Words by which a question asks for a ranking or an appraisal, which no triple states ("Who was Joyce Carol
#: Oates' primary influence", "how did Keats's poetry impact Delany's development"): two annotators marked
#: such questions inconsistent with a gold set holding the plain relation (issue 33's check of the v7 build).
JUDGEMENT_WORDS = frozenset({"primary", "main", "most", "key", "impact", "impacted", "significance", "significant",
                             "contribution", "contributions", "legacy", "why"})


#: Words by which a question presupposes a value the two persons share ("Which record label influenced the careers of
#: both Miley Cyrus and Lil' Kim?", whose gold labels differ: the question asks for what does not exist).
SHARED_WORDS = frozenset({"both", "shared", "share", "common", "same"})


def gold_triples(entry: dict) -> list[Triple]:
    return [Triple(g["qid"], g.get("pid") or "", g["property"], g["value"], object_id=g.get("object_id"))
            for g in entry["minimum_knowledge_set"]]


def question_gold(entry: dict, graph: Sequence[Triple] = (), kind: str = "specific") -> dict:
    """One entry's question against its gold set: the facts the question asks (subject, relation, and the
    other person when the question asks who stands in the relation *to* someone), those without a gold
    triple (`unheld`), the gold triples asked, and how often it names each person. Facts are read over
    every relation of the gold set and of the persons' `graph`, so a question may ask what the gold set
    lacks ("Maurice Jarre's cohabitant" when the gold cohabitant is Jean-Michel Jarre's) or ask it the other
    way round ("which philosopher did Adorno influence" against `Adorno influenced by Benjamin`)."""
    question = entry[f"{kind}_question"]
    (a, b), (name_a, name_b) = entry["qids"], entry["names"]
    persons = [Entity(a, name=name_a), Entity(b, name=name_b)]
    gold = gold_triples(entry)
    labels = list(dict.fromkeys(t.label for t in [*gold, *graph] if t.label not in ("name", "instance of")))
    probes = []
    for subject, other, other_name in ((a, b, name_b), (b, a, name_a)):
        for label in labels:
            probes.append(Triple(subject, "", label, "?"))
            probes.append(Triple(subject, "", label, other_name, object_id=other))
    readings = asked_readings(question, persons, probes)
    asked = {(t.subject, t.label, t.value) for t, _ in readings}
    loose = sorted({(t.subject, t.label) for t, by_label in readings if not by_label})
    facts: list[tuple[str, str, str | None]] = []
    for subject, label, value in sorted(asked):
        if value == "?":
            facts.append((subject, label, None))
        elif (subject, label, "?") not in asked:  # asked only of the other person as its value
            facts.append((subject, label, value))
    unheld = [f for f in facts
              if not any(g.subject == f[0] and g.label == f[1] and (f[2] is None or f[2] in (g.value, g.object_id))
                         for g in gold)]
    tokens = tokenize(question)
    named = times_named(tokens, (name_a, name_b))
    # a judgement word that is part of a relation's own label ("significant event") or of a name ("Francis Scott
    # Key") judges nothing
    labelled = {i for words in [*map(phrase, labels), phrase(name_a), phrase(name_b)]
                for start, end in find_phrase(tokens, words) for i in range(start, end)}
    judging = sorted({t.norm for i, t in enumerate(tokens) if t.norm in JUDGEMENT_WORDS and i not in labelled})
    asked_gold = asked_triples(question, persons, gold)
    unshared = _unshared(tokens, facts, gold, (a, b))
    # values of the set the question names (a third person, a place): an answer is handed, or another fact asked
    own = set(phrase(name_a)) | set(phrase(name_b))
    values_named = sorted({g.value for g in gold if g.value not in (name_a, name_b) and phrase(g.value)
                           and not set(phrase(g.value)) <= own and find_phrase(tokens, phrase(g.value))})
    return {"id": entry["id"], "facts": [list(f) for f in facts], "unheld": [list(f) for f in unheld],
            "gold": len(gold), "gold_asked": len(asked_gold), "named": named, "judging": judging,
            "loose": [list(f) for f in loose], "values_named": values_named, "unshared": unshared,
            "consistent": bool(facts) and not unheld and not unshared and not judging
            and all(n == 1 for n in named.values())}


def _unshared(tokens: Sequence[Any], facts: Sequence[tuple], gold: Sequence[Triple],
              persons: Sequence[str]) -> list[str]:
    """The relations a question asks of both persons while presupposing a shared value ("both", "in common", "the
    same") for which the gold set holds no value common to the two.

    >>> from kalma_graph.verification.text import tokenize
    >>> gold = [Triple("Q1", "", "record label", "RCA"), Triple("Q2", "", "record label", "Atlantic")]
    >>> facts = [("Q1", "record label", None), ("Q2", "record label", None)]
    >>> _unshared(tokenize("Which record label did both sign with?"), facts, gold, ("Q1", "Q2"))
    ['record label']
    >>> _unshared(tokenize("Which record labels did they sign with?"), facts, gold, ("Q1", "Q2"))
    []
    """
    if not any(t.norm in SHARED_WORDS for t in tokens):
        return []
    labels = {label for subject, label, value in facts if value is None and subject == persons[0]} & \
        {label for subject, label, value in facts if value is None and subject == persons[1]}
    values: dict[tuple[str, str], set[str]] = {(g.subject, g.label): set() for g in gold}
    for g in gold:
        values[(g.subject, g.label)].add(g.object_id or g.value)
    return sorted(label for label in labels
                  if not values.get((persons[0], label), set()) & values.get((persons[1], label), set()))


def times_named(tokens: Sequence[Any], names: Sequence[str]) -> dict[str, int]:
    """How often each full name occurs, not counting where it is part of another's ("Gaius Laelius" in
    "Gaius Laelius Sapiens").

    >>> times_named(tokenize("What was Gaius Laelius Sapiens's father, and Gaius Laelius's child?"),
    ...             ["Gaius Laelius Sapiens", "Gaius Laelius"])
    {'Gaius Laelius Sapiens': 1, 'Gaius Laelius': 1}
    """
    return {name: len(spans) for name, spans in name_spans(tokens, {n: n for n in names}).items()}


def gold_asked_share(row: dict) -> float:
    """One entry's share of gold triples its question asks for (0 for an empty set)."""
    return row["gold_asked"] / row["gold"] if row["gold"] else 0.0

