"""Verifier 21's readings (issue 44), from v13 (chatbot answers on birth, death and parents) and v14 (`grounded`
answers to fresh paper questions), each scored once with verifier 20: a parent named in a list ("His parents were X
and Y", "He was a son of X") that is neither held parent; a family's name, which the person bears too, telling no
parent from another; a range of years ("970–980", "309/308 BC") holding the held year; a place "near" another; a
held place in lower case or an area the graph cannot locate; a relative whose held name holds the name said
("Antonín Baťa" for Antonín Baťa starší); the graph's minus sign before a sentence's last year ("born in -1300.");
and a place of death said for a cited citizenship (partly supported)."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("version, start, text", [
    # Wenche Foss's father is Christian August Steenfeldt-Foss: "Foss" is the family's, so the names share nothing
    ("v13", "Her father was Thorvald Foss", "Thorvald Foss"),
    # Publius Claudius Pulcher: the graph holds father Publius Clodius Pulcher and mother Fulvia
    ("v13", "He was a son of the famous censor", "Appius Claudius Caecus"),
    # Lucius Julius Caesar: mother Fulvia; the father bears his son's name, so the whole names are compared
    ("v13", "His parents were Lucius Julius Caesar and Popillia", "Popillia"),
])
def test_a_parent_named_otherwise_in_a_list_or_by_the_family_name(version, start, text):
    claims = statuses(start, version)
    assert claims.get(text) == "contradicted", claims


@pytest.mark.parametrize("version, start", [
    # the graph holds the parish as "film", in lower case: no name to hold Österbybruk against
    ("v13", "He was born on 19 September 1862 at Österbybruk"),
    # Croydon Airport is part of Croydon; London is a place to find it by
    ("v13", "He died on 9 December 1936 at Croydon"),
    # the graph's father is "Antonín Baťa starší" (the elder): a relative of that name, not himself
    ("v13", "His father was Antonín Baťa, a shoemaker"),
    ("v13", "(His father of the same name"),
    # the held 972 lies in the range said
    ("v13", "He was born around 970–980"),
    # Jan Tarnowski may be Jan Amor Tarnowski; Shahrukh is Shah Rukh; Hussein 'Abid al-Majid is Hussein Abd
    # al-Majid (the particle the mention left out)
    ("v13", "His parents were Jan Amor Tarnowski"),
    ("v12", "His parents were Shah Rukh"),
    ("v12", "His father was Hussein Abd al-Majid"),
])
def test_not_contradicted(version, start):
    claims = statuses(start, version)
    assert "contradicted" not in claims.values(), claims


def test_the_graphs_minus_sign_before_the_last_word():
    # "-1300." at the sentence's end had lost its minus sign to the full stop, so the held -1300 contradicted it
    sentence = check("Tukulti-Ninurta I was born in -1300", "v14")
    assert sentence.fully_supported and {c.verdict for c in sentence.citations} == {"supported"}


def test_a_place_of_death_partly_states_a_citizenship():
    # both passes: "born and died in Cambodia" citing `country of citizenship: Cambodia` is partly supported
    sentence = check("Norodom Sihanouk was born and died in Cambodia", "v14")
    assert [c.verdict for c in sentence.citations] == ["partial"]
