"""The local GGUF wrapper on the real packaged SmolLM2-135M model (CPU)."""

from __future__ import annotations

import hashlib
import math

import pytest

from kalma_graph.models.llm import GenerationParams, LLMError, default_model_path, load_llm

pytestmark = pytest.mark.slow

MESSAGES = [
    {"role": "system", "content": "Answer in one sentence using only the knowledge given."},
    {"role": "user",
     "content": "Where was Stephen Crane born? Knowledge: {qid: Q206534, name: Stephen Crane, place of birth: Newark}"},
]


@pytest.fixture(scope="module")
def llm():
    model = load_llm(logits=True, n_ctx=1024)
    yield model
    model.close()


def test_header_names_the_exact_file(llm):
    header = llm.header()
    path = default_model_path()
    assert header["model_file"] == path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert header["model_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert header["device"] in ("cpu", "gpu")


def test_generation_is_seeded_bounded_and_reports_truncation(llm):
    a = llm.chat(MESSAGES, GenerationParams(max_tokens=40, seed=3))
    b = llm.chat(MESSAGES, GenerationParams(max_tokens=40, seed=3))
    assert a.text == b.text and a.text.strip()
    assert "Newark" in a.text  # the fact is in the prompt; even a 135M model copies it
    short = llm.chat(MESSAGES, GenerationParams(max_tokens=2, seed=3))
    assert short.completion_tokens == 2 and short.truncated
    with pytest.raises(ValueError, match="capped"):
        GenerationParams(max_tokens=0)


def test_next_token_logprobs_are_a_distribution_slice(llm):
    prompt = (llm.chat_prompt([{"role": "user", "content": "Rate the fluency of 'The cat sat.' from 1 to 5."}])
              + "Score: ")
    lps = llm.next_token_logprobs(prompt, ["1", "2", "3", "4", "5"])
    assert all(v < 0 for v in lps.values())
    assert 0 < sum(math.exp(v) for v in lps.values()) <= 1
    assert len({round(v, 6) for v in lps.values()}) > 1  # not a flat (unread) distribution


def test_perplexity_prefers_the_true_continuation(llm):
    assert (llm.perplexity("Stephen Crane was born in", " Newark.")
            < llm.perplexity("Stephen Crane was born in", " purple banana."))


def test_batched_continuations_equal_one_call_each(llm):
    prefix = "Oscar Hertwig was a German zoologist. He studied under Ernst Haeckel at Jena."
    sentences = [" Hertwig's place of birth is Friedberg.", " Hertwig was influenced by Ernst Haeckel.", ""]
    many = llm.continuation_logprobs_many(prefix, sentences)
    assert many[2] == []
    for got, sentence in zip(many[:2], sentences[:2]):
        assert got == pytest.approx(llm.continuation_logprobs(prefix, sentence), abs=1e-4)
    # The context is left clean: a later call does not depend on the batch before it.
    assert llm.continuation_logprobs(prefix, sentences[0]) == pytest.approx(many[0], abs=1e-4)


def test_scored_extensions_gives_the_prefix_its_own_logprobs(llm):
    """The prefix's own token log-probabilities come from the evaluation that conditions the
    continuations (BioKaLMA eq. 1 no longer evaluates the paragraph twice): scoring `prefix +
    continuation` as a prefix ends with exactly the continuation's log-probabilities."""
    prefix, sentence = "Mary Shelley was born in London.", " She wrote Frankenstein."
    own, (cont,) = llm.scored_extensions(prefix, [sentence])
    assert cont == pytest.approx(llm.continuation_logprobs_many(prefix, [sentence])[0], abs=1e-4)
    whole, _ = llm.scored_extensions(prefix + sentence, [])
    n_prefix = len(llm._llm.tokenize(prefix.encode(), add_bos=True, special=True))
    assert len(whole) == n_prefix - 1 + len(cont) and len(own) == n_prefix - 1
    assert whole[: len(own)] == pytest.approx(own, abs=1e-4)
    assert whole[len(own):] == pytest.approx(cont, abs=1e-4)
    assert all(lp <= 0 for lp in whole)


def test_clear_errors():
    with pytest.raises(LLMError, match="not found"):
        load_llm("/nonexistent/model.gguf")
    plain = load_llm(n_ctx=256)
    try:
        with pytest.raises(LLMError, match="logits=True"):
            plain.continuation_logprobs("a", "b")
        with pytest.raises(LLMError, match="logits=True"):
            plain.continuation_logprobs_many("a", ["b"])
        with pytest.raises(LLMError, match="n_ctx"):
            plain.next_token_logprobs("word " * 400, ["1"])
    finally:
        plain.close()


def test_a_gguf_that_fails_to_load_names_the_file_and_the_reason(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\x00" * 64)  # a header and nothing else
    with pytest.raises(LLMError, match=r"llama\.cpp could not load .*broken\.gguf"):
        load_llm(broken)


def test_prefix_reuse_and_prompt_lookup_are_wired(llm):
    """The KV cache of a shared prefix and prompt-lookup drafts are speed options (measured in
    bench/answer_throughput.py); answers are not compared token for token, since llama.cpp's results
    may differ in the last bits between batch layouts."""
    from kalma_graph.models.llm import GenerationParams

    params = GenerationParams(max_tokens=12)
    system = {"role": "system", "content": "You answer in one short sentence."}
    assert llm.header()["reuse_prefix"] is True and llm.header()["prompt_lookup"] == 0
    fresh = load_llm(n_ctx=1024, reuse_prefix=False, prompt_lookup=8)
    try:
        assert fresh.header()["reuse_prefix"] is False and fresh.header()["prompt_lookup"] == 8
        assert fresh.logits_all  # llama-cpp-python verifies drafts from every position's logits
        for question in ("Where is Rome?", "Who wrote Hamlet?"):
            out = fresh.chat([system, {"role": "user", "content": question}], params)
            assert out.text.strip() and out.completion_tokens <= 12
    finally:
        fresh.close()
