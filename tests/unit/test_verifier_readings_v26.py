"""Verifier 26's readings (issue 44), from v17 (`grounded`, scored once with verifier 25) and the earlier sets: the
question's words are claims when the answer states them ("his father's baritone voice" asked, "his father was a
baritone" answered); words that frame a person's story ("career", "family background", "currently") make no claim;
and a held value wider than the cited one by a word after it ("a Byzantine emperor", citing citizenship) is that
value, uncited."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("start, version", [
    # the question asked of "his father's baritone voice": both passes, not fully held
    ("Claude Nougaro's father, Pierre Nougaro, was a baritone", "v17"),
    # the question's "top football leagues", an evaluation of the Bundesliga
    ("Brian Laudrup became an association football player and played in one", "v17"),
    # the question's "professional", and "served in the United States Senate" (a position the citation does not hold)
    ("He is a professional tennis player", "v2"),
    ("Lincoln Chafee's father John Chafee served in the United States Senate", "v9"),
    ("Pedro Montt was a politician who graduated in law", "v9"),
    # an evaluation the question says is still one: "most notable"
    ("Daphne du Maurier's most notable work is Rebecca", "v10"),
])
def test_the_questions_words_are_claims(start, version):
    assert not check(start, version).fully_supported


@pytest.mark.parametrize("start, version", [
    ("Whitney Houston's career has been in the pop and rhythm and blues genres", "v3"),
    ("Michael VIII Palaiologos's family background was noble", "v10"),
    ("Lucy Hawking currently resides in Kiribati", "v11"),
])
def test_words_that_frame_a_story_make_no_claim(start, version):
    # both passes: fully held
    assert check(start, version).fully_supported


@pytest.mark.parametrize("start, version, text", [
    # citing `country of citizenship: Byzantine Empire`; the graph holds `position held: Byzantine emperor`, uncited
    ("Justinian II was a Byzantine emperor", "v17", "Byzantine emperor"),
    # citing `occupation: Caliph`; the graph holds `position held: caliph of Córdoba`, uncited
    ("Al-Hakam II was a Caliph of Cordoba", "v16", "Caliph of Cordoba"),
])
def test_a_held_value_wider_after_the_cited_one_is_not_cited(start, version, text):
    sentence = check(start, version)
    assert {c.text: c.status for c in sentence.claims}.get(text) == "supported_uncited", sentence.claims
    assert not sentence.fully_supported


def test_the_cited_relations_own_cue_after_its_value_is_its_wording():
    # "a tennis player", citing `sport: tennis` ("play" is a cue of `sport`): both passes of v16, fully held
    assert check("Yannick Noah is a tennis player", "v16").fully_supported
    claims = statuses("Yannick Noah is a tennis player", "v16")
    assert "supported_uncited" not in claims.values(), claims
