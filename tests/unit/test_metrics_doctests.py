"""The docstring examples of every module with a metric card run here: the evaluation modules, the
CAQA metrics (Table 5, FActScore), the SCK scores and the NLI evaluation figures."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kalma_graph.evaluation as evaluation
import kalma_graph.kg as kg
import kalma_graph.sck as sck
import kalma_graph.text as text


def _walk(package) -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + "."))


MODULES = _walk(evaluation) + _walk(kg) + _walk(sck) + _walk(text) + [
    "kalma_graph.caqa.factscore",
    "kalma_graph.caqa.metrics",
    "kalma_graph.nli.evaluate",
    # not metric cards, but their examples are the specification of the citation format's rewrites
    "kalma_graph.generation.grammar",
    "kalma_graph.pipeline.cite",
    "kalma_graph.provenance",
    "kalma_graph.files",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("name", [
    "kalma_graph.kg.citations",
    "kalma_graph.evaluation.matching",
    "kalma_graph.evaluation.metrics.citation_quality",
    "kalma_graph.evaluation.metrics.alignment",
    "kalma_graph.evaluation.metrics.conscious_incompetence",
    "kalma_graph.evaluation.metrics.descriptives",
    "kalma_graph.evaluation.metrics.agreement",
    "kalma_graph.evaluation.metrics.ratios",
    "kalma_graph.caqa.factscore",
    "kalma_graph.caqa.metrics",
    "kalma_graph.nli.evaluate",
    "kalma_graph.sck.base",
    "kalma_graph.sck.combine",
    "kalma_graph.sck.content",
    "kalma_graph.sck.er",
    "kalma_graph.sck.intent",
    "kalma_graph.sck.judges",
    "kalma_graph.sck.kg_attr",
    "kalma_graph.sck.scorer",
    "kalma_graph.sck.structure",
    "kalma_graph.sck.ve",
])
def test_metric_cards_have_examples(name):
    assert doctest.testmod(importlib.import_module(name)).attempted > 0
