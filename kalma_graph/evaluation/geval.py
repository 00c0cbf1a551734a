"""G-Eval text quality with a local judge: coherence, consistency, fluency, relevance on 1–5.

Card
----
Measures
    How well an answer reads and answers its question, judged by an LLM with the KaLMA prompts
    (seed 000, Appendix D, Tables 14–17; `kalma_graph/prompts/geval/<aspect>.json`).
Reference
    Li et al. (KaLMA) §4.1; Liu et al. (2023), G-Eval: the score is the probability-weighted mean
    of the score tokens, `sum_i i * p(i) / sum_i p(i)` over i = 1..5, not a parsed integer.
Inputs
    One `GEvalInput(id, question, answer, knowledge)` per answer (the answer without its citation
    marks; the knowledge is shown to the consistency prompt only) and a `GEvalJudge` built on a
    loaded GGUF model (`kalma_graph.models.llm.load_llm`).
Output
    Per aspect the mean over scored answers, how many were scored and how many are *missing* (and
    why), and the mean probability mass the judge put on the tokens 1–5. An answer is missing when
    the judge puts less than `min_mass` on those tokens (it wanted to say something else), when the
    prompt does not fit the context window, or when the answer is empty. A missing score is never
    replaced by a default: it is left out of the mean and counted.

>>> round(weighted_score({"1": -9.0, "2": -9.0, "3": -2.3, "4": -0.4, "5": -1.6}).score, 3)
4.104
>>> weighted_score({"1": -9.0, "2": -9.0, "3": -9.0, "4": -9.5, "5": -9.0}).reason
'low_mass'
"""

from __future__ import annotations

import hashlib
import math
import os
import random
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.evaluation.metrics.ratios import mean
from kalma_graph.files import KeyedCache
from kalma_graph.models.protocols import Judge

METRIC = "geval"
ASPECTS: tuple[str, ...] = ("coherence", "consistency", "fluency", "relevance")
SCORE_TOKENS: tuple[str, ...] = ("1", "2", "3", "4", "5")
DEFAULT_MIN_MASS = 0.01
MISSING_REASONS = ("low_mass", "context_overflow", "empty_answer")

Progress = Callable[[int, int], None]


class GEvalError(BadInputError, RuntimeError):
    """The judge cannot score at all (e.g. the score tokens are not single tokens of its vocabulary)."""


@dataclass(frozen=True)
class GEvalInput:
    id: str
    question: str
    answer: str  # without citation marks
    knowledge: str = ""  # the graph shown to the answering model, as knowledge blocks


@dataclass(frozen=True)
class Weighted:
    score: float | None  # in [1, 5], or None when missing
    mass: float  # total probability of the score tokens
    probs: dict[str, float]  # renormalised over the score tokens
    reason: str | None = None  # why it is missing


@dataclass(frozen=True)
class GEvalScore:
    id: str
    aspect: str
    score: float | None
    reason: str | None = None
    mass: float | None = None
    probs: dict[str, float] = field(default_factory=dict)
    cached: bool = False

    @property
    def missing(self) -> bool:
        return self.score is None


def weighted_score(logprobs: Mapping[str, float], *, min_mass: float = DEFAULT_MIN_MASS) -> Weighted:
    """The probability-weighted score over the tokens 1..5 from their next-token log-probabilities.

    Missing (`score=None`, `reason="low_mass"`) when the tokens 1..5 together hold less than
    `min_mass` of the probability: the judge was not giving a score.
    """
    if not 0.0 <= min_mass < 1.0:
        raise ValueError(f"min_mass must be in [0, 1), got {min_mass!r}")
    missing = [t for t in SCORE_TOKENS if t not in logprobs]
    if missing:
        raise GEvalError(f"no log-probability for score tokens {missing}")
    probs = {t: math.exp(float(logprobs[t])) for t in SCORE_TOKENS}
    mass = sum(probs.values())
    if not math.isfinite(mass):
        raise GEvalError(f"judge returned non-finite log-probabilities: {dict(logprobs)}")
    if mass <= 0.0 or mass < min_mass:
        return Weighted(None, mass, {}, "low_mass")
    normalised = {t: p / mass for t, p in probs.items()}
    score = sum(int(t) * p for t, p in normalised.items())
    return Weighted(score, mass, normalised)


def check_distribution(logprobs: Mapping[str, float]) -> None:
    """Fail loudly when the five score tokens get exactly the same log-probability: a real model
    never does that, a wrapper reading unset logits (a uniform row) does, and every score would
    silently be 3.0."""
    values = [float(logprobs[t]) for t in SCORE_TOKENS if t in logprobs]
    if len(values) == len(SCORE_TOKENS) and max(values) - min(values) < 1e-9:
        raise GEvalError(
            f"the judge gave the tokens 1-5 identical log-probabilities ({values[0]:.6g}): it is not reading the "
            "model's next-token logits (see LocalLLM.next_token_logprobs)")


# --- the cache -----------------------------------------------------------------------------------


class GEvalCache(KeyedCache):
    """SQLite: key = sha256(judge model sha256, prompt sha256, rendered prompt) -> log-probabilities.

    The raw log-probabilities are stored, so changing `min_mass` re-scores from the cache."""

    def __init__(self, path: str | os.PathLike[str]):
        super().__init__(path, table="geval", column="logprobs")

    @staticmethod
    def key(model_sha256: str, prompt_sha256: str, text: str) -> str:
        return hashlib.sha256(f"{model_sha256}\x1f{prompt_sha256}\x1f{text}".encode("utf-8")).hexdigest()

    def put(self, key: str, logprobs: Mapping[str, float]) -> None:
        super().put(key, {k: float(v) for k, v in logprobs.items()})


# --- the judge -----------------------------------------------------------------------------------


class GEvalJudge:
    """Scores answers with one loaded GGUF model and the G-Eval prompts (data, versioned)."""

    def __init__(
        self,
        llm: Judge,
        *,
        aspects: Sequence[str] = ASPECTS,
        cache: GEvalCache | str | os.PathLike[str] | None = None,
        min_mass: float = DEFAULT_MIN_MASS,
        concurrency: int = 1,
    ) -> None:
        from kalma_graph.prompts import load_prompt

        unknown = [a for a in aspects if a not in ASPECTS]
        if unknown or not aspects:
            raise ValueError(f"unknown G-Eval aspects {unknown or list(aspects)}; expected some of {ASPECTS}")
        weighted_score({t: 0.0 for t in SCORE_TOKENS}, min_mass=min_mass)  # validates min_mass
        self.llm = llm
        self.concurrency = concurrency  # judgements in flight (a model server; `models.calls.in_order`)
        self.aspects = tuple(aspects)
        self.min_mass = min_mass
        self.prompts = {aspect: load_prompt(f"geval/{aspect}") for aspect in self.aspects}
        self.cache = GEvalCache(cache) if isinstance(cache, (str, os.PathLike)) else cache
        self._header = llm.header()
        self.model_sha256 = str(self._header.get("model_sha256", ""))
        if not self.model_sha256:
            raise GEvalError("the judge's header names no model_sha256; cannot key the cache or the report")
        split = [t for t in SCORE_TOKENS if llm.count_tokens(t) != 1]
        if split:
            raise GEvalError(f"score tokens {split} are not single tokens for {self._header.get('model_file')}; "
                             "its next-token probabilities cannot give a G-Eval score")

    def messages(self, item: GEvalInput, aspect: str) -> list[dict[str, str]]:
        prompt = self.prompts[aspect]
        user = prompt["template"].format(question=item.question.strip(), answer=item.answer.strip(),
                                         knowledge=item.knowledge.strip() or "(none)")
        system = prompt["system"] + "\n\n" + prompt["reply_instruction"]
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def render(self, item: GEvalInput, aspect: str) -> str:
        """The exact text the judge reads: the chat template applied, ending where it replies."""
        return self.llm.chat_prompt(self.messages(item, aspect))

    def score(self, item: GEvalInput, aspect: str) -> GEvalScore:
        if not item.answer.strip():
            return GEvalScore(item.id, aspect, None, "empty_answer")
        text = self.render(item, aspect)
        key = GEvalCache.key(self.model_sha256, self.prompts[aspect]["sha256"], text)
        logprobs = self.cache.get(key) if self.cache is not None else None
        cached = logprobs is not None
        if logprobs is None:
            if self.llm.count_tokens(text) + 2 > self.llm.n_ctx:
                return GEvalScore(item.id, aspect, None, "context_overflow")
            logprobs = self.llm.next_token_logprobs(text, SCORE_TOKENS)
            check_distribution(logprobs)
            if self.cache is not None:
                self.cache.put(key, logprobs)
        weighted = weighted_score(logprobs, min_mass=self.min_mass)
        return GEvalScore(item.id, aspect, weighted.score, weighted.reason, weighted.mass, weighted.probs, cached)

    def describe(self) -> dict[str, Any]:
        """What a run header records about the judge: model, file hash, device, prompt versions."""
        return {
            **self._header,
            "aspects": list(self.aspects),
            "weighting": "probability-weighted mean over the next tokens 1-5 (G-Eval)",
            "min_mass": self.min_mass,
            "prompts": {a: {"name": p["name"], "version": p["version"], "sha256": p["sha256"]}
                        for a, p in self.prompts.items()},
            "cache": str(self.cache.path) if self.cache is not None else None,
        }

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()


def sample_ids(ids: Sequence[str], n: int | None, seed: int = 0) -> list[str]:
    """The ids G-Eval scores: all, or a seeded sample of `n` (the paper scored 100 per system),
    returned in the given order."""
    if n is None or n >= len(ids):
        return list(ids)
    chosen = set(random.Random(seed).sample(sorted(ids), n))
    return [i for i in ids if i in chosen]


def geval(items: Sequence[GEvalInput], judge: GEvalJudge, *, progress: Progress | None = None,
          answers_total: int | None = None, sample: str = "all") -> dict:
    """Score every item on every aspect of the judge; the metric result (see the module card)."""
    from kalma_graph.models.calls import in_order

    scores: list[GEvalScore] = []
    pairs = [(item, aspect) for item in items for aspect in judge.aspects]
    for _, result in in_order(lambda pair: judge.score(*pair), pairs, getattr(judge, "concurrency", 1)):
        scores.append(result())
        if progress:
            progress(len(scores), len(pairs))
    return summarise(scores, items, judge.aspects, choices=_choices(judge, sample),
                     answers_total=answers_total if answers_total is not None else len(items))


def summarise(scores: Iterable[GEvalScore], items: Sequence[GEvalInput], aspects: Sequence[str], *,
              choices: Mapping[str, Any], answers_total: int) -> dict:
    by_item: dict[str, dict[str, GEvalScore]] = {}
    for s in scores:
        by_item.setdefault(s.id, {})[s.aspect] = s
    result: dict[str, Any] = {
        "metric": METRIC,
        "choices": dict(choices),
        "answers": answers_total,
        "answers_judged": len(items),
        "aspects": {},
    }
    for aspect in aspects:
        got = [s for s in (by_item.get(item.id, {}).get(aspect) for item in items) if s is not None]
        scored = [s.score for s in got if s.score is not None]
        reasons = {r: sum(1 for s in got if s.reason == r) for r in MISSING_REASONS}
        result["aspects"][aspect] = {
            "mean": mean(scored),
            "scored": len(scored),
            "missing": len(got) - len(scored),
            "missing_reasons": reasons,
            "mean_mass": mean(s.mass for s in got if s.mass is not None),
            "from_cache": sum(1 for s in got if s.cached),
        }
    result["per_answer"] = [
        {"id": item.id, **{a: _row(by_item.get(item.id, {}).get(a)) for a in aspects}} for item in items
    ]
    return result


def _row(score: GEvalScore | None) -> dict | None:
    if score is None:
        return None
    out = asdict(score)
    out.pop("id")
    out.pop("aspect")
    return out


def _choices(judge: GEvalJudge, sample: str) -> dict[str, Any]:
    return {
        "aspects": ",".join(judge.aspects),
        "weighting": "probability-weighted over tokens 1-5",
        "min_mass": judge.min_mass,
        "prompts": ",".join(f"{p['name']}@{p['version']}" for p in judge.prompts.values()),
        "answers_judged": sample,
    }
