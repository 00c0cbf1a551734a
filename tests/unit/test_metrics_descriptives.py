"""Answer descriptives: counts of citations, [NA] marks, sloppy forms and parse issues."""

from __future__ import annotations

import pytest

from kalma_graph.evaluation.metrics.descriptives import answer_descriptives
from kalma_graph.kg.citations import parse_answer

# (id, answers, expected subset)
CASES = [
    ("no answers", [], {"answers": 0, "citations_per_answer": None, "na_per_answer": None, "sloppy_share": None,
                        "citations_per_answer_max": None}),
    ("answer without citation", ["Plain text."], {"answers_without_citation": 1, "answers_without_any_mark": 1,
                                                  "citations": 0, "sloppy_share": None}),
    ("canonical citations", ["A [Q1, p: v, q: w]. B [Q2, r: s]."],
     {"citations": 3, "citations_per_answer": 3.0, "sloppy_citations": 0, "sloppy_share": 0.0}),
    ("sloppy share", ["A [qid: Q1, p: v]. B [Q2, r: s]. C [Q3,t:u]."],
     {"citations": 3, "sloppy_citations": 2, "sloppy_share": 2 / 3}),
    ("[NA] per answer", ["A [NA]. B [na].", "C [Q1, p: v]."],
     {"na_marks": 2, "na_per_answer": 1.0, "na_sloppy": 1, "answers_with_na": 1, "sentences_with_na": 2}),
    ("all [NA]", ["A [NA]. B [NA]. C [NA]."],
     {"answers_without_citation": 1, "answers_without_any_mark": 0, "na_marks": 3, "sentences": 3}),
    ("duplicates counted", ["A [Q1, p: v]. B [Q1, p: v]."], {"citations": 2, "citations_per_answer_max": 2}),
    ("entity-only marks", ["A [Q1]. B [Q2][Q3, p: v]."], {"entity_only": 2, "citations": 1,
                                                          "answers_without_any_mark": 0}),
    ("mean over answers", ["A [Q1, p: v].", "B.", "C [Q1, p: v][Q1, q: w]."],
     {"citations_per_answer": 1.0, "answers_without_citation": 1, "citations_per_answer_max": 2}),
]


@pytest.mark.parametrize("texts,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_descriptives_truth_table(texts, expected):
    result = answer_descriptives([parse_answer(text) for text in texts])
    for name, value in expected.items():
        assert result.get(name) == (pytest.approx(value) if isinstance(value, float) else value), name


def test_parse_issues_counted_by_kind():
    result = answer_descriptives([parse_answer("A [] [sic] ] [Q1, p"), parse_answer("B [place: Rome].")])
    assert result["parse_issues"] == {
        "unterminated_bracket": 1, "unbalanced_close": 1, "empty_bracket": 1, "unrecognised_bracket": 1,
        "incomplete_citation": 0, "missing_subject": 1,
    }
