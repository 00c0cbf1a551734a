"""Evaluation of attributed answers: triple matching and the KaLMA metrics (`kalma_graph.evaluation.metrics`),
over answers the citation parser (`kalma_graph.kg.citations`) read. Everything here is pure Python: models are
injected."""

from kalma_graph.evaluation.matching import MATCH_MODES, key_function, normalized_key, strict_key

__all__ = ["MATCH_MODES", "key_function", "normalized_key", "strict_key"]
