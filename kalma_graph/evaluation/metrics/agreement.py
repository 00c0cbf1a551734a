"""Agreement between two labelings of the same items: observed agreement, Cohen's kappa, and
precision / recall / F1 of one labeling against the other for a positive class.

Card
----
Measures
    How well an automatic label (e.g. the NLI alignment verdict) matches a reference label (a human
    annotator's) on the same items, and how much of that agreement is beyond chance.
Reference
    Li et al. (KaLMA), §5.4 and Appendix C.2 (human check of text–citation alignment, Table 6; the
    paper reports the two rates side by side and inter-annotator agreement as a percentage);
    Cohen (1960), "A coefficient of agreement for nominal scales".
Inputs
    ``reference`` and ``predicted``: equal-length sequences of labels (any hashable values, e.g.
    ``"aligned"`` / ``"not_aligned"``), item i of one paired with item i of the other; ``positive``:
    the class precision / recall / F1 are computed for.
Output
    ``agreement`` = p_o, the share of items with the same label; ``expected_agreement`` = p_e =
    Σ_c p_ref(c) · p_pred(c), the agreement two independent labelers with these class shares would
    reach; ``cohen_kappa`` = (p_o − p_e) / (1 − p_e). ``precision`` = TP / (TP + FP), ``recall`` =
    TP / (TP + FN), ``f1`` their harmonic mean, with ``predicted`` as the prediction and
    ``reference`` as the truth. Counts (``n``, ``tp``, ``fp``, ``fn``, ``tn``), each side's positive
    share and ``choices``.
Undefined values
    No items: every ratio is None. Kappa is None when p_e = 1, i.e. both labelings put every item in
    one and the same class: (p_o − p_e) / (1 − p_e) is 0/0 there (p_o is then 1). We report None
    ("undefined") with the agreement of 1.0 beside it, rather than 1.0 or 0.0 (scikit-learn gives NaN).
    Precision is None without positive predictions, recall None without positive references, F1
    None when either is None (0.0 when both are 0), as everywhere in these metrics (`ratios`).

>>> human = ["aligned", "aligned", "not_aligned", "not_aligned"]
>>> auto = ["aligned", "not_aligned", "not_aligned", "not_aligned"]
>>> result = label_agreement(human, auto, positive="aligned")
>>> result["agreement"], result["expected_agreement"], result["cohen_kappa"]
(0.75, 0.5, 0.5)
>>> result["precision"], result["recall"], round(result["f1"], 4)
(1.0, 0.5, 0.6667)
>>> cohen_kappa(["a", "a"], ["a", "a"]) is None  # p_e = 1: undefined
True
"""

from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence

from kalma_graph.evaluation.metrics.ratios import f1, ratio

METRIC = "label_agreement"


def cohen_kappa(reference: Sequence[Hashable], predicted: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two labelings of the same items; None when undefined (no items, or p_e = 1).

    >>> cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]), cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1])
    (1.0, -1.0)
    """
    observed, expected = _agreements(reference, predicted)
    if observed is None or expected is None or expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def label_agreement(reference: Sequence[Hashable], predicted: Sequence[Hashable], *,
                    positive: Hashable = "aligned") -> dict:
    """Observed agreement, Cohen's kappa and precision / recall / F1 of `predicted` against `reference`."""
    if len(reference) != len(predicted):
        raise ValueError(f"label_agreement: {len(reference)} reference labels but {len(predicted)} predicted")
    observed, expected = _agreements(reference, predicted)
    pairs = list(zip(reference, predicted))
    tp = sum(1 for r, p in pairs if r == positive and p == positive)
    fp = sum(1 for r, p in pairs if r != positive and p == positive)
    fn = sum(1 for r, p in pairs if r == positive and p != positive)
    tn = len(pairs) - tp - fp - fn
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    return {
        "metric": METRIC,
        "choices": {"positive": positive, "kappa_when_expected_agreement_is_1": "undefined (None)"},
        "n": len(pairs),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
        "agreement": observed,
        "expected_agreement": expected,
        "cohen_kappa": cohen_kappa(reference, predicted),
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall),
        "reference_positive_share": ratio(tp + fn, len(pairs)),
        "predicted_positive_share": ratio(tp + fp, len(pairs)),
    }


def _agreements(reference: Sequence[Hashable], predicted: Sequence[Hashable]) -> tuple[float | None, float | None]:
    """(p_o, p_e), both None without items."""
    if len(reference) != len(predicted):
        raise ValueError(f"{len(reference)} reference labels but {len(predicted)} predicted")
    n = len(reference)
    if not n:
        return None, None
    observed = sum(1 for r, p in zip(reference, predicted) if r == p) / n
    ref_counts, pred_counts = Counter(reference), Counter(predicted)
    expected = sum(ref_counts[c] * pred_counts[c] for c in ref_counts) / (n * n)
    return observed, expected
