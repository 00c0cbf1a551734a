"""The LLM paths of CAQA with the packaged GGUF (SmolLM2-135M): verbalisation with checked output
and template fallback, and the LLM judges (zero-shot, few-shot, CoT), free and grammar-constrained.
A 135M model is a poor judge; these tests pin the plumbing: every output is either a parsed label
or counted as unparsed, constrained decoding always parses, reports record model and prompt."""

from __future__ import annotations

import random

import pytest

from kalma_graph.caqa.model import CATEGORIES, PARTIAL, SUPPORTIVE, Branch, Fact, Grounding, Hop, Query, Sample

pytestmark = pytest.mark.slow

UK = Fact("Q350", "P17", "Q145", "Cambridge", "country", "United Kingdom", ("s1",))
CAPITAL = Fact("Q145", "P36", "Q84", "United Kingdom", "capital", "London", ("s2",))
PATH = Grounding(
    Query((Branch("Q350", "Cambridge", (Hop("P17", "country"), Hop("P36", "capital"))),)), ((UK, CAPITAL),))


def _sample(category: str, citation: str) -> Sample:
    return Sample(id=f"t#{category}", query_key="t", kb="wikidata", split="test",
                  question="What is the capital of the country of Cambridge?", extended_question=None,
                  answer=["London"], answer_ids=["Q84"],
                  answer_statement="The capital of the country of Cambridge is London.", citation=citation,
                  category=category, complexity="concatenation", triples=[], facts=[], query=PATH.query.as_dict(),
                  group_size=2)


SAMPLES = [
    _sample(SUPPORTIVE, "The country of Cambridge is United Kingdom. The capital of United Kingdom is London."),
    _sample(PARTIAL, "The capital of United Kingdom is London."),
]


@pytest.fixture(scope="module")
def llm():
    from kalma_graph.models.llm import load_llm

    model = load_llm(None, n_ctx=2048, seed=0)
    yield model
    model.close()


def test_llm_verbaliser_checks_outputs_and_falls_back(llm):
    from kalma_graph.caqa.verbalise import LLMVerbaliser

    verb = LLMVerbaliser(llm, max_tokens=64)
    rng = random.Random(0)
    citation = verb.citation([UK, CAPITAL], rng)
    question = verb.question(PATH, rng)
    statement = verb.answer_statement(question, PATH, ["London"], rng)
    for text, names in ((citation, ["Cambridge", "United Kingdom", "London"]), (statement, ["London"])):
        assert all(n.lower() in text.lower() for n in names)  # accepted LLM text or the template
    assert question.endswith("?")
    assert sum(verb.counts.values()) >= 3 and verb.describe()["llm"]["model_sha256"]
    assert verb.describe()["prompts"]["verbalise_subgraph"]["sha256"]


def test_llm_judges_parse_or_count(llm):
    from kalma_graph.caqa.evaluators import make_evaluator

    free = make_evaluator("llm-zero-shot", llm=llm)
    judged = free.judge(SAMPLES[:1])
    assert judged[0].label in (*CATEGORIES, None) and judged[0].raw is not None  # parsed, or counted unparsed
    few = make_evaluator("llm-few-shot", llm=llm, constrained=True)
    assert "Example 4:" in few.render(SAMPLES[1]) and "Insufficient" in few.render(SAMPLES[1])
    judged = few.judge(SAMPLES[1:])
    assert judged[0].label in CATEGORIES  # the grammar admits only category words
    assert few.describe()["constrained"] and few.describe()["prompt"]["sha256"]
    verdict = few.supported(["London is the capital of United Kingdom."], [SAMPLES[0].citation])
    assert verdict[0] in (True, False)


def test_cot_llm_decomposes_and_applies_the_rule(llm):
    from kalma_graph.caqa.evaluators import make_evaluator

    cot = make_evaluator("cot-llm", llm=llm, constrained=True)
    judged = cot.judge(SAMPLES[:1])
    detail = judged[0].detail
    assert judged[0].label in (*CATEGORIES, None)
    if detail["facts"]:  # with the grammar every sub-fact label parses, so the rule decides
        assert all(lab is not None for lab in detail["fact_labels"]) and judged[0].label is not None
