"""LLM judges with the paper's prompts (Tables 12–13), as data in `prompts/caqa/judge_*.json`.

- zero-shot: `caqa/judge_zero_shot` (Table 12, "GPT series" wording; the default) or
  `caqa/judge_zero_shot_short` (Table 12, "Other Evaluators");
- few-shot: `caqa/judge_few_shot` / `caqa/judge_few_shot_short` (Table 13), one demonstration per
  category — from the benchmark's training split when there is one (`demos_from`), else the
  prompt's built-in demonstrations (shortened from the paper's examples).

Generation is greedy and capped (`max_tokens`); the label is extracted by `parse_label` and an
output that names no category (or lists the options back) is counted as unparsed, never guessed.
The text after the category is kept as the rationale. FActScore uses Appendix D.2's
"Judge this fact … True or False?" prompt.

`constrained=True` (not in the paper; for small local models that ramble) decodes with a llama.cpp
grammar that admits only the prompt's four category words (True/False for FActScore): every output
parses, and there is no rationale. Reports record the setting.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from kalma_graph.caqa.evaluators.base import PARSER_VERSION, Judgement, parse_label, parse_true_false
from kalma_graph.caqa.model import CATEGORIES, Sample


def choice_grammar(options: Sequence[str]):
    """A grammar admitting exactly one of `options`."""
    from kalma_graph.generation.grammar import gbnf_literal, llama_grammar

    return llama_grammar("root ::= " + " | ".join(gbnf_literal(o) for o in options))


def demos_from(samples: Sequence[Sample], seed: int = 0, labels: dict[str, str] | None = None) -> list[dict]:
    """One demonstration per category from the training split (seeded choice), in the order of
    Table 13 (supportive, insufficient, contradictory, irrelevant); [] when a category is missing."""
    labels = labels or {}
    rng = random.Random(seed)
    demos = []
    for category in CATEGORIES:
        pool = sorted((s for s in samples if s.split == "train" and s.category == category), key=lambda s: s.id)
        if not pool:
            return []
        s = rng.choice(pool)
        demos.append({"category": category, "question": s.claim_question, "answer": s.answer_statement,
                      "citation": s.citation, "label": labels.get(category, category), "id": s.id})
    return demos


class LLMJudge:
    labels = CATEGORIES

    def __init__(self, llm, *, prompt: str = "caqa/judge_zero_shot", demos: list[dict] | None = None,
                 max_tokens: int = 48, seed: int = 0, name: str | None = None, constrained: bool = False,
                 concurrency: int = 1) -> None:
        from kalma_graph.models.llm import GenerationParams
        from kalma_graph.prompts import load_prompt

        self.llm = llm
        self.concurrency = concurrency  # chat calls in flight (a model server; `models.calls.in_order`)
        self.prompt = load_prompt(prompt)
        self.fact_prompt = load_prompt("caqa/factscore_fact")
        self.few_shot = "demo_template" in self.prompt
        self.demos = (demos or self.prompt.get("demos", [])) if self.few_shot else []
        self.params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=seed)
        self.fact_params = GenerationParams(max_tokens=8, temperature=0.0, seed=seed)
        self.name = name or ("llm-few-shot" if self.few_shot else "llm-zero-shot")
        self.truncated = 0
        self.constrained = constrained
        self._grammar = choice_grammar(list(self.prompt["labels"].values())) if constrained else None
        self._tf_grammar = choice_grammar(["True", "False"]) if constrained else None

    def describe(self) -> dict[str, Any]:
        return {
            "evaluator": self.name,
            "llm": self.llm.header(),
            "prompt": {"name": self.prompt["name"], "version": self.prompt.get("version"),
                       "sha256": self.prompt["sha256"]},
            "demos": [d.get("id", f"built-in:{d['category']}") for d in self.demos],
            "generation": {"max_tokens": self.params.max_tokens, "temperature": 0.0, "seed": self.params.seed},
            "constrained": self.constrained,
            "label_parser": PARSER_VERSION,
        }

    def render(self, sample: Sample) -> str:
        p = self.prompt
        fields = {"question": sample.claim_question, "answer": sample.answer_statement, "citation": sample.citation}
        if self.few_shot:
            demos = "\n\n".join(
                p["demo_template"].format(n=i + 1, **{**d, "label": p["labels"].get(d["category"], d["label"])})
                for i, d in enumerate(self.demos))
            return p["template"].format(instruction=p["instruction"], demos=demos, **fields)
        return p["template"].format(instruction=p["instruction"], **fields)

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        from kalma_graph.models.calls import in_order

        out = [result() for _, result in in_order(self.judge_one, samples, self.concurrency)]
        self.truncated += sum(1 for j in out if j.detail.get("truncated"))
        return out

    def judge_one(self, sample: Sample) -> Judgement:
        completion = self.llm.chat([{"role": "user", "content": self.render(sample)}], self.params,
                                   grammar=self._grammar)
        text = completion.text.strip()
        label = parse_label(text)
        rationale = text.split("\n", 1)[1].strip() if "\n" in text else None
        return Judgement(label, rationale or None, text, {"truncated": completion.truncated})

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        out: list[bool | None] = []
        for fact, citation in zip(facts, citations):
            text = self.fact_prompt["template"].format(fact=fact, citation=citation)
            completion = self.llm.chat([{"role": "user", "content": text}], self.fact_params, grammar=self._tf_grammar)
            out.append(parse_true_false(completion.text))
        return out
