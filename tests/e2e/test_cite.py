"""Citation strategies (`--cite`): the attribute-first rewrite and prompt, post-hoc citation with the
real offline NLI model, and each strategy end to end with the packaged GGUF on the real sample graph."""

from __future__ import annotations

import json

import pytest

from kalma_graph.generation.grammar import GrammarChecker, build_citation_grammar
from kalma_graph.generation.prompt import load_answer_prompt
from kalma_graph.kg.citations import parse_answer
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.models.llm import GenerationParams
from kalma_graph.pipeline.answer import answer_questions, header_path, question_from_text, read_records
from kalma_graph.pipeline.cite import (
    candidate_triples,
    from_attribute_first,
    place_citations,
    strip_marks,
    to_attribute_first,
)
from kalma_graph.pipeline.strategies import strategy
from tests.conftest import NLI_MODEL as NLI_PATH
from tests.e2e.test_answer import _check_schema, llm  # noqa: F401
from tests.e2e.test_retrieval_linking import ner, sample_store, sample_store_path  # noqa: F401

CRANE = Entity("Q206534", name="Stephen Crane")
CRANE_TRIPLES = [
    Triple("Q206534", "P19", "place of birth", "Newark", object_id="Q25395"),
    Triple("Q206534", "P20", "place of death", "Badenweiler", object_id="Q506418"),
    Triple("Q206534", "P106", "occupation", "novelist", object_id="Q6625963"),
    Triple("Q206534", "P569", "date of birth", "1871-11-01", datatype="time"),
]


@pytest.mark.parametrize("variant", ["general", "specific", "paper"])
def test_attribute_first_prompt_is_table_13_rewritten(variant):
    base = load_answer_prompt(variant, f"kalma/answer_{variant}")
    derived = load_answer_prompt(variant, f"kalma/answer_{variant}_attribute_first")
    assert derived["demo"]["answer"] == to_attribute_first(base["demo"]["answer"])
    assert derived["demo"]["entities"] == base["demo"]["entities"]
    assert derived["instruction"].startswith(base["instruction"])
    # Rewritten back, the demonstration cites exactly what Table 13 cites.
    original = parse_answer(base["demo"]["answer"])
    back = parse_answer(from_attribute_first(derived["demo"]["answer"]))
    assert [c.triple for c in back.citations] == [c.triple for c in original.citations]
    assert [s.clean_text for s in back.sentences] == [s.clean_text for s in original.sentences]


def test_attribute_first_demo_is_accepted_by_its_grammar():
    prompt = load_answer_prompt("specific", "kalma/answer_specific_attribute_first")
    entities = [Entity(r["qid"], name=r["name"]) for r in prompt["demo"]["entities"]]
    triples = [Triple(r["qid"], "", label, value) for r in prompt["demo"]["entities"]
               for label, value in r["statements"]]
    grammar = build_citation_grammar(entities, triples, mode="attribute_first")
    assert GrammarChecker.from_model_path().accepts(grammar.text, prompt["demo"]["answer"])


@pytest.mark.parametrize("raw, canonical", [
    ("[Q1, p: v] One.", "One [Q1, p: v]."),
    ("[NA] [Q1, p: v] One! [Q2, q: w] Two?", "One [NA] [Q1, p: v]! Two [Q2, q: w]?"),
    ("[Q1, p: v] Truncated in the midd", "Truncated in the midd [Q1, p: v]"),
    ("[Q1, p: v] One. [Q", "One [Q1, p: v]. [Q"),
    ("[Q1, p: v]", "[Q1, p: v]"),
    ("Text before [NA] a claim.", "Text before a claim [NA]."),
    # an initial does not end the sentence its marks belong to (the model's `Samuel R. Delany`)
    ("[Q1, p: v] Samuel R. Delany read W. H. Auden. [NA] Two.",
     "Samuel R. Delany read W. H. Auden [Q1, p: v]. Two [NA]."),
    ("[Q1, p: v] One. Two without a mark.", "One [Q1, p: v]. Two without a mark."),
])
def test_from_attribute_first(raw, canonical):
    assert from_attribute_first(raw) == canonical


def test_strip_marks_keeps_prose_brackets():
    assert (strip_marks("Born in Rome [Q1, place of birth: Rome]. A painter [NA] [sic].")
            == "Born in Rome. A painter [sic].")


def test_candidates_share_a_word_or_year():
    found = candidate_triples("Crane was born in Newark in 1871.", CRANE_TRIPLES)
    assert [t.label for t in found] == ["place of birth", "date of birth"]
    assert candidate_triples("He liked cats.", CRANE_TRIPLES) == []


@pytest.fixture(scope="module")
def nli():
    from kalma_graph.models.nli import load_nli

    return load_nli(NLI_PATH, cache=None)


@pytest.mark.slow
def test_posthoc_cites_what_the_sentence_entails_and_marks_the_rest_na(nli):
    answer = ("Stephen Crane was born in Newark [Q1, invented: x]. He was a novelist. "
              "He kept a dog named Velestino.")
    text, placements = place_citations(answer, [CRANE], CRANE_TRIPLES, nli.entailment_prob)
    parsed = parse_answer(text)
    assert [s.clean_text for s in parsed.sentences] == [
        "Stephen Crane was born in Newark.", "He was a novelist.", "He kept a dog named Velestino."]
    cited = [[c.triple for c in s.citations] for s in parsed.sentences]
    assert cited[0] == [("Q206534", "place of birth", "Newark")]  # the model's invented mark is gone
    assert cited[1] == [("Q206534", "occupation", "novelist")]
    assert cited[2] == [] and parsed.sentences[2].na
    assert [len(p.candidates) for p in placements] == [1, 1, 0]
    assert all(0.0 <= c[3] <= 1.0 for p in placements for c in p.candidates)


@pytest.mark.slow
@pytest.mark.parametrize("cite", ["attribute-first", "verified", "posthoc", "grounded"])
def test_strategies_end_to_end(tmp_path, sample_store, ner, llm, nli, cite):  # noqa: F811
    """The packaged model on the real sample graph: attribute-first makes every sentence carry a
    mark of the shown graph; post-hoc records what the NLI model decided per sentence."""
    questions = [question_from_text("Where was Stephen Crane born?"),
                 question_from_text("What is the meaning of life?")]  # no entity: answered, counted
    out = tmp_path / f"{cite}.jsonl"
    summary = answer_questions(sample_store, llm, ner, questions, params=GenerationParams(max_tokens=48),
                               cite=cite, nli=nli if cite == "posthoc" else None, out_path=out)
    assert summary["written"] == 2 and not summary["failed"]
    records = read_records(out)
    header = json.loads(header_path(out).read_text(encoding="utf-8"))
    assert header["cite"]["strategy"] == cite and header["cite"]["traits"] == strategy(cite).traits.as_dict()
    for record in records:
        _check_schema(record)
        assert record["cite"] == cite and record["params"]["cite"] == cite
        assert bool(record["params"]["cite_verifier"]) is strategy(cite).traits.filters_citations
        shown = {(t["subject"], t["label"], t["value"]) for t in record["retrieved"]}
        for sentence in record["sentences"]:
            for c in sentence["citations"]:
                assert c["qid"] in {t[0] for t in shown}
                assert (c["qid"], c["prop"], c["value"]) in shown or c["prop"] == "name"
    if cite in ("attribute-first", "verified"):
        assert records[0]["params"]["prompt"] == "kalma/answer_general_attribute_first"
        for record in records:
            complete = [s for s in record["sentences"] if s["text"].rstrip()[-1:] in ".!?"]
            assert all(s["citations"] or s["na"] for s in complete), record["answer"]
        assert records[1]["retrieved"] == [] and all(s["na"] for s in records[1]["sentences"] if s["clean_text"])
    if cite == "verified":  # what stays cited is stated; the rest of the model's choice is in raw_answer
        for record in records:
            labels = {t["label"] for t in record["retrieved"]}
            # every citation kept is one the graph-grounded verifier judges supported by its sentence
            from kalma_graph.evaluation.verify import verifier_input
            from kalma_graph.verification import Verifier

            check = Verifier().verify(verifier_input(record))
            assert all(c.verdict == "supported" for c in check.citations), record["answer"]
            assert (len(check.citations)
                    <= len(parse_answer(from_attribute_first(record["raw_answer"]), labels).citations))
        # scored by the verifier that chose them: flagged, and the model's own citations are scored beside
        from kalma_graph.evaluation.evaluate import evaluate_records

        results = evaluate_records(records)
        assert results.summary.alignment_self_scored is True
        before = results.metrics.alignment["before_filter"]
        assert before["answers"] == len(records) and before["pairs"] >= results.metrics.alignment["pairs"]
    if cite == "grounded":  # sentence by sentence: what stays cited is supported, nothing repeats, the loop is recorded
        from kalma_graph.evaluation.verify import verifier_input
        from kalma_graph.verification import Verifier

        for record in records:
            assert (record["grounding"]["stop_reason"]
                    and record["grounding"]["candidates"] >= record["grounding"]["sentences"])
            check = Verifier().verify(verifier_input(record))
            assert all(c.verdict == "supported" for c in check.citations), record["answer"]
            texts = [" ".join(s["clean_text"].casefold().split()) for s in record["sentences"] if s["clean_text"]]
            assert len(texts) == len(set(texts))
        # a filtering strategy other than verified: its kept sentences as first written are scored beside
        from kalma_graph.evaluation.evaluate import evaluate_records

        results = evaluate_records(records)
        assert results.summary.alignment_self_scored is True
        before = results.metrics.alignment.get("before_filter")
        marked = [r for r in records if sum(e.get("kept", False) for e in r["grounding"]["trace"])
                  == r["grounding"]["sentences"]]
        assert (before or {}).get("answers", 0) == len(marked)
        assert sum((before or {}).get("left_out", {}).values()) == len(records) - len(marked)
    if cite == "posthoc":
        assert [p["sentence"] for p in records[0]["placements"]] == [s["clean_text"] for s in records[0]["sentences"]]
        assert "[Q" not in records[1]["answer"]  # nothing shown, nothing cited
        # Alignment scored by the NLI that placed the citations is flagged, never silent.
        from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_records

        results = evaluate_records(records, nli=nli, options=EvaluateOptions(alignment="nli"))
        assert results.summary.alignment_self_scored is True
        assert results.header.alignment_nli_placed_citations is True
        assert any("placed the post-hoc citations" in note for note in results.notes)
        assert evaluate_records(records, options=EvaluateOptions(alignment="nli")).summary.alignment_self_scored is None


@pytest.mark.slow
def test_grounded_records_why_it_stopped_when_the_model_never_ends_a_sentence(
        tmp_path, sample_store, ner, llm):  # noqa: F811
    """A model cut off before any sentence ends: a clear record (reason, truncated), never a crash."""
    out = tmp_path / "grounded.jsonl"
    summary = answer_questions(sample_store, llm, ner, [question_from_text("Where was Stephen Crane born?")],
                               params=GenerationParams(max_tokens=3), cite="grounded", out_path=out)
    assert summary["written"] == 1 and not summary["failed"]
    record = read_records(out)[0]
    assert record["grounding"]["stop_reason"] == "the model did not end a sentence within 3 tokens"
    assert record["truncated"] is True and record["answer"] == ""
