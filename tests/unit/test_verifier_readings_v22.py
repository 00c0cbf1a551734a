"""Verifier 22's readings (issue 44), from v15 (chatbot answers on birth, death and parents), scored once with
verifier 21: a year after "after" or "before" as a bound, not the date; a word that modifies what follows ("a Roman
senator") as no parent's name; a place the graph locates said where it holds another spelling it cannot locate
("Chengdu" for Chengtu); and "strangled" as a word for death."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import statuses


@pytest.mark.parametrize("start", [
    # the held 1587 is after 1565
    "The date and place of her death are not known for certain",
    # "a Roman senator": Roman modifies senator; the graph's father (Junius Licinius Balbus) is not contradicted
    "His father was a Roman senator whose name is uncertain",
])
def test_v15_sentences_not_contradicted(start):
    claims = statuses(start, "v15")
    assert "contradicted" not in claims.values(), claims


def test_strangled_on_a_date_is_a_date_of_death():
    # Mustafa IV: the graph holds 1808-11-17; "strangled … on 16 November 1808" had read as no death at all
    claims = statuses("He was deposed in July 1808 and was strangled", "v15")
    assert claims.get("16 November 1808") == "contradicted", claims


@pytest.mark.parametrize("said, held, status", [
    # v15: Zhong Hui died in Chengtu, as the graph spells it and cannot locate; "Chengdu", which it locates, is that
    # place spelled otherwise (0.86 of letters in common runs)
    ("Chengdu", "Chengtu", "absent"),
    # v9: Cornelis Tromp died in Rotterdam; "Amsterdam" shares "terdam" (0.67) but is another city (v9's passes:
    # contradicted)
    ("Amsterdam", "Rotterdam", "contradicted"),
])
def test_another_spelling_of_an_unlocated_held_place(said, held, status):
    shown = [GraphTriple(subject="Q1", label="place of death", value=held, object_id="Q2"),
             GraphTriple(subject="Q1", label="instance of", value="human"),
             GraphTriple(subject="Q3", label="country", value="Somewhere", object_id="Q4")]
    answer = AnswerInput(question="Where did Zhong Hui die?", shown=shown,
                         entities=[GraphEntity(id="Q1", name="Zhong Hui"), GraphEntity(id="Q3", name=said)],
                         sentences=[(f"Zhong Hui died in {said}.", [])])
    claims = {c.text: c.status for c in Verifier().verify(answer).sentences[0].claims}
    assert claims.get(said) == status, claims
