"""The docstring examples of the evaluation modules (the metric cards' worked examples) run here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kalma_graph.evaluation as evaluation

MODULES = sorted(m.name for m in pkgutil.walk_packages(evaluation.__path__, evaluation.__name__ + "."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("name", [
    "kalma_graph.evaluation.citations",
    "kalma_graph.evaluation.matching",
    "kalma_graph.evaluation.metrics.citation_quality",
    "kalma_graph.evaluation.metrics.alignment",
    "kalma_graph.evaluation.metrics.conscious_incompetence",
    "kalma_graph.evaluation.metrics.descriptives",
])
def test_metric_cards_have_examples(name):
    assert doctest.testmod(importlib.import_module(name)).attempted > 0
