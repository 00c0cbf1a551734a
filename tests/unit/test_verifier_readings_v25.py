"""Verifier 25's readings (issue 44), from v18 (chatbot answers on birth, death and parents), scored once with
verifier 24, and from what verifier 24 changed over every committed answer: an answerer's talk about what it knows
("I don't have reliable information on his parents' names") states nothing; a bare three-digit number that is the held
year is no other date; and a nation the graph lists (Cambodia) may hold a birthplace it cannot locate."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("start, version", [
    ("I don't have reliable information on his parents' names", "v18"),
    ("I don't have reliable information about anyone named Ernest Revenu", "v18"),
    ("If you can tell me more about who he was, I can try to help further", "v18"),
    ("If you mean a different Karl von Friedeburg, I don't have reliable details", "v18"),
])
def test_the_answerers_talk_states_nothing(start, version):
    # both passes: fully held (nothing to hold)
    assert check(start, version).fully_supported


def test_a_claim_beside_the_talk_still_counts():
    # "still alive": both passes of v18, not fully held
    claims = statuses("As far as I know he is still alive", "v18")
    assert any("alive" in text and status == "absent" for text, status in claims.items()), claims


def test_a_three_digit_held_year_is_no_other_date():
    # Hormizd III: the graph holds 0459; "killed in 459" had been contradicted by it
    claims = statuses("He was overthrown and killed in 459 by his brother Peroz I", "v18")
    assert "contradicted" not in claims.values(), claims


def test_a_listed_nation_holds_an_unlocated_birthplace():
    # Ang Duong: the graph holds Udong, which it cannot locate; "born … in Cambodia" is vaguer, not another place
    claims = statuses("Ang Duong was born and grew up in Cambodia", "v8")
    assert claims.get("Cambodia") == "absent", claims


def test_a_relative_the_answerer_does_not_know_is_no_claim():
    # "I don't reliably know his mother's name": no mother is said; the father and his trade still are claims
    claims = statuses("His father was the musician Anton Romberg, a bassoonist", "v18")
    assert not any("mother" in text for text in claims), claims
    assert claims.get("Anton Romberg") == "absent", claims
