"""Text–citation alignment: does each sentence entail the citations attached to it?

Card
----
Measures
    The share of (sentence, citation) pairs where the sentence, without its citation marks,
    entails the cited triple. A correct and useful triple attached to the wrong sentence scores 0.
Reference
    Li et al. (KaLMA), §4.3 and Appendix B.3 (premise = sentence, hypothesis = `employer:
    University of Jena`; TRUE, a T5-11B NLI model, in the paper).
Inputs
    Per answer, a list of `(sentence clean text, citation)` pairs (`alignment_pairs` builds them
    from a `ParsedAnswer`); an `entail(premises, hypotheses)` callable returning one bool or
    entailment probability per pair (the NLI model is injected, never loaded here);
    `hypothesis_format` (`prop_value`, the paper's, or `verbalised`, which needs
    `subject_names`); `threshold` for probabilities; `first_n_answers` to restrict the evaluation
    to the first answers (the original code used 400; default: all).
Output
    ``alignment_micro`` = entailed pairs / all pairs; ``alignment_macro`` = mean of the per-answer
    share over answers with at least one pair. Both in [0, 1], None when there are no pairs. Counts,
    ``per_answer`` rows (one per evaluated answer, with each pair's entailment ``probabilities`` in
    the order of its pairs; 1.0 / 0.0 for a bool verdict), ``subjects_without_name`` (verbalised
    only) and ``choices``.

>>> pairs = [[("She was born in Rome.", ("Q1", "place of birth", "Rome")),
...           ("She was born in Rome.", ("Q1", "occupation", "painter"))], []]
>>> judge = lambda premises, hypotheses: [h.endswith("Rome") for h in hypotheses]
>>> result = alignment(pairs, judge)
>>> result["alignment_micro"], result["alignment_macro"], result["answers_with_pairs"]
(0.5, 0.5, 1)
>>> result["per_answer"][0]["probabilities"]
[1.0, 0.0]
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from kalma_graph.evaluation.matching import TripleLike
from kalma_graph.evaluation.metrics.entailment import (
    EntailFn,
    HypothesisFormat,
    pair_scores,
    unnamed_subjects,
)
from kalma_graph.evaluation.metrics.ratios import mean, ratio
from kalma_graph.kg.citations import Citation, ParsedAnswer

METRIC = "alignment"
AlignmentPairs = Sequence[tuple[str, TripleLike]]


def alignment_pairs(parsed: ParsedAnswer) -> list[tuple[str, Citation]]:
    """Every (sentence clean text, citation) pair of a parsed answer, duplicates kept."""
    return [(sentence.clean_text, citation) for sentence in parsed.sentences for citation in sentence.citations]


def answers_evaluated(first_n_answers: int | None) -> str:
    """The `answers_evaluated` choice: `all`, or `first N`."""
    return "all" if first_n_answers is None else f"first {first_n_answers}"


def alignment(
    answers: Sequence[AlignmentPairs],
    entail: EntailFn,
    *,
    hypothesis_format: HypothesisFormat = "prop_value",
    subject_names: Mapping[str, str] | None = None,
    threshold: float = 0.5,
    first_n_answers: int | None = None,
) -> dict:
    """Entailed share of sentence–citation pairs, micro over pairs and macro over answers."""
    evaluated = list(answers if first_n_answers is None else answers[:first_n_answers])
    scores = pair_scores(entail, [pair for pairs in evaluated for pair in pairs], hypothesis_format, subject_names,
                         threshold)
    rows: list[dict[str, Any]] = []  # one JSON row per answer
    for pairs in evaluated:
        probabilities = [next(scores) for _ in pairs]
        hits = sum(p >= threshold for p in probabilities)
        rows.append({"pairs": len(pairs), "entailed": hits, "alignment": ratio(hits, len(pairs)),
                     "probabilities": probabilities})
    pairs_total = sum(row["pairs"] for row in rows)
    entailed_total = sum(row["entailed"] for row in rows)
    return {
        "metric": METRIC,
        "choices": {
            "hypothesis_format": hypothesis_format,
            "threshold": threshold,
            "answers_evaluated": answers_evaluated(first_n_answers),
        },
        "answers": len(answers),
        "answers_evaluated": len(rows),
        "answers_with_pairs": sum(1 for row in rows if row["pairs"]),
        "pairs": pairs_total,
        "entailed": entailed_total,
        "alignment_micro": ratio(entailed_total, pairs_total),
        "alignment_macro": mean(row["alignment"] for row in rows),
        "subjects_without_name": unnamed_subjects(
            [t for pairs in evaluated for _, t in pairs], hypothesis_format, subject_names
        ),
        "per_answer": rows,
    }
