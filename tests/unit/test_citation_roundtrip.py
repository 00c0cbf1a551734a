"""The citation format round-trips: every canonical citation the grammar can emit parses back to
exactly the triples it was built from, for every property label we ship and real values from dumps/.

Labels with commas (`languages spoken, written or signed`) and values with `, key:`-like text were
split wrongly before (issue 17); these properties would catch that again.
"""

from __future__ import annotations

import gzip
import itertools
from functools import lru_cache

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from kalma_graph.ingest.formats import detect_format, make_reader
from kalma_graph.ingest.properties import freebase_label, wikidata_properties
from kalma_graph.ingest.readers.base import ParsedLine
from kalma_graph.kg.citations import known_pairs, known_props, parse_answer, render_citation
from kalma_graph.kg.triples import Entity, Triple
from tests.conftest import BIOKALMA_RECORDS, FREEBASE_NT, WIKIDATA_JSON, WIKIDATA_NT

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
    assert [(c.triple, c.sloppy) for c in parsed.citations] == [((subject, label, v), False) for label, v in pairs]
    assert parsed.n_na == 1 and not parsed.errors


@settings(max_examples=300, deadline=None)
@given(subject=entity_ids(), pairs=st.lists(st.tuples(pick(wikidata_labels()), pick(dump_values())),
                                            min_size=1, max_size=4, unique_by=lambda p: p[0]))
def test_labels_alone_suffice_when_values_hold_no_key(subject, pairs):
    """Given only the property labels (no pairs), a citation still splits at every known label,
    commas in the label included, as long as no value holds `, <known label>:`."""
    known = {subject: {label for label, _ in pairs}}
    assume(all(f", {label}:".casefold() not in v.casefold() for _, v in pairs for label in known[subject]))
    parsed = parse_answer(f"Claim {render_citation(subject, pairs)}.", known)
    assert [c.triple for c in parsed.citations] == [(subject, label, v) for label, v in pairs]


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
