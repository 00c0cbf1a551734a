"""Verifier 19's readings (issue 44), from v11, the labelled set verifier 18 was scored on once: a person's alias of
one word ("Rousseau") before which another given name stands is another person's surname; a name that opens another
clause after a family word ("After his father left Geneva …, Rousseau was raised") is not that relative; "the son and
successor of V" makes V the father; "his tomb, described in V" gives V no place of burial."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import statuses

ROUSSEAU = "Jean-Jacques Rousseau was born on 28 June 1712 in Geneva"


@pytest.mark.parametrize("entity, name, alias, sentence", [
    # v11 (the store gives each its Wikidata alias of one word): "the son of Isaac Rousseau" is Isaac's surname, not
    # Jean-Jacques named as his own father; "children of Rodrigo de Cervantes" the same, across "de"
    ("Q6527", "Jean-Jacques Rousseau", "Rousseau", f"{ROUSSEAU}, the son of Isaac Rousseau, a watchmaker, and "
                                                   "Suzanne Bernard, who died just nine days after his birth."),
    ("Q5682", "Miguel de Cervantes", "Cervantes", "Miguel de Cervantes was born in Alcalá de Henares, probably on 29 "
     "September 1547, the fourth of seven children of Rodrigo de Cervantes, a struggling barber-surgeon, and Leonor "
     "de Cortinas."),
    # a verb and a comma between the family word and the name: another clause's subject
    ("Q6527", "Jean-Jacques Rousseau", "Rousseau", "After his father left Geneva following a quarrel, Rousseau was "
                                                   "raised by relatives."),
    # a relative pronoun between them
    ("Q6527", "Jean-Jacques Rousseau", "Rousseau", "They had five children, all of whom Rousseau insisted on leaving "
                                                   "at the Paris Foundling Hospital."),
])
def test_a_one_word_alias_names_no_one_as_his_own_relative(entity, name, alias, sentence):
    answer = AnswerInput(question=f"Tell me about {name}'s family.",
                         shown=[GraphTriple(subject=entity, label="sex or gender", value="male"),
                                GraphTriple(subject=entity, label="instance of", value="human")],
                         entities=[GraphEntity(id=entity, name=name, aliases=(alias,))],
                         sentences=[(f"{name} was a writer.", []), (sentence, [])])
    claims = {c.text: c.status for c in Verifier().verify(answer).sentences[-1].claims}
    assert "contradicted" not in claims.values(), claims


@pytest.mark.parametrize("version, start", [
    # "the son and successor of Shalmaneser I": "of" after "son and successor" makes V his father, as held (it read
    # as "son" alone, an inverted father)
    ("v11", "He was the son and successor of Shalmaneser I"),
    ("v11", "He was the son and successor of Adad-nirari II"),
    # "his tomb, described in the Abbott Papyrus": a comma and a participle open another clause (only "and" shares
    # the cue's value: "born and raised in V")
    ("v11", "He is best known not for his reign"),
])
def test_no_inverted_father_nor_burial_in_another_clause(version, start):
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
