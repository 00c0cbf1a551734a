"""Verifier 39's readings (issue 44), from v32 (a local model's answers, scored once with verifier 38).

Where a said place lies decides a contradiction, and the graph's containment was read by a word search: "John Keats
died in London" against the held Rome passed, as the graph puts London in the Roman Empire and that in Ancient
Rome; "James Coburn died in Los Angeles" against the held Beverly Hills passed, as Beverly Hills is a "city in Los
Angeles County". A held place inside another place's name (after `other_place_prefixes`, before an area's word) no
longer contains the said place; "inner-city area of central London" still puts Marylebone in London. The triples
and descriptions are the bundled graph's, as the store gives them."""

from __future__ import annotations

from kalma_graph.verification.lexicon import load_lexicon
from kalma_graph.verification.places import SaidPlaces, shown_lookup
from kalma_graph.verification.records import GraphEntity, GraphTriple

P131, P17 = "located in the administrative territorial entity", "country"
LONDON_UP = [GraphTriple(subject="Q84", label=P131, value="England", object_id="Q21"),
             GraphTriple(subject="Q84", label=P131, value="Greater London", object_id="Q23306"),
             GraphTriple(subject="Q84", label=P17, value="Roman Empire", object_id="Q2277"),
             GraphTriple(subject="Q84", label=P17, value="United Kingdom", object_id="Q145"),
             GraphTriple(subject="Q2277", label=P17, value="Ancient Rome", object_id="Q1747689")]
KNOWN = {
    "london": [(GraphEntity(id="Q84", name="London"), "capital of England and the United Kingdom")],
    "los angeles": [(GraphEntity(id="Q65", name="Los Angeles"), "county seat of Los Angeles County, United States")],
    "beverly hills": [(GraphEntity(id="Q127856", name="Beverly Hills"),
                       "city in Los Angeles County, California, United States")],
    "marylebone": [(GraphEntity(id="Q123634", name="Marylebone"), "inner-city area of central London")],
    "lower saxony": [(GraphEntity(id="Q1197", name="Lower Saxony"), "state of Germany")],
}


def _said() -> SaidPlaces:
    return SaidPlaces(lambda name: KNOWN.get(name.casefold(), []), shown_lookup(LONDON_UP), load_lexicon())


def test_a_place_inside_ancient_rome_is_not_inside_rome():
    said = _said()
    assert said.inside("London", "Ancient Rome") is True
    assert said.inside("London", "Rome") is False
    assert said.contradicts("London", "Rome") is True  # "John Keats died in London", held Rome
    assert said.contradicts("London", "England") is False


def test_a_city_of_a_county_is_not_in_the_city_of_that_name():
    said = _said()
    assert said.inside("Beverly Hills", "Los Angeles County") is True
    assert said.inside("Beverly Hills", "Los Angeles") is False
    assert said.contradicts("Los Angeles", "Beverly Hills") is True  # "James Coburn died in Los Angeles"


def test_a_description_still_places_a_district_in_its_city():
    said = _said()
    assert said.inside("Marylebone", "London") is True
    assert said.contradicts("London", "Marylebone") is False  # "born in London", held Marylebone: vaguer
    assert said.inside("Lower Saxony", "Germany") is True
