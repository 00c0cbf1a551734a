"""Verifier 38's readings (issue 44), from the sentences the passes of v28-v31 call fully held that verifier 37 did
not, and from v30's ten answers read by hand.

The answerer's talk ("I believe in Darmstadt", "I'd rather not guess and give you wrong names") and the frame
"originally from", "having been born" state nothing; a name written in another spelling ("Queen Ashi Kesang Choden
Wangchuck" for the held Kesang Choden Wangchuk, "Ramondina di Ventimiglia" for Raimondina Ventimiglia) names the
held value, while a name with a longer difference ("Barbara Engelke" for Barbara Engel) stays another name."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from kalma_graph.verification.text import find_spelled, one_letter_off, tokenize
from tests.unit.test_verifier_readings_v12_v13 import check, statuses


@pytest.mark.parametrize("start, version", [
    ("Helene Christaller, the German writer, was born on 31 January 1872, I believe in Darmstadt", "v28"),
    ("He is originally from Belgium, having been born in Brussels", "v29"),
])
def test_talk_and_frame_words_make_no_claim(start, version):
    sentence = check(start, version)
    assert sentence.claims and all(c.status == "supported_uncited" for c in sentence.claims), sentence.claims


def test_a_talk_sentence_has_no_claim_at_all():
    sentence = check("I'd rather not guess and give you wrong names", "v31")
    assert sentence.claims == []


@pytest.mark.parametrize("word, want, alike", [
    ("michał", "michal", True), ("wangchuck", "wangchuk", True), ("ramondina", "raimondina", True),
    ("engelke", "engel", False), ("maria", "marta", False), ("martin", "martina", True), ("abcdef", "abcdfe", False),
    ("wangchuk", "xangchuk", False),  # the first letter kept
])
def test_one_letter_off(word, want, alike):
    assert one_letter_off(word, want) is alike


def test_another_spelling_needs_one_word_as_written():
    tokens = tokenize("She married Ramondina di Ventimiglia and Raimondo Wentimiglia.")
    assert find_spelled(tokens, ("raimondina", "ventimiglia"), frozenset({"di"})) == [(2, 5)]
    assert find_spelled(tokens, ("raimonda", "ventimiglia"), frozenset({"di"})) == []


def test_a_parent_named_in_another_spelling_is_held():
    claims = statuses("Jigme Singye Wangchuck, the fourth King of Bhutan, is the son of", "v30")
    assert claims.get("Queen Ashi Kesang Choden Wangchuck") == "supported_uncited", claims
    claims = statuses("Leonardo III Tocco, the last ruler of the Despotate of Epirus", "v30")
    assert claims.get("Ramondina di Ventimiglia") == "supported_uncited", claims


def test_a_name_two_letters_off_is_still_another_mother():
    answer = AnswerInput(
        question="Who are Hannah Herzsprung's parents?",
        shown=[GraphTriple(subject="Q1", label="mother", value="Barbara Engel", object_id="Q2")],
        entities=[GraphEntity(id="Q1", name="Hannah Herzsprung"), GraphEntity(id="Q2", name="Barbara Engel")],
        sentences=[("Her mother is Barbara Engelke.", [])])
    claims = {c.text: c.status for c in Verifier().verify(answer).sentences[0].claims}
    assert claims.get("Barbara Engelke") != "supported_uncited", claims
