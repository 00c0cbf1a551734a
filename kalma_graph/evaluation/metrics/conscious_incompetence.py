"""[NA] precision, recall and F1: does the model mark exactly the claims the graph cannot support?

Card
----
Measures
    *Conscious incompetence*: a sentence marked `[NA]` should state knowledge that is absent from
    the graph shown to the model. Precision: share of `[NA]` sentences that entail at least one
    absent triple. Recall: share of absent triples entailed by at least one `[NA]` sentence.
Reference
    Li et al. (KaLMA), §4.4 and Figure 3.
Inputs
    One `NACase` per answer: the clean texts of its `[NA]` sentences and the absent set.
    `absent_set` names where the absent set comes from:
      - ``"removed"`` (default, the paper): the knowledge removed from the graph shown to the model
        (`NACase.absent`, required);
      - ``"gold_not_cited"`` (the original research code): the gold triples that no citation of the
        answer matches (`NACase.gold` and `NACase.citations`), compared with `matching`.
    `entail(premises, hypotheses)` is injected (premise = [NA] sentence, hypothesis = absent
    triple in `hypothesis_format`), with `threshold` for probabilities.
Output
    ``precision`` (micro over [NA] sentences), ``recall`` (micro over absent triples), ``f1``,
    and the same three macro-averaged over answers (precision over answers with an [NA] sentence,
    recall over answers with an absent triple); each in [0, 1] or None when undefined. Counts,
    ``per_answer`` rows (with, per [NA] sentence, ``sentence_correct`` and the ``probabilities``
    of entailing each absent triple) and ``choices``. The paper's §4.5 edge case (an [NA] sentence that does not
    answer the question counts as correct) needs a human judgement and is not applied.

Example (Figure 3): S1 [k1][NA], S2 [k3][k6][NA], S3 [k6][k9]; absent {k2, k4, k5}; only S1 entails k2.

>>> k = lambda i: ("Q1", "p", f"k{i}")
>>> table = {("S1", "p: k2")}
>>> judge = lambda premises, hypotheses: [(p, h) in table for p, h in zip(premises, hypotheses)]
>>> result = na_quality([NACase(na_sentences=["S1", "S2"], absent=[k(2), k(4), k(5)])], judge)
>>> result["precision"], round(result["recall"], 4), result["na_sentences"], result["absent_triples"]
(0.5, 0.3333, 2, 3)
>>> result["per_answer"][0]["sentence_correct"]
[True, False]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Literal, Mapping, Sequence

from kalma_graph.evaluation.matching import MatchMode, TripleKey, TripleLike, key_function
from kalma_graph.evaluation.metrics.entailment import (
    EntailFn,
    HypothesisFormat,
    pair_scores,
    unnamed_subjects,
)
from kalma_graph.evaluation.metrics.ratios import f1, mean, ratio
from kalma_graph.kg.citations import ParsedAnswer

METRIC = "na_quality"
AbsentSet = Literal["removed", "gold_not_cited"]
ABSENT_SETS: tuple[AbsentSet, ...] = ("removed", "gold_not_cited")


@dataclass(frozen=True)
class NACase:
    """What the [NA] metric needs to know about one answer."""

    na_sentences: Sequence[str]  # clean text of each sentence that carries [NA]
    absent: Collection[TripleLike] | None = None  # knowledge removed from the graph shown
    citations: Sequence[TripleLike] = ()  # all citations of the answer (gold_not_cited only)
    gold: Collection[TripleLike] | None = None  # minimum knowledge set (gold_not_cited only)

    @classmethod
    def from_parsed(
        cls, parsed: ParsedAnswer, absent: Collection[TripleLike] | None = None,
        gold: Collection[TripleLike] | None = None,
    ) -> "NACase":
        return cls([s.clean_text for s in parsed.na_sentences], absent, parsed.citations, gold)


def absent_triples(case: NACase, absent_set: AbsentSet = "removed", matching: MatchMode = "strict") -> list[TripleLike]:
    """The absent set of one answer, without duplicates (under `matching`), in the given order."""
    key = key_function(matching)
    if absent_set == "removed":
        if case.absent is None:
            raise ValueError("absent_set='removed' needs NACase.absent (the removed knowledge)")
        candidates = list(case.absent)
        excluded: set = set()
    elif absent_set == "gold_not_cited":
        if case.gold is None:
            raise ValueError("absent_set='gold_not_cited' needs NACase.gold")
        candidates = list(case.gold)
        excluded = {key(c) for c in case.citations}
    else:
        raise ValueError(f"unknown absent set {absent_set!r}; expected one of {ABSENT_SETS}")
    unique: dict[TripleKey, TripleLike] = {}
    for triple in candidates:
        unique.setdefault(key(triple), triple)
    return [t for k, t in unique.items() if k not in excluded]


def na_quality(
    cases: Sequence[NACase],
    entail: EntailFn,
    *,
    absent_set: AbsentSet = "removed",
    matching: MatchMode = "strict",
    hypothesis_format: HypothesisFormat = "prop_value",
    subject_names: Mapping[str, str] | None = None,
    threshold: float = 0.5,
) -> dict:
    """[NA] precision / recall / F1, micro and macro (see the module card)."""
    absents = [absent_triples(case, absent_set, matching) for case in cases]
    pairs = [(sentence, triple) for case, absent in zip(cases, absents) for sentence in case.na_sentences
             for triple in absent]
    scores = pair_scores(entail, pairs, hypothesis_format, subject_names, threshold)
    rows: list[dict[str, Any]] = []  # one JSON row per answer
    for case, absent in zip(cases, absents):
        probabilities = [[next(scores) for _ in absent] for _ in case.na_sentences]  # sentence x triple
        grid = [[p >= threshold for p in row] for row in probabilities]
        sentence_correct = [any(row) for row in grid]
        hit_triples = sum(any(row[j] for row in grid) for j in range(len(absent)))
        rows.append({
            "na_sentences": len(grid), "na_correct": sum(sentence_correct),
            "absent_triples": len(absent), "absent_hit": hit_triples,
            "precision": ratio(sum(sentence_correct), len(grid)), "recall": ratio(hit_triples, len(absent)),
            "sentence_correct": sentence_correct, "probabilities": probabilities,
        })
    precision = ratio(sum(r["na_correct"] for r in rows), sum(r["na_sentences"] for r in rows))
    recall = ratio(sum(r["absent_hit"] for r in rows), sum(r["absent_triples"] for r in rows))
    precision_macro = mean(r["precision"] for r in rows)
    recall_macro = mean(r["recall"] for r in rows)
    return {
        "metric": METRIC,
        "choices": {
            "absent_set": absent_set,
            "matching": matching,
            "hypothesis_format": hypothesis_format,
            "threshold": threshold,
        },
        "answers": len(rows),
        "na_sentences": sum(r["na_sentences"] for r in rows),
        "na_correct": sum(r["na_correct"] for r in rows),
        "absent_triples": sum(r["absent_triples"] for r in rows),
        "absent_hit": sum(r["absent_hit"] for r in rows),
        "precision": precision,
        "recall": recall,
        "f1": f1(precision, recall),
        "precision_macro": precision_macro,
        "recall_macro": recall_macro,
        "f1_macro": f1(precision_macro, recall_macro),
        "subjects_without_name": unnamed_subjects(
            [t for absent in absents for t in absent], hypothesis_format, subject_names
        ),
        "per_answer": rows,
    }
