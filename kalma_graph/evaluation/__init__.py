"""Evaluation of attributed answers: the citation parser, triple matching, and the KaLMA metrics
(`kalma_graph.evaluation.metrics`). Everything here is pure Python: models are injected."""

from kalma_graph.kg.citations import (
    NA_MARK,
    Citation,
    ParsedAnswer,
    ParseIssue,
    Sentence,
    parse_answer,
    render_citation,
)
from kalma_graph.evaluation.matching import MATCH_MODES, key_function, normalized_key, strict_key

__all__ = [
    "MATCH_MODES",
    "NA_MARK",
    "Citation",
    "ParseIssue",
    "ParsedAnswer",
    "Sentence",
    "key_function",
    "normalized_key",
    "parse_answer",
    "render_citation",
    "strict_key",
]
