"""Verifier 41's reading (issue 44), from v34 (a local model's answers, scored once with verifier 40).

Two names are weighed as maybe one person by their words (`claims._names_share_word`); a given name of two letters
was dropped there, so "Cao Pi" was "Cao" alone, which the held father Cao Shiliang shares: "Cao Ang's father was Cao
Pi" was not contradicted. A two-letter word written with a capital now counts; "de", "la" still do not."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.claims import _words
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple


def _father_claims(sentence: str) -> dict[str, str]:
    # the graph's Cao Ang (Q45558903) holds `father: Cao Shiliang`
    answer = AnswerInput(question="Who was Cao Ang's father?",
                         shown=[GraphTriple(subject="Q45558903", label="father", value="Cao Shiliang")],
                         entities=[GraphEntity(id="Q45558903", name="Cao Ang")], sentences=[(sentence, [])])
    return {c.text: c.status for c in Verifier().verify(answer).sentences[0].claims}


@pytest.mark.parametrize("sentence, text, status", [
    ("Cao Ang's father was Cao Pi.", "Cao Pi", "contradicted"),
    ("Cao Ang's father was Cao Xuan.", "Cao Xuan", "contradicted"),
    ("Cao Ang's father was Cao Shiliang.", "Cao Shiliang", "supported_uncited"),
])
def test_a_two_letter_given_name_tells_two_names_apart(sentence, text, status):
    claims = _father_claims(sentence)
    assert claims.get(text) == status, claims


def test_two_letter_words_of_a_name():
    assert list(_words("Cao Pi.")) == ["cao", "pi"]
    assert list(_words("Jan de Witt")) == ["jan", "witt"]
    assert list(_words("Steenfeldt-Foss")) == ["steenfeldt", "foss"]
