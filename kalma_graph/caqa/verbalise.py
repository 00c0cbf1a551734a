"""Data generation (§4.4): subgraph → citation (Table 9), query → (extended) question (Table 10),
question + answer → answer statement (Table 11).

Two verbalisers behind one interface:

- `TemplateVerbaliser` (default; no model): one sentence per fact from a few fixed templates chosen
  by the seeded RNG; questions and answer statements from the query's relation phrases
  (`What is the place of birth of the spouse of Anna Scott?`).
- `LLMVerbaliser`: a local GGUF model through `kalma_graph.models.llm` with the paper's prompts
  (`prompts/caqa/verbalise_subgraph|extend_question|answer_statement.json`). Its output is checked —
  a citation must name every entity of its subgraph, a question must end in `?` and name the query's
  constant entities, an answer statement must name the answers, nothing may be cut at max_tokens —
  and a rejected output falls back to the template, counted in the build report (an LLM that drops
  a fact would silently turn a supportive citation into a partial one).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any, Sequence

from kalma_graph.caqa.model import Fact, Grounding, Query

PREPOSITIONS = frozenset({"at", "of", "by", "in", "for", "on", "to", "with", "from", "as", "into", "about"})
#: single-word labels that read as verbs (`Mexico City contains Coyoacán`)
VERBS = frozenset({"follows", "replaces", "contains", "owns", "uses", "founded", "produced", "created"})

NOUN_TEMPLATES = ("The {r} of {s} is {o}.", "{s}'s {r} is {o}.", "{o} is the {r} of {s}.")
PREP_TEMPLATES = ("{s} is {r} {o}.", "According to the record, {s} is {r} {o}.")
VERB_TEMPLATES = ("{s} {r} {o}.",)


def relation_kind(label: str) -> str:
    words = label.lower().split()
    if not words:
        return "noun"
    if len(words) == 1 and words[0] in VERBS:
        return "verb"
    return "prep" if words[-1] in PREPOSITIONS else "noun"


def fact_sentence(fact: Fact, rng: random.Random | None = None) -> str:
    s, r, o = fact.subject_name or fact.subject, fact.label or fact.pid, fact.object_name or fact.object
    templates = {"noun": NOUN_TEMPLATES, "prep": PREP_TEMPLATES, "verb": VERB_TEMPLATES}[relation_kind(r)]
    template = rng.choice(templates) if rng is not None else templates[0]
    return _cap(template.format(s=s, r=r, o=o))


def hop_phrase(label: str, inner: str, reverse: bool) -> str:
    kind = relation_kind(label)
    if not reverse:
        return {"noun": f"the {label} of {inner}", "prep": f"the entity that {inner} is {label}",
                "verb": f"the entity that {inner} {label}"}[kind]
    return {"noun": f"the entity whose {label} is {inner}", "prep": f"the entity that is {label} {inner}",
            "verb": f"the entity that {label} {inner}"}[kind]


def branch_phrases(query: Query) -> list[str]:
    phrases = []
    for branch in query.branches:
        phrase = branch.anchor_name or branch.anchor
        for hop in branch.hops:
            phrase = hop_phrase(hop.label or hop.pid, phrase, hop.reverse)
        phrases.append(phrase)
    return list(dict.fromkeys(phrases))


def template_question(query: Query) -> str:
    phrases = branch_phrases(query)
    if len(phrases) == 1:
        return f"What is {phrases[0]}?"
    if query.op == "or":
        return f"What is {' or '.join(phrases)}?"
    if len(phrases) == 2:
        return f"Which entity is both {phrases[0]} and {phrases[1]}?"
    return f"Which entity is {', '.join(phrases[:-1])} and {phrases[-1]}?"


def template_answer_statement(query: Query, answers: Sequence[str]) -> str:
    phrases = branch_phrases(query)
    names = list(dict.fromkeys(answers))
    if query.op == "or" or len(phrases) == 1:
        return _cap(f"{' or '.join(phrases) if len(phrases) > 1 else phrases[0]} is {_join(names)}.")
    return _cap(f"{_join(names)} is {_join(phrases)}.")


def triples_text(facts: Sequence[Fact]) -> str:
    """Table 9's subgraph notation: [("s", "r", "o"), ...]."""
    return "[" + ", ".join("(" + ", ".join(f'"{x}"' for x in f.triple()) + ")" for f in facts) + "]"


def query_triples_text(grounding: Grounding) -> str:
    """Table 10's notation: the query's triples with variables (?x for the answer, ?v1… between)."""
    parts = []
    var = 0
    for branch, _chain in zip(grounding.query.branches, grounding.chains):
        current = branch.anchor_name or branch.anchor
        for i, hop in enumerate(branch.hops):
            last = i == len(branch.hops) - 1
            if last:
                nxt = "?x"
            else:
                var += 1
                nxt = f"?v{var}"
            s, o = (nxt, current) if hop.reverse else (current, nxt)
            parts.append(f"({s}, {hop.label or hop.pid}, {o})")
            current = nxt
    return "[" + ", ".join(parts) + "]"


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


class TemplateVerbaliser:
    name = "template"

    def __init__(self) -> None:
        self.counts: Counter = Counter()

    def describe(self) -> dict[str, Any]:
        return {"verbaliser": self.name}

    def question(self, grounding: Grounding, rng: random.Random) -> str:
        self.counts["question:template"] += 1
        return template_question(grounding.query)

    def answer_statement(self, question: str, grounding: Grounding, answers: Sequence[str], rng: random.Random) -> str:
        self.counts["answer_statement:template"] += 1
        return template_answer_statement(grounding.query, answers)

    def citation(self, facts: Sequence[Fact], rng: random.Random) -> str:
        self.counts["citation:template"] += 1
        return " ".join(fact_sentence(f, rng) for f in facts)


class LLMVerbaliser(TemplateVerbaliser):
    """The paper's prompts on a local GGUF model; checked outputs, template fallback (counted)."""

    name = "llm"

    def __init__(self, llm, *, max_tokens: int = 160, seed: int = 0) -> None:
        super().__init__()
        from kalma_graph.models.llm import GenerationParams
        from kalma_graph.prompts import load_prompt

        self.llm = llm
        self.params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=seed)
        self.prompts = {k: load_prompt(f"caqa/{k}")
                        for k in ("verbalise_subgraph", "extend_question", "answer_statement")}

    def describe(self) -> dict[str, Any]:
        return {
            "verbaliser": self.name,
            "llm": self.llm.header(),
            "generation": {"max_tokens": self.params.max_tokens, "temperature": self.params.temperature,
                           "seed": self.params.seed},
            "prompts": {k: {"version": p.get("version"), "sha256": p["sha256"]} for k, p in self.prompts.items()},
        }

    def _ask(self, prompt: dict, **fields: str) -> tuple[str, bool]:
        messages = []
        if prompt.get("system"):
            messages.append({"role": "system", "content": prompt["system"]})
        demos = "".join(prompt["demo_template"].format(**d) + "\n\n" for d in prompt.get("demos", []))
        messages.append({"role": "user", "content": prompt["template"].format(
            instruction=prompt["instruction"], demos=demos, **fields)})
        out = self.llm.chat(messages, self.params)
        text = out.text.strip()
        for prefix in prompt.get("strip_prefixes", []):
            if text.lower().startswith(prefix.lower()):
                text = text[len(prefix):].strip()
        return text, out.truncated

    def _accept(self, kind: str, text: str, truncated: bool, required: Sequence[str], extra_ok: bool = True) -> bool:
        if truncated:
            self.counts[f"{kind}:rejected (truncated)"] += 1
            return False
        if not text or not extra_ok:
            self.counts[f"{kind}:rejected (empty or malformed)"] += 1
            return False
        low = text.lower()
        if any(name.lower() not in low for name in required if name):
            self.counts[f"{kind}:rejected (an entity name is missing)"] += 1
            return False
        self.counts[f"{kind}:llm"] += 1
        return True

    def question(self, grounding: Grounding, rng: random.Random) -> str:
        text, truncated = self._ask(self.prompts["extend_question"], triples=query_triples_text(grounding))
        text = text.splitlines()[0].strip() if text else text
        anchors = [b.anchor_name for b in grounding.query.branches]
        if self._accept("question", text, truncated, anchors, extra_ok=text.endswith("?")):
            return text
        return super().question(grounding, rng)

    def answer_statement(self, question: str, grounding: Grounding, answers: Sequence[str], rng: random.Random) -> str:
        text, truncated = self._ask(self.prompts["answer_statement"], question=question, answer=_join(answers))
        text = re.sub(r"\s+", " ", text).strip()
        if self._accept("answer_statement", text, truncated, answers):
            return text
        return super().answer_statement(question, grounding, answers, rng)

    def citation(self, facts: Sequence[Fact], rng: random.Random) -> str:
        text, truncated = self._ask(self.prompts["verbalise_subgraph"], subgraph=triples_text(facts))
        text = re.sub(r"\s+", " ", text).strip()
        names = sorted({n for f in facts for n in (f.subject_name, f.object_name)})
        if self._accept("citation", text, truncated, names):
            return text
        return super().citation(facts, rng)
