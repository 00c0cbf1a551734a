"""The citation format round-trips: every canonical citation the grammar can emit parses back to
exactly the triples it was built from, for every property label we ship and real values from dumps/.

Labels with commas (`languages spoken, written or signed`) and values with `, key:`-like text were
split wrongly before (issue 17); these properties would catch that again.
"""

from __future__ import annotations

import gzip
import itertools
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kalma_graph.evaluation.citations import known_pairs, known_props, parse_answer, render_citation
from kalma_graph.generation.grammar import MAX_PAIRS_PER_MARK, GrammarChecker, build_citation_grammar
from kalma_graph.ingest.formats import detect_format, make_reader
from kalma_graph.ingest.properties import freebase_label, wikidata_properties
from kalma_graph.ingest.readers.base import ParsedLine
from kalma_graph.store.base import Entity, Triple

from .conftest import BIOKALMA_RECORDS, FREEBASE_NT, WIKIDATA_JSON, WIKIDATA_NT

_UNCITABLE = set("[]")  # the grammar leaves out what a bracket cannot hold


@lru_cache(maxsize=1)
def wikidata_labels() -> tuple[str, ...]:
    return tuple(sorted({label for label, _ in wikidata_properties().values() if label}))


@lru_cache(maxsize=1)
def freebase_labels() -> tuple[str, ...]:
    predicates = set()
    with gzip.open(FREEBASE_NT, "rt", encoding="utf-8") as lines:
        for line in lines:
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1].startswith("<http://rdf.freebase.com/ns/"):
                predicates.add(parts[1][len("<http://rdf.freebase.com/ns/"):-1])
    return tuple(sorted({freebase_label(p) for p in predicates}))


@lru_cache(maxsize=1)
def dump_values() -> tuple[str, ...]:
    """Literal values and entity names of the bundled dumps, as a citation would show them."""
    values: set[str] = set()
    for path in (WIKIDATA_JSON, WIKIDATA_NT, FREEBASE_NT, BIOKALMA_RECORDS):
        reader = make_reader(detect_format(path))
        for item in itertools.islice(reader.read(path), 20_000):
            if not isinstance(item, ParsedLine):
                continue
            values.update(e.name for e in item.entities if e.name)
            values.update(s.value for s in item.statements if s.value)
    return tuple(sorted(v for v in values if v.strip() == v and v and not _UNCITABLE & set(v)))


def test_the_label_sets_hold_the_hard_cases():
    """The properties below range over labels and values with commas and colons, so they test
    something."""
    assert "languages spoken, written or signed" in wikidata_labels()
    assert sum("," in label for label in wikidata_labels()) >= 20
    assert len(freebase_labels()) >= 50
    values = dump_values()
    assert sum(", " in v for v in values) >= 50 and sum(":" in v for v in values) >= 5


def pick(items: tuple[str, ...]) -> st.SearchStrategy[str]:
    """`sampled_from` by index: hypothesis would otherwise print the whole (large) tuple in reports."""
    return st.integers(0, len(items) - 1).map(items.__getitem__)


def labels():
    return pick(wikidata_labels()) | pick(freebase_labels())


def values():
    comma_key = st.builds(lambda a, b, c: f"{a}, {b}: {c}", pick(dump_values()), labels(), pick(dump_values()))
    return pick(dump_values()) | comma_key


def entity_ids():
    return st.sampled_from(["Q4985", "Q212657", "m.0c94fn", "g.11b6c0"])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subject=entity_ids(), pairs=st.lists(st.tuples(labels(), values()), min_size=1, max_size=4,
                                            unique_by=lambda p: p[0]))
def test_canonical_citation_parses_back_to_its_triples(subject, pairs):
    """A canonical bracket over 1–4 pairs of one entity parses to exactly those triples, unsloppy,
    given what the answer was shown (as the pipeline and `evaluate` give it)."""
    triples = [Triple(subject, "", label, value) for label, value in pairs]
    entity = [Entity(subject, name="Somebody")]
    text = f"A claim {render_citation(subject, pairs)}. Another claim [NA]."
    parsed = parse_answer(text, known_props(entity, triples), known_pairs(entity, triples))
    assert [(c.triple, c.sloppy) for c in parsed.citations] == [((subject, l, v), False) for l, v in pairs]
    assert parsed.n_na == 1 and not parsed.errors


@settings(max_examples=300, deadline=None)
@given(subject=entity_ids(), pairs=st.lists(st.tuples(pick(wikidata_labels()), pick(dump_values())),
                                            min_size=1, max_size=4, unique_by=lambda p: p[0]))
def test_labels_alone_suffice_when_values_hold_no_key(subject, pairs):
    """Given only the property labels (no pairs), a citation still splits at every known label,
    commas in the label included, as long as no value holds `, <known label>:`."""
    known = {subject: {label for label, _ in pairs}}
    assume(all(f", {l}:".casefold() not in v.casefold() for _, v in pairs for l in known[subject]))
    parsed = parse_answer(f"Claim {render_citation(subject, pairs)}.", known)
    assert [c.triple for c in parsed.citations] == [(subject, l, v) for l, v in pairs]


def test_the_bracket_of_issue_17():
    """The 1.5B model wrote this under the grammar; it was read as two wrong triples."""
    text = "Keats was a Romantic poet [Q4985, movement: Romanticism, languages spoken, written or signed: English]."
    shown = [Triple("Q4985", "P135", "movement", "Romanticism"),
             Triple("Q4985", "P1412", "languages spoken, written or signed", "English")]
    entity = [Entity("Q4985", name="John Keats")]
    for known in ((known_props(entity, shown), None), (known_props(entity, shown), known_pairs(entity, shown))):
        parsed = parse_answer(text, *known)
        assert [(c.triple, c.sloppy) for c in parsed.citations] == [
            (("Q4985", "movement", "Romanticism"), False),
            (("Q4985", "languages spoken, written or signed", "English"), False),
        ]


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
    hard = [l for l in wikidata_labels() if "," in l]
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
