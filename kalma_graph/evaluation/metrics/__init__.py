"""The KaLMA evaluation metrics, one module each; every metric is a pure function returning a dict
with its scores, the counts behind them, and the ``choices`` (modes, variants) it was run with."""

from kalma_graph.evaluation.metrics.agreement import cohen_kappa, label_agreement
from kalma_graph.evaluation.metrics.alignment import alignment, alignment_pairs
from kalma_graph.evaluation.metrics.citation_quality import CitationCase, citation_quality
from kalma_graph.evaluation.metrics.conscious_incompetence import NACase, na_quality
from kalma_graph.evaluation.metrics.descriptives import answer_descriptives
from kalma_graph.evaluation.metrics.entailment import EntailFn, hypothesis
from kalma_graph.evaluation.metrics.report_header import header_choices

__all__ = [
    "CitationCase",
    "EntailFn",
    "NACase",
    "alignment",
    "alignment_pairs",
    "answer_descriptives",
    "citation_quality",
    "cohen_kappa",
    "header_choices",
    "hypothesis",
    "label_agreement",
    "na_quality",
]
