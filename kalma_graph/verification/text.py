"""Words of a sentence and where a name, value or cue occurs among them.

The verifier works on word positions, not characters: a sentence becomes `Token`s (words with their
case-folded, accent-free form, and the punctuation that separates clauses), and every match — a name, a
value, a relation cue — is a span of token positions. Plurals and possessives are tolerated at the end
of a phrase (`poets` states `poet`, `Pushkin's` names Pushkin).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

# A year with the graph's minus sign ("-1000", as an answer copies a held -1000); a word (with inner hyphens,
# apostrophes and dots), an s-possessive's apostrophe ("Oates' influence"), a trailing dot; or clause punctuation.
_TOKEN_RE = re.compile(
    r"(?<![^\s(])-\d{1,4}(?![\w-]|\.\d)|[^\W_]+(?:[-'\u2019.][^\W_]+)*(?:(?<=[sS])['\u2019](?![^\W_]))?\.?|[,;:()\u2013\u2014]|(?<=\s)-(?=\s)")
_POSSESSIVE_RE = re.compile(r"(?:'|\u2019)s?$")
_ISO_DATE_RE = re.compile(r"^[+-]?(\d{1,4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:T.*)?$")
_NUMBER_RE = re.compile(r"^[+-]?\d+(?:[.,]\d+)*$")


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Case-folded, accents removed, apostrophes straightened: `Brontë` and `bronte` are one word."""
    text = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    return "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()


@dataclass(frozen=True)
class Token:
    text: str  # as written
    norm: str  # folded, possessive and trailing dot removed
    start: int  # character offsets in the sentence
    end: int
    word: bool  # False for clause punctuation
    possessive: bool = False
    capital: bool = False


def tokenize(text: str) -> list[Token]:
    out = []
    for m in _TOKEN_RE.finditer(text):
        raw = m.group()
        if not raw[0].isalnum() and not raw[1:2].isdigit():
            out.append(Token(raw, raw, m.start(), m.end(), False))
            continue
        norm = fold(raw).rstrip(".")
        possessive = bool(_POSSESSIVE_RE.search(norm)) and len(norm) > 2 and ("'" in norm)
        if possessive:
            norm = _POSSESSIVE_RE.sub("", norm)
        out.append(Token(raw, norm, m.start(), m.end(), True, possessive, raw[0].isupper()))
    return out


@lru_cache(maxsize=65536)
def phrase(text: str) -> tuple[str, ...]:
    """The folded words of a name or value (`King's College London` → ('king's', 'college', 'london'))."""
    return tuple(t.norm for t in tokenize(text) if t.word and t.norm)


def written_phrase(text: str) -> tuple[str, ...]:
    """`phrase` with the commas kept: "Order of Saint Anna, 2nd class" is named only with its comma."""
    return tuple(t.norm if t.word else t.text for t in tokenize(text) if (t.norm if t.word else t.text == ","))


def _same(word: str, want: str, last: bool) -> bool:
    if word == want:
        return True
    if not last or len(want) < 3:
        return False
    # a plural or a simple inflection of the last word: poet/poets, philosophy/philosophies
    if word.startswith(want) and word[len(want):] in ("s", "es"):
        return True
    if want.startswith(word) and want[len(word):] in ("s", "es"):
        return True
    return want.endswith("y") and word == want[:-1] + "ies"


def find_phrase(tokens: Sequence[Token], words: Sequence[str]) -> list[tuple[int, int]]:
    """Every span (start, end) of token positions where `words` occur, tolerating a plural at the end."""
    if not words:
        return []
    out = []
    n = len(words)
    head = words[0][:3]
    for i in range(len(tokens) - n + 1):
        if not tokens[i].word or not tokens[i].norm.startswith(head):
            continue
        ok = True
        for k in range(n):
            t = tokens[i + k]
            if words[k] == ",":  # a value's own comma (`written_phrase`)
                ok = not t.word and t.text == ","
                if not ok:
                    break
            elif not t.word or not _same(t.norm, words[k], k == n - 1):
                ok = False
                break
        if ok:
            out.append((i, i + n))
    return out


def one_letter_off(word: str, want: str) -> bool:
    """Two folded words spelled one letter apart, the first kept: a letter added or dropped (the shorter of five
    letters or more) or changed (six or more), as another spelling writes a name ("Michal" for "Michał", "Wangchuck"
    for "Wangchuk", "Ramondina" for "Raimondina"); "Engelke" is not "Engel", nor "Maria" "Marta"."""
    if word == want:
        return True
    if min(len(word), len(want)) < (5 if len(word) != len(want) else 6) or abs(len(word) - len(want)) > 1 \
            or word[0] != want[0]:
        return False
    short, long = sorted((word, want), key=len)
    i = next((k for k, (a, b) in enumerate(zip(short, long)) if a != b), len(short))
    # the rest after the first difference: the same with that letter changed (same length) or skipped in the longer
    return short[i + 1:] == long[i + 1:] if len(short) == len(long) else short[i:] == long[i + 1:]


def find_spelled(tokens: Sequence[Token], words: Sequence[str], connectors: frozenset[str]) -> list[tuple[int, int]]:
    """Spans naming a name of two or more words in another spelling: each word a capitalised word of the sentence, as
    written or `one_letter_off` it, and the sentence's own lower-case connectors between them ("Ramondina di
    Ventimiglia" for "Raimondina Ventimiglia"). At least one word as written: two words both spelled otherwise are
    another name. A name with a lower-case word ("Pallottine mission to Kamerun") is no person's or place's: a word
    in another form there says another thing ("the Pallottines mission", v6)."""
    if len(words) < 2:
        return []
    out = []
    for i, t in enumerate(tokens):
        if not t.word or not t.capital:
            continue
        k, j, exact = 0, i, 0
        while k < len(words) and j < len(tokens) and tokens[j].word:
            u = tokens[j]
            if u.capital and (u.norm == words[k] or one_letter_off(u.norm, words[k])):
                exact += u.norm == words[k]
                k, j = k + 1, j + 1
            elif k > 0 and not u.capital and u.norm in connectors:
                j += 1
            else:
                break
        # every word found, one as written, and a word spelled otherwise or a connector between (else `find_phrase`)
        if k == len(words) and exact and (exact < len(words) or j - i > len(words)):
            out.append((i, j))
    return out


def find_stem(tokens: Sequence[Token], stems: Sequence[str], lo: int = 0,
              hi: int | None = None) -> list[tuple[int, int]]:
    """Spans in [lo, hi) where consecutive words start with the stems (`stud` matches `studied`)."""
    hi = len(tokens) if hi is None else hi
    n = len(stems)
    if not n:
        return []
    first, out = stems[0], []
    for i in range(max(lo, 0), hi - n + 1):
        t = tokens[i]  # the first stem alone rules out almost every position: checked without a generator
        if t.word and t.norm.startswith(first) and \
                all(tokens[i + k].word and tokens[i + k].norm.startswith(stems[k]) for k in range(1, n)):
            out.append((i, i + n))
    return out


# --- dates and numbers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DateValue:
    year: int  # astronomical: 0 is 1 BC, -99 is 100 BC (as the graph writes years)
    month: int | None = None
    day: int | None = None
    # said with BC ("185 BC" is -184): a held year one less (-185) is the same year numbered without a year 0, as
    # sources and answers that copy the graph's "-0184" as "184 BCE" do
    bc: bool = False
    years: int = 1  # a period's length from `year` on: 100 for "the 13th century", 200 for "the 4th or 3rd century BC"

    def same_year(self, year: int) -> bool:
        return self.years == 1 and (year == self.year or self.bc and year == self.year - 1)

    def holds_year(self, year: int) -> bool:
        """Whether the year falls in the period, a year wider at its start: "the 13th century" holds 1200 as people
        count it, and the graph's BC years count a year 0."""
        return self.year - 1 <= year < self.year + self.years


def parse_iso_date(value: str) -> DateValue | None:
    """`1879-03-14`, `+1879-03-14T00:00:00Z`, `1879-00-00` (year precision), `1879` → a DateValue."""
    m = _ISO_DATE_RE.match(value.strip())
    if not m:
        return None
    # the graph's years before year 1 are negative and count a year 0: -0100 is 101 BC (Artaxias II, died 20 BC:
    # -0019)
    year = -int(m.group(1)) if value.strip().startswith("-") else int(m.group(1))
    month = int(m.group(2)) if m.group(2) and int(m.group(2)) else None
    day = int(m.group(3)) if m.group(3) and month and int(m.group(3)) else None
    if month is None and not (len(m.group(1)) >= 3 or value.strip().startswith(("+", "-"))):
        return None  # a bare short number is not a date
    return DateValue(year, month, day)


def dates_in(tokens: Sequence[Token], month_index: Mapping[str, int],
             short_year: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
             eras: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
             centuries: CenturyWords | None = None) -> list[tuple[int, int, DateValue]]:
    """Dates written in the sentence: `March 14, 1879`, `14 March 1879`, `March 1879`, `1879`, a three-digit
    year between `short_year`'s words ("born in 155 in Qiao"), and a year of any length with its era (`eras`: the
    words for BC, then for AD: "8 BC", "AD 238", "the 260s AD", "15 March 44 BC") or the graph's minus sign
    ("-1000"), and a century (`centuries`: "the early 13th century", a period `DateValue.years` long). `month_index`:
    month names and their first three letters -> 1..12 (`Lexicon.month_index`)."""
    out: list[tuple[int, int, DateValue]] = []
    used: set[int] = set()
    n = len(tokens)
    for i, t in enumerate(tokens):
        month = _month_of(t, month_index)
        if month is None:
            continue
        # Month D, YYYY / Month YYYY
        j = i + 1
        day = None
        if j < n and tokens[j].norm.isdigit() and len(tokens[j].norm) <= 2 and _era_year(tokens, j, eras) is None:
            day = int(tokens[j].norm)
            j += 1
            if j < n and tokens[j].text == ",":
                j += 1
        era = _era_year(tokens, j, eras) if j < n else None
        if era is not None or j < n and tokens[j].norm.isdigit() and 3 <= len(tokens[j].norm) <= 4:
            start = i
            if day is None and i > 0 and tokens[i - 1].norm.isdigit() and len(tokens[i - 1].norm) <= 2:
                day, start = int(tokens[i - 1].norm), i - 1
            end, year, bc = era if era is not None else (j + 1, int(tokens[j].norm), False)
            out.append((start, end, DateValue(year, month, day, bc)))
            used.update(range(start, end))
    out += _days_of_said_months(tokens, month_index, out, used)
    for i, t in enumerate(tokens):
        if i in used or not t.word:
            continue
        if (era := _era_year(tokens, i, eras)) is not None:
            out.append((i, era[0], DateValue(era[1], bc=era[2])))
            used.update(range(i, era[0]))
        elif centuries is not None and (century := _centuries(tokens, i, eras[0], centuries)) is not None:
            out.append((i, century[0], century[1]))
            used.update(range(i, century[0]))
        elif (decade := _era_decade(tokens, i, eras)) is not None:
            out.append((i, i + 2, DateValue(decade, bc=decade < 1)))
            used.update(range(i, i + 2))
        elif t.norm.isdigit() and len(t.norm) == 4 and (1000 <= int(t.norm) <= 2100 or t.norm[0] == "0"):
            # "0023": the graph's year copied with its zeros
            out.append((i, i + 1, DateValue(int(t.norm))))
        elif (decade := decade_start(t.norm)) is not None:  # "the 1920s": a decade, kept as its first year
            out.append((i, i + 1, DateValue(decade)))
        elif re.fullmatch(r"[1-9]\d\d", t.norm) and _short_year(tokens, i, *short_year):
            out.append((i, i + 1, DateValue(int(t.norm))))
    return sorted(out, key=lambda d: d[0])


def _month_of(t: Token, month_index: Mapping[str, int]) -> int | None:
    """The month a word names (1..12), or None: a three-letter one only capitalised ("may", "mar" are words)."""
    if not t.word or t.norm not in month_index or (len(t.norm) == 3 and not t.capital):
        return None
    return month_index[t.norm]


def _days_of_said_months(tokens: Sequence[Token], month_index: Mapping[str, int],
                         dates: Sequence[tuple[int, int, DateValue]],
                         used: set[int]) -> list[tuple[int, int, DateValue]]:
    """A day and month with no year after a date of that month and year ("He died in December 1855, I believe on 19
    December"): that day of the month said before (marks its tokens used)."""
    out = []
    for i, t in enumerate(tokens):
        month = _month_of(t, month_index) if i not in used else None
        if month is None:
            continue
        known = [d for _, b, d in dates if b <= i and d.month == month and d.day is None]
        if not known:
            continue
        if i > 0 and i - 1 not in used and tokens[i - 1].norm.isdigit() and len(tokens[i - 1].norm) <= 2:
            start, end, day = i - 1, i + 1, int(tokens[i - 1].norm)
        elif i + 1 < len(tokens) and tokens[i + 1].norm.isdigit() and len(tokens[i + 1].norm) <= 2:
            start, end, day = i, i + 2, int(tokens[i + 1].norm)
        else:
            continue
        out.append((start, end, DateValue(known[-1].year, month, day, known[-1].bc)))
        used.update(range(start, end))
    return out


def _era_year(tokens: Sequence[Token], i: int, eras: tuple[frozenset[str], frozenset[str]],
              ) -> tuple[int, int, bool] | None:
    """(end, astronomical year, said with BC) of a year at `i` written with its era ("8 BC" is -7, "AD 238" and
    "238 AD" are 238) or with the graph's minus sign ("-1000", era word after it or not, is -1000), else None."""
    before, after = eras
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    era = nxt.norm if nxt is not None and nxt.word and nxt.capital else None
    if re.fullmatch(r"-\d{1,4}", t.norm):
        return (i + 2 if era in before else i + 1), int(t.norm), False
    if t.word and t.norm.isdigit() and len(t.norm) <= 4 and era is not None and (era in before or era in after):
        return i + 2, (1 - int(t.norm) if era in before else int(t.norm)), era in before
    if t.word and t.capital and t.norm in after and nxt is not None and nxt.norm.isdigit() and len(nxt.norm) <= 4:
        return i + 2, int(nxt.norm), False
    return None


_ORDINAL = re.compile(r"([1-9]\d?)(?:st|nd|rd|th)")
_HALF_ORDINAL = re.compile(r"([a-z]+)-((?:[1-9]\d?)(?:st|nd|rd|th))")
_ORDINAL_PAIR = re.compile(r"([1-9]\d?)(?:st|nd|rd|th)[-–]([1-9]\d?)(?:st|nd|rd|th)")


@dataclass(frozen=True)
class CenturyWords:
    """How a century is written after its ordinal (`verifier_words.json` `centuries`)."""

    nouns: frozenset[str] = frozenset()  # "century", "centuries"
    joins: frozenset[str] = frozenset()  # "the 4th or 3rd century"
    halves: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # "early" -> the years 0-49 of the century

    def has(self, word: str) -> bool:
        """A folded word of a century as `dates_in` reads one ("13th", "5th-6th", "century", "or", "early",
        "mid-16th")."""
        joined = _HALF_ORDINAL.fullmatch(word)
        return (_ORDINAL.fullmatch(word) is not None or _ORDINAL_PAIR.fullmatch(word) is not None
                or joined is not None and joined.group(1) in self.halves
                or word in self.nouns or word in self.joins or word in self.halves)


def _centuries(tokens: Sequence[Token], i: int, bc_words: frozenset[str], words: CenturyWords,
               ) -> tuple[int, DateValue] | None:
    """(end, period) of a century written as an ordinal from `i`, a word of `words.halves` before it taking part of
    it ("the 13th century", "early 13th century", "the late 4th or early 3rd century BC", "the 5th-6th centuries"), or
    None."""
    parts: list[tuple[str | None, int]] = []
    k, n = i, len(tokens)
    while True:
        half = tokens[k].norm if k < n and tokens[k].norm in words.halves else None
        k += half is not None
        joined = _HALF_ORDINAL.fullmatch(tokens[k].norm) if k < n and half is None else None
        if joined is not None and joined.group(1) in words.halves:  # "the mid-16th century BC": one token
            half, ordinal = joined.group(1), _ORDINAL.fullmatch(joined.group(2))
        else:
            ordinal = None
        pair = _ORDINAL_PAIR.fullmatch(tokens[k].norm) if k < n and not parts and half is None else None
        if pair is not None:  # "the 5th-6th centuries": one token
            parts = [(None, int(pair.group(1))), (None, int(pair.group(2)))]
            k += 1
            break
        ordinal = ordinal or (_ORDINAL.fullmatch(tokens[k].norm) if k < n else None)
        if ordinal is None:
            return None
        parts.append((half, int(ordinal.group(1))))
        k += 1
        if len(parts) == 2 or k >= n or tokens[k].norm not in words.joins:
            break
        k += 1
    if k >= n or tokens[k].norm not in words.nouns:
        return None
    k += 1
    bc = k < n and tokens[k].capital and tokens[k].norm in bc_words
    years = []
    for half, number in parts:
        first = 1 - number * 100 if bc else (number - 1) * 100 + 1  # the 3rd century BC: -299 (300 BC) to -200
        low, high = words.halves[half] if half is not None else (0, 99)
        years += [first + low, first + high]
    return k + bc, DateValue(min(years), bc=bc, years=max(years) - min(years) + 1)


def _era_decade(tokens: Sequence[Token], i: int, eras: tuple[frozenset[str], frozenset[str]]) -> int | None:
    """The first (astronomical) year of a decade written with its era: "the 260s AD" 260, "the 60s BC" -68."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    first = decade_of(tokens[i].norm)
    if first is None or nxt is None or not nxt.capital or nxt.norm not in eras[0] | eras[1]:
        return None
    return 1 - (first + 9) if nxt.norm in eras[0] else first


def decade_of(word: str) -> int | None:
    """The first year of a decade written as one word ("60s", "800s", "1970s"), or None ("1975s" is none)."""
    return int(word[:-1]) if re.fullmatch(r"\d{1,3}0s", word) else None


def decade_start(word: str) -> int | None:
    """`decade_of` for a decade that is a date by itself: three digits or more ("800s", "1970s"; "the 60s" needs its
    era, `_era_decade`)."""
    return decade_of(word) if len(word) >= 4 else None


def _short_year(tokens: Sequence[Token], i: int, before: frozenset[str], after: frozenset[str]) -> bool:
    prev = tokens[i - 1] if i > 0 else None
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    return (prev is not None and prev.norm in before
            and (nxt is None or not nxt.word or nxt.norm in after))


def number_of(value: str) -> float | None:
    text = value.strip().lstrip("+")
    if not _NUMBER_RE.match(text):
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def numbers_in(tokens: Sequence[Token]) -> list[tuple[int, int, float]]:
    out = []
    for i, t in enumerate(tokens):
        if t.word and _NUMBER_RE.match(t.norm):
            value = number_of(t.norm)
            if value is not None:
                out.append((i, i + 1, value))
    return out


def span_text(tokens: Sequence[Token], span: tuple[int, int]) -> str:
    """The words (and punctuation) of a span as written, joined by spaces (none before a comma)."""
    out = ""
    for t in tokens[span[0]:span[1]]:
        out += t.text if not out or t.text in (",", ";", ":", ")") else " " + t.text
    return out


def spans_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def covered(spans: Iterable[tuple[int, int]]) -> set[int]:
    out: set[int] = set()
    for a, b in spans:
        out.update(range(a, b))
    return out
