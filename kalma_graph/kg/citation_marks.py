"""Finding citation marks in an answer and reading what each one cites.

A *mark* is a bracket the answer uses to attribute: `[Q212657, occupation: painter]` (triples),
`[Q212657]` (entity only), `[NA]` (conscious incompetence) or `[]` (empty). The canonical form is the
one the generation prompt demonstrates (seed 000, Table 13); every other accepted form is *sloppy*
and flagged so that reports can count it. Brackets that hold no citation (`[sic]`, `[1]`) stay text.

Grammar of a bracket body (after the subject id and `, `): `key: value` pairs separated by `, `.
The body is read pair by pair, left to right. A pair that starts with a known `label: value` of the
cited entity (given as `known_pairs`; longest first) and is followed by a separator or the end is
taken whole, whatever commas or colons its value holds. Otherwise its key is the longest known
property label followed by `:` (labels may hold commas: `languages spoken, written or signed`), or
else the text up to the first colon; the value then runs to the next separator. A separator is a
comma (or, sloppily, a semicolon) that is followed by one of

  (a) a known property label of the cited entity (or a known `label: value`), then `:`;
  (b) another entity id, then a separator or the end (the model switched subject);
  (c) `NA`, then a separator or the end;
  (d) an unknown key: without known labels any colon-terminated key; with known labels only a
      lowercase, at most six-word key whose colon is followed by a space (a property the model
      invented, e.g. `citizen: Italy`);
  (e) nothing (a trailing comma).

Any other comma belongs to the value, so `date of birth: July 8, 1596` stays one pair.

>>> marks, issues = locate_marks("Rome [qid: Q1, place of birth:Rome] [na] [sic]")
>>> [(c.triple, c.sloppy) for c in marks[0].citations], marks[1].na_sloppy, marks[2].is_text
([(('Q1', 'place of birth', 'Rome'), True)], 1, True)
>>> [issue.kind for issue in issues]
['unrecognised_bracket']
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, Collection, Mapping

# Wikidata QIDs and Freebase MIDs (`m.0c94fn`, `g.11b...`); `/m/0c94fn` is FB15k's spelling.
_ID = r"(?:[Qq][1-9][0-9]*|[mg]\.[0-9a-z_]+|/[mg]/[0-9a-z_]+)(?![\w])"
_LEADING_ID_RE = re.compile(rf"\s*(?P<prefix>(?i:qid|mid|id)\s*[:=]\s*)?(?P<id>{_ID})")
_ID_RE = re.compile(_ID)
_ID_SEGMENT_RE = re.compile(rf"{_ID}\s*(?:[,;]|$)")
_NA_SEGMENT_RE = re.compile(r"(?i:n\s*/?\s*a)\s*(?:[,;]|$)")
_NA_BODY_RE = re.compile(r"(?i:n\s*/?\s*a)\.?")
_SUBJECT_SEPARATOR_RE = re.compile(r"\s*[,;:\-\u2013]?\s*")
_INVENTED_KEY_RE = re.compile(r"[^\W\d_][\w'\u2019\- ]*")
_PAREN_START_RE = re.compile(rf"\(\s*(?:(?i:qid|mid|id)\s*[:=]\s*)?{_ID}\s*[,;]")
_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t\r\f\v]*\n")
_KEY_RE = re.compile(r"([^:,;\[\]]{1,200}):")
_RESERVED_KEYS = frozenset({"qid", "mid", "id"})
_MAX_KEY_CHARS = 80
_MAX_LABEL_CHARS = 200  # how far a known label is looked for (the longest bundled Wikidata label has 87)
_MAX_INVENTED_KEY_WORDS = 6


@dataclass(frozen=True)
class Citation:
    """One cited triple. `sloppy` is True when it parsed only by tolerating a non-canonical form;
    `raw` is the whole bracket it came from. An incomplete citation (no subject, property or value)
    keeps the missing part as "" so it still counts, as an incorrect citation (§4.2)."""

    qid: str
    prop: str
    value: str
    sloppy: bool = False
    raw: str = ""

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.qid, self.prop, self.value)

    @property
    def complete(self) -> bool:
        return bool(self.qid and self.prop and self.value)


@dataclass(frozen=True)
class ParseIssue:
    """Something the parser met that is not a well-formed citation mark."""

    kind: str  # see ISSUE_KINDS
    raw: str
    start: int  # character offset in the answer


ISSUE_KINDS = (
    "unterminated_bracket",  # `[` with no `]` before a paragraph break or the end: kept as text
    "unbalanced_close",  # `]` with no `[`: kept as text
    "empty_bracket",  # `[]`: removed, cites nothing
    "unrecognised_bracket",  # `[sic]`, `[1]`: kept as text, cites nothing
    "incomplete_citation",  # a pair without property or value: counted as a (wrong) citation
    "missing_subject",  # pairs without an entity id: counted as (wrong) citations
)


@dataclass(frozen=True)
class Mark:
    """A located bracket. `is_text` marks brackets that stay part of the sentence's text."""

    start: int
    end: int
    raw: str
    citations: tuple[Citation, ...] = ()
    entity_ids: tuple[str, ...] = ()
    na: int = 0
    na_sloppy: int = 0
    is_text: bool = False


@dataclass(frozen=True)
class _Segment:
    raw: str  # the segment with its leading separator (`, `, or the one after the subject id)
    separator: str

    @property
    def body(self) -> str:
        return self.raw[len(self.separator):]


KnownProps = Mapping[str, Collection[str]] | Collection[str] | None
# Known `(label, value)` pairs per entity id: the statements the answer was shown.
KnownPairs = Mapping[str, Collection[tuple[str, str]]] | None


def label_key(label: str) -> str:
    """How property labels are compared when splitting pairs: case-folded, whitespace collapsed."""
    return " ".join(label.split()).casefold()


def canonical_id(raw_id: str) -> tuple[str, bool]:
    """The id as the graph spells it, and whether the answer spelled it otherwise."""
    if raw_id[0] in "qQ":
        return "Q" + raw_id[1:], raw_id[0] == "q"
    if raw_id.startswith("/"):
        return raw_id[1] + "." + raw_id[3:], True
    return raw_id, False


def locate_marks(
    text: str, known_props: KnownProps = None, known_pairs: KnownPairs = None
) -> tuple[list[Mark], list[ParseIssue]]:
    """All citation marks of `text` in order, and the problems met on the way. Never raises."""
    issues: list[ParseIssue] = []
    spans = _square_bracket_spans(text, issues)
    spans += _parenthesis_spans(text, spans)
    spans.sort()
    marks = [read_mark(text, start, end, known_props, issues, known_pairs) for start, end in spans]
    return marks, sorted(issues, key=lambda issue: issue.start)


def _square_bracket_spans(text: str, issues: list[ParseIssue]) -> list[tuple[int, int]]:
    """Outermost balanced `[...]` pairs, in one pass. A paragraph break closes nothing: it makes
    the brackets still open unterminated, so a lost `]` cannot swallow the rest of the answer."""
    spans: list[tuple[int, int]] = []
    open_at: list[int] = []

    def abandon_open() -> None:
        for start in open_at:
            issues.append(ParseIssue("unterminated_bracket", text[start:start + 40], start))
        open_at.clear()

    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "[":
            open_at.append(i)
        elif ch == "]":
            if open_at:
                spans.append((open_at.pop(), i + 1))
            else:
                issues.append(ParseIssue("unbalanced_close", "]", i))
        elif ch == "\n" and open_at:
            found = _PARAGRAPH_BREAK_RE.match(text, i)
            if found:
                abandon_open()
                i = found.end()
                continue
        i += 1
    abandon_open()
    # An inner pair whose outer bracket was abandoned is still a mark; nested ones inside a kept
    # outer pair are not (they are part of its value).
    spans.sort()
    outermost: list[tuple[int, int]] = []
    for start, end in spans:
        if outermost and start < outermost[-1][1]:
            continue
        outermost.append((start, end))
    return outermost


def _parenthesis_spans(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """`(Q1, p: v)` is read as a sloppy citation; other parentheses are prose and stay text."""
    starts = [m.start() for m in _PAREN_START_RE.finditer(text)]
    if not starts:
        return []
    closing: dict[int, int] = {}  # balanced pairs, matched in one pass like the square brackets
    open_at: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "(":
            open_at.append(i)
        elif ch == ")" and open_at:
            closing[open_at.pop()] = i + 1
        elif ch == "\n" and open_at:
            found = _PARAGRAPH_BREAK_RE.match(text, i)
            if found:
                open_at.clear()
                i = found.end()
                continue
        i += 1
    taken_starts = [s for s, _ in taken]
    spans: list[tuple[int, int]] = []
    for start in starts:
        end = closing.get(start)
        if end is None or (spans and start < spans[-1][1]) or _inside(start, taken, taken_starts):
            continue
        if "[" in text[start:end] or "]" in text[start:end]:
            continue  # overlaps a square bracket: leave both to the square-bracket reading
        spans.append((start, end))
    return spans


def _inside(position: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    index = bisect.bisect_right(starts, position) - 1
    return index >= 0 and spans[index][0] <= position < spans[index][1]


def read_mark(
    text: str, start: int, end: int, known_props: KnownProps, issues: list[ParseIssue],
    known_pairs: KnownPairs = None,
) -> Mark:
    """Read one bracket `text[start:end]` (delimiters included)."""
    raw = text[start:end]
    paren = raw[0] == "("
    body, unwrapped = _unwrap(raw[1:-1])
    stripped = body.strip()
    if not stripped:
        issues.append(ParseIssue("empty_bracket", raw, start))
        return Mark(start, end, raw)
    if not paren and _NA_BODY_RE.fullmatch(stripped):
        sloppy = body != "NA" or unwrapped
        return Mark(start, end, raw, na=1, na_sloppy=int(sloppy))
    leading = _LEADING_ID_RE.match(body)
    bracket_sloppy = paren or unwrapped
    subject = ""
    if leading:
        subject, id_sloppy = canonical_id(leading.group("id"))
        bracket_sloppy |= id_sloppy or leading.group("prefix") is not None or leading.start("id") != 0
        rest = body[leading.end():]
        if not rest.strip():
            # Entity-only marks carry no triple, so their form is not counted as sloppy.
            return Mark(start, end, raw, entity_ids=(subject,))
        separator = _SUBJECT_SEPARATOR_RE.match(rest)
        assert separator is not None  # every part of the pattern is optional: it matches any text
        first_separator = separator.group()
        bracket_sloppy |= first_separator != ", "
        pairs_text = rest
    else:
        if paren or ":" not in body or not _looks_like_key(body[: body.index(":")]):
            issues.append(ParseIssue("unrecognised_bracket", raw, start))
            return Mark(start, end, raw, is_text=True)
        pairs_text, first_separator = body, ""
        bracket_sloppy = True
    ids = {subject} | {canonical_id(m.group())[0] for m in _ID_RE.finditer(body)}
    props = _props_for(known_props, ids)
    pairs, pair_labels = _pairs_for(known_pairs, ids)
    if pair_labels:
        props = (props or frozenset()) | pair_labels
    segments = _split_segments(pairs_text, first_separator, _Known(props, pairs))
    return _mark_from_segments(start, end, raw, subject, segments, bracket_sloppy, issues, props)


def _unwrap(body: str) -> tuple[str, bool]:
    """`[[Q1, p: v]]` -> `Q1, p: v` (sloppy)."""
    unwrapped = False
    while True:
        inner = body.strip()
        if len(inner) >= 2 and inner[0] == "[" and inner[-1] == "]" and "[" not in inner[1:-1] \
                and "]" not in inner[1:-1]:
            body, unwrapped = inner[1:-1], True
        else:
            return body, unwrapped


def _looks_like_key(key: str) -> bool:
    key = key.strip()
    return 0 < len(key) <= _MAX_KEY_CHARS and not any(c in key for c in "[](){}")


def _chosen(known: Mapping[str, Collection[Any]], ids: set[str]) -> list[Collection[Any]]:
    """The collections for the bracket's ids; all of them when none is cited (the model may cite a
    wrong id)."""
    chosen = [values for qid, values in known.items() if qid in ids]
    return chosen or list(known.values())


def _props_for(known_props: KnownProps, ids: set[str]) -> frozenset[str] | None:
    """Known labels (as `label_key`s) for a bracket citing `ids`."""
    if known_props is None:
        return None
    if isinstance(known_props, Mapping):
        return frozenset(label_key(label) for labels in _chosen(known_props, ids) for label in labels)
    return frozenset(label_key(label) for label in known_props)


def _pairs_for(known_pairs: KnownPairs, ids: set[str]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Known pairs for a bracket citing `ids`, written as `label: value` (longest first), and their
    labels as `label_key`s."""
    if not known_pairs:
        return (), frozenset()
    chosen = [pair for pairs in _chosen(known_pairs, ids) for pair in pairs]
    written = {f"{label}: {value}" for label, value in chosen}
    labels = frozenset(label_key(label) for label, _ in chosen)
    return tuple(sorted(written, key=lambda pair: (-len(pair), pair))), labels


@dataclass(frozen=True)
class _Known:
    """What the parser knows about a bracket's entities: label keys and `label: value` strings."""

    props: frozenset[str] | None
    pairs: tuple[str, ...] = ()


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _known_key_colon(text: str, position: int, props: frozenset[str] | None) -> int | None:
    """The index of the colon that ends the longest known label starting at `position`, if any.
    Labels may hold commas (`languages spoken, written or signed`), so this looks past them."""
    if not props:
        return None
    limit = min(len(text), position + _MAX_LABEL_CHARS)
    colons = [i for i in range(position, limit) if text[i] == ":"]
    for colon in reversed(colons):
        if label_key(text[position:colon]) in props:
            return colon
    return None


def _known_pair_end(text: str, position: int, known: _Known) -> int | None:
    """The end of the longest known `label: value` starting at `position` that is followed by the
    end of the body or by a pair boundary."""
    for pair in known.pairs:
        if text.startswith(pair, position):
            after = position + len(pair)
            rest = _skip_space(text, after)
            if rest == len(text) or (text[rest] in ",;" and _is_pair_boundary(text, rest + 1, known)):
                return after
    return None


def _split_segments(pairs_text: str, first_separator: str, known: _Known) -> list[_Segment]:
    """Cut the bracket body into pair segments, reading one pair at a time so that a known label's
    or value's own commas never cut it."""
    cuts: list[int] = []
    position = len(first_separator)
    while position < len(pairs_text):
        body_start = _skip_space(pairs_text, position)
        scan_from = _known_pair_end(pairs_text, body_start, known)
        if scan_from is None:
            colon = _known_key_colon(pairs_text, body_start, known.props)
            scan_from = body_start if colon is None else colon + 1
        cut = next((i for i in range(scan_from, len(pairs_text))
                    if pairs_text[i] in ",;" and _is_pair_boundary(pairs_text, i + 1, known)), None)
        if cut is None:
            break
        cuts.append(cut)
        position = cut + 1
    segments = []
    for index, (a, b) in enumerate(zip([0] + cuts, cuts + [len(pairs_text)])):
        raw = pairs_text[a:b]
        after_comma = raw[1:]
        separator = first_separator if index == 0 else raw[: 1 + len(after_comma) - len(after_comma.lstrip())]
        segments.append(_Segment(raw, separator))
    return segments


def _is_pair_boundary(text: str, position: int, known: _Known) -> bool:
    """Whether the separator just before `position` starts a new segment (rules a-e above)."""
    position = _skip_space(text, position)
    if position == len(text) or _ID_SEGMENT_RE.match(text, position) or _NA_SEGMENT_RE.match(text, position):
        return True
    props = known.props
    if _known_key_colon(text, position, props) is not None:
        return True
    found = _KEY_RE.match(text, position)  # an unknown key runs to the next colon, across no separator
    if not found:
        return False
    key = found.group(1)
    if props is None:
        return _looks_like_key(key)
    key = key.strip()
    after_colon = found.end()
    return (
        key[:1].islower()
        and _INVENTED_KEY_RE.fullmatch(key) is not None
        and len(key.split()) <= _MAX_INVENTED_KEY_WORDS
        and (after_colon == len(text) or text[after_colon].isspace())
    )


def _mark_from_segments(
    start: int, end: int, raw: str, subject: str, segments: list[_Segment], bracket_sloppy: bool,
    issues: list[ParseIssue], props: frozenset[str] | None = None,
) -> Mark:
    pending: list[tuple[str, str, bool]] = []  # (prop, value, sloppy) awaiting a subject
    citations: list[Citation] = []
    subjects = [subject] if subject else []
    na = 0
    for index, segment in enumerate(segments):
        body = segment.body.strip()
        if not body:
            continue  # a trailing separator cites nothing
        if _ID_SEGMENT_RE.fullmatch(body):
            # The model moved on to another entity inside one bracket.
            subject, _ = canonical_id(body.rstrip(",; "))
            subjects.append(subject)
            bracket_sloppy = True
            continue
        if _NA_SEGMENT_RE.fullmatch(body):
            na += 1
            continue
        colon = _known_key_colon(body, 0, props)
        if colon is None:
            colon = body.find(":")
        prop, value = (body[:colon].strip(), body[colon + 1:].strip()) if colon >= 0 else (body, "")
        if label_key(prop) in _RESERVED_KEYS and _ID_RE.fullmatch(value):
            # `{..., qid: Q1}`: the knowledge-pool format of Table 12, with the id last.
            subject = subject or canonical_id(value)[0]
            subjects.append(subject)
            bracket_sloppy = True
            continue
        separator_ok = index == 0 or segment.separator == ", "
        pending.append((prop, value, not separator_ok or segment.body != f"{prop}: {value}"))
        if not (prop and value):
            issues.append(ParseIssue("incomplete_citation", raw, start))
        if subject:
            citations.extend(Citation(subject, p, v, s or bracket_sloppy, raw) for p, v, s in pending)
            pending.clear()
    if pending:
        if not subject:
            issues.append(ParseIssue("missing_subject", raw, start))
        # Pairs that waited for a late `qid:` are sloppy; without any subject they stay incomplete.
        citations.extend(Citation(subject, p, v, True, raw) for p, v, _ in pending)
    cited = {c.qid for c in citations}
    entity_ids = tuple(dict.fromkeys(s for s in subjects if s not in cited))
    # An `NA` inside a citation bracket is always sloppy: the canonical form is its own `[NA]`.
    return Mark(start, end, raw, tuple(citations), entity_ids, na, na)
