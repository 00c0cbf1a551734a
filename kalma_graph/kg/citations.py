"""The citation parser shared by the answer pipeline and the evaluation.

An answer is split into sentences (`kalma_graph.text.sentences`), each sentence keeps the citation marks it
contains or that directly follow its end (`citation_marks`), and every mark is read into citations
(subject id, property label, value), entity-only ids and `[NA]` flags (seed 000, §2.1, Table 13).
Parsing never raises: what cannot be read is kept as text and reported in `ParsedAnswer.errors`.

>>> answer = parse_answer(
...     "Artemisia Gentileschi was an Italian painter born on July 8, 1596 [NA] in Rome "
...     "[Q212657, ethnic group: Italians, occupation: painter, place of birth: Rome]. "
...     "She was the eldest child of Orazio Gentileschi [Q212657, father: Orazio Gentileschi].")
>>> [len(s.citations) for s in answer.sentences], answer.n_na
([3, 1], 1)
>>> answer.sentences[0].clean_text
'Artemisia Gentileschi was an Italian painter born on July 8, 1596 in Rome.'
>>> answer.sentences[1].citations[0].triple
('Q212657', 'father', 'Orazio Gentileschi')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Protocol, Sequence

from kalma_graph.kg.citation_marks import (
    ISSUE_KINDS,
    Citation,
    KnownPairs,
    KnownProps,
    Mark,
    ParseIssue,
    locate_marks,
)
from kalma_graph.kg.triples import Entity
from kalma_graph.text.sentences import sentence_spans

__all__ = [
    "ISSUE_KINDS",
    "NA_MARK",
    "Citation",
    "ParseIssue",
    "ParsedAnswer",
    "Sentence",
    "parse_answer",
    "from_attribute_first",
    "known_pairs",
    "known_props",
    "render_citation",
]

NA_MARK = "[NA]"


class ShownTriple(Protocol):
    """What the knowledge blocks show of a statement: a store `Triple`, or the verifier's `GraphTriple`."""

    @property
    def subject(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def value(self) -> str: ...


_PUNCTUATION_AFTER_MARK = ".,;:!?\u2026)"
_LAST_TERMINATOR_RE = re.compile(r"[.!?]+[\"')\u201d\u2019]*$")
_LIST_MARKER_RE = re.compile(r"^(?:[-*\u2022]|\d{1,3}[.)])\s+")  # a bullet is not part of the claim


@dataclass(frozen=True)
class Sentence:
    """One sentence: `text` as written (marks included), `clean_text` without citation marks (the
    NLI premise), its citations, whether it carries `[NA]`, and ids cited without a triple."""

    text: str
    clean_text: str
    citations: list[Citation] = field(default_factory=list)
    na: bool = False
    entity_only: list[str] = field(default_factory=list)
    na_marks: int = 0  # `[NA]` marks in the sentence (Table 13 has sentences with two)
    span: tuple[int, int] = (0, 0)  # character offsets of `text` in the answer


@dataclass(frozen=True)
class ParsedAnswer:
    """The sentences of an answer and what the parse counted.

    `n_citations` counts cited triples (duplicates and incomplete ones included), `n_na` the `[NA]`
    marks, `n_sloppy` the citations that parsed only in a sloppy form, `n_na_sloppy` the `[NA]`
    marks written otherwise (`[na]`, `[ NA ]`, `[N/A]`), `n_entity_only` the ids cited alone.
    """

    sentences: list[Sentence]
    n_citations: int
    n_na: int
    n_sloppy: int
    errors: list[ParseIssue]
    n_na_sloppy: int = 0
    n_entity_only: int = 0

    @property
    def citations(self) -> list[Citation]:
        return [c for s in self.sentences for c in s.citations]

    @property
    def na_sentences(self) -> list[Sentence]:
        return [s for s in self.sentences if s.na]


def parse_answer(text: str, known_props: KnownProps = None, known_pairs: KnownPairs = None) -> ParsedAnswer:
    """Parse an attributed answer.

    `known_props` are the property labels of the retrieved graph, either per entity id
    (`{"Q212657": {"occupation", ...}}`) or one set for all; with them a value may contain
    `, word:` without being split, and a label may contain commas. `known_pairs` are the shown
    `(label, value)` pairs per entity id; a pair written exactly so is read whole, whatever its value
    holds. Without either, pairs split at every `, key:`.

    >>> parse_answer("Born in Rome. [Q212657, place of birth: Rome]").sentences[0].citations[0].value
    'Rome'
    >>> parse_answer("A [Q1, notable works: Love, Death: Robots]", {"notable works"}).n_citations
    1
    >>> parse_answer("Spoke [Q4985, movement: Romanticism, languages spoken, written or signed: English]",
    ...              {"Q4985": {"movement", "languages spoken, written or signed"}}).citations[1].prop
    'languages spoken, written or signed'
    """
    marks, issues = locate_marks(text, known_props, known_pairs)
    cited = [m for m in marks if not m.is_text]
    drafts: list[tuple[tuple[int, int], list[Mark]]] = []
    pending: list[Mark] = []
    next_mark = 0
    for start, end in sentence_spans(text, [(m.start, m.end) for m in cited]):
        first = next_mark
        while next_mark < len(cited) and cited[next_mark].start < end:
            next_mark += 1
        inside = cited[first:next_mark]  # spans are consecutive and never cut through a mark
        if not _clean_text(text, start, end, inside):
            # A stretch with marks but no words belongs to the sentence before it.
            if inside and drafts:
                (first, _), previous = drafts[-1]
                drafts[-1] = ((first, end), previous + inside)
            else:
                pending += inside
            continue
        drafts.append(((start, end), pending + inside))
        pending = []
    if pending:
        drafts.append(((pending[0].start, pending[-1].end), pending))
    sentences = [_sentence(text, span, found) for span, found in drafts]
    citations = [c for s in sentences for c in s.citations]
    return ParsedAnswer(
        sentences=sentences,
        n_citations=len(citations),
        n_na=sum(m.na for m in cited),
        n_sloppy=sum(c.sloppy for c in citations),
        errors=issues,
        n_na_sloppy=sum(m.na_sloppy for m in cited),
        n_entity_only=sum(len(m.entity_ids) for m in cited),
    )


def _sentence(text: str, span: tuple[int, int], marks: list[Mark]) -> Sentence:
    start, end = span
    stripped_start = start + len(text[start:end]) - len(text[start:end].lstrip())
    stripped_end = start + len(text[start:end].rstrip())
    na_marks = sum(m.na for m in marks)
    return Sentence(
        text=text[stripped_start:stripped_end],
        clean_text=_clean_text(text, start, end, marks),
        citations=[c for m in marks for c in m.citations],
        na=na_marks > 0,
        entity_only=[e for m in marks for e in m.entity_ids],
        na_marks=na_marks,
        span=(stripped_start, max(stripped_start, stripped_end)),
    )


def _clean_text(text: str, start: int, end: int, marks: list[Mark]) -> str:
    """The sentence without its marks; no space is left before punctuation a mark preceded."""
    out, cursor = "", start
    for mark in marks:
        out += text[cursor:mark.start]
        cursor = mark.end
        following = text[cursor:end]
        if not following or following[0].isspace() or following[0] in _PUNCTUATION_AFTER_MARK:
            out = out.rstrip()
        elif out and not out[-1].isspace():
            out += " "
    out += text[cursor:end]
    return _LIST_MARKER_RE.sub("", " ".join(out.split()), count=1)


def known_props(entities: Sequence[Entity], triples: Sequence[ShownTriple]) -> dict[str, set[str]]:
    """Property labels per entity for the citation parser, with the pseudo-property `name` that the
    knowledge block shows for every entity."""
    out: dict[str, set[str]] = {e.id: {"name"} for e in entities}
    for t in triples:
        out.setdefault(t.subject, {"name"}).add(t.label)
    return out


def known_pairs(entities: Sequence[Entity], triples: Sequence[ShownTriple]) -> dict[str, set[tuple[str, str]]]:
    """The `(label, value)` pairs per entity that the knowledge blocks show (and the citation grammar
    allows), with each entity's `name` pair: the citation parser reads a pair written so whole."""
    out: dict[str, set[tuple[str, str]]] = {e.id: {("name", e.name)} if e.name else set() for e in entities}
    for t in triples:
        out.setdefault(t.subject, set()).add((t.label, t.value))
    return out


def from_attribute_first(raw: str) -> str:
    """`[marks] Sentence.` units back to the canonical `Sentence [marks].`; text that does not
    follow the form (a truncated last unit) is kept as it is."""
    marks, _ = locate_marks(raw)
    marks = [m for m in marks if not m.is_text]
    out: list[str] = []
    cursor = 0
    index = 0
    while index < len(marks):
        run = [marks[index]]
        while index + 1 < len(marks) and not raw[run[-1].end:marks[index + 1].start].strip():
            index += 1
            run.append(marks[index])
        index += 1
        if raw[cursor:run[0].start].strip():
            out.append(raw[cursor:run[0].start].strip())
        end = marks[index].start if index < len(marks) else len(raw)
        sentence = raw[run[-1].end:end].strip()
        cursor = end
        joined = " ".join(m.raw for m in run)
        if not sentence:
            out.append(joined)
            continue
        # The marks belong to the first sentence after them; its end is found by the evaluation's
        # own splitter, so an initial (`Samuel R. Delany`) does not end it. Text after that sentence
        # (no grammar, or a unit cut off by the token limit) follows as it is.
        first_end = sentence_spans(sentence, [])[0][1]
        head, rest = sentence[:first_end].rstrip(), sentence[first_end:].strip()
        found = _LAST_TERMINATOR_RE.search(head)
        if found:
            out.append(f"{head[:found.start()].rstrip()} {joined}{found.group()}")
        else:
            out.append(f"{head} {joined}")
        if rest:
            out.append(rest)
    if raw[cursor:].strip():
        out.append(raw[cursor:].strip())
    return " ".join(out)


def render_citation(subject: str, pairs: Iterable[tuple[str, str]] = ()) -> str:
    """The canonical mark for `pairs` of one entity (Table 13); no pairs gives an entity-only mark.

    >>> render_citation("Q212657", [("ethnic group", "Italians"), ("occupation", "painter")])
    '[Q212657, ethnic group: Italians, occupation: painter]'
    >>> render_citation("m.0c94fn")
    '[m.0c94fn]'
    """
    return "[" + ", ".join([subject] + [f"{prop}: {value}" for prop, value in pairs]) + "]"
