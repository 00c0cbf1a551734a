"""`--cite grounded`: the verifier in the decoding loop (issue 32).

The answer is written one sentence at a time under the attribute-first grammar, restricted to a single
unit (`[Q1, p: v] Sentence.`, or nothing: the model ends the answer). Each sentence is checked by the
graph-grounded verifier (`kalma_graph.verification`) in the context of the sentences accepted so far:

- a sentence whose claims are all supported by its own citations is accepted;
- otherwise it is re-sampled (at most `tries` candidates, seeded, at `resample_temperature`), and the best
  candidate is kept: most citations supported, fewest claims the graph does not hold;
- a kept sentence keeps its supported citations and gains the shown triples that hold its other claims (the
  verifier names them); one that still states what the graph does not hold gets `[NA]`;
- a candidate that repeats an accepted sentence, cites no supported fact the answer has not stated yet
  (filler such as "X was a human" included), or whose prose holds a QID or a raw `label: value` list, is
  never kept.

The answer stops when the model ends it, when every fact the question asks (a relation the question names,
of a person it names) is cited and supported, when no candidate adds a supported fact, after
`max_sentences`, or when the kept sentences reach `params.max_tokens` (then the record says truncated).
Re-samples cost time, not answer length: at most `max_sentences × tries` calls.

Each call continues the same prompt: llama.cpp reuses the KV cache of the common prefix (the prompt and the
sentences accepted so far), so a re-sample re-evaluates only the rejected sentence's tokens.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from kalma_graph.evaluation.citations import from_attribute_first, parse_answer
from kalma_graph.store.base import Entity, Triple

MAX_SENTENCES = 8
TRIES = 3
RESAMPLE_TEMPERATURE = 0.7
MAX_UNIT_TOKENS = 160
# Facts too thin to make a sentence of their own ("X was a human").
_TRIVIAL = frozenset({("instance of", "human"), ("sex or gender", "male"), ("sex or gender", "female")})
_QID_RE = re.compile(r"\b[QP][1-9][0-9]{1,}\b|\b[mg]\.[0-9a-z_]{4,}\b")
_RAW_PAIRS_RE = re.compile(r"\b[a-z][a-z ,]{2,60}: [^,;]+(?:, [a-z][a-z ,]{2,60}: [^,;]+)+")


@dataclass
class GroundedResult:
    """What the loop wrote: the canonical answer, the accepted units as the model wrote them, and how it went."""

    answer: str
    raw: str
    finish_reason: str  # "stop" (model ended, question covered or max sentences) | "length" (token budget)
    stop_reason: str
    sentences: int = 0
    candidates: int = 0
    resampled: int = 0  # sentences for which more than one candidate was written
    marked_na: int = 0  # kept sentences that still state what their citations do not hold
    rejected: int = 0  # candidates never kept (repeats, QIDs or raw label lists in prose, empty)
    recited: int = 0  # citations added where the verifier found the shown triple a claim rests on
    completion_tokens: int = 0
    seconds: float = 0.0
    asked: list[str] = field(default_factory=list)  # "Q1 / place of birth": what the question asks

    def stats(self) -> dict[str, Any]:
        return {"stop_reason": self.stop_reason, "sentences": self.sentences, "candidates": self.candidates,
                "resampled": self.resampled, "marked_na": self.marked_na, "rejected": self.rejected,
                "recited": self.recited,
                "completion_tokens": self.completion_tokens, "seconds": round(self.seconds, 3), "asked": self.asked}


def _sentence_key(clean_text: str) -> str:
    """A sentence as compared for repeats: case and spacing aside."""
    return " ".join(clean_text.casefold().split())


def prose_problem(clean_text: str, seen: Sequence[str]) -> str | None:
    """Why a sentence's prose can never be kept: a repeat, a QID, or the knowledge block poured out."""
    key = _sentence_key(clean_text)
    if not key:
        return "empty"
    if key in seen:
        return "repeats an earlier sentence"
    if _QID_RE.search(clean_text):
        return "holds an entity id"
    if _RAW_PAIRS_RE.search(clean_text):
        return "lists raw 'label: value' pairs"
    return None


_CLAUSE_RE = re.compile(r",\s*and\s+|;|:|\?\s+")


def asked_facts(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> set[tuple[str, str]]:
    """(entity id, relation label) pairs the question asks for: per clause ("…, and …"), a person it names
    and a relation it names there (its label or a cue of it, `relation_cues.json`) that the graph shown holds
    for that person; a clause that names no person (a list after a colon) asks of every person named."""
    from kalma_graph.verification.lexicon import load_lexicon
    from kalma_graph.verification.text import find_phrase, find_stem, phrase, tokenize

    lexicon = load_lexicon()
    clauses = [tokenize(c) for c in _CLAUSE_RE.split(question) if c.strip()]
    named = [{e.id for e in entities if e.name and find_phrase(tokens, phrase(e.name))} for tokens in clauses]
    everyone = set().union(*named) if named else set()
    out = set()
    for tokens, people in zip(clauses, named):
        for t in shown:
            if t.subject not in (people or everyone) or t.label == "name":
                continue
            label_words = phrase(t.label)
            if (label_words and find_phrase(tokens, label_words)) or any(find_stem(tokens, cue) for cue in lexicon.relation(t.label).cues):
                out.add((t.subject, t.label))
    return out


def grounded_generate(llm: Any, prompt: str, grammar: Any, params: Any, *, question: str, shown: Sequence[Triple],
                      entities: Sequence[Entity], first_grammar: Any = None, known_props: Any = None, known_pairs: Any = None,
                      verifier: Any = None, max_sentences: int = MAX_SENTENCES, tries: int = TRIES,
                      resample_temperature: float = RESAMPLE_TEMPERATURE) -> GroundedResult:
    """Write, check and keep an answer sentence by sentence (see the module docstring). `llm` is a
    `LocalLLM` (its `complete(prompt, params, grammar)`), `prompt` the rendered chat prompt, `grammar` the
    `attribute_first_unit` grammar (one sentence or the end), `first_grammar` the `attribute_first_one` grammar
    (exactly one sentence: an answer never ends before it starts; default `grammar`), `params` the run's
    `GenerationParams`."""
    from kalma_graph.verification import AnswerInput, CitedTriple, Verifier
    from kalma_graph.verification.records import evidence_triple
    from kalma_graph.verification.verifier import cited_sentences, graph_entity, graph_triple

    from .cite import render_marks, supported_triples

    started = time.perf_counter()
    verifier = verifier or Verifier()
    graph = [graph_triple(t) for t in shown]
    names = [graph_entity(e) for e in entities]
    shown_keys = {(t.subject, t.label, t.value) for t in shown}
    asked = asked_facts(question, entities, shown)
    covered: set[tuple[str, str]] = set()
    stated: set[tuple[str, str, str]] = set()  # every supported triple the kept sentences cite
    accepted: list[tuple[str, list[CitedTriple]]] = []
    seen: list[str] = []
    units: list[str] = []
    result = GroundedResult(answer="", raw="", finish_reason="stop", stop_reason="max_sentences",
                            asked=sorted(f"{s} / {p}" for s, p in asked))
    budget = params.max_tokens  # tokens of the kept sentences: the answer's length cap, as for one completion
    for index in range(max_sentences):
        best: tuple[tuple, str, Any, Any] | None = None
        fallback: tuple[tuple, str, Any, Any] | None = None  # says nothing new, but something: the first sentence's last resort
        written = 0
        unended = 0  # candidates cut at MAX_UNIT_TOKENS without ending their sentence
        ended = False
        for attempt in range(tries):
            call = replace(params, max_tokens=min(MAX_UNIT_TOKENS, budget), seed=params.seed + 7919 * index + attempt,
                           temperature=params.temperature if attempt == 0 else resample_temperature)
            completion = llm.complete(prompt + "".join(units), call,
                                      grammar=grammar if units or first_grammar is None else first_grammar)
            result.completion_tokens += completion.completion_tokens
            result.candidates += 1
            written += 1
            unit = completion.text.strip()
            if not unit:
                ended = attempt == 0  # the model ends the answer (a re-sample's silence just fails)
                if ended:
                    break
                continue
            if completion.truncated:
                result.rejected += 1
                unended += 1
                continue
            sentences = parse_answer(from_attribute_first(unit), known_props, known_pairs).sentences
            if len(sentences) != 1 or prose_problem(sentences[0].clean_text, seen):
                result.rejected += 1
                continue
            sentence = sentences[0]
            check = verifier.verify(AnswerInput(question=question, sentences=[*accepted, *cited_sentences([sentence])],
                                                shown=graph, entities=names)).sentences[-1]
            supported = sum(c.verdict == "supported" for c in check.citations)
            unheld = sum(not c.held for c in check.claims)
            score = (check.fully_supported and supported > 0, supported - unheld, -len(sentence.clean_text))
            new = set(supported_triples(sentence, check)) - stated
            if not {t for t in new if (t[1], t[2]) not in _TRIVIAL}:
                result.rejected += 1  # says nothing new the graph holds: a repeat in other words, or filler
                if fallback is None or score > fallback[0]:
                    fallback = (score, unit, sentence, check)
                continue
            if best is None or score > best[0]:
                best = (score, unit, sentence, check)
            if check.fully_supported and supported:
                break
        result.resampled += written > 1
        if ended:
            result.stop_reason = "model ended"
            break
        if best is None and not accepted and fallback is not None:
            best = fallback  # never an empty answer when the model wrote something: it is kept, marked [NA]
        if best is None:
            if unended and unended == written:
                result.stop_reason = f"the model did not end a sentence within {call.max_tokens} tokens"
                result.finish_reason = "length"
            else:
                result.stop_reason = "no sentence that adds a supported fact"
            break
        _, unit, sentence, check = best
        kept = supported_triples(sentence, check)
        # A claim the graph shown holds under a triple the model did not cite gets that citation: the
        # verifier found the statement the sentence rests on.
        recited = [evidence_triple(c.evidence) for c in check.claims if c.status == "supported_uncited"]
        kept += [t for t in recited if t in shown_keys and t not in kept]
        result.recited += sum(1 for t in recited if t in shown_keys)
        unheld = [c for c in check.claims if not c.held]
        marks = render_marks(kept)
        if unheld or not kept:
            marks.insert(0, "[NA]")
            result.marked_na += 1
        units.append(" ".join([*marks, sentence.clean_text]) + " ")
        accepted.append((sentence.clean_text, [CitedTriple(subject=s, relation=p, value=v) for s, p, v in kept]))
        seen.append(_sentence_key(sentence.clean_text))
        covered |= {(s, p) for s, p, _ in kept}
        stated |= set(kept)
        result.sentences += 1
        budget -= llm.count_tokens(units[-1])
        if asked and asked <= covered:
            result.stop_reason = "the question's asked facts are covered"
            break
        if budget < MAX_UNIT_TOKENS // 4:
            result.stop_reason, result.finish_reason = "token budget spent", "length"
            break
    result.raw = "".join(units).strip()
    result.answer = from_attribute_first(result.raw)
    result.seconds = time.perf_counter() - started
    return result
