"""How an answer gets its citations (`kalma-graph answer --cite STRATEGY`).

- `model`: the paper's baseline (seed 000, §3.3): the model writes its own marks after each claim,
  optionally under the citation grammar (`--constrain-citations`).
- `posthoc`: ALCE's post-hoc citation (Gao et al. 2023, §3): the model answers, its own marks are
  removed, and each sentence gets the shown triples an NLI model judges it entails (premise = the
  sentence, hypothesis = the verbalised triple), at most `MAX_CITED` of them, or `[NA]` when none is.
- `attribute-first`: the grammar makes the model choose the mark of each sentence (a shown triple
  or `[NA]`) *before* writing the sentence, so a small model cannot forget to cite; its output
  `[Q1, p: v] Sentence.` is rewritten to the canonical `Sentence [Q1, p: v].` for parsing.
- `verified`: attribute-first, then each cited triple the graph-grounded verifier does not judge
  supported by its sentence is dropped (`keep_verified`), and a sentence left with no triple, or with a
  claim the graph does not hold or contradicts, gets `[NA]`. (Until issue 31 the check was lexical,
  `keep_stated`: every word of the value on the sentence's face; it let through values said of someone
  else and inverted relations.) The 1.5B model often chose a triple and then wrote about something
  else (`[Q1, languages spoken: English] He was an American author.`); the check, lexical and
  independent of any NLI model, removes such citations instead of showing them as support.

- `grounded`: the verifier in the decoding loop, a sentence at a time (`grounded.py`): each sentence is
  checked before the next is written, re-sampled when it states what its citations do not hold, and the
  answer stops when the question's asked facts are cited.

Every strategy's record keeps what the model wrote (`raw_answer`) beside the canonical `answer`.

>>> to_attribute_first("Born in Rome [Q1, place of birth: Rome]. A painter [NA] of note [NA]. Famous.")
'[Q1, place of birth: Rome] Born in Rome. [NA] A painter of note. [NA] Famous.'
>>> from_attribute_first("[Q1, place of birth: Rome] Born in Rome. [NA] [Q2, name: B] A painter.")
'Born in Rome [Q1, place of birth: Rome]. A painter [NA] [Q2, name: B].'
>>> keep_stated("Italian, born 1596 in Rome [Q1, ethnic group: Italians, place of birth: Rome, occupation: painter, "
...             "ethnic group: Italians]. Famous [Q1, genre: portrait].")
'Italian, born 1596 in Rome [Q1, ethnic group: Italians, place of birth: Rome]. Famous [NA].'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from kalma_graph.kg.citation_marks import locate_marks
from kalma_graph.kg.citations import from_attribute_first, parse_answer, render_citation
from kalma_graph.kg.hypothesis import possessive, prop_value
from kalma_graph.kg.knowledge import is_unlabelled
from kalma_graph.kg.triples import Entity, Triple

MAX_CITED = 3  # triples per sentence in post-hoc citation (ALCE cites at most 3 passages)
POSTHOC_THRESHOLD = 0.5
MAX_CANDIDATES = 12  # NLI pairs per sentence, after the lexical filter
_TERMINATOR_RE = re.compile(r"([.!?]+)(\s*)$")
_ISO_DATE_RE = re.compile(r"(\d{3,4})-(\d{2})-(\d{2})")
_MONTHS = ("January February March April May June July August September October November December").split()
_WORD_RE = re.compile(r"[^\W_]{3,}|\d{4}")
# Words that tell nothing about which triple a sentence rests on.
_STOP = frozenset(
    "the and was were has had have with for from that this his her their its who whom which also "
    "born died known being been into onto over under than then there where when what while about "
    "of was are not but all any can may one two".split()
)


def strip_marks(text: str) -> str:
    """`text` without its citation marks (`[NA]`, `[Q1, ...]`); brackets that are prose stay."""
    marks, _ = locate_marks(text)
    out, cursor = [], 0
    for mark in marks:
        if mark.is_text:
            continue
        out.append(text[cursor:mark.start].rstrip(" "))
        cursor = mark.end
    out.append(text[cursor:])
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", "".join(out)).strip()


# --- attribute-first ---------------------------------------------------------------------------


def to_attribute_first(answer: str) -> str:
    """A canonical answer (marks before each sentence's end) rewritten with each sentence's marks
    first: the demonstration of the attribute-first prompt is made from Table 13's this way. A
    sentence without a mark gets `[NA]`, since under the attribute-first grammar every sentence
    starts with one."""
    parsed = parse_answer(answer)
    out = []
    for sentence in parsed.sentences:
        marks = render_marks(c.triple for c in sentence.citations)
        marks += ["[NA]"] if sentence.na or not marks else []  # one [NA] per sentence at most
        out.append(" ".join(marks + [sentence.clean_text]))
    return " ".join(out)


# --- verified ----------------------------------------------------------------------------------

# A value word and a sentence word match when they share this many first letters (or are equal when
# shorter): `Italians` ~ `Italian`, `Germans` ~ `German`, but `England` !~ `English`.
_STEM = 5


def states_value(sentence: str, value: str) -> bool:
    """Whether `sentence` states `value` on its face: an ISO date by its year, any other value by
    each of its content words (letter case and word endings aside; a value of stop words only must
    appear as a whole).

    >>> states_value("She was born in 1596 in Rome.", "1596-07-08"), states_value("A Roman painter.", "Rome")
    (True, False)
    >>> states_value("He was of German descent.", "Germans"), states_value("He spoke English.", "England")
    (True, False)
    """
    found = _ISO_DATE_RE.fullmatch(value)
    if found:
        return found.group(1) in re.findall(r"\d{3,4}", sentence)
    wanted = [w for w in re.findall(r"[^\W_]+", value.casefold()) if w not in _STOP]
    if not wanted:
        return value.casefold() in sentence.casefold()
    stems = {w[:_STEM] for w in re.findall(r"[^\W_]+", sentence.casefold())}
    return all(w[:_STEM] in stems for w in wanted)


def keep_stated(answer: str, known_props: Any = None, known_pairs: Any = None) -> str:
    """A canonical answer with each cited triple kept only where its sentence states its value
    (`states_value`), and once per sentence (the grammar lets a mark repeat a pair after another,
    `[Q1, a: x, b: y, a: x]`: 14 of 215 kept citations in Table 3's first verified run); a
    sentence whose every triple went gets `[NA]`. `known_props` and
    `known_pairs` (of the graph the model saw) are handed to `parse_answer`, so a label that holds a
    comma (`languages spoken, written or signed`) is read whole."""
    out = []
    for sentence in parse_answer(answer, known_props, known_pairs).sentences:
        stated = (c.triple for c in sentence.citations if states_value(sentence.clean_text, c.triple[2]))
        kept = list(dict.fromkeys(stated))
        marks = render_marks(kept)
        if sentence.na or (sentence.citations and not kept):
            marks.insert(0, "[NA]")
        out.append(" ".join(marks + [sentence.clean_text]))
    return from_attribute_first(" ".join(out))


def keep_verified(answer: str, *, question: str, shown: Sequence[Triple], entities: Sequence[Entity],
                  known_props: Any = None, known_pairs: Any = None, verifier: Any = None) -> str:
    """A canonical answer with each cited triple kept only where the graph-grounded verifier judges it
    supported by its sentence (subject, relation, value and direction; `kalma_graph.verification`), once per
    sentence; a sentence left without a triple, or holding a claim the graph does not hold or contradicts,
    gets `[NA]`."""
    from kalma_graph.verification import AnswerInput, Verifier
    from kalma_graph.verification.verifier import cited_sentences, graph_entity, graph_triple

    parsed = parse_answer(answer, known_props, known_pairs)
    checked = (verifier or Verifier()).verify(AnswerInput(
        question=question, sentences=cited_sentences(parsed.sentences), shown=[graph_triple(t) for t in shown],
        entities=[graph_entity(e) for e in entities]))
    out = []
    for sentence, check in zip(parsed.sentences, checked.sentences):
        kept = supported_triples([c.triple for c in sentence.citations], check)
        marks = render_marks(kept)
        unheld = any(not claim.held for claim in check.claims)
        if sentence.na or (sentence.citations and not kept) or unheld:
            marks.insert(0, "[NA]")
        out.append(" ".join(marks + [sentence.clean_text]))
    return from_attribute_first(" ".join(out))


def supported_triples(cited: Sequence[tuple[str, str, str]], check: Any) -> list[tuple[str, str, str]]:
    """The triples a sentence cites (in order) that the verifier's check of it judges supported, once each."""
    return list(dict.fromkeys(t for t, v in zip(cited, check.citations) if v.verdict == "supported"))


def render_marks(triples: Iterable[tuple[str, str, str]]) -> list[str]:
    """One canonical mark per entity, in order of first appearance, holding its (property, value)
    pairs: `[("Q1", "p", "v"), ("Q1", "q", "w")]` -> `["[Q1, p: v, q: w]"]`."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for subject, prop, value in triples:
        groups.setdefault(subject, []).append((prop, value))
    return [render_citation(subject, pairs) for subject, pairs in groups.items()]


# --- post-hoc ----------------------------------------------------------------------------------


@dataclass
class Placement:
    """What post-hoc citation decided for one sentence: the NLI probability of every candidate triple
    (subject, label, value, p) and the triples cited."""

    sentence: str
    candidates: list[tuple[str, str, str, float]] = field(default_factory=list)
    cited: list[tuple[str, str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "candidates": [list(c) for c in self.candidates],
                "cited": [list(c) for c in self.cited]}


def _words(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.casefold()) if w not in _STOP}


def candidate_triples(sentence: str, triples: Sequence[Triple], limit: int = MAX_CANDIDATES) -> list[Triple]:
    """The shown triples worth an NLI call for `sentence`: those whose value shares a content word
    (or a year) with it, most shared words first. A sentence about nothing shown has none."""
    words = _words(sentence)
    scored = []
    for order, t in enumerate(triples):
        if is_unlabelled(t):
            continue  # an object known only by its id is not citable (as in the grammar)
        shared = len(words & _words(t.value))
        if shared:
            scored.append((-shared, order, t))
    return [t for _, _, t in sorted(scored, key=lambda x: x[:2])[:limit]]


def triple_hypotheses(t: Triple, names: dict[str, str]) -> list[str]:
    """The NLI hypotheses a triple is tried as; its score is the best of them. `prop: value` (the
    paper's alignment format) holds for sentences that say "he"; the verbalised form names the
    subject; an ISO date is also tried as written in prose (`November 1, 1871`)."""
    name = names.get(t.subject) or t.subject
    out = [prop_value(name, t.label, t.value), possessive(name, t.label, t.value)]
    found = _ISO_DATE_RE.fullmatch(t.value)
    if found:
        year, month, day = (int(x) for x in found.groups())
        if 1 <= month <= 12:
            prose = f"{_MONTHS[month - 1]} {day}, {year}" if day else f"{_MONTHS[month - 1]} {year}"
            out.append(prop_value(name, t.label, prose))
    return out


def place_citations(
    answer: str,
    entities: Sequence[Entity],
    triples: Sequence[Triple],
    entail_prob: Any,
    *,
    threshold: float = POSTHOC_THRESHOLD,
    max_cited: int = MAX_CITED,
) -> tuple[str, list[Placement]]:
    """Post-hoc citation of `answer` (its own marks removed first) with the shown `triples`.

    `entail_prob(premises, hypotheses)` returns P(entailment) per pair (`NLIModel.entailment_prob`).
    Each sentence cites the (at most `max_cited`) candidate triples with P >= `threshold`, grouped
    into one mark per entity, or `[NA]` when none passes. Returns the canonical answer and what was
    decided per sentence."""
    names = {e.id: e.name or e.id for e in entities}
    text = strip_marks(answer)
    sentences = [s.clean_text for s in parse_answer(text).sentences if s.clean_text]
    per_sentence = [candidate_triples(s, triples) for s in sentences]
    premises, hypotheses, owners = [], [], []
    for index, (sentence, cands) in enumerate(zip(sentences, per_sentence)):
        for order, t in enumerate(cands):
            for h in triple_hypotheses(t, names):
                premises.append(sentence)
                hypotheses.append(h)
                owners.append((index, order))
    best: dict[tuple[int, int], float] = {}
    for owner, p in zip(owners, entail_prob(premises, hypotheses) if premises else []):
        best[owner] = max(best.get(owner, 0.0), float(p))
    out, placements = [], []
    for index, (sentence, cands) in enumerate(zip(sentences, per_sentence)):
        scored = [(t, best[(index, order)]) for order, t in enumerate(cands)]
        chosen = sorted((x for x in scored if x[1] >= threshold), key=lambda x: -x[1])[:max_cited]
        placement = Placement(sentence, [(t.subject, t.label, t.value, round(p, 4)) for t, p in scored],
                              [(t.subject, t.label, t.value) for t, _ in chosen])
        placements.append(placement)
        marks = " ".join(render_marks(placement.cited)) or "[NA]"
        found = _TERMINATOR_RE.search(sentence)
        if found:
            out.append(f"{sentence[:found.start()].rstrip()} {marks}{found.group(1)}")
        else:
            out.append(f"{sentence} {marks}")
    return " ".join(out), placements
