"""The citation grammar and the parser agree: every string llama.cpp's own matcher accepts under the
grammar (the packaged model's vocabulary) parses back to triples of the shown graph. The strategies
are those of the parser's property tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kalma_graph.generation.grammar import MAX_PAIRS_PER_MARK, GrammarChecker, build_citation_grammar
from kalma_graph.kg.citations import known_pairs, known_props, parse_answer, render_citation
from kalma_graph.kg.triples import Entity, Triple
from tests.unit.test_citation_roundtrip import labels, pick, values, wikidata_labels

# --- the grammar and the parser agree -----------------------------------------------------------


@pytest.fixture(scope="module")
def checker():
    return GrammarChecker.from_model_path()


def _shown_graph(draw_values: list[str], draw_labels: list[str]) -> tuple[list[Entity], list[Triple]]:
    entities = [Entity("Q4985", name="John Keats"), Entity("Q212657", name="Artemisia Gentileschi, painter")]
    triples = [Triple(entities[i % 2].id, "", label, value)
               for i, (label, value) in enumerate(zip(draw_labels, draw_values))]
    return entities, triples


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_string_the_grammar_accepts_parses_to_shown_triples(checker, data):
    """Build a grammar from a small graph with hard labels and values, let hypothesis pick citations
    the grammar allows (checked with llama.cpp's matcher), and parse them: every cited triple is one
    of the graph, in the order written."""
    hard = [label for label in wikidata_labels() if "," in label]
    draw_labels = data.draw(st.lists(pick(tuple(hard)) | labels(), min_size=2, max_size=8))
    draw_values = data.draw(st.lists(values(), min_size=len(draw_labels), max_size=len(draw_labels)))
    entities, triples = _shown_graph(draw_values, draw_labels)
    grammar = build_citation_grammar(entities, triples)
    chosen = []
    text = "The answer"
    for _ in range(data.draw(st.integers(1, 3))):
        entity_id = data.draw(st.sampled_from(sorted(grammar.pairs)))
        pairs = data.draw(st.lists(st.sampled_from(grammar.pairs[entity_id]), min_size=1, max_size=MAX_PAIRS_PER_MARK))
        pairs = [p for i, p in enumerate(pairs) if i == 0 or p != pairs[i - 1]]  # never a pair twice in a row
        text += " " + render_citation(entity_id, pairs)
        chosen += [(entity_id, label, value) for label, value in pairs]
        text += data.draw(st.sampled_from([" and more", ". Then more", ", so", "! Next"]))
    text += "."
    assert checker.accepts(grammar.text, text)
    names = [Triple(e.id, "", "name", e.name) for e in entities]
    parsed = parse_answer(text, known_props(entities, triples), known_pairs(entities, triples))
    assert [c.triple for c in parsed.citations] == chosen
    graph = {(t.subject, t.label, t.value) for t in triples + names}
    assert all(c.triple in graph and not c.sloppy for c in parsed.citations)
