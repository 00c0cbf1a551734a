"""Greedy decoding under the citation grammar, checking the argmax token first (`models.grammar_first`), writes
exactly what llama-cpp-python's own sampler chain writes: the same answers, token for token, on real questions,
the real sample graph and the packaged GGUF; a sampled (temperature > 0) call keeps the chain."""

from __future__ import annotations

import gzip
import json

import pytest

from kalma_graph.models.llm import GenerationParams, load_llm
from kalma_graph.pipeline.answer import answer_questions, load_questions
from tests.conftest import DUMPS
from tests.e2e.test_retrieval_linking import ner, sample_store  # noqa: F401

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    with gzip.open(DUMPS / "biokalma/simple_question_graph.json.gz", "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    path = tmp_path_factory.mktemp("q") / "four.json"
    path.write_text(json.dumps(data[60:64]), encoding="utf-8")
    return load_questions(path)


@pytest.mark.parametrize("cite,constrain", [("model", "marks"), ("attribute-first", False), ("grounded", False)])
def test_the_same_answers_as_the_sampler_chain(sample_store, ner, questions, cite, constrain):  # noqa: F811
    answers = {}
    for fast in (True, False):
        llm = load_llm(None, n_ctx=4096, n_threads=1, seed=0, grammar_first=fast)
        try:
            summary = answer_questions(sample_store, llm, ner, questions, params=GenerationParams(max_tokens=64),
                                       constrain=constrain, cite=cite)
            answers[fast] = [r["raw_answer"] for r in summary["records"]]
            if fast:
                checks, refusals = llm.grammar_counts()["checks"], llm.grammar_counts()["refusals"]
        finally:
            llm.close()
    assert answers[True] == answers[False] and len(answers[True]) == 4
    assert checks > 50 and 0 < refusals < checks  # the fast path ran, and the full filter when it had to


def test_sampling_keeps_the_sampler_chain():
    from kalma_graph.generation.grammar import llama_grammar

    llm = load_llm(None, n_ctx=2048, n_threads=1, seed=0)
    try:
        out = llm.chat([{"role": "user", "content": "Yes or no?"}],
                       GenerationParams(max_tokens=4, temperature=0.7, seed=3),
                       grammar=llama_grammar('root ::= "yes" | "no"'))
        assert out.text in ("yes", "no") and llm.grammar_counts()["checks"] == 0
    finally:
        llm.close()
