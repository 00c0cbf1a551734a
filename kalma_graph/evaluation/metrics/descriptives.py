"""Answer descriptives: how answers cite, before any judgement of the citations.

Card
----
Measures
    Answers without any citation, citations and [NA] marks per answer, entity-only marks, the
    share of citations that parsed only in a sloppy form, and parse problems by kind. These make
    a model's format adherence visible next to the quality scores (a model that never cites has
    undefined precision, not a bad one).
Reference
    The citation format of Li et al. (KaLMA), §3.3 and Table 13; the counts are ours.
Inputs
    The `ParsedAnswer`s of a run (`kalma_graph.kg.citations.parse_answer`).
Output
    Counts, per-answer means (None for no answers), ``sloppy_share`` in [0, 1] (None without
    citations) and ``parse_issues`` keyed by every issue kind.

>>> from kalma_graph.kg.citations import parse_answer
>>> answers = [parse_answer("Born in Rome [Q1, place of birth: Rome]. Italian [na]."),
...            parse_answer("No citation here.")]
>>> result = answer_descriptives(answers)
>>> result["answers_without_citation"], result["citations_per_answer"], result["na_per_answer"]
(1, 0.5, 0.5)
>>> result["na_sloppy"], result["sloppy_share"]
(1, 0.0)
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from kalma_graph.evaluation.metrics.ratios import mean, ratio
from kalma_graph.kg.citations import ISSUE_KINDS, ParsedAnswer

METRIC = "answer_descriptives"


def answer_descriptives(answers: Sequence[ParsedAnswer]) -> dict:
    """Format statistics of parsed answers (see the module card)."""
    citations = sum(a.n_citations for a in answers)
    sloppy = sum(a.n_sloppy for a in answers)
    issues = Counter(issue.kind for a in answers for issue in a.errors)
    return {
        "metric": METRIC,
        "choices": {},
        "answers": len(answers),
        "answers_without_citation": sum(1 for a in answers if a.n_citations == 0),
        "answers_without_any_mark": sum(
            1 for a in answers if a.n_citations == 0 and a.n_na == 0 and a.n_entity_only == 0
        ),
        "answers_with_na": sum(1 for a in answers if a.n_na),
        "sentences": sum(len(a.sentences) for a in answers),
        "sentences_with_na": sum(len(a.na_sentences) for a in answers),
        "citations": citations,
        "citations_per_answer": mean(a.n_citations for a in answers),
        "citations_per_answer_max": max((a.n_citations for a in answers), default=None),
        "na_marks": sum(a.n_na for a in answers),
        "na_per_answer": mean(a.n_na for a in answers),
        "entity_only": sum(a.n_entity_only for a in answers),
        "sloppy_citations": sloppy,
        "sloppy_share": ratio(sloppy, citations),
        "na_sloppy": sum(a.n_na_sloppy for a in answers),
        "parse_issues": {kind: issues.get(kind, 0) for kind in ISSUE_KINDS},
    }
