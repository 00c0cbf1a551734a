"""The base layer every stage shares: an entity and a one-hop statement (`triples`), the knowledge block
that shows them to a model (`knowledge`), the citation format answers cite them in (`citation_marks`
reads a bracket, `citations` parses a whole answer), and a triple written as text for a judge (`hypothesis`).
It imports nothing of kalma-graph but `text`."""

from kalma_graph.kg.citations import (
    NA_MARK,
    Citation,
    ParsedAnswer,
    ParseIssue,
    Sentence,
    parse_answer,
    render_citation,
)
from kalma_graph.kg.knowledge import is_unlabelled, knowledge_block, knowledge_blocks, unlabelled
from kalma_graph.kg.triples import Entity, Triple

__all__ = [
    "NA_MARK",
    "Citation",
    "Entity",
    "ParseIssue",
    "ParsedAnswer",
    "Sentence",
    "Triple",
    "is_unlabelled",
    "knowledge_block",
    "knowledge_blocks",
    "parse_answer",
    "render_citation",
    "unlabelled",
]
