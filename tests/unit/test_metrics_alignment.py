"""Text–citation alignment (KaLMA §4.3): a truth table with an injected lookup-table judge."""

from __future__ import annotations

import math

import pytest

from kalma_graph.evaluation.metrics.alignment import alignment, alignment_pairs
from kalma_graph.kg.citations import parse_answer

ROME = ("Q1", "place of birth", "Rome")
PAINTER = ("Q1", "occupation", "painter")
BORN = "She was born in Rome."
PAINTED = "She was a painter."

# Which (premise, hypothesis) pairs the test's judge entails: the fixture for the counting logic.
ENTAILS = {
    (BORN, "place of birth: Rome"),
    (PAINTED, "occupation: painter"),
    (BORN, "Artemisia's place of birth is Rome"),
    (BORN, "Q1's place of birth is Rome"),
}
PROBABILITIES = {(BORN, "place of birth: Rome"): 0.7, (BORN, "occupation: painter"): 0.3}


def lookup(premises, hypotheses):
    return [(p, h) in ENTAILS for p, h in zip(premises, hypotheses)]


def probabilities(premises, hypotheses):
    return [PROBABILITIES.get((p, h), 0.0) for p, h in zip(premises, hypotheses)]


# (id, answers, judge, options, expected subset)
CASES = [
    ("one of two pairs", [[(BORN, ROME), (BORN, PAINTER)]], lookup, {},
     {"pairs": 2, "entailed": 1, "alignment_micro": 0.5, "alignment_macro": 0.5}),
    ("no pairs", [[]], lookup, {}, {"pairs": 0, "alignment_micro": None, "alignment_macro": None,
                                    "answers_with_pairs": 0}),
    ("no answers", [], lookup, {}, {"answers": 0, "alignment_micro": None}),
    ("micro and macro differ", [[(BORN, ROME), (PAINTED, PAINTER)], [(BORN, PAINTER)]], lookup, {},
     {"alignment_micro": 2 / 3, "alignment_macro": 0.5}),
    ("duplicates counted", [[(BORN, ROME), (BORN, ROME), (BORN, PAINTER)]], lookup, {},
     {"pairs": 3, "entailed": 2}),
    ("probabilities at 0.5", [[(BORN, ROME), (BORN, PAINTER)]], probabilities, {}, {"entailed": 1}),
    ("probabilities at 0.8", [[(BORN, ROME), (BORN, PAINTER)]], probabilities, {"threshold": 0.8}, {"entailed": 0}),
    ("verbalised with names", [[(BORN, ROME)]], lookup,
     {"hypothesis_format": "verbalised", "subject_names": {"Q1": "Artemisia"}},
     {"alignment_micro": 1.0, "subjects_without_name": []}),
    ("verbalised without a name falls back to the id", [[(BORN, ROME)]], lookup, {"hypothesis_format": "verbalised"},
     {"alignment_micro": 1.0, "subjects_without_name": ["Q1"]}),
    ("first n answers (the original code's 400)", [[(BORN, ROME)], [(BORN, PAINTER)]], lookup, {"first_n_answers": 1},
     {"answers": 2, "answers_evaluated": 1, "alignment_micro": 1.0}),
    ("all [NA] answer has no pairs", [alignment_pairs(parse_answer("Unknown [NA]. Unknown [NA]."))], lookup, {},
     {"pairs": 0, "alignment_micro": None}),
    ("pairs from a parsed answer", [alignment_pairs(parse_answer(
        "She was born in Rome [Q1, place of birth: Rome, occupation: painter]."))], lookup, {},
     {"pairs": 2, "entailed": 1}),
]


@pytest.mark.parametrize("answers,judge,options,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_alignment_truth_table(answers, judge, options, expected):
    result = alignment(answers, judge, **options)
    for name, value in expected.items():
        assert result.get(name) == (pytest.approx(value) if isinstance(value, float) else value), name


def test_choices_are_named():
    result = alignment([[(BORN, ROME)]], lookup, first_n_answers=400)
    assert result["choices"] == {"hypothesis_format": "prop_value", "threshold": 0.5, "answers_evaluated": "first 400"}


def test_judge_is_called_once_and_not_without_pairs():
    calls = []

    def judge(premises, hypotheses):
        calls.append(len(premises))
        return [True] * len(premises)

    alignment([[(BORN, ROME)], [(BORN, PAINTER), (PAINTED, PAINTER)]], judge)
    alignment([[]], judge)
    assert calls == [3]


@pytest.mark.parametrize("bad_judge,error", [
    (lambda p, h: [True], ValueError),  # too few verdicts
    (lambda p, h: [math.nan] * len(p), ValueError),
    (lambda p, h: [1.5] * len(p), ValueError),
    (lambda p, h: ["entailment"] * len(p), TypeError),
])
def test_broken_judge_fails_loudly(bad_judge, error):
    with pytest.raises(error):
        alignment([[(BORN, ROME), (BORN, PAINTER)]], bad_judge)


def test_unknown_hypothesis_format_fails_loudly():
    with pytest.raises(ValueError, match="hypothesis format"):
        alignment([[(BORN, ROME)]], lookup, hypothesis_format="sentence")
