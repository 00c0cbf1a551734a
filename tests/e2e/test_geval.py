"""G-Eval: the probability-weighted score, the prompts as data (KaLMA Tables 14–17), the judge cache,
and the real packaged SmolLM2 GGUF as judge (slow; skipped where llama.cpp cannot run)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from kalma_graph.evaluation.geval import (
    ASPECTS,
    SCORE_TOKENS,
    GEvalCache,
    GEvalError,
    GEvalInput,
    GEvalJudge,
    geval,
    sample_ids,
    weighted_score,
)
from kalma_graph.prompts import load_prompt

REPO = Path(__file__).resolve().parents[2]


def lp(**probs: float) -> dict[str, float]:
    """Log-probabilities for the score tokens from probabilities (`p1=0.1, ...`; absent ones tiny)."""
    return {t: math.log(probs.get(f"p{t}", 1e-12)) for t in SCORE_TOKENS}


@pytest.mark.parametrize("logprobs, expected", [
    (lp(p5=0.9), 5.0),
    (lp(p1=0.5), 1.0),
    (lp(p3=0.25, p4=0.25), 3.5),
    (lp(p1=0.1, p2=0.1, p3=0.1, p4=0.1, p5=0.1), 3.0),  # renormalised over 1..5: mass 0.5
    (lp(p2=0.3, p4=0.6), (2 * 0.3 + 4 * 0.6) / 0.9),
])
def test_weighted_score_is_the_probability_weighted_mean(logprobs, expected):
    result = weighted_score(logprobs, min_mass=0.05)
    assert result.score == pytest.approx(expected, abs=1e-6)
    assert 1.0 <= result.score <= 5.0 and sum(result.probs.values()) == pytest.approx(1.0)


def test_low_mass_is_missing_never_a_default():
    result = weighted_score(lp(p3=0.01), min_mass=0.05)
    assert result.score is None and result.reason == "low_mass" and result.mass == pytest.approx(0.01)
    assert weighted_score(lp(p3=0.01), min_mass=0.0).score == pytest.approx(3.0)
    with pytest.raises(GEvalError, match="no log-probability"):
        weighted_score({"1": -1.0})
    with pytest.raises(GEvalError, match="non-finite"):
        weighted_score({t: math.inf for t in SCORE_TOKENS})
    with pytest.raises(ValueError):
        weighted_score(lp(p3=1.0), min_mass=1.5)


def test_prompts_are_the_papers_tables_14_to_17():
    released = json.loads((REPO / "dumps" / "biokalma" / "prompt" / "gpteval_prompt.json").read_text())
    squash = lambda text: " ".join(text.split())  # noqa: E731
    for index, (aspect, table) in enumerate(zip(ASPECTS, (14, 15, 16, 17))):
        prompt = load_prompt(f"geval/{aspect}")
        assert prompt["aspect"] == aspect and prompt["version"] and len(prompt["sha256"]) == 64
        assert f"Table {table}" in prompt["source"]
        assert squash(prompt["system"]) == squash(released[index])  # the instruction, word for word
        assert prompt["scores"] == list(SCORE_TOKENS)
        fields = {name for name in ("question", "knowledge", "answer") if "{" + name + "}" in prompt["template"]}
        assert fields == set(prompt["inputs"])
        assert prompt["template"].format(question="Q", knowledge="K", answer="A").endswith(
            f"- {aspect.capitalize()} (1-5):")
    assert "knowledge" in load_prompt("geval/consistency")["inputs"]
    assert "knowledge" not in load_prompt("geval/fluency")["inputs"]


def test_cache_round_trip(tmp_path):
    cache = GEvalCache(tmp_path / "g.sqlite")
    key = GEvalCache.key("model", "prompt", "text")
    assert cache.get(key) is None
    cache.put(key, lp(p4=0.7))
    cache.close()
    again = GEvalCache(tmp_path / "g.sqlite")
    assert again.get(key) == pytest.approx(lp(p4=0.7)) and len(again) == 1 and again.hits == 1
    assert GEvalCache.key("model", "prompt", "text") != GEvalCache.key("model2", "prompt", "text")


def test_sample_ids_is_seeded_and_keeps_order():
    ids = [f"q{i}" for i in range(10)]
    assert sample_ids(ids, None) == ids and sample_ids(ids, 50) == ids
    picked = sample_ids(ids, 4, seed=3)
    assert len(picked) == 4 and picked == [i for i in ids if i in picked] and picked == sample_ids(ids, 4, seed=3)


# --- the real judge ---------------------------------------------------------------------------------

_PROBE = """
from kalma_graph.models.llm import load_llm
llm = load_llm(None, n_ctx=512)
print(llm.next_token_logprobs("1, 2, 3,", ["4"]))
"""


@pytest.fixture(scope="module")
def smollm2():
    """The packaged SmolLM2 GGUF, once llama.cpp runs on this machine (probed in a subprocess, because
    a llama.cpp built for another CPU dies with SIGILL instead of raising)."""
    probe = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"llama.cpp cannot run here (exit {probe.returncode}): {probe.stderr.strip()[-200:]}")
    from kalma_graph.models.llm import load_llm

    llm = load_llm(None, n_ctx=4096, seed=0)
    yield llm
    llm.close()


SHORT = GEvalInput("crane", "Who was Stephen Crane?",
                   "Stephen Crane was an American writer born in Newark in 1871. He wrote The Red Badge of Courage "
                   "and died of tuberculosis in 1900.")


@pytest.mark.slow
def test_real_judge_scores_in_range_or_missing(smollm2, tmp_path):
    """One real judge call (the CPU here evaluates ~10 prompt tokens/s), then the same from the cache."""
    judge = GEvalJudge(smollm2, aspects=["fluency"], cache=tmp_path / "geval.sqlite")
    items = [SHORT, GEvalInput("empty", SHORT.question, "   ")]
    result = geval(items, judge)
    row = result["aspects"]["fluency"]
    assert row["scored"] + row["missing"] == 2 and row["missing_reasons"]["empty_answer"] == 1
    score = result["per_answer"][0]["fluency"]
    assert (score["score"] is None and score["reason"] == "low_mass") or 1.0 <= score["score"] <= 5.0
    assert 0.0 < score["mass"] <= 1.0 + 1e-9 and len(set(score["probs"].values())) > 1
    described = judge.describe()
    assert described["model_sha256"] == smollm2.header()["model_sha256"]
    assert described["prompts"]["fluency"]["name"] == "geval/fluency"
    again = geval(items, judge)
    assert again["aspects"]["fluency"]["from_cache"] == 1
    assert again["per_answer"][0]["fluency"]["score"] == score["score"]


@pytest.mark.slow
def test_real_judge_context_overflow_is_missing(smollm2):
    judge = GEvalJudge(smollm2, aspects=["fluency"])
    long = GEvalInput("long", "Who was Stephen Crane?", "Stephen Crane wrote novels. " * 900)
    score = judge.score(long, "fluency")  # counted, never sent to the model
    assert score.score is None and score.reason == "context_overflow"
    from kalma_graph.evaluation.answers_file import clean_answer, scored_answer
    from tests.unit.test_evaluate_fixtures import answer_records

    table20 = scored_answer(answer_records()[1])
    rendered = judge.render(GEvalInput("t20", table20.question, clean_answer(table20.parsed)), "fluency")
    assert "Fluency (1-5) - the answer should be written in fluent language." in rendered
    assert "[Q206534" not in rendered and "Syracuse Orange baseball team." in rendered  # marks removed


def test_a_flat_distribution_fails_loudly():
    class Flat:
        n_ctx = 4096

        def header(self):
            return {"model_file": "flat.gguf", "model_sha256": "0" * 64}

        def count_tokens(self, text):
            return 1 if text in SCORE_TOKENS else len(text.split())

        def chat_prompt(self, messages):
            return "\n".join(m["content"] for m in messages)

        def next_token_logprobs(self, prompt, candidates):  # what reading an unset logits row gives
            return {c: -math.log(49152) for c in candidates}

    with pytest.raises(GEvalError, match="identical log-probabilities"):
        GEvalJudge(Flat(), aspects=["fluency"]).score(SHORT, "fluency")


@pytest.mark.slow
def test_a_re_evaluation_without_a_judge_keeps_the_judgements_of_the_same_answers(smollm2, tmp_path):
    """Table 4 survives a new alignment judge: re-evaluating the very answers file without `--judge` carries
    the earlier G-Eval judgements over (and says so); another answers file gets none."""
    from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_file
    from tests.unit.test_evaluate_fixtures import answer_records, write_answers

    answers = write_answers(tmp_path / "answers.jsonl", answer_records()[:2])
    out = tmp_path / "report"
    judge = GEvalJudge(smollm2, aspects=["fluency"], cache=tmp_path / "geval.sqlite")
    first = evaluate_file(answers, out_dir=out, plots=False, judge=judge,
                          options=EvaluateOptions(alignment="verifier", geval_sample=None))
    assert first.summary.geval()["fluency"].mean is not None
    again = evaluate_file(answers, out_dir=out, plots=False, reuse=True,
                          options=EvaluateOptions(alignment="verifier", matching="normalized", geval_sample=None))
    assert again.answers and again.header.choices["evaluation.matching"] == "normalized"  # scored anew
    assert again.summary.geval() == first.summary.geval() and again.metrics.geval == first.metrics.geval
    assert [r.model_extra.get("geval_fluency") for r in again.per_answer] == \
        [r.model_extra.get("geval_fluency") for r in first.per_answer]
    assert again.header.judge == first.header.judge and any("carried over" in n for n in again.notes)
    other = write_answers(tmp_path / "other" / "answers.jsonl", answer_records()[2:4])
    fresh = evaluate_file(other, out_dir=out, plots=False, reuse=True)
    assert fresh.metrics.geval is None and "geval" in fresh.skipped
