"""Verifier 33's readings (issue 44), from v27 (chatbot answers on birth, death and family, third draw), read after
it was scored once with verifier 32: both contradictions it missed and the one sentence it held wrongly.

A part of a longer name is no vaguer value when the run of capitalised words it stands in has a word the value lacks
("Silanus" of "Marcus Junius Silanus" is not Lucius Junius Silanus Manlianus; "Bose" of "Subhas Chandra Bose" not
Sarat Chandra Bose), a word spelled like the value's excepted ("Michal" for "Michał"); a sentence opened by an
article and lower-case words before its first name is still that person's ("The best-known Decimus Junius Silanus,
…, was the son of V"); a relative the graph names as the person is named ("father: William Adams" of William Adams)
is not named by the person's own name, so "his father was John Adams" contradicts it. v28's rules settle that an
answer about a more famous namesake states its values of the person asked about (v18's passes, made before, did
not)."""

from __future__ import annotations

from tests.unit.test_verifier_readings_v12_v13 import check, statuses


def test_a_namesakes_father_named_in_a_sentence_opened_by_an_article_is_contradicted():
    # the graph holds `father: Lucius Junius Silanus Manlianus` and `child: Marcus Junius Silanus`; both passes:
    # contradicted (verifier 32 read "Silanus" as a vaguer Lucius Junius Silanus Manlianus, supported)
    claims = statuses("The best-known Decimus Junius Silanus, consul in 62 BC", "v27")
    assert claims.get("Marcus Junius Silanus") == "contradicted", claims


def test_a_father_named_as_the_person_is_not_named_by_the_persons_own_name():
    # the graph holds William Adams `father: William Adams`; both passes: contradicted
    claims = statuses("William Adams, the English navigator who became a samurai", "v27")
    assert claims.get("John Adams") == "contradicted", claims


def test_a_family_name_inside_another_full_name_is_not_the_held_relative():
    # the graph holds `child: Sarat Chandra Bose`; both passes: not fully held
    sentence = check("Janakinath Bose, the lawyer who was the father of Subhas Chandra Bose", "v27")
    assert not sentence.fully_supported
    assert {c.text: c.status for c in sentence.claims}.get("Subhas Chandra Bose") == "absent", sentence.claims


def test_a_name_spelled_without_its_diacritic_is_still_the_value():
    # citing `father: Michał Hieronim Radziwiłł`: both passes of v9 call it supported
    sentence = check("Antoni Radziwiłł's parents were Michal Hieronim Radziwiłł", "v9")
    assert sentence.citations[0].verdict == "supported", sentence.citations
