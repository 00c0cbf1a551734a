"""Verifier 17's readings (issue 44), each from a real sentence of v9, the labelled set verifier 16 was scored on once
and that verifier 17 was then developed on (and a few of the older sets' sentences a reading changed): a held value
in another verb's clause, or opening a clause of its own, does not shield another value; a month inside a date is
no entity; a nickname ("nicknamed 'Putzi'", "often called …") is the person's own name; "M, son of V" and "M (born
V)" are said of M, and no place is a son; a nation or another spelling of a place the graph cannot locate, and a
hedged value, contradict nothing; a forebear introduced by his trade is no one's own relative; "throughout her life"
and a count are claims."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import check, statuses
from tests.unit.test_verifier_readings_v14_to_v16 import _linked

READINGS_V17 = [  # (set, start, claim, status), read by test_verifier_readings_v18's `test_chatbot_readings_v17_v18`
    # "…, and Toulouse honoured him": Toulouse, the held place of death, opens a clause of its own
    ("v9", "He died of pancreatic cancer in Paris", "Paris", "contradicted"),
    # "nicknamed 'Putzi', was born on 2 February 1887": the month February (a Freebase entity) and the nickname had
    # taken the date from him; the graph holds 1887-02-11
    ("v9", "Ernst Hanfstaengl, nicknamed", "2 February 1887", "contradicted"),
    # "Randolph Churchill, son of Winston Churchill": Randolph's father, not an inverted child of hers
    ("v9", "In 1939 she married Randolph Churchill", "Winston Churchill", "supported_uncited"),
    # hedged: "probably in West Ham" where the graph holds London
    ("v9", "Thomas Lodge was an English writer", "West Ham", "absent"),
    # a nation where the graph holds a place it cannot locate (the Balkans, a name only)
    ("v9", "Appius Claudius Pulcher governed Cilicia", "Greece", "absent"),
    # another spelling of the held place, which the graph does not know: Hrodna, Nauplion
    ("v9", "Stephen Báthory died without children", "Grodno", "absent"),
    ("v5", "His centralising rule made enemies", "Nafplio outside", "absent"),
    # "one of eight children of the miner Wilhelm Lehmbruck": his father, named like him, introduced by his trade
    ("v9", "He was one of eight children of the miner", "Lehmbruck", "absent"),
    # "twins Yash and Roohi, born via surrogacy in 2017", "Wyatt (born 2020)": their births, not his
    ("v9", "Karan Johar received the Padma Shri", "2017", "absent"),
    ("v6", "He publicly came out as gay in 2012", "2020", "absent"),
    # v8: "David Burliuk, often called the "father of Russian Futurism," was born on V in Semyrenky": his birth (the
    # date had gone to Southampton, named after it), so Semyrenky contradicts the held Semyrotivschyna
    ("v8", "David Burliuk, often called", "21 July 1882", "supported_uncited"),
    ("v8", "David Burliuk, often called", "Semyrenky", "contradicted"),
]


def test_a_held_value_in_another_verbs_clause_shields_nothing():
    # v9: "born … in New York City and raised largely in Montreal": Montreal, the held birthplace, is raised's, so New
    # York City (an entity the store links) contradicts it; it was absent
    wainwright = [("Q236613", "Martha Wainwright", "place of birth", "Montreal"),
                  ("Q236613", "Martha Wainwright", "date of birth", "1976-05-08"),
                  ("Q60", "New York City", "instance of", "city"), ("Q340", "Montreal", "instance of", "city")]
    claims = _linked("Who is Martha Wainwright?", "She is the daughter of Loudon Wainwright III.",
                     "Martha Wainwright is a Canadian-American singer-songwriter, born on 8 May 1976 in New York City "
                     "and raised largely in Montreal.", wainwright)
    assert claims["New York City"] == "contradicted", claims


def test_no_place_is_a_son():
    # v8: "born … in Stockholm, the son of the clergyman Pehr Thyselius": he is the son (the graph holds the father),
    # not Stockholm (a city the store links), of whom the father had been said
    thyselius = [("Q52956", "Carl Johan Thyselius", "father", "Pehr Thyselius"),
                 ("Q52956", "Carl Johan Thyselius", "date of birth", "1811-06-08"),
                 ("Q1754", "Stockholm", "instance of", "city")]
    claims = _linked("Who is Carl Johan Thyselius?", "He was a Swedish politician.",
                     "He was born on 8 June 1811 in Stockholm, the son of the clergyman Pehr Thyselius, who became a "
                     "bishop.", thyselius)
    assert claims["Pehr Thyselius"] == "supported_uncited", claims


def test_no_sentence_is_contradicted_by_a_birth_of_others():
    # both 2017s of the Karan Johar sentence: the memoir's and the twins' birth
    assert "contradicted" not in statuses("Karan Johar received the Padma Shri", "v9").values()


def test_a_hedge_is_no_claim():
    # "died in London in September 1625, probably of plague": both passes call it fully held; "probably" was absent
    assert "probably" not in statuses("Thomas Lodge died in London in September 1625", "v9")


@pytest.mark.parametrize("version, start, full", [
    # both passes of v4 and v9: "throughout her life" says more than the cited residence or medical condition
    ("v9", "Diana Barrymore struggled with alcoholism throughout her life", False),
    ("v9", "Diana Barrymore lived in New York City throughout her life", False),
    # a count with one value cited (v9); a count of the cited value itself is the value's (v2)
    ("v9", "Johann Christian Bach was a composer who wrote many works", False),
    ("v2", "Edvard Munch created several portraits", True),
    # "associated with" the cited label, as both passes of v8 read it
    ("v8", "Rufus Wainwright is associated with the Decca Records label", True),
])
def test_grounded_readings_v17(version, start, full):
    assert check(start, version).fully_supported is full
