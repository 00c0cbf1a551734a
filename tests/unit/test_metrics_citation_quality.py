"""Citation correctness / precision / recall / F1 (KaLMA §4.2, Figure 2): a truth table."""

from __future__ import annotations

import pytest

from kalma_graph.evaluation.metrics.citation_quality import CitationCase, citation_quality
from kalma_graph.kg.citations import parse_answer
from kalma_graph.kg.triples import Triple


def k(i: int) -> tuple[str, str, str]:
    return ("Q1", "p", f"k{i}")


RETRIEVED = [k(i) for i in range(1, 9)]  # k9 is not in the retrieved graph
GOLD = [k(i) for i in range(1, 6)]

# (id, cases, matching, expected subset of the result)
CASES = [
    ("figure 2", [CitationCase([k(1), k(2), k(2), k(6), k(6), k(9)], RETRIEVED, GOLD)], "strict",
     {"citations": 6, "correct": 5, "precise": 3, "gold_hit": 2, "precision_micro": 0.5, "recall_micro": 0.4,
      "precision_macro": 0.5, "recall_macro": 0.4}),
    ("no citations", [CitationCase([], RETRIEVED, GOLD)], "strict",
     {"correctness": None, "precision_micro": None, "recall_micro": 0.0, "f1_micro": None,
      "precision_macro": None, "recall_macro": 0.0, "answers_with_citations": 0}),
    ("no gold: correctness only", [CitationCase([k(1), k(9)], RETRIEVED)], "strict",
     {"correctness": 0.5, "precision_micro": None, "recall_micro": None, "f1_macro": None,
      "note": "no minimum knowledge set given: correctness only"}),
    ("duplicates counted each time", [CitationCase([k(1), k(1), k(1), k(7)], RETRIEVED, [k(1), k(2)])], "strict",
     {"citations": 4, "correct": 4, "precise": 3, "precision_micro": 0.75, "recall_micro": 0.5}),
    ("case differs, strict", [CitationCase([("Q1", "P", "K1")], RETRIEVED, GOLD)], "strict",
     {"correctness": 0.0, "precision_micro": 0.0, "recall_micro": 0.0, "f1_micro": 0.0}),
    ("case differs, normalized", [CitationCase([("Q1", "P", "K1")], RETRIEVED, GOLD)], "normalized",
     {"correctness": 1.0, "precision_micro": 1.0, "recall_micro": 0.2}),
    ("date spelling, normalized", [CitationCase([("Q1", "date of birth", "July 8, 1596")],
                                                [("Q1", "date of birth", "1596-07-08")],
                                                [("Q1", "date of birth", "+1596-07-08T00:00:00Z")])], "normalized",
     {"correct": 1, "precise": 1, "gold_hit": 1}),
    ("micro and macro differ", [CitationCase([k(1)], RETRIEVED, [k(1)]),
                                CitationCase([k(6), k(7), k(8)], RETRIEVED, [k(2), k(3)])], "strict",
     {"precision_micro": 0.25, "precision_macro": 0.5, "recall_micro": 1 / 3, "recall_macro": 0.5}),
    ("macro precision skips answers without citations", [CitationCase([k(1)], RETRIEVED, [k(1)]),
                                                         CitationCase([], RETRIEVED, [k(2)])], "strict",
     {"precision_macro": 1.0, "recall_macro": 0.5, "answers_with_citations": 1}),
    ("gold triple cited but removed from the graph", [CitationCase([k(1), k(2)], [k(1)], [k(1), k(2)])], "strict",
     {"correct": 1, "precise": 1, "gold_hit": 1, "recall_micro": 0.5}),
    ("incomplete citation counts as wrong",
     [CitationCase([("Q1", "p", ""), k(1)], RETRIEVED + [("Q1", "p", "")], GOLD)],
     "strict", {"citations": 2, "correct": 1, "correctness": 0.5}),
    ("partial gold", [CitationCase([k(1)], RETRIEVED, [k(1)]), CitationCase([k(9), k(2)], RETRIEVED)], "strict",
     {"correctness": 2 / 3, "citations_with_gold": 1, "precision_micro": 1.0, "answers_with_gold": 1}),
    ("answer of [NA] only", [CitationCase(parse_answer("Unknown [NA]. Also unknown [NA].").citations, RETRIEVED, GOLD)],
     "strict", {"citations": 0, "correctness": None, "recall_micro": 0.0}),
    ("no answers", [], "strict", {"answers": 0, "correctness": None, "precision_micro": None}),
    ("store triples and parsed citations", [CitationCase(
        parse_answer("Born in Rome [Q212657, place of birth: Rome].").citations,
        [Triple("Q212657", "P19", "place of birth", "Rome", object_id="Q220")],
        [Triple("Q212657", "P19", "place of birth", "Rome", object_id="Q220")])], "strict",
     {"correctness": 1.0, "precision_micro": 1.0, "recall_micro": 1.0, "f1_micro": 1.0}),
]


@pytest.mark.parametrize("cases,matching,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_citation_quality_truth_table(cases, matching, expected):
    result = citation_quality(cases, matching=matching)
    for name, value in expected.items():
        assert result.get(name) == (pytest.approx(value) if isinstance(value, float) else value), name
    assert result["choices"]["matching"] == matching


def test_gold_status_is_named():
    assert citation_quality([CitationCase([k(1)], RETRIEVED, GOLD)])["choices"]["gold"] == "given"
    assert citation_quality([CitationCase([k(1)], RETRIEVED)])["choices"]["gold"] == "absent"
    mixed = [CitationCase([k(1)], RETRIEVED, GOLD), CitationCase([k(1)], RETRIEVED)]
    assert citation_quality(mixed)["choices"]["gold"] == "partial"


def test_per_answer_flags_follow_citation_order():
    result = citation_quality([CitationCase([k(1), k(9), k(6)], RETRIEVED, GOLD)])
    row = result["per_answer"][0]
    assert row["correct_flags"] == [True, False, True]
    assert row["precise_flags"] == [True, False, False]
    assert row["gold_hit_flags"] == [True, False, False, False, False]


def test_f1_from_matching_scores():
    result = citation_quality([CitationCase([k(1), k(2), k(2), k(6), k(6), k(9)], RETRIEVED, GOLD)])
    assert result["f1_micro"] == pytest.approx(2 * 0.5 * 0.4 / 0.9)
    assert result["f1_macro"] == pytest.approx(2 * 0.5 * 0.4 / 0.9)
