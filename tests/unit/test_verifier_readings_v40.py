"""Verifier 40's readings (issue 44), from v32 and v33 (a local model's answers, each scored once before) and twenty of
their answers read by hand.

A held compound occupation holds each of its words said alone ("a singer, songwriter, and record producer" of a
singer-songwriter: "songwriter" was absent), and a pronoun's word written with a capital inside a sentence before a
capitalised word is a name ("He Yan's father was He Sheng", where the graph holds He Gao: it was read as "he" and
missed)."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import statuses


def test_each_word_of_a_held_compound_occupation_is_held():
    claims = statuses("He is an American singer, songwriter, and record producer", "v32")
    assert claims.get("singer") == "supported_uncited", claims
    assert claims.get("songwriter") == "supported_uncited", claims


def _check(sentence: str, held: list[tuple[str, str]]) -> dict[str, str]:
    answer = AnswerInput(
        question="Who was He Yan?",
        shown=[GraphTriple(subject="Q1", label=label, value=value) for label, value in held],
        entities=[GraphEntity(id="Q1", name="He Yan")],
        sentences=[("He Yan was a scholar of the Wei.", []), (sentence, [])])
    return {c.text: c.status for c in Verifier().verify(answer).sentences[-1].claims}


def test_a_surname_written_like_a_pronoun_is_a_name():
    # v33's sentence, against the graph's He Yan (Q45379325) `father: He Gao`
    claims = _check("He Yan's father was He Sheng.", [("father", "He Gao")])
    assert claims.get("He Sheng") == "contradicted", claims
    claims = _check("He Yan had two children: He Shu and He Zhi.", [("child", "He Ge")])
    assert {"He Shu", "He Zhi"} <= set(claims), claims


@pytest.mark.parametrize("sentence, held, text, status", [
    # the sentence's first word stays a pronoun, and so does a lower-case "he"
    ("He was the son of He Gao.", [("father", "He Gao")], "He Gao", "supported_uncited"),
    ("His father was He Gao.", [("father", "He Gao")], "He Gao", "supported_uncited"),
    # a compound of a short word is no pair of values: "left-handedness" does not hold "handedness"
    ("He was known for his handedness.", [("handedness", "left-handedness")], "handedness", "absent"),
])
def test_guards(sentence, held, text, status):
    claims = _check(sentence, held)
    assert claims.get(text) == status, claims
