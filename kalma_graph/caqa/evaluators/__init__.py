"""Attribution evaluators behind one interface (`base.Evaluator`): NLI (2-way, 3-way), LLM judges
(zero-shot, few-shot), chain-of-thought decomposition (LLM or NLI per sub-fact) and a fine-tuned
4-way classifier. `make_evaluator` builds one by name from already-loaded models."""

from __future__ import annotations

from typing import Any

from kalma_graph.caqa.evaluators.base import Evaluator, Judgement, final_label, parse_label, parse_true_false

EVALUATORS = ("nli-2way", "nli-3way", "cot-nli", "llm-zero-shot", "llm-few-shot", "cot-llm", "verifier", "finetuned:PATH")
NEEDS_NLI = ("nli-2way", "nli-3way", "cot-nli")
NEEDS_LLM = ("llm-zero-shot", "llm-few-shot", "cot-llm")


def make_evaluator(name: str, *, nli: Any = None, llm: Any = None, demos: list[dict] | None = None,
                   short_prompt: bool = False, seed: int = 0, device: str | None = None,
                   constrained: bool = False, concurrency: int = 1) -> Evaluator:
    """An evaluator by name; `concurrency`: the LLM judges' calls in flight (a model server)."""
    if name in NEEDS_NLI and nli is None:
        raise ValueError(f"evaluator {name} needs an NLI model")
    if name in NEEDS_LLM and llm is None:
        raise ValueError(f"evaluator {name} needs an LLM")
    if name == "verifier":
        from kalma_graph.caqa.evaluators.verifier import VerifierEvaluator

        return VerifierEvaluator()
    if name == "nli-2way":
        from kalma_graph.caqa.evaluators.nli import NLIEvaluator

        return NLIEvaluator(nli, "2way")
    if name == "nli-3way":
        from kalma_graph.caqa.evaluators.nli import NLIEvaluator

        return NLIEvaluator(nli, "3way")
    if name == "cot-nli":
        from kalma_graph.caqa.evaluators.cot import CoTNLIEvaluator

        return CoTNLIEvaluator(nli)
    if name == "cot-llm":
        from kalma_graph.caqa.evaluators.cot import CoTLLMEvaluator

        return CoTLLMEvaluator(llm, seed=seed, constrained=constrained, concurrency=concurrency)
    if name in ("llm-zero-shot", "llm-few-shot"):
        from kalma_graph.caqa.evaluators.llm_judge import LLMJudge

        suffix = "_short" if short_prompt else ""
        prompt = f"caqa/judge_{'few' if name == 'llm-few-shot' else 'zero'}_shot{suffix}"
        return LLMJudge(llm, prompt=prompt, demos=demos, seed=seed, name=name, constrained=constrained,
                        concurrency=concurrency)
    if name.startswith("finetuned:"):
        from kalma_graph.caqa.evaluators.finetuned import FineTunedEvaluator

        return FineTunedEvaluator(name.split(":", 1)[1], device=device)
    raise ValueError(f"unknown evaluator {name!r}; choose from {', '.join(EVALUATORS)}")


__all__ = ["EVALUATORS", "Evaluator", "Judgement", "final_label", "make_evaluator", "parse_label", "parse_true_false"]
