"""Verifier 27's readings (issue 44), from v19 (`grounded` answers to natural questions of our own) and v20 (a
chatbot's answers to them), both scored once with verifier 26: a life span after the name that opens a sentence
("Alessandro Marcello (1673 to 1747)") states the birth and death years; an item the graph names nowhere ("place of
burial: Q311") contradicts nothing; "known for" is an evaluation, never a relation's cue; "share" is the answerer's
talk; "taught at X" is a role beside `employer`, as "a professor at X"."""

from __future__ import annotations

import pytest

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import check, statuses


def test_a_life_span_that_differs_from_the_held_dates_is_contradicted():
    # the graph holds born 1684, died 1750: both passes of v20 call it contradicted
    claims = statuses("Alessandro Marcello (1673 to 1747) was an Italian nobleman", "v20")
    assert claims.get("1673") == "contradicted" and claims.get("1747") == "contradicted", claims


def test_a_relatives_life_span_mid_sentence_is_no_claim_on_dates():
    # the graph's Randolph Churchill is born 1911, a namesake of Winston's father: neither pass of v5 calls it
    # contradicted
    claims = statuses("He was named after his grandfather, the Victorian politician Lord Randolph Churchill", "v5")
    assert "contradicted" not in claims.values(), claims


# Ada Madssen as the bundled graph holds her (v19's shown triples)
MADSSEN = [GraphTriple(subject="Q4678280", label="date of birth", value="1917-02-09"),
           GraphTriple(subject="Q4678280", label="date of death", value="2009-09-22"),
           GraphTriple(subject="Q4678280", label="occupation", value="sculptor")]


@pytest.mark.parametrize("answer, expected", [
    ("Ada Madssen (1917 to 2009) was a sculptor.", {"1917": "supported_uncited", "2009": "supported_uncited"}),
    ("Ada Madssen (9 February 1917 – 22 September 2009) was a sculptor.",
     {"9 February 1917": "supported_uncited", "22 September 2009": "supported_uncited"}),
    ("Ada Madssen (1915–2009) was a sculptor.", {"1915": "contradicted", "2009": "supported_uncited"}),
    # a range after a verb is no life span: "worked (1915 to 1920)" states neither date
    ("Ada Madssen worked (1915 to 1920) as a sculptor.", {"1915": "absent", "1920": "absent"}),
])
def test_a_life_span_states_birth_and_death(answer, expected):
    checked = Verifier().verify(AnswerInput(question="Who was Ada Madssen?", shown=MADSSEN,
                                            entities=[GraphEntity(id="Q4678280", name="Ada Madssen")],
                                            sentences=[(answer, [])]))
    claims = {c.text: c.status for c in checked.sentences[0].claims}
    assert {k: claims.get(k) for k in expected} == expected, claims


def test_an_item_the_graph_names_nowhere_contradicts_nothing():
    # Jim Morrison: the graph holds `place of burial: Q311`, an item without a name; both passes: not contradicted
    claims = statuses("He was 27, and he is buried in Pere Lachaise Cemetery in Paris", "v20")
    assert "contradicted" not in claims.values(), claims


@pytest.mark.parametrize("start, version", [
    # both passes of v19 and of v17: "known for" praises; the genres are cited
    ("Drake is an actor, entrepreneur, film actor", "v19"),
    ("Claude Nougaro's discography, is known for its chanson style", "v17"),
])
def test_known_for_is_an_evaluation(start, version):
    sentence = check(start, version)
    assert not sentence.fully_supported
    assert any(c.kind == "evaluation" for c in sentence.claims), sentence.claims


def test_offering_to_share_is_talk():
    # both passes of v20: fully held (it states nothing)
    assert check("If you can tell me which Zhang Hu you mean", "v20").fully_supported


@pytest.mark.parametrize("start, version", [
    # citing `employer: Rutgers University` alone: both passes of v19, not fully supported (teaching is a role)
    ("Kenny Barron taught at Rutgers University", "v19"),
    ("He was taught first by his father, Adam Liszt", "v2"),
])
def test_teaching_is_a_role_of_its_own(start, version):
    sentence = check(start, version)
    assert not sentence.fully_supported
    assert any(c.text == "taught" and c.status == "absent" for c in sentence.claims), sentence.claims
