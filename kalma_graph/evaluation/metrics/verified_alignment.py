"""Text–citation alignment judged by the graph-grounded verifier, and the claims it found.

Card
----
Measures
    ``alignment_micro``: the share of cited triples the verifier judges *supported* by their sentence
    (subject, relation, value and direction all stated; rules in alignment-labels.md); ``alignment_macro``
    the mean per-answer share over answers with a citation. Beside it: citations judged partial or
    unsupported, sentences fully supported by their own citations, and claims by status (supported by a
    citation, held by the graph but uncited, absent from the graph, contradicted by it).
Reference
    KaLMA §4.3 defines alignment with an NLI model; this is the same quantity judged by kalma-graph's
    verifier (issue 31). On 256 held-out labelled citations the verifier reaches ROC-AUC 0.95 against
    0.86 for MiniLM NLI (bench/verifier_eval.py).
Inputs
    One `AnswerCheck` per answer (`kalma_graph.verification.Verifier.verify`), in answer order;
    ``first_n_answers`` restricts to the first answers, as `alignment` does.
Output
    Counts, shares in [0, 1] (None without citations), ``per_answer`` rows with each citation's
    ``probabilities`` (the verifier's scores, supported ⇔ ≥ 0.5) and ``choices``.

>>> from kalma_graph.verification.records import AnswerCheck, CitationCheck, SentenceCheck
>>> c = lambda v, s: CitationCheck(subject="Q1", relation="r", value="v", verdict=v, score=s, reason="", in_graph=True)
>>> checks = [AnswerCheck(id="a", sentences=[SentenceCheck(position=0, text="x", citations=[c("supported", 0.9),
...           c("unsupported", 0.1)], claims=[], fully_supported=False)]), AnswerCheck(id="b", sentences=[])]
>>> r = verified_alignment(checks)
>>> r["alignment_micro"], r["alignment_macro"], r["unsupported"], r["per_answer"][0]["probabilities"]
(0.5, 0.5, 1, [0.9, 0.1])
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.evaluation.metrics.alignment import answers_evaluated
from kalma_graph.evaluation.metrics.ratios import mean, ratio

METRIC = "alignment"
METHOD = "verifier"


def verified_alignment(checks: Sequence[Any], *, first_n_answers: int | None = None,
                       describe: dict | None = None) -> dict:
    evaluated = list(checks if first_n_answers is None else checks[:first_n_answers])
    rows: list[dict[str, Any]] = []  # one JSON row per answer
    totals = {"supported": 0, "partial": 0, "unsupported": 0}
    claims = {"supported": 0, "supported_uncited": 0, "absent": 0, "contradicted": 0}
    sentences = fully = 0
    for check in evaluated:
        cites = check.citations
        supported = sum(1 for c in cites if c.verdict == "supported")
        for c in cites:
            totals[c.verdict] += 1
        for s in check.sentences:
            if s.citations:
                sentences += 1
                fully += s.fully_supported
            for claim in s.claims:
                claims[claim.status] += 1
        rows.append({"pairs": len(cites), "entailed": supported, "alignment": ratio(supported, len(cites)),
                     "probabilities": [c.score for c in cites]})
    pairs = sum(r["pairs"] for r in rows)
    return {
        "metric": METRIC,
        "choices": {"method": METHOD, "threshold": 0.5, "answers_evaluated": answers_evaluated(first_n_answers),
                    "verifier": describe or {}},
        "answers": len(checks),
        "answers_evaluated": len(rows),
        "answers_with_pairs": sum(1 for r in rows if r["pairs"]),
        "pairs": pairs,
        "entailed": totals["supported"],
        **totals,
        "alignment_micro": ratio(totals["supported"], pairs),
        "alignment_macro": mean(r["alignment"] for r in rows),
        "cited_sentences": sentences,
        "fully_supported_sentences": fully,
        "fully_supported_share": ratio(fully, sentences),
        "claims": claims,
        "per_answer": rows,
    }
