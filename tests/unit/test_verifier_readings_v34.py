"""Verifier 34's readings (issue 44), from v28 (chatbot answers on birth, death and family, fourth draw), read after
it was scored once with verifier 33, and from v24r (v24 labelled again under v28's rules).

"The son of Thutmose III and his queen V" names V as his queen, not a parent to weigh against the graph's; a person's
one-word alias right beside another capitalised word is part of another name ("Bach" in "Anna Magdalena Bach", not
Johann Sebastian); "If you meant …" opens an aside that contradicts nothing, however its value is judged; "His son,
X, consul in 140 BC, died …" is said of X; a place name sharing a word with the held one is not another spelling of it
("San Anselmo" for San Francisco); "28 years old" is an age; "I'd recommend checking a reliable source" is talk; and
"Bombay, now Mumbai", "Mumbai (then Bombay), India" name the held place by another name."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import check, statuses


def _claims(sentence: str, shown: list[GraphTriple], entities: list[GraphEntity]) -> dict[str, str]:
    answer = AnswerInput(question="Who were his parents?", shown=shown, entities=entities, sentences=[(sentence, [])])
    return {c.text: c.status for c in Verifier().verify(answer).sentences[0].claims}


def test_a_parents_queen_named_with_his_is_not_weighed_as_another_parent():
    # v28, as `kalma-graph verify` read it against the store (the graph holds Thutmose III's own parents); both
    # passes: not contradicted
    claims = _claims("Amenhotep II was the son of the pharaoh Thutmose III and his queen Merytre-Hatshepsut.", [
        GraphTriple(subject="Q158052", label="father", value="Thutmose III", object_id="Q157899"),
        GraphTriple(subject="Q158052", label="mother", value="Merytre-Hatshepsut"),
        GraphTriple(subject="Q157899", label="father", value="Thutmose II", object_id="Q157900"),
        GraphTriple(subject="Q157899", label="mother", value="Iset"),
        GraphTriple(subject="Q157899", label="instance of", value="human"),
        GraphTriple(subject="Q158052", label="instance of", value="human")],
        [GraphEntity(id="Q158052", name="Amenhotep II"), GraphEntity(id="Q157899", name="Thutmose III")])
    assert claims.get("Merytre-Hatshepsut") not in (None, "contradicted"), claims


def test_a_one_word_alias_inside_another_name_is_not_that_person():
    # v28: "Bach", an alias of Johann Sebastian Bach (no subject of the answer's graph), inside "Anna Magdalena Bach"
    # had made her "Johann Sebastian Bach's own relative" (contradicted); both passes: not contradicted
    claims = _claims("Johann Christian Bach was the youngest son of Johann Sebastian Bach and his second wife, "
                     "Anna Magdalena Bach (née Wilcke).", [
                         GraphTriple(subject="Q106641", label="father", value="Johann Sebastian Bach",
                                     object_id="Q1339"),
                         GraphTriple(subject="Q106641", label="mother", value="Anna Magdalena Bach"),
                         GraphTriple(subject="Q106641", label="instance of", value="human")],
                     [GraphEntity(id="Q106641", name="Johann Christian Bach"),
                      GraphEntity(id="Q1339", name="Johann Sebastian Bach", aliases=("Bach",))])
    assert claims.get("Anna Magdalena Bach") not in (None, "contradicted"), claims


def test_an_aside_opened_by_if_you_meant_contradicts_nothing():
    # both passes: not contradicted ("Antoninus Pius" was contradicted as a parent of the graph's Faustina)
    claims = statuses("If you meant Faustina the Younger", "v28")
    assert "contradicted" not in claims.values(), claims


def test_a_name_between_commas_before_a_second_appositive_is_the_subject():
    # the graph holds Gaius Laelius Sapiens `date of death: -0147`; both passes: contradicted
    claims = statuses("His son, Gaius Laelius Sapiens, consul in 140 BC", "v28")
    assert claims.get("129 BC") == "contradicted", claims


def test_a_place_sharing_only_a_word_with_the_held_one_is_another_place():
    # the graph holds `place of death: San Francisco`; both passes: contradicted
    claims = statuses("Ali Akbar Khan, the great sarod master, died on 18 June 2009", "v28")
    assert claims.get("San Anselmo") == "contradicted", claims


@pytest.mark.parametrize("start", [
    "Stephen Crane was just 28 years old when he died",  # born 1871, died 1900-06-05
    "I'm not confident about his exact birth date or birthplace",  # talk: "I'd recommend checking a reliable source"
    "I'm not sure about her father's name, so I'd rather not guess",
])
def test_ages_after_their_number_and_the_answerers_advice_are_held_or_no_claim(start):
    # both passes: fully held (every claim held by the graph, uncited; verifier 33 found "28", "years old",
    # "recommend checking" and "guess" absent)
    claims = statuses(start, "v28")
    assert all(s in ("supported", "supported_uncited") for s in claims.values()), claims


@pytest.mark.parametrize("start, version", [
    # (v24r's "Mumbai (then Bombay), India" too, with the store's containment: measured by bench/verifier_eval_v2.py)
    ("Abhishek Bachchan was born on 5 February 1976 in Bombay, now Mumbai, India", "v28"),
])
def test_a_place_named_by_its_other_name_is_held_as_the_place(start, version):
    # the graph holds `place of birth: Mumbai` and Mumbai `country: India`; both passes: fully held
    claims = check(start, version).claims
    assert all(c.status in ("supported", "supported_uncited") for c in claims), claims
    assert any(c.relation == "other name" for c in claims), claims

