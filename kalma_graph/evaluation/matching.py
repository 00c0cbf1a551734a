"""When a cited triple counts as a triple of the graph: the matching modes.

- `strict` (default, the paper's definition, §4.2: "exactly matches a triplet"): the three strings
  are compared as they are.
- `normalized`: Unicode NFC, case-folding, whitespace collapsed, surrounding quotes dropped, `_` in
  property labels read as spaces, and dates in common spellings read as ISO dates, so that
  `1596-07-08`, `July 8, 1596`, `8 July 1596` and `+1596-07-08T00:00:00Z` are one value.

A mode is a *key function*: two triples match when their keys are equal.

>>> strict_key(("Q212657", "date of birth", "1596-07-08")) == strict_key(
...     ("Q212657", "date of birth", "July 8, 1596"))
False
>>> normalized_key(("Q212657", "date of birth", "1596-07-08")) == normalized_key(
...     ("q212657", "Date of Birth", "July 8, 1596"))
True
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from typing import TYPE_CHECKING, Callable, Literal, Union, cast

if TYPE_CHECKING:
    from kalma_graph.kg.citation_marks import Citation
    from kalma_graph.kg.triples import Triple

MatchMode = Literal["strict", "normalized"]
MATCH_MODES: tuple[MatchMode, ...] = ("strict", "normalized")
TripleKey = tuple[str, str, str]
TripleLike = Union["Triple", "Citation", tuple[str, str, str]]

_MONTHS = {
    name: number
    for number, names in enumerate(
        [(), ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")]
    )
    for name in names
}
_ISO_DATE_RE = re.compile(
    r"(?P<sign>[+-]?)(?P<year>\d{1,9})-(?P<month>\d{1,2})(?:-(?P<day>\d{1,2}))?"
    r"(?:t\d{2}:\d{2}:\d{2}(?:\.\d+)?z?)?"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_MONTH_DAY_YEAR_RE = re.compile(rf"(?P<month>[a-z]+)\.?\s+(?P<day>\d{{1,2}}){_ORDINAL},?\s+(?P<year>\d{{1,4}})")
_DAY_MONTH_YEAR_RE = re.compile(
    rf"(?P<day>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<month>[a-z]+)\.?,?\s+(?P<year>\d{{1,4}})"
)
_MONTH_YEAR_RE = re.compile(r"(?P<month>[a-z]+)\.?,?\s+(?P<year>\d{3,4})")
_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}


def triple_parts(item: TripleLike) -> tuple[str, str, str]:
    """(subject, property label, value) of a `Citation`, a store `Triple` or a plain 3-tuple."""
    if isinstance(item, tuple):
        if len(item) != 3:
            raise TypeError(f"a triple has 3 parts, got {len(item)}: {item!r}")
        return (str(item[0]), str(item[1]), str(item[2]))
    if hasattr(item, "qid"):
        cited = cast("Citation", item)  # duck-typed: anything with qid, prop and value
        return (cited.qid, cited.prop, cited.value)
    if hasattr(item, "subject") and hasattr(item, "label"):
        stored = cast("Triple", item)
        return (stored.subject, stored.label, stored.value)
    raise TypeError(f"not a triple: {item!r}")


def strict_key(item: TripleLike) -> TripleKey:
    """The triple as written: exact string equality."""
    return triple_parts(item)


def normalized_key(item: TripleLike) -> TripleKey:
    """The triple with ids, labels and values normalised (see the module docstring)."""
    subject, prop, value = triple_parts(item)
    return (normalize_id(subject), normalize_text(prop.replace("_", " ")), normalize_value(value))


def key_function(mode: MatchMode) -> Callable[[TripleLike], TripleKey]:
    """The key function of a matching mode; unknown modes fail loudly."""
    if mode == "strict":
        return strict_key
    if mode == "normalized":
        return normalized_key
    raise ValueError(f"unknown matching mode {mode!r}; expected one of {MATCH_MODES}")


def normalize_id(entity_id: str) -> str:
    entity_id = entity_id.strip()
    return entity_id.upper() if entity_id[:1] in "qQ" else entity_id.casefold()


def normalize_text(text: str) -> str:
    """NFC, surrounding quotes dropped, whitespace collapsed, case-folded."""
    text = " ".join(unicodedata.normalize("NFC", text).split())
    while len(text) >= 2 and _QUOTE_PAIRS.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    return unicodedata.normalize("NFC", text.casefold())


def normalize_value(value: str) -> str:
    """`normalize_text`, and dates as ISO (`1596-07-08`, `1596-07`, `1596`).

    >>> [normalize_value(v) for v in ["+1596-07-08T00:00:00Z", "8th July 1596", "Jul. 8, 1596"]]
    ['1596-07-08', '1596-07-08', '1596-07-08']
    >>> normalize_value("+1596-00-00T00:00:00Z"), normalize_value("  The  Red Badge ")
    ('1596', 'the red badge')
    """
    text = normalize_text(value)
    return normalize_date(text) or text


def normalize_date(text: str) -> str | None:
    """The ISO spelling of a whole-string date, or None when `text` is not a valid date."""
    text = text.strip().casefold()
    found = _ISO_DATE_RE.fullmatch(text)
    if found:
        return _iso(found["sign"], found["year"], found["month"], found["day"] or "0")
    for pattern in (_MONTH_DAY_YEAR_RE, _DAY_MONTH_YEAR_RE, _MONTH_YEAR_RE):
        found = pattern.fullmatch(text)
        if found and found["month"] in _MONTHS:
            day = found.groupdict().get("day") or "0"
            return _iso("", found["year"], str(_MONTHS[found["month"]]), day)
    return None


def _iso(sign: str, year_text: str, month_text: str, day_text: str) -> str | None:
    # Wikidata writes reduced precision as zero month/day (`+1596-00-00T00:00:00Z` is "1596").
    year, month, day = int(year_text), int(month_text), int(day_text)
    year_part = f"-{year}" if sign == "-" else str(year)
    if month == 0:
        return year_part if day == 0 else None
    if month > 12:
        return None
    if day == 0:
        return f"{year_part}-{month:02d}"
    longest = calendar.monthrange(year, month)[1] if sign != "-" and 1 <= year <= 9999 else 31
    return f"{year_part}-{month:02d}-{day:02d}" if day <= longest else None
