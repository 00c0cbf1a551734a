"""`--cite grounded`: the verifier in the decoding loop (issue 32), planned from what a natural question asks
(issue 43). The default strategy of `kalma-graph answer`.

**Plan** (`plan_answer`). What the question asks of the persons it names (`verification.topics.question_asks`):
the relations it names by label, noun or cue, and the relations of the topics it names ("family", "career",
"education", "death", …; "Who was X?" asks a biography's core), as the shown triples hold them. In order:

1. the asked facts, grouped by kind (`question_topics.json: groups`: born when and where in one sentence,
   both parents in one), at most `MAX_PAIRS` facts a sentence;
2. how the named persons are linked (a shown triple of one whose value is another), each link once;
3. for each asked part the graph shown does not hold (a topic none of whose relations it holds, a relation
   named by its label that it lacks), one sentence the model writes after `[NA]` and the part's lead words
   ("Virginia Woolf's family"), kept unless it contradicts the graph (`MAX_UNANSWERED` at most);
4. the facts relevant to the question's topics, grouped the same way, until `max_sentences`.

**Write.** A planned sentence is written attribute-first with its marks chosen by the plan: the loop writes
`[Q1, p: v]` and the sentence's first words (its person's name, or a lead of its group: "X was born") into the
assistant's turn and the model says the rest (grammar `attribute_first_text`). A question whose plan holds
nothing is answered as before the plan existed: the model chooses each sentence's marks itself
(`attribute_first_unit`: one sentence, or the end) until it ends the answer; with nothing shown at all (the
question names nobody the graph holds) at most `MAX_UNGROUNDED` sentences, all `[NA]`.

**Check.** Each candidate sentence is checked by the graph-grounded verifier (`kalma_graph.verification`) in
the context of the sentences kept so far:

- a sentence whose claims are all held by its supported citations is kept;
- otherwise its clauses are dropped, one at a time and from the end (`clause_trims`), and the longest
  fully supported variant that still states the planned fact (or, unplanned, something new) is kept;
- otherwise it is re-sampled (at most `tries` candidates, seeded, at `resample_temperature`) and the best
  candidate is kept: the planned fact stated, fewest claims the graph does not hold;
- a kept sentence keeps its supported citations and gains the shown triples that hold its other claims (the
  verifier names them); one that still states what the graph does not hold gets `[NA]`;
- a candidate that repeats a kept sentence, cites no supported fact the answer has not stated yet (filler
  such as "X was a human" included), or whose prose holds a QID or a raw `label: value` list, is never kept;
  a planned fact no candidate states is skipped (counted), never forced; the best fully supported
  candidate that states something new instead is then kept ("off plan");
- a fragment (no verb, or ending on "who is") is never kept, trimmed or not.

The answer stops when the plan is done (every asked fact stated, or tried), when the model ends it, when no
candidate adds a supported fact, after `max_sentences`, or when the kept sentences reach `params.max_tokens`
(then the record says truncated). Re-samples cost time, not answer length.

Each call continues the same prompt: llama.cpp reuses the KV cache of the common prefix (the prompt and the
sentences kept so far), so a re-sample re-evaluates only the rejected sentence's tokens.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from kalma_graph.kg.citation_marks import KnownPairs, KnownProps
from kalma_graph.kg.citations import from_attribute_first, parse_answer
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.models.chat import GenerationParams
from kalma_graph.models.protocols import Generator
from kalma_graph.verification import AnswerInput, CitedTriple, GraphTriple, Verifier
from kalma_graph.verification.lexicon import load_lexicon
from kalma_graph.verification.namesakes import question_namesakes
from kalma_graph.verification.records import evidence_triple
from kalma_graph.verification.text import find_phrase, phrase, tokenize
from kalma_graph.verification.topics import (
    UNREAD,
    load_topics,
    looks_english,
    question_asks,
    question_persons,
    unanswered_parts,
)
from kalma_graph.verification.verifier import graph_entity, graph_triple

from .cite import render_marks, supported_triples

MAX_SENTENCES = 8
TRIES = 3
RESAMPLE_TEMPERATURE = 0.7
MAX_UNIT_TOKENS = 160
MAX_VALUES = 3  # values of one planned relation said in one sentence (as many as a mark holds pairs)
MAX_PAIRS = 3  # facts planned into one sentence (a mark holds at most 3 pairs: generation.grammar)
MAX_UNANSWERED = 3  # [NA] sentences for asked parts the graph does not hold
MAX_UNGROUNDED = 3  # sentences of an answer to a question whose persons the graph does not hold (all [NA])
MAX_TRIMS = 12  # clause-dropped variants checked per candidate
# Facts too thin to make a sentence of their own ("X was a human").
_TRIVIAL = frozenset({("instance of", "human"), ("sex or gender", "male"), ("sex or gender", "female")})
_QID_RE = re.compile(r"\b[QP][1-9][0-9]{1,}\b|\b[mg]\.[0-9a-z_]{4,}\b")
# a sentence that stops on a word that needs more ("Jason Donovan is an actor who is.")
_DANGLING_END_RE = re.compile(
    r"(?:^|\s)(?:is|was|were|are|be|been|has|have|had|who|which|that|whose|and|or|of|the|a|an|in|"
    r"for|to|with|by|as|from|at|on|but|while|where|when)\W*$", re.IGNORECASE)
_TWO_SENTENCES_RE = re.compile(r"\b[A-Z]\. (?:The|He|She|His|Her|It|Its|This|These|In|They|Their|After|Before|As)\b"
                                r"|\b[A-Z][a-z]+ (?:I|II|III|IV|V|VI|VII|VIII|IX|X)\. [A-Z]")
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
    trimmed: int = 0  # kept sentences with a clause dropped (it stated what the graph does not hold)
    skipped: int = 0  # planned facts no candidate stated
    na_parts: int = 0  # [NA] sentences written for asked parts the graph does not hold
    completion_tokens: int = 0
    seconds: float = 0.0
    first_sentence_s: float | None = None  # from the loop's start to the first sentence kept (what a reader waits)
    first_sentence_at: float | None = None  # the same moment on `time.perf_counter`'s clock (not written out)
    asked: list[str] = field(default_factory=list)  # "Q1 / place of birth": what the question asks
    planned: list[str] = field(default_factory=list)  # the plan's targets in order: asked, links, relevant
    unanswered: list[str] = field(default_factory=list)  # the asked parts the graph does not hold (their leads)
    note: str | None = None  # how the question was read, when not as asked (another language)
    trace: list[dict[str, Any]] = field(default_factory=list)  # every candidate: its words and what became of it

    def stats(self) -> dict[str, Any]:
        return {"stop_reason": self.stop_reason, "sentences": self.sentences, "candidates": self.candidates,
                "resampled": self.resampled, "marked_na": self.marked_na, "rejected": self.rejected,
                "recited": self.recited, "trimmed": self.trimmed, "skipped": self.skipped,
                "na_parts": self.na_parts, "completion_tokens": self.completion_tokens,
                "seconds": round(self.seconds, 3),
                **({"first_sentence_s": round(self.first_sentence_s, 3)} if self.first_sentence_s is not None else {}),
                "asked": self.asked, "planned": self.planned,
                "unanswered": self.unanswered, **({"note": self.note} if self.note else {}), "trace": self.trace}


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
    if not load_topics().has_verb(clean_text) or _DANGLING_END_RE.search(clean_text):
        return "a fragment"
    if _TWO_SENTENCES_RE.search(clean_text):
        return "two sentences"  # "Mentuhotep I's child was Intef I. The relationship …": a regnal number's period
    return None


def names_known(text: str, graph: Sequence[GraphTriple], own_name: str | None = None) -> str | None:
    """The first name the words an [NA] sentence adds to its lead give that the graph already places as a relative
    (the value of a shown family triple, 4 letters or more), or the part's own person (`own_name`), if any:
    "[NA] Jason Donovan's children include Erica Packer" (his cohabitant) and "[NA] Abel's children included Niels
    Henrik Abel" say something false of a known person. Another person the question names, or a place or body the
    graph holds in another relation, is no such name: "[NA] A's father was B" with the father withheld, or "[NA]
    Delany's residence was New York City" (his birthplace), is the unknown the sentence is for.

    >>> names_known(" include Erica Packer.", [GraphTriple(subject="Q1", label="cohabitant", value="Erica Packer",
    ...             object_id="Q2")])
    'Erica Packer'
    >>> names_known(" was Carlo II Tocco.", [], own_name="Leonardo III Tocco") is None
    True
    """
    words = tokenize(text)
    lexicon = load_lexicon()
    relatives = [t.value for t in graph if t.object_id and lexicon.relation(t.label).kin]
    for name in relatives + ([own_name] if own_name else []):
        key = phrase(name)
        if key and len("".join(key)) >= 4 and find_phrase(words, key):
            return name
    return None


def plan_targets(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> list[list[Triple]]:
    """The planned sentences (`plan` without its relevant facts and [NA] parts; kept for callers that want only
    what is asked and how the persons are linked)."""
    plan = plan_answer(question, entities, shown)
    return plan.asked + plan.links


@dataclass
class Plan:
    """What an answer will say, in order: the asked facts (grouped, a sentence each group), the links between
    the persons named, the asked parts the graph does not hold (`[NA]` sentences, each with its lead words),
    then the facts relevant to the question's topics."""

    asked: list[list[Triple]] = field(default_factory=list)
    links: list[list[Triple]] = field(default_factory=list)
    unanswered: list[dict[str, Any]] = field(default_factory=list)
    relevant: list[list[Triple]] = field(default_factory=list)
    note: str | None = None  # how the question was read when it could not be read as asked
    unread: bool = False  # the question asks, in words no reading knows, what the graph does not hold
    namesakes: bool = False  # a person asked of is held only by a namesake (`verification.namesakes`): an [NA] part


def _grouped(triples: Sequence[Triple], other_person: Any) -> list[list[Triple]]:
    """Triples of one subject and one sentence group (`question_topics.json: groups`) together, in the order
    given, at most `MAX_VALUES` values of a relation and `MAX_PAIRS` pairs a sentence: facts of one kind are said
    in one sentence ("born on 1 November 1871 in Newark"), not one fact a sentence."""
    topics = load_topics()
    by_group: dict[tuple[str, int], list[Triple]] = {}
    for t in triples:
        by_group.setdefault((t.subject, topics.group_of(t.label)), []).append(t)
    out: list[list[Triple]] = []
    for group in by_group.values():
        per_relation: dict[str, list[Triple]] = {}
        for t in group:
            per_relation.setdefault(t.label, []).append(t)
        kept: list[Triple] = []
        for values in per_relation.values():
            values.sort(key=lambda t: other_person(t) is None)  # a value that is the other person first
            kept += values[:MAX_VALUES]
        out += [kept[i:i + MAX_PAIRS] for i in range(0, len(kept), MAX_PAIRS)]
    return out


def plan_answer(question: str, entities: Sequence[Entity], shown: Sequence[Triple]) -> Plan:
    """The plan of an answer (`Plan`): what the question asks of the persons it names (`question_asks`: relations
    it names, and the relations of the topics it names, "family", "career", "who was X"), as the shown triples
    hold them; objects known only by their id are never planned."""
    citable = [t for t in shown if t.value.strip() and t.value != t.object_id and t.label != "name"
               and not set("[]").intersection(t.label + t.value)]
    humans = {t.subject for t in citable if (t.label, t.value) == ("instance of", "human")}
    persons = {e.id: e for e in entities if e.name and (not humans or e.id in humans)}
    # "… his literary prowess?" where the graph's John Cleland is a researcher: nothing of him is planned, the
    # person asked of is an [NA] part
    odd = {i: (why, _profile(i, citable)) for i, why in question_namesakes(
        question, [graph_triple(t) for t in citable], [graph_entity(e) for e in persons.values()]).items()}
    citable = [t for t in citable if t.subject not in odd]
    persons = {i: e for i, e in persons.items() if i not in odd}
    by_name = {e.name.casefold(): e.id for e in persons.values() if e.name}

    def other_person(t: Triple) -> str | None:
        other = t.object_id if t.object_id in persons else by_name.get(t.value.casefold())
        return other if other and other != t.subject else None

    asks = question_asks(question, entities, citable, persons=list(persons) if persons else None)
    by_key: dict[tuple[str, str], list[Triple]] = {}
    for t in citable:
        if (t.label, t.value) not in _TRIVIAL:
            by_key.setdefault((t.subject, t.label), []).append(t)
    # the persons' facts: "Which American Academy member…" does not ask where the Academy is
    tier = {2: [], 1: []}  # type: dict[int, list[Triple]]
    for a in asks:
        if a.subject in persons or not persons:
            tier[a.tier] += by_key.get((a.subject, a.relation), [])
    plan = Plan(asked=_grouped(tier[2], other_person))
    names_of = {e.id: e.name for e in persons.values()}
    planned = {(t.subject, t.label, t.value) for target in plan.asked for t in target}
    lexicon = load_lexicon()
    for t in citable:
        other = other_person(t)
        if t.subject not in persons or not other or (t.subject, t.label, t.value) in planned:
            continue
        # "Diego Simeone's son is Giovanni Simeone" says "Giovanni's father is Diego": one link, not both ways
        kin = lexicon.relation(t.label).kin
        inverse = lexicon.kin_inverse.get(kin or "")
        if inverse and any(p[0] == other and lexicon.relation(p[1]).kin == inverse
                           and (p[2] == names_of.get(t.subject) or p[2] == t.subject) for p in planned):
            continue
        plan.links.append([t])
        planned.add((t.subject, t.label, t.value))
    if plan.links and any(a.topic == UNREAD for a in asks):
        # "What is the relationship between John Updike and Henry James?": the links between them answer it; an
        # unread question asks nothing else, so its only relevant facts are the unread ones
        asks, tier[1] = [a for a in asks if a.topic != UNREAD], []
    plan.relevant = _grouped([t for t in tier[1] if (t.subject, t.label, t.value) not in planned], other_person)
    names = {e.id: e.name for e in persons.values() if e.name}
    connections = _unlinked(question, entities, names, citable, other_person)
    parts = [p for p in unanswered_parts(asks, citable, names) if not (connections and p["topic"] == UNREAD)]
    namesake_parts = [{"subject": i, "topic": "namesake", "lead": next(e.name for e in entities if e.id == i),
                       "label": why, "does": does} for i, (why, does) in odd.items()]
    # a namesake first (nothing else is said of that person); a connection asked is what an unread part was
    plan.unanswered = (namesake_parts + parts + connections)[:MAX_UNANSWERED]
    plan.unread = any(a.topic == UNREAD for a in asks)
    plan.namesakes = bool(odd)
    if not looks_english(question):
        plan.note = "the question does not read as English: answered as 'Who is X?' of the persons it names"
    return plan


def _profile(subject: str, citable: Sequence[Triple]) -> str:
    """What the graph says a person does, in a few words ("a researcher"; "a writer and poet")."""
    occupations = list(dict.fromkeys(t.value for t in citable if t.subject == subject and t.label == "occupation"))
    if not occupations:
        return "another person"
    said = " and ".join(occupations[:2])
    return f"{'an' if said[0].lower() in 'aeiou' else 'a'} {said}"


def _unlinked(question: str, entities: Sequence[Entity], names: dict[str, str], citable: Sequence[Triple],
              other_person: Callable[[Triple], str | None]) -> list[dict[str, Any]]:
    """In a question that asks how its persons are connected (`Topics.asks_connection`), the persons it names whom
    no shown triple links, as one asked part each pair (the first-named person's "connection to" the other): "…,
    and how was James Joyce connected to this person?" with `influenced by: James Joyce` withheld asks what the
    graph does not hold, and the answer says so under [NA] instead of leaving the connection unsaid."""
    if not load_topics().asks_connection(question):
        return []  # "Where were Mozart and Beethoven born?" asks no link between them
    named = [p for p in question_persons(question, entities) if p in names]
    linked = {frozenset((t.subject, other)) for t in citable if (other := other_person(t))}
    return [{"subject": a, "topic": "connection", "lead": f"{names[a]}'s connection to {names[b]}",
             "position": (len(named), i)}
            for i, (a, b) in enumerate((a, b) for k, a in enumerate(named) for b in named[k + 1:])
            if frozenset((a, b)) not in linked]


_BOUNDARY_RE = re.compile(r",\s+(?:and\s+|or\s+)?|\s+\(|\s+(?:who|which|where|while|whose|and|as well as|including|"
                          r"known for|in|from|during|with|after|before|until|on|at|for)\s+")
_DANGLING_RE = re.compile(r"(?:[\s,;:(]+|\s+(?:and|or|who|which|where|the|a|an|of|in|from|as))+$", re.IGNORECASE)
# a tail that says nothing once its complement is cut: "…, who was born." / "… was born." / "… who lived."
_VACUOUS_TAIL_RE = re.compile(
    r"(?:,?\s+(?:who|which)(?:\s+(?:was|were|is|are|had|has))?\s+\w+|\s+(?:was|were)\s+born)$", re.IGNORECASE)


def clause_trims(text: str) -> list[str]:
    """The sentence with a clause dropped: every prefix that ends before a clause boundary (a comma, "who",
    "in", "and", …), then every variant without one comma-delimited middle piece; longest first, at least
    three words each. "Tolstoy was a Russian writer who lived from 1828 to 1910." -> "Tolstoy was a Russian
    writer." (A trimmed sentence is still the model's words, less what the graph does not hold.)

    >>> clause_trims("Tolstoy was a Russian writer who lived from 1828 to 1910.")
    ['Tolstoy was a Russian writer.']
    >>> clause_trims("Rudyard Kipling's children include John Kipling, who was born in 1897.")
    ["Rudyard Kipling's children include John Kipling."]
    """
    body = text.strip()
    end = body[-1] if body[-1:] in ".!?" else "."
    body = body.rstrip(".!? ")
    spans = [(m.start(), m.end()) for m in _BOUNDARY_RE.finditer(body)]
    variants = [body[:start] for start, _ in spans]
    commas = [(s, e) for s, e in spans if body[s] == ","]
    variants += [body[:s1] + body[s2:] for (s1, _), (s2, _) in zip(commas, commas[1:])]
    out: list[str] = []
    for v in sorted(variants, key=len, reverse=True):
        v = _DANGLING_RE.sub("", _VACUOUS_TAIL_RE.sub("", _DANGLING_RE.sub("", v))).strip()
        if len(v.split()) >= 3 and v.count("(") == v.count(")") and v + end not in out:
            out.append(v + end)
    return out[:MAX_TRIMS]


@dataclass
class _Candidate:
    """One sentence as it would be kept: its text, its citations after the check, and how it scores."""

    text: str
    kept: list[tuple[str, str, str]]  # supported citations, then the shown triples that hold its other claims
    recited: int
    unheld: int
    fully: bool
    trimmed: bool
    score: tuple
    new: int = 0  # supported facts, not trivial, the answer has not stated yet

    def unit(self) -> str:
        marks = render_marks(self.kept)
        if self.unheld or not self.kept:
            marks.insert(0, "[NA]")
        return " ".join([*marks, self.text]) + " "


def _na_candidate(text: str) -> _Candidate:
    """An [NA] sentence as kept: it cites nothing and holds one claim the graph does not (`unit` marks it [NA])."""
    return _Candidate(text, [], 0, 1, False, False, (False,))


class _Loop:
    """The state of one grounded answer: what is kept, what is stated, and the calls left."""

    def __init__(self, llm: Generator, prompt: str, params: GenerationParams, *, question: str, shown: Sequence[Triple],
                 entities: Sequence[Entity], known_props: Any, known_pairs: Any, verifier: Any, tries: int,
                 resample_temperature: float) -> None:
        self.llm, self.prompt, self.params, self.question = llm, prompt, params, question
        self.started = time.perf_counter()
        self.known_props, self.known_pairs = known_props, known_pairs
        self.verifier = verifier or Verifier()
        self.graph = [graph_triple(t) for t in shown]
        self.names = [graph_entity(e) for e in entities]
        self.entity_names = {e.id: e.name for e in entities if e.name}
        self.dead = {t.subject for t in shown if t.label in ("date of death", "place of death")}  # "was", not "is"
        self.shown_keys = {(t.subject, t.label, t.value) for t in shown}
        self.tries, self.resample_temperature = tries, resample_temperature
        self.units: list[str] = []
        self.accepted: list[tuple[str, list[Any]]] = []
        self.seen: list[str] = []
        self.stated: set[tuple[str, str, str]] = set()
        self.budget = params.max_tokens  # tokens of the kept sentences: the answer's length cap
        self.slot = 0  # sentences tried, kept or not: seeds differ per slot
        self.result = GroundedResult(answer="", raw="", finish_reason="stop", stop_reason="max_sentences")
        # the best candidate that said nothing new: a first sentence's last resort
        self.fallback: _Candidate | None = None
        self.last_max_tokens = params.max_tokens

    def sample(self, prefix: str, grammar: Any, attempt: int) -> Any:
        call = replace(self.params, max_tokens=min(MAX_UNIT_TOKENS, self.budget),
                       seed=self.params.seed + 7919 * self.slot + attempt,
                       temperature=self.params.temperature if attempt == 0 else self.resample_temperature)
        completion = self.llm.complete(self.prompt + "".join(self.units) + prefix, call, grammar=grammar)
        self.result.completion_tokens += completion.completion_tokens
        self.result.candidates += 1
        self.last_max_tokens = call.max_tokens
        return completion

    def judge(self, unit: str, target: set[tuple[str, str, str]] | None) -> _Candidate | None:
        """The best way to keep a written unit (`[marks] Sentence.`): as written, else with a clause dropped;
        None when its prose can never be kept."""
        sentences = parse_answer(from_attribute_first(unit), self.known_props, self.known_pairs).sentences
        if len(sentences) != 1 or prose_problem(sentences[0].clean_text, self.seen):
            return None
        cites = [c.triple for c in sentences[0].citations]
        best = self._assess(sentences[0].clean_text, cites, target, trimmed=False)
        if (best.fully and best.score[0]) or not self.graph:
            return best  # with nothing shown, a dropped clause supports nothing: the model's words stay whole
        for text in clause_trims(sentences[0].clean_text):
            if prose_problem(text, self.seen):
                continue
            variant = self._assess(text, cites, target, trimmed=True)
            if variant.score > best.score:
                best = variant
        return best

    def _assess(self, text: str, cites: list[tuple[str, str, str]], target: set | None, *, trimmed: bool) -> _Candidate:
        cited = [CitedTriple(subject=s, relation=p, value=v) for s, p, v in cites]
        check = self.verifier.verify(AnswerInput(question=self.question, sentences=[*self.accepted, (text, cited)],
                                                 shown=self.graph, entities=self.names)).sentences[-1]
        kept = supported_triples(cites, check)
        # A claim the graph shown holds under a triple the model did not cite gets that citation: the
        # verifier found the statement the sentence rests on.
        recited = [t for t in (evidence_triple(c.evidence) for c in check.claims if c.status == "supported_uncited")
                   if t in self.shown_keys and t not in kept]
        kept += list(dict.fromkeys(recited))
        unheld = sum(not c.held for c in check.claims)
        new = {t for t in kept if t not in self.stated and (t[1], t[2]) not in _TRIVIAL}
        hit = len(new & target) if target is not None else len(new)
        fully = check.fully_supported and bool(kept)
        # what it states of the plan (or anything new), then all its claims held, then fewest unheld, then
        # the longest: a trimmed variant wins only by holding more of what it says
        score = (hit > 0, fully, hit, len(kept) - unheld, len(text) if fully else -len(text))
        return _Candidate(text, kept, len(recited), unheld, fully, trimmed, score, new=len(new))

    def write(self, prefix: str, grammar: Any, target: set | None) -> tuple[_Candidate | None, str]:
        """Up to `tries` candidates for the next sentence; the best one that adds something, and what
        happened: "kept", "off plan" (no candidate stated the planned fact; the best fully supported one
        that states something new instead), "ended" (the model ended the answer), "unended" (no candidate
        ended its sentence within the tokens left) or "nothing new"."""
        best: _Candidate | None = None
        off_plan: _Candidate | None = None
        unended = 0
        traced: list[tuple[dict[str, Any], _Candidate | None]] = []
        for attempt in range(self.tries):
            completion = self.sample(prefix, grammar, attempt)
            text = completion.text if prefix else completion.text.strip()
            entry: dict[str, Any] = {"slot": self.slot, "written": (prefix + text).strip()}
            traced.append((entry, None))
            if not text.strip():
                entry["outcome"] = "ended the answer" if attempt == 0 and not prefix else "empty"
                if attempt == 0 and not prefix:
                    break  # the model ends the answer (a re-sample's silence just fails)
                continue
            if completion.truncated:
                self.result.rejected += 1
                unended += 1
                entry["outcome"] = "no sentence end within the tokens left"
                continue
            candidate = self.judge(prefix + text, target)
            traced[-1] = (entry, candidate)
            if candidate is None or (not candidate.score[0] and self.graph):
                self.result.rejected += 1
                entry["outcome"] = ("prose never kept" if candidate is None else
                                    "does not state the planned fact" if target is not None else "nothing new")
                if (candidate is not None and not self.units
                    and (self.fallback is None or candidate.score > self.fallback.score)):
                    self.fallback = candidate  # says nothing new, but something: the first sentence's last resort
                if candidate is not None and target is not None and candidate.fully and candidate.new and (
                        off_plan is None or candidate.new > off_plan.new):
                    off_plan = candidate
                continue
            entry["outcome"] = "fully supported" if candidate.fully else f"{candidate.unheld} claim(s) not held"
            if best is None or candidate.score > best.score:
                best = candidate
            if candidate.fully:
                break
        for entry, candidate in traced:
            if candidate is not None and candidate.trimmed:
                entry["trimmed_to"] = candidate.text
            entry["kept"] = candidate is not None and candidate is (best or off_plan)
            self.result.trace.append(entry)
        self.result.resampled += len(traced) > 1
        self.slot += 1
        if traced and traced[0][0].get("outcome") == "ended the answer":
            return None, "ended"
        if best is not None:
            return best, "kept"
        if off_plan is not None:
            return off_plan, "off plan"
        return None, "unended" if unended and unended == len(traced) else "nothing new"

    def write_na(self, lead: str, grammar: Any) -> _Candidate | None:
        """A sentence for an asked part the graph does not hold: the loop writes `[NA]` and the part's lead words
        ("Virginia Woolf's family"), the model the rest. Kept unless its prose can never be kept or it
        contradicts the graph (up to `tries` candidates); marked `[NA]`, citing nothing."""
        prefix = f"[NA] {lead}"
        chosen: _Candidate | None = None
        for attempt in range(self.tries):
            completion = self.sample(prefix, grammar, attempt)
            text = (lead + completion.text).strip()
            entry: dict[str, Any] = {"slot": self.slot, "written": f"{prefix}{completion.text}".strip(),
                                     "na_part": lead}
            self.result.trace.append(entry)
            problem = ("no sentence end within the tokens left" if completion.truncated
                       else "empty" if not completion.text.strip() else prose_problem(text, self.seen))
            if problem is None:
                check = self.verifier.verify(AnswerInput(question=self.question, sentences=[*self.accepted, (text, [])],
                                                         shown=self.graph, entities=self.names)).sentences[-1]
                if any(c.status == "contradicted" for c in check.claims):
                    problem = "contradicts the graph"
                elif (known := names_known(completion.text, self.graph, next(
                        (e.name for e in self.names if e.name and lead.startswith(e.name)), None))) is not None:
                    # "[NA] Jason Donovan's children include Erica Packer": a person or value the graph holds,
                    # put in a part the graph lacks, is a false claim about them, not an unknown
                    problem = f"names '{known}', whom the graph holds, under [NA]"
            if problem is not None:
                self.result.rejected += 1
                entry.update(outcome=problem, kept=False)
                continue
            entry.update(outcome="[NA]: the graph does not hold this part", kept=True)
            chosen = _na_candidate(text)
            break
        if chosen is None:
            # every written sentence failed ("[NA] Sun Quan's succession … can be traced back to his father, Sun
            # Quan" names him his own father): the part is still said, in the loop's own words, not left unsaid
            chosen = self.own_na(f"{lead} is not in the knowledge graph.", lead,
                                 "[NA]: no written sentence could be kept; the loop's words")
        self.result.resampled += attempt > 0
        self.slot += 1
        return chosen

    def own_na(self, text: str, lead: str, why: str) -> _Candidate | None:
        """An [NA] part said in the loop's own words (none when the prose is not a sentence)."""
        if prose_problem(text, self.seen) not in (None, "a fragment"):
            return None
        self.result.trace.append({"slot": self.slot, "written": f"[NA] {text}", "na_part": lead, "outcome": why,
                                  "kept": True})
        return _na_candidate(text)

    def keep(self, candidate: _Candidate) -> None:
        unit = candidate.unit()
        self.units.append(unit)
        self.accepted.append(
            (candidate.text, [CitedTriple(subject=s, relation=p, value=v) for s, p, v in candidate.kept]))
        self.seen.append(_sentence_key(candidate.text))
        self.stated |= set(candidate.kept)
        self.result.sentences += 1
        if self.result.first_sentence_at is None:
            self.result.first_sentence_at = time.perf_counter()
            self.result.first_sentence_s = self.result.first_sentence_at - self.started
        self.result.recited += candidate.recited
        self.result.trimmed += candidate.trimmed
        self.result.marked_na += unit.startswith("[NA]")
        self.budget -= self.llm.count_tokens(unit)

    def out_of_tokens(self) -> bool:
        if self.budget < MAX_UNIT_TOKENS // 4:
            self.result.stop_reason, self.result.finish_reason = "token budget spent", "length"
            return True
        return False

    def unended(self) -> None:
        self.result.stop_reason = f"the model did not end a sentence within {self.last_max_tokens} tokens"
        self.result.finish_reason = "length"


def grounded_generate(llm: Generator, prompt: str, grammar: Any, params: GenerationParams, *, question: str,
                      shown: Sequence[Triple], entities: Sequence[Entity], first_grammar: Any = None,
                      text_grammar: Any = None, known_props: KnownProps | None = None,
                      known_pairs: KnownPairs | None = None, verifier: Verifier | None = None,
                      max_sentences: int = MAX_SENTENCES, tries: int = TRIES,
                      resample_temperature: float = RESAMPLE_TEMPERATURE) -> GroundedResult:
    """Plan, write, check and keep an answer sentence by sentence (see the module docstring). `llm` is a
    `LocalLLM` (its `complete(prompt, params, grammar)` and `count_tokens`), `prompt` the rendered chat prompt,
    `grammar` the `attribute_first_unit` grammar (one sentence or the end), `first_grammar` the
    `attribute_first_one` grammar (exactly one sentence: an answer never ends before it starts; default
    `grammar`), `text_grammar` the `attribute_first_text` grammar (a planned sentence's words; without it the
    plan is not followed), `params` the run's `GenerationParams`."""
    started = time.perf_counter()
    loop = _Loop(llm, prompt, params, question=question, shown=shown, entities=entities, known_props=known_props,
                 known_pairs=known_pairs, verifier=verifier, tries=tries, resample_temperature=resample_temperature)
    result = loop.result
    plan = plan_answer(question, entities, shown) if text_grammar is not None else Plan()
    result.asked = list(dict.fromkeys(f"{t.subject} / {t.label}" for target in plan.asked for t in target))
    result.planned = [f"{t[0].subject} / {t[0].label}" for t in plan.asked + plan.links + plan.relevant]
    result.unanswered = [part.get("label", part["lead"]) for part in plan.unanswered]
    result.note = plan.note
    stopped = _follow(loop, plan.asked + plan.links, text_grammar, max_sentences, count_skips=True)
    for part in plan.unanswered if not stopped else ():
        if result.sentences >= max_sentences:
            stopped = True
            break
        if part["topic"] == "namesake":
            # the model, shown the namesake's triples, writes them under [NA] ("John Cleland was a researcher … [NA]"):
            # said in the loop's words instead, with what the graph holds of that name
            candidate = loop.own_na(f"The knowledge graph holds no {part['lead']} of the kind the question asks "
                                    f"of (its {part['lead']} is {part['does']}).", part["lead"],
                                    "[NA]: the graph holds only a namesake; the loop's words")
            loop.slot += 1
        elif "relation" in part:
            # one relation the graph lacks ("Joan Rivers's date of death"): whatever the model adds is a guess at
            # its value ("… was on December 1, 2011 [NA]"), so the loop says it is not held, in its own words
            candidate = loop.own_na(f"{part['lead']} is not in the knowledge graph.", part["lead"],
                                    "[NA]: one relation the graph lacks; the loop's words")
            loop.slot += 1
        else:
            candidate = loop.write_na(part["lead"], text_grammar)
        if candidate is not None:
            loop.keep(candidate)
            result.na_parts += 1
            if loop.out_of_tokens():
                stopped = True
                break
    if not stopped:
        stopped = _follow(loop, plan.relevant, text_grammar, max_sentences, count_skips=False)
    asked = [(s, p) for s, p in (key.split(" / ", 1) for key in result.asked)]
    covered = {(s, p) for s, p, _ in loop.stated}
    if plan.unread and not stopped and loop.units:
        result.stop_reason = "the question asks what the graph, as read, does not hold: said and marked [NA]"
    elif not stopped and loop.units and (plan.asked or plan.relevant):
        result.stop_reason = ("the question's asked facts are covered" if set(asked) <= covered
                              else "the plan is done (a planned fact no candidate stated)")
    elif not stopped and plan.namesakes and not result.sentences - result.na_parts:
        result.stop_reason = "the graph holds only a namesake of the person asked of: said and marked [NA]"
    elif not stopped and not result.sentences - result.na_parts:
        # nothing planned was said (a question that names no topic or relation the graph holds): the model
        # chooses each sentence's marks itself
        _free(loop, grammar, first_grammar, max_sentences, asked, covered)
    result.raw = "".join(loop.units).strip()
    result.answer = from_attribute_first(result.raw)
    result.seconds = time.perf_counter() - started
    return result


def _follow(loop: _Loop, targets: Sequence[list[Triple]], text_grammar: Any, max_sentences: int, *,
            count_skips: bool) -> bool:
    """Write the planned sentences in order; True when the answer must stop (sentences or tokens spent, or
    the model could not end a sentence)."""
    result = loop.result
    for target in targets:
        keys = {(t.subject, t.label, t.value) for t in target}
        if keys <= loop.stated:
            continue  # an earlier sentence said it
        if result.sentences >= max_sentences:
            return True
        # the sentence starts with its person's name: the model says the fact of that person rather than
        # restating the question ("Akshara Haasan's family members have influenced her career …")
        name = loop.entity_names.get(target[0].subject)
        lead = load_topics().lead([t.label for t in target], name, target[0].subject in loop.dead) if name else None
        prefix = " ".join([*render_marks([(t.subject, t.label, t.value) for t in target]), *([lead] if lead else [])])
        candidate, how = loop.write(prefix, text_grammar, keys)
        if how == "unended":
            loop.unended()
            return True
        result.skipped += count_skips and how != "kept"
        if candidate is None:
            continue
        loop.keep(candidate)
        if loop.out_of_tokens():
            return True
    return False


def _free(loop: _Loop, grammar: Any, first_grammar: Any, max_sentences: int, asked: Sequence[tuple[str, str]],
          covered: set[tuple[str, str]]) -> None:
    """Sentences whose marks the model chooses (a question that asks nothing the plan could name)."""
    result = loop.result
    # with nothing shown (the question names nobody the graph holds), every sentence is the model's own,
    # marked [NA]: a short honest answer, not a long unsupported one
    limit = max_sentences if loop.graph else min(max_sentences, MAX_UNGROUNDED)
    while result.sentences < limit:
        candidate, how = loop.write("", grammar if loop.units or first_grammar is None else first_grammar, None)
        if how == "ended":
            result.stop_reason = "model ended"
            return
        if candidate is None and not loop.units and loop.fallback is not None:
            candidate = loop.fallback  # never an empty answer when the model wrote something: kept, marked [NA]
        if candidate is None:
            if how == "unended":
                loop.unended()
            else:
                result.stop_reason = "no sentence that adds a supported fact"
            return
        loop.keep(candidate)
        covered |= {(s, p) for s, p, _ in candidate.kept}
        if asked and set(asked) <= covered:
            result.stop_reason = "the question's asked facts are covered"
            return
        if loop.out_of_tokens():
            return
