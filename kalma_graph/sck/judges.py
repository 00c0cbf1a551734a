"""The attribution judges of KG-AttrScore: an NLI model (default) or a local LLM with the prompt of
Figure 2 (`prompts/sck/kg_attr.json`). Both take the question and, per sentence, its
`SentenceEvidence`, and return one `Judgement` per sentence.

**NLI judge** (`NLIAttributionJudge`). Premise = the question followed by the sentence (citation
marks stripped) — the paper's f sees the Q&A pair, and the question resolves the sentence's pronouns
("Who was Stephen Crane? He was born in Newark."; `premise="sentence"` leaves it out); hypotheses =
verbalised triplets ("Stephen Crane place of birth Newark."). This is the direction of KaLMA's
text–citation alignment: a sentence usually makes several claims, and we ask whether it *states*
the triplet, not whether one triplet proves the whole sentence.

- *Attributable* when a triplet between the sentence's entities (the paper's SoT) is entailed with
  P(entailment) ≥ `threshold`. With context evidence, a one-hop statement whose object is *named* in
  the sentence without being an NER entity ("poet", "tuberculosis": whole words, case-insensitive)
  is a candidate too — both of its ends are in the sentence, as for the paper's SoT (objects that
  are part of the subject's own name, such as a surname, do not count).
- *Contradictory* when the sentence states a relation that the graph holds with another object.
  For an entity s of the sentence or question and an entity e named in the sentence, every property
  p of s in the graph that does not already link s to e, and could hold e — some object is of e's
  kind (a shared class, or a class group of `data/ner_type_map.json`: place, human, organisation,
  ...), or all objects are text literals of unknown kind and the sentence names one of them —
  gives the hypothesis "s p e"; the best of them is the relation the sentence claims between s and
  e (Boston can replace Newark as a place of birth, not poet as an occupation). It is a contradiction when
  that hypothesis is entailed (≥ `threshold`) more strongly than any stored statement between s and e, the graph has (s,
  p, o) with o an entity of e's kind, and the sentence does not also state (s, p, o) ("born in Newark,
  New Jersey" names the region as well as the city). Comparing against the stored statements keeps
  a weak NLI model's noise from turning "born in Newark" into "educated at Newark". A contradiction
  outranks support: a sentence with a wrong claim is not attributable. Only entity-valued
  statements can be contradicted this way (a wrong date, or a place stored as a literal, is not
  caught).
- *Extrapolatory* otherwise.

**Verifier judge** (`VerifierAttributionJudge`, no model). The sentence is checked by the graph-grounded
verifier (`kalma_graph.verification`) against the evidence triplets (between and context): *Contradictory*
when a claim is contradicted (another value held for a single-valued relation: place or date of birth,
father, ...); *Attributable* when at least one claim is held and every value, name, date and number the
sentence states is held (evaluations and leftover words do not count here: the SCK score asks whether
the sentence rests on the graph, not whether it adds colour); *Extrapolatory* otherwise.

**LLM judge** (`LLMAttributionJudge`). One bounded chat call per sentence with numbered triplets
(between-statements first, then context statements whose object the sentence names, then the
rest, at most `max_triplets`); by default decoding is constrained by the prompt file's JSON
grammar, and the output is read as `judge_outputs.AttrJudgeOutput` (triplet numbers bounded by the
call). Output that is not that model (unconstrained decoding, a cut-off object) must still name the
decision explicitly (a `decision` field, or a `decision:` line); anything else is *missing* with the
raw text kept — never a guessed label.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from pydantic import ValidationError

from kalma_graph.attribution import REGISTRY, AttributionEvaluator, StatementCase, Verdict, make
from kalma_graph.kg.hypothesis import plain_sentence
from kalma_graph.kg.triples import Triple
from kalma_graph.sck.judge_outputs import AttrJudgeOutput, json_objects
from kalma_graph.sck.kg_attr import (
    ATTRIBUTABLE,
    CONTRADICTORY,
    EXTRAPOLATORY,
    LABEL_NAMES,
    Judgement,
    SentenceEvidence,
    triple_tuple,
)

if TYPE_CHECKING:
    from kalma_graph.models.llm import Grammar
    from kalma_graph.models.nli import NLIModel
    from kalma_graph.models.protocols import Generator
    from kalma_graph.verification import Verifier

NO_TRIPLETS = "No triplet links the entities of the sentence and question in the graph."

# Decision words a judge may write, mapped to the three labels (Table 1 writes Supports / Neutral).
_DECISION_WORDS = {
    "attributable": ATTRIBUTABLE, "supports": ATTRIBUTABLE, "supported": ATTRIBUTABLE, "support": ATTRIBUTABLE,
    "extrapolatory": EXTRAPOLATORY, "neutral": EXTRAPOLATORY, "not enough information": EXTRAPOLATORY,
    "contradictory": CONTRADICTORY, "contradicts": CONTRADICTORY, "contradicted": CONTRADICTORY,
    "contradiction": CONTRADICTORY, "refutes": CONTRADICTORY,
}
_DECISION_KEYS = ("decision", "label", "output", "prediction", "answer")
_DECISION_FIELD_RE = re.compile(
    r"(?:^|[\s{,\"'])(?:decision|label|prediction)[\"']?\s*[:=]\s*[\"']?(not enough information|[A-Za-z]+)",
    re.IGNORECASE)


def _fmt(triple: tuple[str, str, str]) -> str:
    return "(" + ", ".join(repr(x) for x in triple) + ")"


# --- NLI ------------------------------------------------------------------------------------------

PREMISES = ("question+sentence", "sentence")


@lru_cache(maxsize=1)
def class_groups() -> dict[str, frozenset[str]]:
    """Class id → the class groups of `kalma_graph/data/ner_type_map.json` it belongs to."""
    raw = resources.files("kalma_graph").joinpath("data/ner_type_map.json").read_bytes()
    out: dict[str, set[str]] = {}
    for group, classes in json.loads(raw.decode("utf-8")).get("groups", {}).items():
        for cls in classes:
            out.setdefault(cls, set()).add(group)
    return {cls: frozenset(groups) for cls, groups in out.items()}


def same_kind(types_a: Iterable[str], types_b: Iterable[str]) -> bool:
    """Whether two entities are of one kind: a shared class, or a shared class group.

    >>> same_kind(["Q2974552"], ["Q21518270"])   # Newark and Boston: both places
    True
    >>> same_kind(["Q21518270"], ["Q28640", "Q36180"])   # Boston and poet
    False
    """
    a, b = set(types_a), set(types_b)
    if a & b:
        return True
    groups = class_groups()
    return bool(set().union(*(groups.get(t, ()) for t in a)) & set().union(*(groups.get(t, ()) for t in b)))


@dataclass
class _Plan:
    sentence: str
    evidence: SentenceEvidence
    support: list[tuple[Triple, str]]  # (stored triple, hypothesis)
    substitutions: list[tuple[str, str, str, str, list[Triple]]]  # (s, label, e, hypothesis, stored (s, label, o))


_TEXT_TYPES = ("string", "monolingualtext")
_ID_LIKE_RE = re.compile(r"^(?:[QP]\d+|[mg]\.[0-9a-z_]+)$")


def _names_in(value: str, sentence: str) -> bool:
    """Whether an object name occurs in the sentence as whole words (ids and very short names never do).

    >>> _names_in("poet", "Stephen Crane was an American poet."), _names_in("Q6625963", "Q6625963")
    (True, False)
    """
    value = value.strip()
    if len(value) < 3 or _ID_LIKE_RE.match(value):
        return False
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", sentence, re.IGNORECASE) is not None


class NLIAttributionJudge:
    name = "nli"

    def __init__(self, nli: NLIModel, *, threshold: float = 0.5, premise: str = "question+sentence",
                 batch_size: int | None = None) -> None:
        if not 0.0 < threshold < 1.0:
            raise ValueError("threshold must be in (0, 1)")
        if premise not in PREMISES:
            raise ValueError(f"premise must be one of {PREMISES}, not {premise!r}")
        self.nli = nli
        self.threshold = threshold
        self.premise = premise
        self.batch_size = batch_size

    def header(self) -> dict[str, Any]:
        return {"judge": self.name, "nli_threshold": self.threshold, "nli_premise": self.premise,
                "nli": self.nli.describe()}

    def judge(self, question: str, items: Sequence[tuple[str, SentenceEvidence]]) -> list[Judgement]:
        plans = [self._plan(sentence, evidence) for sentence, evidence in items]
        premises: list[str] = []
        hypotheses: list[str] = []
        for plan in plans:
            premise = f"{question.strip()} {plan.sentence}" if self.premise == "question+sentence" else plan.sentence
            for _, hypothesis in plan.support:
                premises.append(premise)
                hypotheses.append(hypothesis)
            for *_, hypothesis, _ in plan.substitutions:
                premises.append(premise)
                hypotheses.append(hypothesis)
        entail: list[float] = []
        if premises:
            kwargs = {"batch_size": self.batch_size} if self.batch_size else {}
            entail = [float(x) for x in self.nli.entailment_prob(premises, hypotheses, **kwargs)]
        out: list[Judgement] = []
        cursor = 0
        for plan in plans:
            n_support, n_sub = len(plan.support), len(plan.substitutions)
            support_p = entail[cursor:cursor + n_support]
            sub_p = entail[cursor + n_support:cursor + n_support + n_sub]
            cursor += n_support + n_sub
            out.append(self._decide(plan, support_p, sub_p))
        return out

    @staticmethod
    def _plan(sentence: str, evidence: SentenceEvidence) -> _Plan:
        name = evidence.name
        named = [t for t in evidence.context
                 if _names_in(t.value, sentence) and not _names_in(t.value, name(t.subject))]
        support = [(t, plain_sentence(name(t.subject), t.label, t.value)) for t in (*evidence.between, *named)]
        by_subject: dict[str, dict[str, list[Triple]]] = {}
        for t in (*evidence.between, *evidence.context):
            by_subject.setdefault(t.subject, {}).setdefault(t.label, []).append(t)
        substitutions = []
        types = evidence.types
        for s in evidence.ids:
            for e in evidence.sentence_ids:
                if e == s or not types.get(e):
                    continue
                for label, stored in by_subject.get(s, {}).items():
                    if any(t.object_id == e for t in stored):
                        continue  # (s, label, e) is in the graph: a support hypothesis already
                    rivals = [t for t in stored
                              if t.object_id and same_kind(types[e], types.get(t.object_id, ()))]
                    # A property whose objects are all entities of another kind (occupation: poet, for a
                    # place) cannot be what the sentence claims about e. One whose objects are text
                    # literals of unknown kind (a place stored as the string "Prades") competes only when
                    # the sentence names its literal ("born in Prades, France"), and then has no rival.
                    unknown_kind = all(t.object_id is None and (t.datatype or "string") in _TEXT_TYPES
                                       for t in stored) and any(_names_in(t.value, sentence) for t in stored)
                    if rivals or unknown_kind:
                        substitutions.append((s, label, e, plain_sentence(name(s), label, name(e)), rivals))
        return _Plan(sentence, evidence, support, substitutions)

    def _decide(self, plan: _Plan, support_p: Sequence[float], sub_p: Sequence[float]) -> Judgement:
        ev = plan.evidence
        if not plan.support and not plan.substitutions:
            why = NO_TRIPLETS if not ev.n_triplets else (
                f"None of the {ev.n_triplets} statements of the entities involved is named in the sentence, "
                "and the sentence names no other entity they could conflict with.")
            return Judgement(EXTRAPOLATORY, why, (), {"n_hypotheses": 0})
        tau = self.threshold
        supported = sorted(((p, t) for (t, _), p in zip(plan.support, support_p) if p >= tau),
                           key=lambda x: -x[0])
        best_stored: dict[frozenset[str], float] = {}
        for (t, _), p in zip(plan.support, support_p):
            pair = frozenset((t.subject, t.object_id or ""))
            best_stored[pair] = max(best_stored.get(pair, 0.0), p)
        best_sub: dict[frozenset[str], tuple[float, tuple]] = {}
        for sub, p in zip(plan.substitutions, sub_p):
            pair = frozenset((sub[0], sub[2]))
            if pair not in best_sub or p > best_sub[pair][0]:
                best_sub[pair] = (p, sub)
        stated = {t for p, t in supported}
        conflicts = [(p, sub) for pair, (p, sub) in best_sub.items()
                     if p >= tau and p > best_stored.get(pair, 0.0)
                     and sub[4] and not any(t in stated for t in sub[4])]
        conflicts.sort(key=lambda x: -x[0])
        details = {
            "n_hypotheses": len(plan.support) + len(plan.substitutions),
            "supported": [{"triplet": triple_tuple(t, ev), "p_entailment": round(p, 4)} for p, t in supported],
            "conflicts": [{"claimed": (ev.name(s), label, ev.name(e)), "p_entailment": round(p, 4),
                           "graph": [triple_tuple(t, ev) for t in stored]}
                          for p, (s, label, e, _, stored) in conflicts],
        }
        if conflicts:
            relevant = tuple(t for _, sub in conflicts for t in sub[4])
            reasons = [f"The sentence states {_fmt((ev.name(s), label, ev.name(e)))} (P(entailment)={p:.2f}), "
                       f"but the graph has " + ", ".join(_fmt(triple_tuple(t, ev)) for t in stored) + "."
                       for p, (s, label, e, _, stored) in conflicts]
            return Judgement(CONTRADICTORY, " ".join(reasons), relevant, details)
        if supported:
            reasons = [f"The triplet {_fmt(triple_tuple(t, ev))} supports the sentence (P(entailment)={p:.2f})."
                       for p, t in supported]
            return Judgement(ATTRIBUTABLE, " ".join(reasons), tuple(t for _, t in supported), details)
        candidates = [(p, t) for (t, _), p in zip(plan.support, support_p)]
        if candidates:
            p, t = max(candidates, key=lambda x: x[0])
            why = (f"No triplet between the entities is stated by the sentence (best: {_fmt(triple_tuple(t, ev))}, "
                   f"P(entailment)={p:.2f}) and no stored statement is contradicted.")
        else:
            why = "No statement links the sentence's entities directly, and no stored statement is contradicted."
        return Judgement(EXTRAPOLATORY, why, (), details)


# --- the graph-grounded verifier ----------------------------------------------------------------


class SharedAttributionJudge:
    """A shared attribution evaluator (`kalma_graph.attribution.REGISTRY`: the verifier, …) as a KG-AttrScore
    judge: the sentence is judged against its evidence triplets (between and context) and the verdict read in
    the paper's labels: *contradicted* is Contradictory, *supported* Attributable, the rest Extrapolatory."""

    def __init__(self, evaluator: AttributionEvaluator) -> None:
        self.evaluator = evaluator
        self.name = evaluator.name

    def header(self) -> dict[str, Any]:
        return {"judge": self.name, **{k: v for k, v in self.evaluator.describe().items() if k != "evaluator"}}

    def judge(self, question: str, items: Sequence[tuple[str, SentenceEvidence]]) -> list[Judgement]:
        from kalma_graph.verification import GraphEntity
        from kalma_graph.verification.verifier import graph_triple

        triplets = [(*evidence.between, *evidence.context) for _, evidence in items]
        cases = [StatementCase(question, sentence, tuple(graph_triple(t) for t in found),
                               tuple(GraphEntity(id=i, name=n) for i, n in evidence.names.items() if n))
                 for (sentence, evidence), found in zip(items, triplets)]
        judged = iter(self.evaluator.attribute([c for c in cases if c.triples]))
        return [_sck_label(next(judged), found) if found else Judgement(EXTRAPOLATORY, NO_TRIPLETS)
                for found in triplets]


def _sck_label(verdict: Verdict, triples: Sequence[Triple]) -> Judgement:
    """A shared evaluator's verdict in KG-AttrScore's labels, with the triplets its claims rest on."""
    from kalma_graph.verification.records import evidence_text

    held, bad = verdict.facts("held"), verdict.facts("contradicted")
    relevant = tuple(t for t in triples
                     if any(c.evidence == evidence_text(t.subject, t.label, t.value) for c in held + bad))
    details = verdict.claims_detail()
    if verdict.label == "contradicted":
        return Judgement(CONTRADICTORY, "; ".join(f"'{c.text}': {c.reason}" for c in bad), relevant, details)
    if verdict.label == "supported":
        return Judgement(ATTRIBUTABLE, "held by the graph: " + "; ".join(f"{c.text} ({c.evidence})" for c in held),
                         relevant, details)
    missing = [c.text for c in verdict.facts("absent")]
    return Judgement(EXTRAPOLATORY, ("not held by the graph: " + ", ".join(missing)) if missing
                     else "the sentence states nothing the graph holds", relevant, details)


def VerifierAttributionJudge(verifier: Verifier | None = None) -> SharedAttributionJudge:
    """The graph-grounded verifier as a KG-AttrScore judge (no model)."""
    from kalma_graph.attribution import VerifierAttribution

    return SharedAttributionJudge(VerifierAttribution(verifier))


# --- LLM ------------------------------------------------------------------------------------------


def parse_attr_output(text: str, n_triplets: int) -> tuple[int | None, str, list[int], str | None]:
    """(label, rationale, relevant triplet numbers 1..n, missing reason) from a judge's output.

    First as the grammar writes it (`AttrJudgeOutput`: the three decisions, triplet numbers 1..n, a
    rationale of at most 400 characters). Failing that, leniently, for unconstrained decoding:
    a JSON object with a `decision` (or `label`/`output`/`prediction`) field (numbers outside 1..n
    dropped), else the first
    `decision: X` / `"decision": "X"` field in the text (a JSON object cut off at max_tokens still
    states its decision). X must be one of the decision words (Attributable/Supports,
    Extrapolatory/Neutral, Contradictory/Contradicts, case-insensitive); anything else is missing.

    >>> parse_attr_output('{"decision": "Contradictory", "relevant_triplets": [2, 9], '
    ...                   '"rationale": "Born in Newark."}', 3)
    (-1, 'Born in Newark.', [2], None)
    >>> parse_attr_output("Decision: Supports\\nThe first triplet says so.", 1)[0]
    1
    >>> parse_attr_output('{"decision": "Attributable", "relevant_triplets": [1], "rationale": "The trip', 1)[0]
    1
    >>> parse_attr_output("I think it is probably fine", 2)
    (None, '', [], 'no decision found in the judge output')
    """
    try:
        out = AttrJudgeOutput.read(text, n_triplets)
    except ValidationError:
        pass  # not the grammar's output: read it as unconstrained decoding writes
    else:
        relevant = list(dict.fromkeys(out.relevant_triplets))  # the grammar allows a number twice
        return _DECISION_WORDS[out.decision.casefold()], out.rationale.strip(), relevant, None
    obj = next(json_objects(text), None)
    if obj is not None:
        raw_label = next((obj[k] for k in obj if str(k).casefold() in _DECISION_KEYS), None)
        if raw_label is None:
            return None, "", [], "JSON output without a decision field"
        label = _DECISION_WORDS.get(" ".join(str(raw_label).casefold().split()))
        if label is None:
            return None, "", [], f"unknown decision {raw_label!r}"
        rationale = str(next((obj[k] for k in obj if str(k).casefold() in ("rationale", "reason", "explanation")), ""))
        numbers: object = next(
            (obj[k] for k in obj if str(k).casefold() in ("relevant_triplets", "relevant", "triplets")),
            [])  # the model's JSON: checked by _triplet_numbers
        relevant = _triplet_numbers(numbers, n_triplets)
        return label, rationale.strip(), relevant, None
    found = _DECISION_FIELD_RE.search(text)  # e.g. a `decision:` line, or JSON cut off at max_tokens
    if found:
        label = _DECISION_WORDS.get(" ".join(found.group(1).casefold().split()))
        if label is None:
            return None, "", [], f"unknown decision {found.group(1)!r}"
        # A `decision: X` line: the rest of the text is the rationale. A JSON object cut off at
        # max_tokens: only its decision is read.
        rest = "" if text.lstrip().startswith("{") else (text[:found.start()] + text[found.end():]).strip()
        return label, rest, [], None
    return None, "", [], "no decision found in the judge output"


def _triplet_numbers(value: Any, n: int) -> list[int]:
    if not isinstance(value, list):
        value = [value]
    out = []
    for item in value:
        try:
            k = int(item)
        except (TypeError, ValueError):
            continue
        if 1 <= k <= n and k not in out:
            out.append(k)
    return out


class LLMAttributionJudge:
    name = "llm"

    def __init__(self, llm: Generator, *, prompt: str = "sck/kg_attr", max_triplets: int = 40, max_tokens: int = 256,
                 constrained: bool = True, seed: int = 0, concurrency: int = 1) -> None:
        from kalma_graph.models.llm import GenerationParams
        from kalma_graph.prompts import load_prompt

        self.llm = llm
        self.concurrency = concurrency  # chat calls in flight (a model server; `models.calls.in_order`)
        self.prompt = load_prompt(prompt)
        self.max_triplets = max_triplets
        self.params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=seed)
        self.constrained = bool(constrained and self.prompt.get("grammar"))
        self._grammars: dict[int, Grammar] = {}

    def header(self) -> dict[str, Any]:
        return {"judge": self.name, "prompt": self.prompt["name"], "prompt_version": self.prompt.get("version"),
                "prompt_sha256": self.prompt["sha256"], "max_triplets": self.max_triplets,
                "constrained": self.constrained, "params": self.params.__dict__, "llm": self.llm.header()}

    def grammar(self, n_triplets: int) -> Grammar | None:
        """The prompt's GBNF with `number` allowing exactly 1..n (built once per n)."""
        if not self.constrained:
            return None
        if n_triplets not in self._grammars:
            from kalma_graph.generation.grammar import llama_grammar

            numbers = " | ".join(f'"{k}"' for k in range(1, n_triplets + 1))
            self._grammars[n_triplets] = llama_grammar(self.prompt["grammar"] + f"number ::= {numbers}\n")
        return self._grammars[n_triplets]

    def triplets_for(self, evidence: SentenceEvidence, sentence: str = "") -> list[Triple]:
        """Between-statements first, then context statements whose object the sentence names, then the
        rest of the context; at most `max_triplets`."""
        named = [t for t in evidence.context if _names_in(t.value, sentence)]
        taken = set(named)
        rest = [t for t in evidence.context if t not in taken]
        return [*evidence.between, *named, *rest][: self.max_triplets]

    def messages(self, question: str, sentence: str, evidence: SentenceEvidence) -> list[dict[str, str]]:
        triplets = self.triplets_for(evidence, sentence)
        listing = "\n".join(f"{i}. {_fmt(triple_tuple(t, evidence))}" for i, t in enumerate(triplets, 1))
        user = self.prompt["template"].format(question=question, sentence=sentence, triplets=listing)
        return [{"role": "system", "content": self.prompt["system"]}, {"role": "user", "content": user}]

    def judge(self, question: str, items: Sequence[tuple[str, SentenceEvidence]]) -> list[Judgement]:
        from kalma_graph.models.calls import in_order

        return [result() for _, result in
                in_order(lambda item: self.judge_one(question, *item), items, self.concurrency)]

    def judge_one(self, question: str, sentence: str, evidence: SentenceEvidence) -> Judgement:
        triplets = self.triplets_for(evidence, sentence)
        if not triplets:
            return Judgement(EXTRAPOLATORY, NO_TRIPLETS, (), {"n_triplets": 0})
        completion = self.llm.chat(self.messages(question, sentence, evidence), self.params,
                                   grammar=self.grammar(len(triplets)))
        label, rationale, numbers, reason = parse_attr_output(completion.text, len(triplets))
        details = {"n_triplets": len(triplets), "truncated": completion.truncated,
                   "completion_tokens": completion.completion_tokens}
        if label is None:
            if completion.truncated:
                reason = f"{reason} (output truncated at max_tokens={self.params.max_tokens})"
            return Judgement(None, "", (), details, raw=completion.text, missing_reason=reason)
        relevant = tuple(triplets[k - 1] for k in numbers)
        return Judgement(label, rationale or f"{LABEL_NAMES[label]} (no rationale given)", relevant, details,
                         raw=completion.text)


# --- the registry -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgeEntry:
    needs: str | None  # "nli", "llm" or None: the model the scorer loads for it
    # (nli, llm, **settings) -> a judge; settings: nli_threshold, nli_premise, max_triplets, concurrency
    build: Callable[..., Any]


def _shared_judge(name: str) -> JudgeEntry:
    return JudgeEntry(REGISTRY[name].needs, lambda nli, llm, **_: SharedAttributionJudge(make(name, nli=nli, llm=llm)))


def _judges() -> dict[str, JudgeEntry]:
    return {
        "nli": JudgeEntry("nli", lambda nli, llm, nli_threshold=0.5, nli_premise="question+sentence", **_:
                          NLIAttributionJudge(nli, threshold=nli_threshold, premise=nli_premise)),
        "llm": JudgeEntry("llm", lambda nli, llm, max_triplets=40, concurrency=1, **_:
                          LLMAttributionJudge(llm, max_triplets=max_triplets, concurrency=concurrency)),
        # every shared attribution evaluator (the verifier, …): one line in kalma_graph/attribution/registry.py
        **{name: _shared_judge(name) for name in REGISTRY},
    }


#: KG-AttrScore's judges by name (`score --attribution-judge`): the paper's two, and the shared evaluators
JUDGES: dict[str, JudgeEntry] = _judges()
