"""The verifier where other evaluators stand: the SCK KG-AttrScore judge, the CAQA evaluator, and stage two
(structure + the real MiniLM NLI model, calibrated on pairs generated from the bundled BioKaLMA graph)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kalma_graph.kg.triples import Triple
from tests.conftest import NLI_MODEL, needs_nli

DUMPS = Path(__file__).resolve().parents[2] / "dumps"
SCHILLER = [Triple("Q22670", "P19", "place of birth", "Marbach am Neckar", object_id="Q3806"),
            Triple("Q22670", "P106", "occupation", "poet", object_id="Q49757"),
            Triple("Q22670", "P737", "influenced by", "Immanuel Kant", object_id="Q9312")]


def test_the_sck_verifier_judge_finds_attributable_contradictory_and_extrapolatory_sentences():
    from kalma_graph.sck.judges import VerifierAttributionJudge
    from kalma_graph.sck.kg_attr import ATTRIBUTABLE, CONTRADICTORY, EXTRAPOLATORY, SentenceEvidence

    evidence = SentenceEvidence(sentence_ids=("Q22670",), ids=("Q22670",), context=tuple(SCHILLER),
                                names={"Q22670": "Friedrich Schiller", "Q9312": "Immanuel Kant"})
    judged = VerifierAttributionJudge().judge("Who was Friedrich Schiller?", [
        ("Friedrich Schiller was a poet influenced by Immanuel Kant.", evidence),
        ("Friedrich Schiller was born in Jena.", evidence),
        ("Friedrich Schiller was a poet who lived in Weimar.", evidence),
        ("He wrote plays.", SentenceEvidence(sentence_ids=(), ids=())),
    ])
    assert [j.label for j in judged] == [ATTRIBUTABLE, CONTRADICTORY, EXTRAPOLATORY, EXTRAPOLATORY]
    assert "Marbach am Neckar" in judged[1].rationale and "Weimar" in judged[2].rationale


def test_the_caqa_verifier_evaluator_reads_the_citation_triples_as_the_graph():
    from kalma_graph.caqa.evaluators import make_evaluator
    from kalma_graph.caqa.model import CONTRADICTORY, IRRELEVANT, PARTIAL, SUPPORTIVE, Sample

    def sample(statement: str, triples: list[list[str]]) -> Sample:
        return Sample.from_dict({"id": "s", "query_key": "k", "kb": "wikidata", "split": "test", "question": "q",
                                 "extended_question": None, "answer": [], "answer_ids": [],
                                 "answer_statement": statement,
                                 "citation": "", "category": "", "complexity": "single", "triples": triples,
                                 "facts": [], "query": {}, "group_size": 1})

    evaluator = make_evaluator("verifier")
    triples = [["United States of America", "head of state", "Donald Trump"]]
    labels = [j.label for j in evaluator.judge([
        sample("The head of state of United States of America is Donald Trump.", triples),
        sample("The head of state of United States of America is Joe Biden.", triples),
        sample("The head of state of United States of America is Donald Trump and the capital is Boston.", triples),
        sample("Paris is a city.", triples),
    ])]
    assert labels == [SUPPORTIVE, CONTRADICTORY, PARTIAL, IRRELEVANT]
    assert evaluator.supported(["a fact"], ["a citation"]) == [None]  # text citations: unjudged, never guessed


def test_generated_pairs_have_every_kind_and_stage_one_mostly_agrees_with_them():
    from kalma_graph.nli.verifier_pairs import KINDS, read_biokalma_graph, verifier_pairs
    from kalma_graph.verification import Verifier

    records = read_biokalma_graph(DUMPS / "biokalma" / "complex_question_graph.json.gz")
    pairs = verifier_pairs(records, split="test")
    assert {p.kind for p in pairs} == set(KINDS) and verifier_pairs(records, split="test") == pairs  # deterministic
    verifier = Verifier()
    right = sum((verifier.verify(p.answer).sentences[0].citations[0].verdict == "supported")
                == bool(p.label) for p in pairs)
    assert right / len(pairs) > 0.85, right / len(pairs)


@needs_nli
def test_stage_two_loads_its_weights_for_the_model_they_were_fitted_for_and_refuses_another():
    from kalma_graph.models.nli import load_nli
    from kalma_graph.verification import AnswerInput, CitedTriple, GraphEntity, GraphTriple, Verifier
    from kalma_graph.verification.calibration import CalibrationError, Calibrator, fit_logistic

    nli = load_nli(NLI_MODEL, cache=None)
    try:
        calibrated = Verifier(calibrator=Calibrator.load(nli))
        answer = AnswerInput(
            sentences=[("Friedrich Schiller was a poet.",
                        [CitedTriple(subject="Q22670", relation="occupation", value="poet")]),
                       ("Friedrich Schiller was born in Jena.",
                        [CitedTriple(subject="Q22670", relation="place of birth", value="Marbach am Neckar")])],
            shown=[GraphTriple(subject=t.subject, label=t.label, value=t.value, object_id=t.object_id)
                   for t in SCHILLER],
            entities=[GraphEntity(id="Q22670", name="Friedrich Schiller")])
        cites = calibrated.verify(answer).citations
        assert [c.stage for c in cites] == ["model", "model"]
        assert cites[0].verdict == "supported" and cites[1].verdict == "unsupported" and "entailment" in cites[1].reason

        class Other:
            model_hash = "0" * 64

            def entailment_prob(self, premises, hypotheses):
                return [0.5] * len(premises)
        with pytest.raises(CalibrationError):
            Calibrator.load(Other())
    finally:
        nli.close()
    weights = fit_logistic([[0.0], [0.1], [0.9], [1.0]], [0, 0, 1, 1], l2=0.1)
    assert weights[0] > 0  # a feature that separates the labels gets a positive weight
