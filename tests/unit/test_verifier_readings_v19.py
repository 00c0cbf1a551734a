"""Verifier 19's readings (issue 44), from v11, the labelled set verifier 18 was scored on once: a person's alias of
one word ("Rousseau") before which another given name stands is another person's surname, and a name that opens
another clause after a family word ("After his father left Geneva …, Rousseau was raised") is not that relative."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import statuses


@pytest.mark.parametrize("version, start", [
    # "the son of Isaac Rousseau": Isaac's surname, not Jean-Jacques named as his own father
    ("v11", "Jean-Jacques Rousseau was born on 28 June 1712"),
    # "the fourth of seven children of Rodrigo de Cervantes": the same, across "de"
    ("v11", "Miguel de Cervantes was born in Alcalá de Henares"),
    # a verb and a comma between the family word and the name: another clause's subject
    ("v11", "After his father left Geneva following a quarrel"),
    # a relative pronoun between them: "five children, all of whom Rousseau insisted on leaving"
    ("v11", "They had five children, all of whom Rousseau"),
])
def test_no_one_is_named_as_his_own_relative_by_another_clause_or_name(version, start):
    assert "contradicted" not in statuses(start, version).values(), statuses(start, version)


def test_a_list_after_included_still_names_the_relatives():
    # a committed grounded answer: "Niels Henrik Abel's children included Niels Henrik Abel, Niels Henrik Abel, and
    # Niels Henrik Abel": the verb-and-comma reading does not take "included" (nor a copula), so each of the three
    # names him as his own child, contradicted
    abel = [("Q7480", "Niels Henrik Abel", "instance of", "human"), ("Q7480", "Niels Henrik Abel", "sex or gender",
                                                                     "male")]
    answer = AnswerInput(question="Who was Niels Henrik Abel?",
                         shown=[GraphTriple(subject=i, label=r, value=v) for i, _, r, v in abel],
                         entities=[GraphEntity(id="Q7480", name="Niels Henrik Abel")],
                         sentences=[("Niels Henrik Abel's children included Niels Henrik Abel, Niels Henrik Abel, "
                                     "and Niels Henrik Abel.", [])])
    claims = [c.status for c in Verifier().verify(answer).sentences[0].claims]
    assert claims.count("contradicted") == 3, claims
