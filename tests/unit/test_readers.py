"""Readers on real lines: truthiness, datatypes, N-Triples fast path vs rdflib, format detection."""

from __future__ import annotations

import gzip
import json

import msgspec
import pytest
from rdflib.plugins.parsers.ntriples import W3CNTriplesParser

from kalma_graph.ingest import detect_format
from kalma_graph.ingest.properties import freebase_label, wikidata_label
from kalma_graph.ingest.readers.ntriples import _KeepLabels, fast_parse
from kalma_graph.ingest.readers.wikidata_json import WikidataJsonReader, _Claim, format_time, truthy
from tests.conftest import BIOKALMA_RECORDS, DUMPS, FREEBASE_NT, WIKIDATA_JSON, WIKIDATA_NT


@pytest.mark.parametrize(
    "raw, precision, expected",
    [
        ("+1871-11-01T00:00:00Z", 11, "1871-11-01"),
        ("+1871-11-00T00:00:00Z", 10, "1871-11"),
        ("+1871-00-00T00:00:00Z", 9, "1871"),
        ("-0764-01-01T00:00:00Z", 9, "-0764"),
        ("+0033-04-03T00:00:00Z", 11, "0033-04-03"),
        ("+1871-11-01T00:00:00Z", 9, "1871"),
    ],
)
def test_time_values_render_as_the_records_show_them(raw, precision, expected):
    assert format_time(raw, precision) == expected


def _claim(rank, qid):
    return {"rank": rank, "mainsnak": {"snaktype": "value", "property": "P106",
                                       "datavalue": {"type": "wikibase-entityid",
                                                     "value": {"entity-type": "item", "numeric-id": int(qid[1:])}}}}


def _claims(*claims):
    """Claims as the reader decodes them (typed structs), from their JSON."""
    return msgspec.json.decode(json.dumps(list(claims)), type=list[_Claim])


def test_truthy_prefers_preferred_and_drops_deprecated():
    normal, preferred, deprecated = _claims(_claim("normal", "Q1"), _claim("preferred", "Q2"),
                                            _claim("deprecated", "Q3"))
    assert truthy([normal, preferred, deprecated]) == [preferred]
    assert truthy([normal, deprecated]) == [normal]
    assert truthy([deprecated]) == []
    assert truthy([preferred]) == [preferred] and truthy([normal]) == [normal]  # one claim: the common case
    (no_rank,) = _claims({"mainsnak": _claim("normal", "Q4")["mainsnak"]})
    assert truthy([no_rank]) == [no_rank]  # a claim without a rank is a normal one


def test_entity_lines_decode_only_what_they_need_and_report_bad_shapes():
    reader = WikidataJsonReader()
    line = json.dumps({
        "type": "item", "id": "Q1",
        "labels": {"de": {"language": "de", "value": "Eins"}, "en": {"language": "en", "value": "One"}},
        "descriptions": [], "aliases": [],  # the official dump writes an empty map as []
        "claims": {"P31": [{**_claim("normal", "Q5"), "qualifiers": {"P580": []}, "references": [{"snaks": {}}]}]},
        "sitelinks": {"enwiki": {"site": "enwiki", "title": "One"}},
    })
    parsed = reader.parse_line(line, 3)
    (entity,) = parsed.entities
    assert (entity.name, entity.description, entity.aliases, entity.types) == ("One", None, (), ("Q5",))
    assert WikidataJsonReader(language="de").parse_line(line, 3).entities[0].name == "Eins"
    assert reader.parse_line('{"id": "Q1", "claims": ', 4).reason.startswith("invalid JSON")
    assert (reader.parse_line('{"id": 1}', 5).reason
            == "not a Wikidata entity object: Expected `str`, got `int` - at `$.id`")
    item_as_text = json.dumps({"id": "Q2", "claims": {"P31": [{"mainsnak": {"snaktype": "value", "datavalue": {
        "type": "wikibase-entityid", "value": "Q5"}}}]}})
    assert reader.parse_line(item_as_text, 6).reason.startswith("not a Wikidata entity object: AttributeError")


def test_wikidata_entity_line_parses_to_records():
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as handle:
        crane = next(json.loads(line) for line in handle if '"id":"Q206534"' in line)
    crane["claims"]["P106"].append(
        {**_claim("deprecated", "Q999999"),
         "mainsnak": {**_claim("deprecated", "Q999999")["mainsnak"], "property": "P106"}})
    crane["claims"]["P999999"] = [{"rank": "normal", "mainsnak": {"snaktype": "somevalue", "property": "P999999"}}]
    parsed = WikidataJsonReader().parse_line(json.dumps(crane), 7)
    (entity,) = parsed.entities
    assert (entity.id, entity.name, entity.types) == ("Q206534", "Stephen Crane", ("Q5",))
    facts = {(s.pid, s.label, s.object_id or s.value) for s in parsed.statements}
    assert ("P19", "place of birth", "Q25395") in facts
    assert ("P569", "date of birth", "1871-11-01") in facts
    assert not any(s.object_id == "Q999999" for s in parsed.statements)  # deprecated
    assert not any(s.pid == "P999999" for s in parsed.statements)  # somevalue


def test_property_labels():
    assert wikidata_label("P19") == "place of birth"
    assert wikidata_label("P99999999", {"P99999999": "learned"}) == "learned"
    assert wikidata_label("P99999999") == "P99999999"
    assert freebase_label("people.person.place_of_birth") == "place of birth"
    assert (freebase_label("film.film.release_date_s./film/film_regional_release_date/film_release_region")
            == "film release region")


@pytest.mark.parametrize("path", [WIKIDATA_NT, FREEBASE_NT])
def test_ntriples_fast_path_agrees_with_rdflib(path):
    class Sink:
        def __init__(self):
            self.got = []

        def triple(self, s, p, o):
            self.got.append((s, str(p), o))

    sink = Sink()
    parser = W3CNTriplesParser(sink, bnode_context=_KeepLabels())
    checked = 0
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for i, line in enumerate(handle):
            if i >= 5000:
                break
            fast = fast_parse(line.rstrip("\n"))
            assert fast is not None, line  # plain dump lines never need the slow path
            sink.got.clear()
            parser.parsestring(line)
            (expected,) = sink.got
            assert fast[0] == expected[0] and fast[1] == expected[1]
            assert fast[2] == expected[2] and str(fast[2]) == str(expected[2]), line
            checked += 1
    assert checked == 5000


def test_ntriples_fast_path_handles_escapes_and_declines_the_unusual():
    s, p, o = fast_parse(
        '<http://www.wikidata.org/entity/Q1> <http://www.w3.org/2000/01/rdf-schema#label> "a \\"b\\", '
        '\\u00e9\\n"@en-gb .')
    assert str(o) == 'a "b", é\n' and o.language == "en-gb"
    assert fast_parse("<http://a> <http://b> .") is None
    assert fast_parse('<http://a> <http://b> "unterminated .') is None


@pytest.mark.parametrize(
    "path, fmt",
    [
        (WIKIDATA_JSON, "wikidata-json"),
        (WIKIDATA_NT, "wikidata-nt"),
        (FREEBASE_NT, "freebase-nt"),
        (BIOKALMA_RECORDS, "biokalma"),
        (DUMPS / "biokalma/simple_question_graph.json.gz", "biokalma"),
        (DUMPS / "kgqa/simplequestions_wikidata_test_answerable.sample.txt", "tsv-wikidata"),
        (DUMPS / "kgqa/simplequestions_freebase_valid.sample.txt", "tsv-freebase"),
    ],
)
def test_every_dump_format_is_detected(path, fmt):
    assert detect_format(path) == fmt
