"""Verifiers 28 to 32's readings (issue 44), each from labelled sets already scored once.

Verifier 28 (v19, v21): "known as a X" praises as "best known" does; a relation's word before "of" a field or a
style ("a member of the performing arts") does not introduce it, while before a religion, a label or a title it
still does ("a member of the Catholic Church", "the title of Druk Gyalpo"); a group's kind between "the" and its held
name ("the band Toto") is no claim. Verifier 29 (v24): a participle after a comma opens another clause ("died in
1847, living in the Waldviertel"); "the mid-16th century BC" is a century; "I'm" and the answerer's talk of days,
dates and birthplaces are no claim. Verifier 30 (v23): "musician" is a role, not a cue of `genre`. Verifier 31
(v26): "the village of X" is the place X, "the Moscow region" an area, "If you mean …" an aside that contradicts
nothing. Verifier 32 (v25): a value the sentence denies in its own clause ("Charles was not a writer") is
unsupported and contradicted; and (v26) "X, also a Y, was born …" keeps X's clause."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("start, version", [
    # citing `occupation`: v21's passes settle all five "known as a X" sentences not fully supported
    ("Percy Shelley is known as a potter", "v21"),
    ("Avicenna is also known as a chemist and a mathematician", "v21"),
    ("Steve Porcaro is also known as a songwriter", "v21"),
])
def test_known_as_a_kind_is_an_evaluation(start, version):
    sentence = check(start, version)
    assert not sentence.fully_supported
    assert any(c.kind == "evaluation" for c in sentence.claims), sentence.claims


@pytest.mark.parametrize("start, version", [
    # citing `field of work: performing arts` / `genre: Western`: both passes call each not fully supported
    ("Nino Rota was a member of the performing arts", "v19"),
    ("Lionel Barrymore was a member of the Western genre", "v8"),
])
def test_a_member_of_a_field_or_style_is_no_membership_the_graph_holds(start, version):
    sentence = check(start, version)
    assert not sentence.fully_supported
    assert any(c.status == "absent" and "member" in c.text for c in sentence.claims), sentence.claims


@pytest.mark.parametrize("start, version", [
    # both passes accept each: the word before "of" introduces the cited religion, label, position or award
    ("He was a member of the Catholic Church", "v2"),
    ("Elvis Presley was a member of the RCA Records label", "v14"),
    ("Jigme Singye Wangchuck holds the title of Druk Gyalpo", "v7"),
    ("Christabel Pankhurst received the title of Dame Commander", "v16"),
])
def test_a_relation_word_before_a_held_body_or_title_still_introduces_it(start, version):
    assert check(start, version).fully_supported


@pytest.mark.parametrize("start, version", [
    # citing `member of`: both passes of v7 and v21 accept "the band" before the held name
    ("Steve Porcaro is a member of the band Toto", "v21"),
    ("Marta Jandová is a member of the band Die Happy", "v7"),
])
def test_a_groups_kind_before_its_held_name_is_no_claim(start, version):
    assert check(start, version).fully_supported


# Verifier 29, from v24 (chatbot answers on birth, death and family), read after it was scored once with verifier 28.

def test_a_participle_after_a_comma_opens_another_clause():
    # "died in 1847, living in the Waldviertel": where he lived, not where he died (the graph holds Kleinmotten);
    # both passes: not contradicted
    claims = statuses("Johann Schicklgruber, the father of Maria Anna Schicklgruber", "v24")
    assert claims.get("Waldviertel") == "absent", claims
    assert claims.get("1847") == "supported_uncited", claims


def test_a_hyphenated_part_of_a_century_is_a_century():
    # the graph holds death in -1600 (1601 BC): "the mid-16th century BC" is 1575-1526 BC; both passes: contradicted
    claims = statuses("He reigned only briefly and died in the mid-16th century BC", "v24")
    assert claims.get("mid-16th century BC") == "contradicted", claims


@pytest.mark.parametrize("start", [
    "She was born in 1959, but I'm not certain",  # "I'm" is the answerer, not a name
    "I don't know his exact birth and death days",
])
def test_the_answerers_talk_about_what_it_knows_is_no_claim(start):
    # both passes: fully held (the held year; nothing else is stated)
    claims = statuses(start, "v24")
    assert all(s in ("supported", "supported_uncited") for s in claims.values()), claims


@pytest.mark.parametrize("start, version", [
    # citing genres only: both passes of v23 call "musician" a claim of its own (the occupation is held, uncited)
    ("Levon Helm was an American country and rock musician", "v23"),
])
def test_musician_is_a_role_not_a_cue_of_genre(start, version):
    sentence = check(start, version)
    assert not sentence.fully_supported
    assert any("musician" in c.text for c in sentence.claims if c.status == "absent"), sentence.claims


# Verifier 31, from v26 (chatbot answers on birth, death and family, second draw), read after it was scored once with
# verifier 30.

def test_the_village_of_a_place_is_that_place():
    # the graph holds `place of birth: Chișinău`; both passes: contradicted
    claims = statuses("He is from Moldova and was born in the village of Cetireni", "v26")
    assert claims.get("Cetireni") == "contradicted", claims


def test_a_place_named_as_a_region_is_an_area_not_the_town():
    # the graph holds `place of birth: Butyn` (in Moscow Oblast); both passes: not contradicted
    claims = statuses("Oleg Navalny, the younger brother of Russian opposition leader", "v26")
    assert "contradicted" not in claims.values(), claims


@pytest.mark.parametrize("start, version", [
    ("If you mean Richard Wright of Pink Floyd", "v26"),
    ("If you mean him, he was born on 15 July 1895 in Strasbourg", "v18"),
])
def test_an_aside_about_someone_the_asker_may_mean_contradicts_nothing(start, version):
    # both passes of each: not contradicted (another person's dates and places)
    claims = statuses(start, version)
    assert "contradicted" not in claims.values(), claims


# Verifier 32, from v25 (`grounded` answers to natural questions, fourth draw), read after it was scored once with
# verifier 31: a cited value the sentence denies was called supported.

@pytest.mark.parametrize("start", [
    "Charles, was not a writer",  # citing `occupation: writer`
    "He was not a member of the Church of England",  # citing `religion: Church of England`
])
def test_a_denied_value_is_unsupported_and_contradicted(start):
    # both passes of v25: the citation is not supported, the sentence not fully supported
    sentence = check(start, "v25")
    assert not sentence.fully_supported
    assert all(c.verdict == "unsupported" for c in sentence.citations), sentence.citations
    assert any(c.status == "contradicted" and "denies" in c.reason for c in sentence.claims), sentence.claims


# Ada Madssen as the bundled graph holds her (v19's shown triples)
MADSSEN = [GraphTriple(subject="Q4678280", label="occupation", value="sculptor"),
           GraphTriple(subject="Q4678280", label="place of birth", value="Oslo")]


@pytest.mark.parametrize("answer, expected", [
    ("Ada Madssen was not a sculptor.", "contradicted"),
    ("Ada Madssen was never a sculptor.", "contradicted"),
    ("Ada Madssen was not born in Oslo.", "contradicted"),
    # not a denial of the value: "not only", another verb negated, a reported rumour
    ("Ada Madssen was not only a sculptor but also a painter.", "supported_uncited"),
    ("Ada Madssen should not be confused with another sculptor.", "supported_uncited"),
    ("Rumors said Ada Madssen was not a sculptor.", "supported_uncited"),
])
def test_a_negation_denies_only_the_value_of_its_own_clause(answer, expected):
    value = "Oslo" if "Oslo" in answer else "sculptor"
    checked = Verifier().verify(AnswerInput(question="Who was Ada Madssen?", shown=MADSSEN,
                                            entities=[GraphEntity(id="Q4678280", name="Ada Madssen")],
                                            sentences=[(answer, [])]))
    claims = {c.text: c.status for c in checked.sentences[0].claims}
    assert claims.get(value) == expected, claims


def test_an_apposition_opened_by_also_keeps_the_names_clause():
    # "Simon Thern, also a footballer, was born …": the values are his, not Sweden's (the graph holds Värnamo; both
    # passes of v26: contradicted)
    claims = statuses("Simon Thern, also a footballer, was born on September 18, 1992", "v26")
    assert claims.get("September 18, 1992") == "supported_uncited", claims
    assert claims.get("Falköping") == "contradicted", claims
