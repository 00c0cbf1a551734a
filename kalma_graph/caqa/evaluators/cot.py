"""Chain-of-thought decomposition (Appendix E.3): answer statement → atomic sub-facts → a category
per sub-fact (supportive / contradictory / irrelevant) → the final category by rule
(`base.final_label`).

- `cot-llm`: both steps by a local LLM with the paper's prompts (`caqa/cot_decompose`,
  `caqa/cot_fact_label`). A decomposition that yields no sub-fact, or a sub-fact label that cannot
  be parsed, makes the sample's label None (counted unparsed), never a guess.
- `cot-nli`: no LLM: a rule-based decomposer (`decompose`) and the NLI model for each sub-fact
  (entailment → supportive, contradiction → contradictory, neutral → irrelevant). It is the one
  model-light evaluator here that can say "partially supportive".
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from kalma_graph.caqa.evaluators.base import PARSER_VERSION, Judgement, final_label, parse_label
from kalma_graph.caqa.model import CATEGORIES, CONTRADICTORY, IRRELEVANT, SUPPORTIVE, Sample

_COPULA = re.compile(r"^(.*?\b(?:is|are|was|were)\b\s+)", re.IGNORECASE)
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|did|does|do)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")
_FACT_LABELS = (SUPPORTIVE, CONTRADICTORY, IRRELEVANT)


def decompose(statement: str) -> list[str]:
    """Rule-based sub-facts: sentences, then clauses joined by `and` / `, and`; a clause without a
    verb of its own borrows the first clause's subject and copula.

    >>> decompose("Los Angeles is the place of death of Frank Sinatra and the residence of Demi Lovato.")
    ['Los Angeles is the place of death of Frank Sinatra', 'Los Angeles is the residence of Demi Lovato']
    >>> decompose("The occupation of Ann Lee is painter and poet.")
    ['The occupation of Ann Lee is painter', 'The occupation of Ann Lee is poet']
    """
    facts: list[str] = []
    for sentence in _SENTENCE.split(statement.strip()):
        sentence = sentence.strip().rstrip(".!?").strip()
        if not sentence:
            continue
        parts = [p.strip(" ,") for p in re.split(r",?\s+and\s+(?:also\s+)?", sentence) if p.strip(" ,")]
        head = _COPULA.match(parts[0])
        prefix = head.group(1) if head else ""
        for i, part in enumerate(parts):
            if i and prefix and not _VERB.search(part):
                part = prefix + re.sub(r"^(?:also|both)\s+", "", part)
            facts.append(part)
    return facts


def _nli_fact_label(nli_label: str) -> str:
    return {"entailment": SUPPORTIVE, "contradiction": CONTRADICTORY}.get(nli_label, IRRELEVANT)


class CoTNLIEvaluator:
    name = "cot-nli"
    labels = CATEGORIES

    def __init__(self, nli, batch_size: int | None = None) -> None:
        self.nli = nli
        self.batch_size = batch_size

    def describe(self) -> dict[str, Any]:
        return {"evaluator": self.name, "decomposition": "rule-based (kalma_graph.caqa.evaluators.cot.decompose)",
                "fact_label": "NLI argmax (premise = citation)", "nli": self.nli.describe()}

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        owners, premises, hypotheses = [], [], []
        facts_per: list[list[str]] = []
        for i, s in enumerate(samples):
            facts = decompose(s.answer_statement)
            facts_per.append(facts)
            for f in facts:
                owners.append(i)
                premises.append(s.citation)
                hypotheses.append(f)
        preds = self.nli.predict(premises, hypotheses, batch_size=self.batch_size) if premises else []
        labels: list[list[str]] = [[] for _ in samples]
        for owner, p in zip(owners, preds):
            labels[owner].append(_nli_fact_label(p.label))
        out = []
        for facts, labs in zip(facts_per, labels):
            rationale = "; ".join(f"{f} → {lab}" for f, lab in zip(facts, labs))
            out.append(Judgement(final_label(labs), rationale, None, {"facts": facts, "fact_labels": labs}))
        return out

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        preds = self.nli.predict(list(citations), list(facts), batch_size=self.batch_size)
        return [p.label == "entailment" for p in preds]


class CoTLLMEvaluator:
    name = "cot-llm"
    labels = CATEGORIES

    def __init__(self, llm, *, max_tokens: int = 128, label_tokens: int = 24, seed: int = 0,
                 constrained: bool = False, concurrency: int = 1) -> None:
        from kalma_graph.models.llm import GenerationParams
        from kalma_graph.prompts import load_prompt

        self.llm = llm
        self.concurrency = concurrency  # samples judged at once (a model server; `models.calls.in_order`)
        self.decompose_prompt = load_prompt("caqa/cot_decompose")
        self.label_prompt = load_prompt("caqa/cot_fact_label")
        self.decompose_params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=seed)
        self.label_params = GenerationParams(max_tokens=label_tokens, temperature=0.0, seed=seed)
        self.max_facts = 8
        self.constrained = constrained
        if constrained:
            from kalma_graph.caqa.evaluators.llm_judge import choice_grammar

            self._grammar = choice_grammar(["Supportive", "Contradictory", "Irrelevant"])
        else:
            self._grammar = None

    def describe(self) -> dict[str, Any]:
        return {"evaluator": self.name, "llm": self.llm.header(),
                "prompts": {p["name"]: {"version": p.get("version"), "sha256": p["sha256"]}
                            for p in (self.decompose_prompt, self.label_prompt)},
                "max_tokens": [self.decompose_params.max_tokens, self.label_params.max_tokens],
                "constrained": self.constrained, "label_parser": PARSER_VERSION}

    def _chat(self, content: str, params, grammar=None):
        return self.llm.chat([{"role": "user", "content": content}], params, grammar=grammar)

    def sub_facts(self, statement: str) -> tuple[list[str], str]:
        out = self._chat(self.decompose_prompt["template"].format(sentence=statement), self.decompose_params)
        facts = []
        for line in out.text.splitlines():
            line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            if line and not line.lower().startswith("sub-facts"):
                facts.append(line)
        return facts[: self.max_facts], out.text

    def fact_label(self, fact: str, citation: str) -> tuple[str | None, str]:
        out = self._chat(self.label_prompt["template"].format(fact=fact, citation=citation), self.label_params,
                         grammar=self._grammar)
        return parse_label(out.text, allowed=_FACT_LABELS), out.text

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        from kalma_graph.models.calls import in_order

        return [result() for _, result in in_order(self.judge_one, samples, self.concurrency)]

    def judge_one(self, sample: Sample) -> Judgement:
        facts, raw = self.sub_facts(sample.answer_statement)
        labels, raws = [], [raw]
        for f in facts:
            lab, text = self.fact_label(f, sample.citation)
            labels.append(lab)
            raws.append(text)
        rationale = "; ".join(f"{f} → {lab}" for f, lab in zip(facts, labels)) or None
        return Judgement(final_label(labels), rationale, "\n---\n".join(raws), {"facts": facts, "fact_labels": labels})

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        result: list[bool | None] = []
        for f, c in zip(facts, citations):
            lab, _ = self.fact_label(f, c)
            result.append(None if lab is None else lab == SUPPORTIVE)
        return result
