"""Verifier 34's readings (issue 44), from v28 (chatbot answers on birth, death and family, fourth draw), read after
it was scored once with verifier 33, and from v24r (v24 labelled again under v28's rules).

"The son of Thutmose III and his queen V" names V as his queen, not a parent to weigh against the graph's; a person's
one-word alias right beside another capitalised word is part of another name ("Bach" in "Anna Magdalena Bach", not
Johann Sebastian); "If you meant …" opens an aside that contradicts nothing, however its value is judged; "His son,
X, consul in 140 BC, died …" is said of X; a place name sharing a word with the held one is not another spelling of it
("San Anselmo" for San Francisco); "28 years old" is an age; "I'd recommend checking a reliable source" is talk; and
"Bombay, now Mumbai", "Mumbai (then Bombay), India" name the held place by another name."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("start, value", [
    # both passes: not contradicted (the graph holds the mother of each; verifier 33 weighed her against the father's
    # parents, and read "Bach" as Johann Sebastian Bach, her husband, named as his own relative)
    ("Amenhotep II was the son of the pharaoh Thutmose III and his queen", "Merytre-Hatshepsut"),
    ("Johann Christian Bach was the youngest son of Johann Sebastian Bach", "Anna Magdalena Bach"),
])
def test_a_parents_spouse_named_with_his_is_not_weighed_as_another_parent(start, value):
    claims = statuses(start, "v28")
    assert value in claims and claims[value] != "contradicted", claims


def test_an_aside_opened_by_if_you_meant_contradicts_nothing():
    # both passes: not contradicted ("Antoninus Pius" was contradicted as a parent of the graph's Faustina)
    claims = statuses("If you meant Faustina the Younger", "v28")
    assert "contradicted" not in claims.values(), claims


def test_a_name_between_commas_before_a_second_appositive_is_the_subject():
    # the graph holds Gaius Laelius Sapiens `date of death: -0147`; both passes: contradicted
    claims = statuses("His son, Gaius Laelius Sapiens, consul in 140 BC", "v28")
    assert claims.get("129 BC") == "contradicted", claims


def test_a_place_sharing_only_a_word_with_the_held_one_is_another_place():
    # the graph holds `place of death: San Francisco`; both passes: contradicted
    claims = statuses("Ali Akbar Khan, the great sarod master, died on 18 June 2009", "v28")
    assert claims.get("San Anselmo") == "contradicted", claims


@pytest.mark.parametrize("start", [
    "Stephen Crane was just 28 years old when he died",  # born 1871, died 1900-06-05
    "I'm not confident about his exact birth date or birthplace",  # talk: "I'd recommend checking a reliable source"
    "I'm not sure about her father's name, so I'd rather not guess",
])
def test_ages_after_their_number_and_the_answerers_advice_are_held_or_no_claim(start):
    # both passes: fully held (every claim held by the graph, uncited; verifier 33 found "28", "years old",
    # "recommend checking" and "guess" absent)
    claims = statuses(start, "v28")
    assert all(s in ("supported", "supported_uncited") for s in claims.values()), claims


@pytest.mark.parametrize("start, version", [
    # (v24r's "Mumbai (then Bombay), India" too, with the store's containment: measured by bench/verifier_eval_v2.py)
    ("Abhishek Bachchan was born on 5 February 1976 in Bombay, now Mumbai, India", "v28"),
])
def test_a_place_named_by_its_other_name_is_held_as_the_place(start, version):
    # the graph holds `place of birth: Mumbai` and Mumbai `country: India`; both passes: fully held
    claims = check(start, version).claims
    assert all(c.status in ("supported", "supported_uncited") for c in claims), claims
    assert any(c.relation == "other name" for c in claims), claims

