"""Verifier 35's readings (issue 44), from v29 (chatbot answers on birth, death and family, fifth draw), read after it
was scored once with verifier 34.

"If you instead mean …" opens an aside; a building the graph cannot place ("Henry Ford Hospital") may lie in the held
town; a place followed by ", <the held place in another spelling>" lies in it ("Wuxi, Jiangsu Province" where the graph
holds Kiangsu); "after contracting typhus" says the cause of death; "honestly … wouldn't want to guess" is talk."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import statuses


@pytest.mark.parametrize("start", [
    "If you instead mean Shah Shuja Durrani",  # another person's father: both passes, not contradicted
    "He died of complications from pneumonia at Henry Ford Hospital",  # the graph holds Detroit: not contradicted
    "Qian Jibo was born in 1887 in Wuxi, Jiangsu Province",  # the graph holds the name Kiangsu: not contradicted
])
def test_asides_buildings_and_places_inside_the_held_one_contradict_nothing(start):
    claims = statuses(start, "v29")
    assert "contradicted" not in claims.values(), claims


@pytest.mark.parametrize("start", [
    "He died in Philadelphia on April 19, 1813, after contracting typhus",  # `cause of death: typhus`
    "I'm honestly not certain of her birthplace",  # the answerer's talk: nothing stated
])
def test_held_in_other_words_or_no_claim(start):
    # both passes: fully held
    claims = statuses(start, "v29")
    assert all(s in ("supported", "supported_uncited") for s in claims.values()), claims
