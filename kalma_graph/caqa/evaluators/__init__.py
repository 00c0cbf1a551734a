"""Attribution evaluators behind one interface (`base.Evaluator`): NLI (2-way, 3-way), LLM judges
(zero-shot, few-shot), chain-of-thought decomposition (LLM or NLI per sub-fact), a fine-tuned
4-way classifier, and every shared attribution evaluator (`kalma_graph.attribution`: the verifier).
`make_evaluator` builds one by name from already-loaded models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from kalma_graph.attribution import REGISTRY as SHARED
from kalma_graph.caqa.evaluators.base import Evaluator, Judgement, final_label, parse_label, parse_true_false


@dataclass(frozen=True)
class Loaded:
    """What an evaluator is built from: the models loaded once for a bench run, and its settings."""

    nli: Any = None
    llm: Any = None
    demos: list[dict] | None = None
    short_prompt: bool = False
    seed: int = 0
    device: str | None = None
    constrained: bool = False
    concurrency: int = 1  # the LLM judges' calls in flight (a model server)
    argument: str = ""  # what follows `name:` (finetuned:PATH)


@dataclass(frozen=True)
class EvaluatorEntry:
    needs: str | None  # "nli", "llm" or None: the model `make_evaluator` refuses to build it without
    build: Callable[[Loaded], Evaluator]  # imports its module when called: torch and llama.cpp load only if used


def _shared(name: str) -> Callable[[Loaded], Evaluator]:
    """A shared attribution evaluator (kalma_graph.attribution.REGISTRY) read in CAQA's categories."""
    def build(m: Loaded) -> Evaluator:
        from kalma_graph.attribution import make
        from kalma_graph.caqa.evaluators.shared import SharedEvaluator

        return SharedEvaluator(make(name, nli=m.nli, llm=m.llm))
    return build


def _nli(ways: str) -> Callable[[Loaded], Evaluator]:
    def build(m: Loaded) -> Evaluator:
        from kalma_graph.caqa.evaluators.nli import NLIEvaluator

        return NLIEvaluator(m.nli, ways)
    return build


def _cot_nli(m: Loaded) -> Evaluator:
    from kalma_graph.caqa.evaluators.cot import CoTNLIEvaluator

    return CoTNLIEvaluator(m.nli)


def _cot_llm(m: Loaded) -> Evaluator:
    from kalma_graph.caqa.evaluators.cot import CoTLLMEvaluator

    return CoTLLMEvaluator(m.llm, seed=m.seed, constrained=m.constrained, concurrency=m.concurrency)


def _llm_judge(shots: str) -> Callable[[Loaded], Evaluator]:
    def build(m: Loaded) -> Evaluator:
        from kalma_graph.caqa.evaluators.llm_judge import LLMJudge

        prompt = f"caqa/judge_{shots}_shot{'_short' if m.short_prompt else ''}"
        return LLMJudge(m.llm, prompt=prompt, demos=m.demos, seed=m.seed, name=f"llm-{shots}-shot",
                        constrained=m.constrained, concurrency=m.concurrency)
    return build


def _finetuned(m: Loaded) -> Evaluator:
    from kalma_graph.caqa.evaluators.finetuned import FineTunedEvaluator

    return FineTunedEvaluator(m.argument, device=m.device)


#: every evaluator by name (`finetuned` is written `finetuned:PATH`); one line here adds one (docs/CONTRIBUTING.md)
REGISTRY: dict[str, EvaluatorEntry] = {
    "nli-2way": EvaluatorEntry("nli", _nli("2way")),
    "nli-3way": EvaluatorEntry("nli", _nli("3way")),
    "cot-nli": EvaluatorEntry("nli", _cot_nli),
    "llm-zero-shot": EvaluatorEntry("llm", _llm_judge("zero")),
    "llm-few-shot": EvaluatorEntry("llm", _llm_judge("few")),
    "cot-llm": EvaluatorEntry("llm", _cot_llm),
    # every shared attribution evaluator (the verifier, …): one line in kalma_graph/attribution/registry.py
    **{name: EvaluatorEntry(entry.needs, _shared(name)) for name, entry in SHARED.items()},
    "finetuned": EvaluatorEntry(None, _finetuned),
}
EVALUATORS = tuple(name if name != "finetuned" else "finetuned:PATH" for name in REGISTRY)
NEEDS_NLI = tuple(name for name, entry in REGISTRY.items() if entry.needs == "nli")
NEEDS_LLM = tuple(name for name, entry in REGISTRY.items() if entry.needs == "llm")


def make_evaluator(name: str, *, nli: Any = None, llm: Any = None, demos: list[dict] | None = None,
                   short_prompt: bool = False, seed: int = 0, device: str | None = None,
                   constrained: bool = False, concurrency: int = 1) -> Evaluator:
    """An evaluator by name; `concurrency`: the LLM judges' calls in flight (a model server)."""
    key, _, argument = name.partition(":") if name.startswith("finetuned:") else (name, "", "")
    entry = REGISTRY.get(key)
    if entry is None or (key == "finetuned") != bool(argument):
        raise ValueError(f"unknown evaluator {name!r}; choose from {', '.join(EVALUATORS)}")
    if entry.needs == "nli" and nli is None:
        raise ValueError(f"evaluator {name} needs an NLI model")
    if entry.needs == "llm" and llm is None:
        raise ValueError(f"evaluator {name} needs an LLM")
    return entry.build(Loaded(nli=nli, llm=llm, demos=demos, short_prompt=short_prompt, seed=seed, device=device,
                              constrained=constrained, concurrency=concurrency, argument=argument))


__all__ = ["EVALUATORS", "REGISTRY", "Evaluator", "Judgement", "final_label", "make_evaluator",
           "parse_label", "parse_true_false"]
