"""Verifier 37's readings (issue 44), from ten answers of v30 read by hand with verifier 36's verdicts.

"The son of Thutmose III and his queen V" names V his queen and the subject's mother: held where the graph holds her
as the subject's mother (verifier 34 had stopped weighing her as another parent, and left her absent); and "Calcutta
(now Kolkata)", where the graph holds Kolkata with the alias Calcutta, names Kolkata again rather than "Kolkata,
other name: Kolkata"."""

from __future__ import annotations

from kalma_graph.verification import Verifier
from kalma_graph.verification.records import AnswerInput, GraphEntity, GraphTriple
from tests.unit.test_verifier_readings_v12_v13 import statuses


def test_a_parents_spouse_named_with_his_is_the_subjects_mother_where_held():
    # the graph holds Amenhotep II `mother: Merytre-Hatshepsut`
    claims = statuses("Amenhotep II was the son of the pharaoh Thutmose III and his queen", "v28")
    assert claims.get("Merytre-Hatshepsut") == "supported_uncited", claims


def test_a_held_place_named_again_after_its_old_name_is_no_other_name_of_itself():
    answer = AnswerInput(
        question="Where was Rabindranath Tagore born?",
        shown=[GraphTriple(subject="Q7241", label="place of birth", value="Kolkata", object_id="Q1348")],
        entities=[GraphEntity(id="Q7241", name="Rabindranath Tagore"),
                  GraphEntity(id="Q1348", name="Kolkata", aliases=("Calcutta",))],
        sentences=[("Rabindranath Tagore was born in Calcutta (now Kolkata).", [])])
    claims = {c.text: c for c in Verifier().verify(answer).sentences[0].claims}
    assert claims["Calcutta"].status == "supported_uncited", claims
    assert claims["Kolkata"].status == "supported_uncited", claims
    assert claims["Kolkata"].evidence != "Kolkata, other name: Kolkata", claims
