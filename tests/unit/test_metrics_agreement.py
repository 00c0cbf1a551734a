"""Agreement metrics (observed agreement, Cohen's kappa, P/R/F1 for one class): a truth table of
hand-computed cases, the undefined cases, and a cross-check against scikit-learn where it is defined."""

from __future__ import annotations

import doctest

import pytest

import kalma_graph.evaluation.metrics.agreement as agreement_module
from kalma_graph.evaluation.metrics.agreement import cohen_kappa, label_agreement

A, N = "aligned", "not_aligned"

# (id, reference (human), predicted (automatic), expected subset). Hand computation in the comments:
# p_o = share equal; p_e = Σ_c p_ref(c)·p_pred(c); κ = (p_o − p_e) / (1 − p_e).
CASES = [
    ("perfect agreement, both classes", [A, A, N, N], [A, A, N, N],
     # p_o = 1, p_e = .5·.5 + .5·.5 = .5 → κ = 1
     {"n": 4, "agreement": 1.0, "expected_agreement": 0.5, "cohen_kappa": 1.0, "precision": 1.0, "recall": 1.0,
      "f1": 1.0, "tp": 2, "fp": 0, "fn": 0, "tn": 2}),
    ("complete disagreement", [A, A, N, N], [N, N, A, A],
     # p_o = 0, p_e = .5 → κ = −1
     {"agreement": 0.0, "cohen_kappa": -1.0, "precision": 0.0, "recall": 0.0, "f1": 0.0}),
    ("chance level", [A, A, N, N], [A, N, A, N],
     # p_o = .5, p_e = .5 → κ = 0
     {"agreement": 0.5, "expected_agreement": 0.5, "cohen_kappa": 0.0, "precision": 0.5, "recall": 0.5}),
    ("hand-computed, skewed", [A, A, A, A, A, A, A, N, N, N], [A, A, A, A, A, A, N, A, N, N],
     # tp 6, fn 1, fp 1, tn 2; p_o = .8; p_e = .7·.7 + .3·.3 = .58; κ = .22/.42 = 11/21
     {"n": 10, "tp": 6, "fn": 1, "fp": 1, "tn": 2, "agreement": 0.8, "expected_agreement": 0.58,
      "cohen_kappa": 11 / 21, "precision": 6 / 7, "recall": 6 / 7, "f1": 6 / 7,
      "reference_positive_share": 0.7, "predicted_positive_share": 0.7}),
    ("all one class, both agree: p_e = 1, kappa undefined", [A, A, A], [A, A, A],
     {"agreement": 1.0, "expected_agreement": 1.0, "cohen_kappa": None, "precision": 1.0, "recall": 1.0}),
    ("all not aligned, both agree: undefined kappa, no positives", [N, N], [N, N],
     {"agreement": 1.0, "cohen_kappa": None, "precision": None, "recall": None, "f1": None, "tn": 2}),
    ("one side one class, the other mixed: p_e < 1, kappa 0", [A, A, A, A], [A, A, A, N],
     # p_o = .75; p_e = 1·.75 = .75 → κ = 0
     {"agreement": 0.75, "expected_agreement": 0.75, "cohen_kappa": 0.0, "precision": 1.0, "recall": 0.75}),
    ("each side one class, different classes", [A, A], [N, N],
     # p_o = 0, p_e = 0 → κ = 0; no positive prediction → precision undefined
     {"agreement": 0.0, "expected_agreement": 0.0, "cohen_kappa": 0.0, "precision": None, "recall": 0.0,
      "f1": None}),
    ("no items", [], [],
     {"n": 0, "agreement": None, "expected_agreement": None, "cohen_kappa": None, "precision": None,
      "recall": None, "f1": None, "reference_positive_share": None}),
]


@pytest.mark.parametrize("reference,predicted,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_agreement_truth_table(reference, predicted, expected):
    result = label_agreement(reference, predicted, positive=A)
    for name, value in expected.items():
        assert result[name] == (pytest.approx(value) if isinstance(value, float) else value), name
    assert cohen_kappa(reference, predicted) == result["cohen_kappa"]


def test_kappa_is_symmetric_and_label_agnostic():
    ref, pred = [1, 1, 1, 0, 0, 1, 0, 1], [1, 0, 1, 0, 1, 1, 0, 1]
    assert cohen_kappa(ref, pred) == pytest.approx(cohen_kappa(pred, ref))
    words = {1: A, 0: N}
    assert cohen_kappa(ref, pred) == pytest.approx(cohen_kappa([words[x] for x in ref], [words[x] for x in pred]))


@pytest.mark.parametrize("case", [c for c in CASES if c[3].get("cohen_kappa") is not None], ids=lambda c: c[0])
def test_kappa_matches_scikit_learn_where_defined(case):
    metrics = pytest.importorskip("sklearn.metrics")
    _, reference, predicted, _ = case
    assert cohen_kappa(reference, predicted) == pytest.approx(metrics.cohen_kappa_score(reference, predicted))


def test_choices_and_errors():
    result = label_agreement([A], [A])
    assert result["metric"] == "label_agreement"
    assert result["choices"]["positive"] == A
    with pytest.raises(ValueError):
        label_agreement([A, N], [A])


def test_metric_card_examples():
    result = doctest.testmod(agreement_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
