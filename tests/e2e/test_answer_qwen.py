"""The answer pipeline on the 1.5B model of the registry, when it has been pulled
(`kalma-graph models pull qwen2.5-coder-1.5b-q4km`); skipped otherwise (CI does not pull it)."""

from __future__ import annotations

import pytest

from kalma_graph.models.llm import GenerationParams, load_llm
from kalma_graph.models.registry import load_registry, present_path
from kalma_graph.pipeline.answer import answer_questions, question_from_text
from tests.e2e.test_retrieval_linking import ner, sample_store, sample_store_path  # noqa: F401

QWEN = "qwen2.5-coder-1.5b-q4km"


@pytest.fixture(scope="module")
def qwen():
    spec = load_registry().get(QWEN)
    if present_path(spec) is None:
        pytest.skip(f"{QWEN} is not pulled (kalma-graph models pull {QWEN})")
    model = load_llm(QWEN, n_ctx=4096)
    yield model
    model.close()


@pytest.mark.slow
def test_attribute_first_answer_cites_the_shown_graph(sample_store, ner, qwen):  # noqa: F811
    summary = answer_questions(sample_store, qwen, ner, [question_from_text("Where was Stephen Crane born?")],
                               params=GenerationParams(max_tokens=96), cite="attribute-first")
    record = summary["records"][0]
    shown = {(t["subject"], t["label"], t["value"]) for t in record["retrieved"]}
    cited = [(c["qid"], c["prop"], c["value"]) for s in record["sentences"] for c in s["citations"]]
    assert cited, record["raw_answer"]
    assert all(c in shown or c[1] == "name" for c in cited)
    assert record["model"]["model_file"] == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


@pytest.mark.slow
def test_verified_answer_keeps_only_citations_its_sentences_state(sample_store, ner, qwen):  # noqa: F811
    from kalma_graph.pipeline.cite import states_value

    summary = answer_questions(sample_store, qwen, ner, [question_from_text("Where was Stephen Crane born?")],
                               params=GenerationParams(max_tokens=96), cite="verified")
    record = summary["records"][0]
    kept = [(s["clean_text"], c["value"]) for s in record["sentences"] for c in s["citations"]]
    assert kept, record["raw_answer"]  # "born in Newark" states place of birth: Newark
    assert all(states_value(text, value) for text, value in kept)
    assert record["cite"] == "verified" and record["params"]["prompt"] == "kalma/answer_general_attribute_first"
