"""Matching modes: when a cited triple equals a graph triple (strict vs normalized)."""

from __future__ import annotations

import pytest

from kalma_graph.evaluation.matching import key_function, normalize_date, triple_parts
from kalma_graph.kg.citations import Citation
from kalma_graph.kg.triples import Triple

# (id, cited, graph triple, equal under strict, equal under normalized)
CASES = [
    ("identical", ("Q1", "place of birth", "Rome"), ("Q1", "place of birth", "Rome"), True, True),
    ("value case", ("Q1", "place of birth", "rome"), ("Q1", "place of birth", "Rome"), False, True),
    ("label case", ("Q1", "Place of Birth", "Rome"), ("Q1", "place of birth", "Rome"), False, True),
    ("id case", ("q1", "place of birth", "Rome"), ("Q1", "place of birth", "Rome"), False, True),
    ("whitespace", ("Q1", "place  of birth", " Rome "), ("Q1", "place of birth", "Rome"), False, True),
    ("underscore label", ("Q1", "place_of_birth", "Rome"), ("Q1", "place of birth", "Rome"), False, True),
    ("quotes", ("Q1", "notable works", '"Judith"'), ("Q1", "notable works", "Judith"), False, True),
    ("nfc vs nfd", ("Q1", "p", "Jose\u0301"), ("Q1", "p", "Jos\u00e9"), False, True),
    ("date month first", ("Q1", "date of birth", "July 8, 1596"), ("Q1", "date of birth", "1596-07-08"), False, True),
    ("date day first", ("Q1", "date of birth", "8 July 1596"), ("Q1", "date of birth", "1596-07-08"), False, True),
    ("date wikidata", ("Q1", "date of birth", "1596-07-08"),
     ("Q1", "date of birth", "+1596-07-08T00:00:00Z"), False, True),
    ("date ordinal abbreviated", ("Q1", "date of birth", "Jul. 8th, 1596"),
     ("Q1", "date of birth", "1596-07-08"), False, True),
    ("year precision", ("Q1", "date of birth", "1596"), ("Q1", "date of birth", "+1596-00-00T00:00:00Z"), False, True),
    ("different dates", ("Q1", "date of birth", "July 9, 1596"), ("Q1", "date of birth", "1596-07-08"), False, False),
    ("different value", ("Q1", "place of birth", "Naples"), ("Q1", "place of birth", "Rome"), False, False),
    ("different subject", ("Q2", "place of birth", "Rome"), ("Q1", "place of birth", "Rome"), False, False),
    ("mid case kept apart from qid", ("m.0C94FN", "p", "v"), ("m.0c94fn", "p", "v"), False, True),
]


@pytest.mark.parametrize("cited,graph,strict,normalized", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matching_truth_table(cited, graph, strict, normalized):
    assert (key_function("strict")(cited) == key_function("strict")(graph)) is strict
    assert (key_function("normalized")(cited) == key_function("normalized")(graph)) is normalized


@pytest.mark.parametrize("text,expected", [
    ("1596-07-08", "1596-07-08"), ("+1596-07-08T00:00:00Z", "1596-07-08"), ("-0044-03-15T00:00:00Z", "-44-03-15"),
    ("+1596-07-00T00:00:00Z", "1596-07"), ("july 1596", "1596-07"), ("8 of july 1596", "1596-07-08"),
    ("1596-02-30", None), ("Smarch 8, 1596", None), ("1990-1995", None), ("Rome", None),
])
def test_normalize_date(text, expected):
    assert normalize_date(text) == expected


def test_triple_parts_accepts_citations_store_triples_and_tuples():
    assert triple_parts(Citation("Q1", "p", "v")) == ("Q1", "p", "v")
    assert (triple_parts(Triple("Q1", "P19", "place of birth", "Rome", object_id="Q220"))
            == ("Q1", "place of birth", "Rome"))
    with pytest.raises(TypeError):
        triple_parts(("Q1", "p"))


def test_unknown_mode_fails_loudly():
    with pytest.raises(ValueError, match="unknown matching mode"):
        key_function("fuzzy")
