"""Person selection (BioKaLMA, seed 000, Appendix A.1): pairs of related persons and a seed sentence.

The paper takes name pairs and their relation (`<William Shakespeare, Spouse, Anne Hathaway>`) with
a human-written paragraph from the Biographical database, and drops a pair when a name is
incomplete. Here pairs come either from a JSON-lines file in that shape (`read_pairs`) or from the
graph itself (`pairs_from_graph`): two humans linked by a person–person statement, the seed
sentence being a template verbalising that link (`prompts/biokalma/seed_sentences.json`).

Completeness ("at least a given name and a family name"): a name is complete when it has at least
two name words — words with a letter that are not Roman numerals, particles (`von`, `de`, `al`) or
an epithet after `the`:

>>> [is_complete_name(n) for n in ("Tokugawa Iemitsu", "Hasan al-Askari", "Yazdegerd II",
...                                  "Alexander the Great", "Pelé", "Ludwig van Beethoven")]
[True, True, False, False, False, True]
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from kalma_graph.biokalma.graph_queries import person_links
from kalma_graph.lines import json_lines
from kalma_graph.prompts import load_prompt
from kalma_graph.store.base import GraphStore

HUMAN = "Q5"


@dataclass(frozen=True)
class Relation:
    """A person–person property and the properties that state the same link the other way round."""

    pid: str
    label: str
    inverse: tuple[str, ...] = ()  # b -[inverse]-> a says what a -[pid]-> b says


#: The person–person relations of the issue, in order of preference when a pair has several.
PERSON_RELATIONS: dict[str, Relation] = {
    r.pid: r
    for r in (
        Relation("P22", "father", ("P40",)),
        Relation("P25", "mother", ("P40",)),
        Relation("P26", "spouse", ("P26",)),
        Relation("P3373", "sibling", ("P3373",)),
        Relation("P40", "child", ("P22", "P25")),
        Relation("P1066", "student of", ("P802",)),
        Relation("P802", "student", ("P1066",)),
        Relation("P184", "doctoral advisor", ("P185",)),
        Relation("P185", "doctoral student", ("P184",)),
        Relation("P737", "influenced by", ()),
    )
}
_BY_LABEL = {r.label: r.pid for r in PERSON_RELATIONS.values()} | {
    "husband": "P26", "wife": "P26", "brother": "P3373", "sister": "P3373", "son": "P40",
    "daughter": "P40", "teacher": "P1066", "advisor": "P184", "influence": "P737",
}

_PARTICLES = frozenset(
    "of the de del della der den des di da do dos du la le las los van von y e al el ibn bin bint ben ap ter zu".split()
)
_ROMAN = re.compile(r"^[IVXLCDM]+\.?$")


def is_complete_name(name: str | None) -> bool:
    """At least two name words (see the module docstring)."""
    if not name:
        return False
    words = name.replace(",", " ").split()
    count = 0
    after_the = False
    for word in words:
        lower = word.casefold()
        if lower == "the":
            after_the = True
            continue
        if after_the:  # "Alexander the Great": an epithet, not a family name
            after_the = False
            continue
        if lower in _PARTICLES or _ROMAN.match(word) or not any(ch.isalpha() for ch in word):
            continue
        count += 1
    return count >= 2


def relation_of(text: str) -> Relation:
    """A relation by PID (`P26`) or label (`spouse`, `Spouse`, `wife`)."""
    key = " ".join(text.strip().split())
    if key.upper() in PERSON_RELATIONS:
        return PERSON_RELATIONS[key.upper()]
    pid = _BY_LABEL.get(key.casefold())
    if pid is None:
        known = ", ".join(f"{r.pid} {r.label}" for r in PERSON_RELATIONS.values())
        raise ValueError(f"unknown person relation {text!r}; known: {known}")
    return PERSON_RELATIONS[pid]


@dataclass(frozen=True)
class PersonPair:
    """A pair to build an entry from: two names, the relation `a -[relation]-> b`, a seed sentence.

    `hint` holds the ids the pair was read from when it comes from the graph; resolution never
    uses it (names go through disambiguation like any other input), reports do."""

    a: str
    relation: str  # PID
    b: str
    sentence: str
    sentence_source: str = "template"  # "template" | "input"
    hint: tuple[str, str] | None = None


def seed_sentence(relation: str, a: str, b: str) -> str:
    templates = load_prompt("biokalma/seed_sentences")["sentences"]
    return templates[relation].format(a=a, b=b)


def pairs_from_graph(
    store: GraphStore, relations: Sequence[str] = tuple(PERSON_RELATIONS), *, type_id: str = HUMAN
) -> list[PersonPair]:
    """Every pair of humans linked by one of `relations` with complete names, one per unordered
    pair (the first relation in `relations` order wins, so `father` beats its inverse `child`),
    sorted by (a id, relation, b id)."""
    rank = {pid: i for i, pid in enumerate(relations)}
    best: dict[frozenset, tuple] = {}
    for link in person_links(store, relations, type_id):
        if not (is_complete_name(link.a_name) and is_complete_name(link.b_name)):
            continue
        key = frozenset((link.a_id, link.b_id))
        order = (rank[link.pid], link.a_id, link.b_id)
        if key not in best or order < best[key][0]:
            best[key] = (order, link)
    pairs = [
        PersonPair(
            a=link.a_name,
            relation=link.pid,
            b=link.b_name,
            sentence=seed_sentence(link.pid, link.a_name, link.b_name),
            hint=(link.a_id, link.b_id),
        )
        for _, link in best.values()
    ]
    return sorted(pairs, key=lambda p: (p.hint, p.relation))


def read_pairs(path: str | Path) -> list[PersonPair]:
    """JSON lines `{"a": NAME, "relation": PID or label, "b": NAME, "sentence": TEXT?}` (the
    Biographical database's triple and paragraph). Pairs with an incomplete name are dropped, as in
    the paper; a missing sentence is made from the relation's template."""
    pairs = []
    for where, row in json_lines(path, what="pairs file", error=ValueError):
        missing = [k for k in ("a", "relation", "b") if not isinstance(row, dict) or not row.get(k)]
        if missing:
            raise ValueError(f"{where}: a pair needs \"a\", \"relation\" and \"b\"; missing {', '.join(missing)}")
        a, b = str(row["a"]).strip(), str(row["b"]).strip()
        try:
            relation = relation_of(str(row["relation"])).pid
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if not (is_complete_name(a) and is_complete_name(b)):
            continue
        sentence = (row.get("sentence") or "").strip()
        pairs.append(
            PersonPair(a, relation, b, sentence or seed_sentence(relation, a, b), "input" if sentence else "template")
        )
    return pairs


def shuffled(pairs: Iterable[PersonPair], seed: int) -> list[PersonPair]:
    """The pairs in a seeded order (the order entries are built in; `--limit` takes a prefix)."""
    ordered = list(pairs)
    random.Random(seed).shuffle(ordered)
    return ordered
