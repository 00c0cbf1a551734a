"""[NA] precision / recall / F1 (KaLMA §4.4, Figure 3): a truth table with a lookup-table judge."""

from __future__ import annotations

import pytest

from kalma_graph.evaluation.metrics.conscious_incompetence import NACase, absent_triples, na_quality
from kalma_graph.kg.citations import parse_answer


def k(i: int) -> tuple[str, str, str]:
    return ("Q1", "p", f"k{i}")


# Which (sentence, hypothesis) pairs the judge entails: the fixture for the counting logic.
ENTAILS = {("S1", "p: k2"), ("S1.", "p: k2"), ("S4", "p: k4"), ("S5", "p: k5"), ("S6", "p: k2"), ("S6", "p: k4")}


def lookup(premises, hypotheses):
    return [(p, h) in ENTAILS for p, h in zip(premises, hypotheses)]


# (id, cases, options, expected subset)
CASES = [
    ("figure 3", [NACase(["S1", "S2"], absent=[k(2), k(4), k(5)])], {},
     {"na_sentences": 2, "na_correct": 1, "absent_triples": 3, "absent_hit": 1, "precision": 0.5, "recall": 1 / 3,
      "f1": 0.4}),
    ("no [NA] sentences", [NACase([], absent=[k(2), k(4)])], {},
     {"precision": None, "recall": 0.0, "f1": None, "precision_macro": None, "recall_macro": 0.0}),
    ("nothing removed", [NACase(["S1"], absent=[])], {}, {"precision": 0.0, "recall": None}),
    ("all sentences [NA], each right", [NACase(["S1", "S4", "S5"], absent=[k(2), k(4), k(5)])], {},
     {"precision": 1.0, "recall": 1.0, "f1": 1.0}),
    ("one sentence entails two absent triples", [NACase(["S6"], absent=[k(2), k(4), k(5)])], {},
     {"na_correct": 1, "absent_hit": 2, "precision": 1.0, "recall": 2 / 3}),
    ("duplicate absent triples count once", [NACase(["S1"], absent=[k(2), k(2), k(4)])], {},
     {"absent_triples": 2, "recall": 0.5}),
    ("micro and macro differ", [NACase(["S1", "S2", "S3"], absent=[k(2)]), NACase(["S4"], absent=[k(4), k(5)])], {},
     {"precision": 0.5, "precision_macro": (1 / 3 + 1) / 2, "recall": 2 / 3, "recall_macro": 0.75}),
    ("gold not cited (original code)", [NACase(["S1", "S2"], citations=[k(1), k(3)], gold=[k(1), k(2), k(3), k(4)])],
     {"absent_set": "gold_not_cited"}, {"absent_triples": 2, "absent_hit": 1, "precision": 0.5, "recall": 0.5}),
    ("gold not cited, case differs, strict", [NACase(["S1"], citations=[("Q1", "P", "K2")], gold=[k(2)])],
     {"absent_set": "gold_not_cited"}, {"absent_triples": 1, "precision": 1.0}),
    ("gold not cited, case differs, normalized", [NACase(["S1"], citations=[("Q1", "P", "K2")], gold=[k(2)])],
     {"absent_set": "gold_not_cited", "matching": "normalized"}, {"absent_triples": 0, "precision": 0.0,
                                                                   "recall": None}),
    ("from a parsed answer",
     [NACase.from_parsed(parse_answer("S1 [Q1, p: k1][NA]. S2 [Q1, p: k3][NA]. S3 [Q1, p: k6]."),
                         absent=[k(2), k(4), k(5)])], {},
     {"na_sentences": 2, "precision": 0.5, "recall": 1 / 3}),
    ("no answers", [], {}, {"answers": 0, "precision": None, "recall": None}),
]


@pytest.mark.parametrize("cases,options,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_na_quality_truth_table(cases, options, expected):
    result = na_quality(cases, lookup, **options)
    for name, value in expected.items():
        assert result.get(name) == (pytest.approx(value) if isinstance(value, float) else value), name


def test_choices_are_named():
    result = na_quality([NACase(["S1"], absent=[k(2)])], lookup)
    assert result["choices"] == {"absent_set": "removed", "matching": "strict", "hypothesis_format": "prop_value",
                                 "threshold": 0.5}


def test_removed_variant_needs_the_removed_knowledge():
    with pytest.raises(ValueError, match="absent"):
        na_quality([NACase(["S1"])], lookup)
    with pytest.raises(ValueError, match="gold"):
        na_quality([NACase(["S1"])], lookup, absent_set="gold_not_cited")
    with pytest.raises(ValueError, match="unknown absent set"):
        absent_triples(NACase(["S1"], absent=[]), "guess")


def test_probabilities_and_verbalised_hypotheses():
    def judge(premises, hypotheses):
        return [0.9 if h == "Artemisia's p is k2" else 0.1 for h in hypotheses]

    result = na_quality([NACase(["S1"], absent=[k(2), ("Q2", "p", "k4")])], judge, hypothesis_format="verbalised",
                        subject_names={"Q1": "Artemisia"})
    assert (result["precision"], result["recall"], result["subjects_without_name"]) == (1.0, 0.5, ["Q2"])
