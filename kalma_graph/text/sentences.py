"""Rule-based sentence splitting that treats citation marks as atomic.

No model is needed: answers are short, and under-splitting is the safe error here (a longer premise
still contains the claim its citations support), so the rules only cut where a sentence clearly ends:

- after `.`, `!`, `?` or `…` (with any closing quotes) when whitespace or a citation mark follows
  and the next text does not start in lower case; not after known abbreviations, single capital
  initials (`J. R. R. Tolkien`) or dotted tokens (`U.S.`);
- at a paragraph break (blank line) and before a list item on a new line.

A citation mark right after a sentence end (`... in Rome. [Q212657, place of birth: Rome] She`)
belongs to the sentence it follows; marks before the period are the demonstrated form.

>>> text = "Dr. Smith was born in St. Louis. [Q1, place of birth: St. Louis] He died in 1900."
>>> [text[a:b].strip() for a, b in sentence_spans(text, [(33, 65)])]
['Dr. Smith was born in St. Louis. [Q1, place of birth: St. Louis]', 'He died in 1900.']
"""

from __future__ import annotations

import re
from typing import Sequence

_TERMINATORS = ".!?\u2026\u3002\uff01\uff1f"
_NO_SPACE_TERMINATORS = "\u3002\uff01\uff1f"  # CJK sentence ends need no following space
_CLOSERS = "\"'\u201d\u2019\u00bb)"
_NOT_SENTENCE_START = ",;:)]}"
_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t\r\f\v]*\n")
_LIST_ITEM_RE = re.compile(r"\n[ \t]*(?:[-*\u2022]|\d{1,3}[.)])\s")
_LONGEST_ABBREVIATION = 12
_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft gen col lt sgt capt gov sen rep rev hon fr
    no nos vol vols pp ed eds ca approx est dept univ inc ltd co corp bros vs cf al
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)


def sentence_spans(text: str, marks: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Consecutive `(start, end)` spans covering `text`; no span cuts through a mark."""
    mark_end = dict(marks)
    cuts: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if i in mark_end:
            i = mark_end[i]
            continue
        ch = text[i]
        if ch == "\n" and (_PARAGRAPH_BREAK_RE.match(text, i) or _LIST_ITEM_RE.match(text, i)):
            cuts.append(i)
            i += 1
            continue
        if ch in _TERMINATORS:
            cut = _sentence_end_after(text, i, mark_end)
            if cut is not None:
                cuts.append(cut)
                i = cut
                continue
        i += 1
    bounds = [0] + [c for c in dict.fromkeys(cuts) if 0 < c < n] + [n]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if a < b]


def split_sentences(text: str) -> list[str]:
    r"""The sentences of a text without citation marks: the stripped, non-empty texts of
    `sentence_spans(text, [])` (the one splitter; BioKaLMA and NLI windowing use it too).

    >>> split_sentences("Updike read J. D. Salinger. He lived in St. Louis! Did he?")
    ['Updike read J. D. Salinger.', 'He lived in St. Louis!', 'Did he?']
    >>> split_sentences('He said "yes." Then he left!\nNew line. Dr Smith')
    ['He said "yes."', 'Then he left!', 'New line.', 'Dr Smith']
    >>> split_sentences("It rose 3.5 % in the U.S. economy. e.g. in steel.\n\nNext paragraph")
    ['It rose 3.5 % in the U.S. economy. e.g. in steel.', 'Next paragraph']
    >>> split_sentences("  ")
    []
    """
    return [s for a, b in sentence_spans(text, []) if (s := text[a:b].strip())]


def _sentence_end_after(text: str, i: int, mark_end: dict[int, int]) -> int | None:
    """Where the sentence ends if the terminator at `i` ends one, else None."""
    n = len(text)
    j = i + 1
    while j < n and j not in mark_end and (text[j] in _TERMINATORS or text[j] in _CLOSERS):
        j += 1
    if text[i] == "." and j == i + 1 and _is_abbreviation(text, i):
        return None
    cut, k, gap = j, j, False
    while k < n:
        if k in mark_end:
            k = cut = mark_end[k]
            gap = True
        elif _PARAGRAPH_BREAK_RE.match(text, k):
            return cut  # a mark after a blank line starts the next paragraph
        elif text[k].isspace():
            k += 1
            gap = True
        else:
            break
    if k >= n or text[i] in _NO_SPACE_TERMINATORS:
        return cut
    next_char = text[k]
    if gap and not next_char.islower() and next_char not in _NOT_SENTENCE_START:
        return cut
    return None


def _is_abbreviation(text: str, period: int) -> bool:
    start, limit = period, max(0, period - _LONGEST_ABBREVIATION)
    while start > limit and (text[start - 1].isalpha() or text[start - 1] == "."):
        start -= 1
    if start == limit and limit > 0:
        return False  # a long word is not an abbreviation (and the scan stays bounded)
    token = text[start:period]
    if not token:
        return False
    if "." in token:
        return True  # U.S., e.g, i.e
    if len(token) == 1 and token.isupper():
        return True  # an initial
    return token.casefold() in _ABBREVIATIONS
