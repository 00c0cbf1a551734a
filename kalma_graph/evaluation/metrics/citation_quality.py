"""Citation quality: correctness, precision, recall and F1, micro and macro.

Card
----
Measures
    Whether cited triples exist in the question's retrieved graph (*correctness*), whether they are
    also in the question's minimum knowledge set (*precision*), and how much of that set the correct
    citations cover (*recall*).
Reference
    Li et al., "Towards Verifiable Generation: A Benchmark for Knowledge-aware Language Model
    Attribution" (KaLMA), §4.2 and Figure 2.
Inputs
    One `CitationCase` per answer: the cited triples (`Citation`s, store `Triple`s or
    `(subject, property label, value)` tuples), the retrieved triples, and optionally the gold
    minimum knowledge set. `matching` picks the key function (`strict`, the paper's, or
    `normalized`; see `kalma_graph.evaluation.matching`).
Definitions
    - correct citation: complete (subject, property, value all non-empty) and equal to a retrieved
      triple. ``correctness`` = correct / all citations (micro).
    - precise citation: correct and in the gold set. ``precision_micro`` = precise / all citations
      of answers with gold, every duplicate counted; ``precision_macro`` = mean of per-answer
      precision over answers with at least one citation.
    - hit gold triple: equal to at least one correct citation. ``recall_micro`` = hit / all gold
      triples; ``recall_macro`` = mean of per-answer recall over answers with a non-empty gold set.
    - ``f1_micro`` from the micro scores, ``f1_macro`` from the macro scores.
Output
    A dict with the scores (each in [0, 1], or None when its denominator is empty), the counts
    behind them, ``per_answer`` details, and ``choices`` (matching mode, duplicate policy, gold
    status). Without any gold set only correctness is computed and ``choices["gold"]`` is
    ``"absent"``.

Example (Figure 2): S1 [k1][k2], S2 [k2][k6][NA], S3 [k6][k9]; minimum set {k1..k5}; k9 is not in
the retrieved graph.

>>> k = lambda i: ("Q1", "p", f"k{i}")
>>> case = CitationCase(citations=[k(1), k(2), k(2), k(6), k(6), k(9)],
...                     retrieved=[k(i) for i in range(1, 9)], gold=[k(i) for i in range(1, 6)])
>>> result = citation_quality([case])
>>> result["precision_micro"], result["recall_micro"], round(result["correctness"], 4)
(0.5, 0.4, 0.8333)
>>> round(result["f1_micro"], 4), result["choices"]
(0.4444, {'matching': 'strict', 'duplicates': 'counted', 'gold': 'given'})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Sequence

from kalma_graph.evaluation.matching import MatchMode, TripleKey, TripleLike, key_function
from kalma_graph.evaluation.metrics.ratios import f1, mean, ratio

METRIC = "citation_quality"


@dataclass(frozen=True)
class CitationCase:
    """What the metric needs to know about one answer."""

    citations: Sequence[TripleLike]  # in answer order, duplicates kept
    retrieved: Collection[TripleLike]  # the graph shown to the model for this question
    gold: Collection[TripleLike] | None = None  # the minimum knowledge set, when known


def judge_answer(case: CitationCase, matching: MatchMode = "strict") -> dict:
    """Per-citation and per-gold-triple verdicts for one answer (the rows of the aggregate)."""
    key = key_function(matching)
    retrieved = {key(t) for t in case.retrieved}
    cited: list[TripleKey] = [key(c) for c in case.citations]
    correct = [all(k) and k in retrieved for k in cited]
    row: dict = {"citations": len(cited), "correct": sum(correct), "correct_flags": correct}
    if case.gold is None:
        return row | {"gold_triples": None, "precise": None, "gold_hit": None,
                      "precision": None, "recall": None}
    gold = dict.fromkeys(key(t) for t in case.gold)  # a set that keeps the given order
    precise = [ok and k in gold for k, ok in zip(cited, correct)]
    hit_keys = {k for k, ok in zip(cited, correct) if ok}
    hits = [g in hit_keys for g in gold]
    return row | {
        "gold_triples": len(gold),
        "precise": sum(precise),
        "gold_hit": sum(hits),
        "precise_flags": precise,
        "gold_hit_flags": hits,
        "precision": ratio(sum(precise), len(cited)),
        "recall": ratio(sum(hits), len(gold)),
    }


def citation_quality(cases: Sequence[CitationCase], *, matching: MatchMode = "strict") -> dict:
    """Correctness, precision, recall and F1 over `cases` (see the module card)."""
    rows = [judge_answer(case, matching) for case in cases]
    scored = [row for row in rows if row["gold_triples"] is not None]
    gold_status = "absent" if not scored else "given" if len(scored) == len(rows) else "partial"
    citations = sum(row["citations"] for row in rows)
    correct = sum(row["correct"] for row in rows)
    result: dict = {
        "metric": METRIC,
        "choices": {"matching": matching, "duplicates": "counted", "gold": gold_status},
        "answers": len(rows),
        "answers_with_citations": sum(1 for row in rows if row["citations"]),
        "answers_with_gold": len(scored),
        "citations": citations,
        "correct": correct,
        "correctness": ratio(correct, citations),
    }
    if not scored:
        result["note"] = "no minimum knowledge set given: correctness only"
        for name in ("precision", "recall", "f1"):
            result[f"{name}_micro"] = result[f"{name}_macro"] = None
        return result | {"per_answer": rows}
    scored_citations = sum(row["citations"] for row in scored)
    precise = sum(row["precise"] for row in scored)
    gold_triples = sum(row["gold_triples"] for row in scored)
    gold_hit = sum(row["gold_hit"] for row in scored)
    precision_micro = ratio(precise, scored_citations)
    recall_micro = ratio(gold_hit, gold_triples)
    precision_macro = mean(row["precision"] for row in scored if row["citations"])
    recall_macro = mean(row["recall"] for row in scored if row["gold_triples"])
    return result | {
        "citations_with_gold": scored_citations,
        "precise": precise,
        "gold_triples": gold_triples,
        "gold_hit": gold_hit,
        "precision_micro": precision_micro,
        "recall_micro": recall_micro,
        "f1_micro": f1(precision_micro, recall_micro),
        "precision_macro": precision_macro,
        "recall_macro": recall_macro,
        "f1_macro": f1(precision_macro, recall_macro),
        "per_answer": rows,
    }
