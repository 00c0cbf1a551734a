"""Question-intent classification for the S-score and the SCK weights (seed 004, §2.2, Table 3).

The seven intents are NFQA's six non-factoid categories (instruction, reason, evidence-based,
comparison, experience, debate; Bolotova et al. 2022) and factoid. The paper fine-tunes an in-domain
classifier; with no labelled data at hand the classifiers here are zero-shot and pluggable — any
object with `name`, `classify(questions) -> list[IntentPrediction]` and `header()` will do:

- `NLIIntentClassifier` (default): premise = the question, one hypothesis per intent
  (`prompts/sck/intent_nli.json`); the entailment probabilities, normalised to sum to 1, are the
  intent distribution and the arg-max the intent.
- `LLMIntentClassifier`: a local GGUF model answers with JSON `{"intent": ...}`
  (`prompts/sck/intent_llm.json`, grammar-constrained by default); output naming no intent is
  missing, never guessed — the answer then gets no S and no SCK.
- `RuleIntentClassifier`: wh-word and cue-phrase rules; instant, no model (tests, quick looks).

>>> [p.intent for p in RuleIntentClassifier().classify(["Why is the sky blue?", "How do I bake bread?",
...  "Compare these iPhone 13, Pixel 6, and Galaxy S23", "Who is Stephen Crane?"])]
['reason', 'instruction', 'comparison', 'factoid']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from pydantic import ValidationError

from kalma_graph.sck.base import INTENTS
from kalma_graph.sck.judge_outputs import IntentOutput, json_objects


@dataclass(frozen=True)
class IntentPrediction:
    intent: str | None  # None: missing (the classifier's output named no intent)
    probs: dict[str, float] = field(default_factory=dict)
    method: str = ""
    raw: str | None = None
    missing_reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "probs": self.probs, "method": self.method, "raw": self.raw,
                "missing_reason": self.missing_reason}


class NLIIntentClassifier:
    name = "nli"

    def __init__(self, nli: Any, *, prompt: str = "sck/intent_nli") -> None:
        from kalma_graph.prompts import load_prompt

        self.nli = nli
        self.prompt = load_prompt(prompt)
        hypotheses = self.prompt["hypotheses"]
        if set(hypotheses) != set(INTENTS):
            raise ValueError(f"{prompt}: hypotheses must cover exactly the intents {INTENTS}")
        self.hypotheses = [hypotheses[i] for i in INTENTS]

    def header(self) -> dict[str, Any]:
        return {"intent_classifier": self.name, "prompt": self.prompt["name"],
                "prompt_version": self.prompt.get("version"),
                "prompt_sha256": self.prompt["sha256"], "nli_model_hash": self.nli.model_hash}

    def classify(self, questions: Sequence[str]) -> list[IntentPrediction]:
        premises = [self.prompt["premise_template"].format(question=q) for q in questions for _ in INTENTS]
        hypotheses = [h for _ in questions for h in self.hypotheses]
        probs = self.nli.entailment_prob(premises, hypotheses) if premises else []
        out = []
        for k in range(len(questions)):
            row = [float(x) for x in probs[k * len(INTENTS):(k + 1) * len(INTENTS)]]
            total = sum(row) or 1.0
            dist = {intent: p / total for intent, p in zip(INTENTS, row)}
            out.append(IntentPrediction(max(dist, key=dist.__getitem__), dist, self.name))
        return out


def parse_intent_output(text: str) -> tuple[str | None, str | None]:
    """(intent, missing reason) from an LLM's reply: the grammar's JSON (`IntentOutput`); failing that,
    leniently, any JSON object with an `intent` field, or exactly one intent name.

    >>> parse_intent_output('{"intent": "comparison"}')
    ('comparison', None)
    >>> parse_intent_output('Evidence-based')
    ('evidence-based', None)
    >>> parse_intent_output('It is about phones')
    (None, 'no intent named in the output')
    """
    try:
        return IntentOutput.read(text).intent, None
    except ValidationError:
        pass  # not the grammar's output: read it as unconstrained decoding writes
    for obj in json_objects(text):
        if "intent" in obj:
            value = " ".join(str(obj["intent"]).casefold().split()).replace(" ", "-")
            return (value, None) if value in INTENTS else (None, f"unknown intent {obj['intent']!r}")
    word = " ".join(text.strip().strip("\"'.").casefold().split()).replace(" ", "-")
    if word in INTENTS:
        return word, None
    return None, "no intent named in the output"


class LLMIntentClassifier:
    name = "llm"

    def __init__(self, llm: Any, *, prompt: str = "sck/intent_llm", max_tokens: int = 24, constrained: bool = True,
                 seed: int = 0) -> None:
        from kalma_graph.models.llm import GenerationParams
        from kalma_graph.prompts import load_prompt

        self.llm = llm
        self.prompt = load_prompt(prompt)
        self.params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=seed)
        self._grammar = None
        if constrained and self.prompt.get("grammar"):
            from llama_cpp import LlamaGrammar

            self._grammar = LlamaGrammar.from_string(self.prompt["grammar"], verbose=False)

    def header(self) -> dict[str, Any]:
        return {"intent_classifier": self.name, "prompt": self.prompt["name"],
                "prompt_version": self.prompt.get("version"),
                "prompt_sha256": self.prompt["sha256"], "constrained": self._grammar is not None,
                "params": self.params.__dict__, "llm": self.llm.header()}

    def classify(self, questions: Sequence[str]) -> list[IntentPrediction]:
        out = []
        for question in questions:
            messages = [{"role": "system", "content": self.prompt["system"]},
                        {"role": "user", "content": self.prompt["template"].format(question=question)}]
            completion = self.llm.chat(messages, self.params, grammar=self._grammar)
            intent, reason = parse_intent_output(completion.text)
            if intent is None and completion.truncated:
                reason = f"{reason} (output truncated at max_tokens={self.params.max_tokens})"
            out.append(IntentPrediction(intent, {intent: 1.0} if intent else {}, self.name, completion.text, reason))
        return out


# Cue rules, tried in order; the first that matches wins. Factoid is the fall-back.
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((intent, re.compile(pattern, re.IGNORECASE))
                                                        for intent, pattern in (
    ("comparison", r"\b(compare|comparing|comparison|differences?|different from|differ|vs\.?|versus|"
                   r"better than|similarities|which is better)\b"),
    ("instruction", r"^\s*(how (do|can|should|would) (i|you|we|one)\b|how to\b)|\bsteps? (to|for)\b|\bguide to\b"),
    ("reason", r"^\s*why\b|\bwhat (causes|caused|makes)\b|\bfor what reason\b|\bhow come\b"),
    ("experience", r"\b(have you|has anyone|anyone (tried|know|here)|your experiences?|recommend|would you|"
                   r"what should i)\b"),
    ("debate", r"\b(do you think|should (we|people|the|it)|is it (right|wrong|ethical|ok|okay|fair)|"
               r"opinions?|agree|for or against)\b"),
    ("evidence-based", r"^\s*(what (is|are|was|were) (a|an|the)?\b(?!.*\b(name|year|date)\b)|how does|"
                       r"how do (?!i\b|you\b|we\b)|explain|describe|tell me about|what does)\b|"
                       r"\b(introduction|overview) (of|to)\b"),
))


class RuleIntentClassifier:
    name = "rules"

    def header(self) -> dict[str, Any]:
        return {"intent_classifier": self.name, "rules": [intent for intent, _ in _RULES] + ["factoid (fall-back)"]}

    def classify(self, questions: Sequence[str]) -> list[IntentPrediction]:
        out = []
        for question in questions:
            intent = next((name for name, pattern in _RULES if pattern.search(question)), "factoid")
            out.append(IntentPrediction(intent, {intent: 1.0}, self.name))
        return out
