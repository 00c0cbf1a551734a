"""Ratios that stay honest about empty denominators: 0/0 is None ("undefined"), never 0 or NaN."""

from __future__ import annotations

from typing import Iterable


def ratio(numerator: float, denominator: float) -> float | None:
    """`numerator / denominator`, or None when the denominator is 0.

    >>> ratio(3, 6), ratio(0, 0)
    (0.5, None)
    """
    return numerator / denominator if denominator else None


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the defined values; None when there are none.

    >>> mean([0.5, None, 1.0]), mean([])
    (0.75, None)
    """
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def f1(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean of precision and recall; 0 when both are 0, None when either is undefined.

    >>> round(f1(0.5, 0.4), 4), f1(0.0, 0.0), f1(None, 0.5)
    (0.4444, 0.0, None)
    """
    if precision is None or recall is None:
        return None
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


def f1_counts(tp: int, fp: int, fn: int) -> float | None:
    """F1 of one class of a classifier from its counts: 2·TP / (2·TP + FP + FN), a `ratio`, so None
    only for 0/0 (the class is neither a gold label nor predicted).

    It equals `f1(precision, recall)` whenever both are defined. Where only one is 0/0 (the class
    is never predicted, or predicted but never gold) it is 0.0, not None: the class was missed or
    wrongly predicted, which per-class and micro / macro F1 of a classifier must count (the value
    scikit-learn gives too).

    >>> f1_counts(2, 1, 1), f1_counts(0, 0, 3), f1_counts(0, 2, 0), f1_counts(0, 0, 0)
    (0.6666666666666666, 0.0, 0.0, None)
    """
    return ratio(2 * tp, 2 * tp + fp + fn)
