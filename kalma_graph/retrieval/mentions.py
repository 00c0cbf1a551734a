"""Graph-aware mention detection (issue 18): the question's phrases that *are* names in the graph,
merged with the NER mentions.

Why: spaCy's small model cuts names (`Lil' Kim` → `Lil`, `Kim`), misses some (`Cao Cao` in "Lady
Liu and Cao Cao") and mislabels many persons; the store holds every name and alias as a case-folded
`NameKey`, so a phrase of the question that is a key is strong evidence of a mention.

Per question, with bounded work:

1. **Words** are the runs of letters/digits (`\\w+`) of the first `MAX_CHARS` characters. A phrase is
   1..`MAX_NGRAM` consecutive words whose edges are not inside a word (`Jong-il`, `O'Brien` stay
   whole; the possessive `'s` / `'` ends a phrase, so `Henry James's` yields `Henry James`), whose
   edge words are not stop words (a capitalised one such as `May` in `Elaine May` is kept unless it
   starts a sentence), and that are not only digits. In a cased question a phrase must look like a
   name — its first and last words capitalised — unless it lies inside an NER mention; in a
   caseless question (`what disease did anthony perkins die of`) every phrase is tried.
2. **Keys**, punctuation-tolerant: the phrase as written; with the dot or `!` after it (`Jr.`,
   `Oklahoma!`); with `the` before it (`the replacements`); with curly apostrophes straightened;
   with the punctuation between words as spaces (`Kim Jong il`); initials dotted and spaced or
   packed (`J R R Tolkien` → `J. R. R. Tolkien`, `J.R.R. Tolkien`).
   At most `MAX_KEYS` keys per question; they go to the store in one query with the NER mentions'.
3. **Accepted phrases**: the graph must not spell the phrase as a common noun (a Wikidata name or
   alias written in lowercase — `film`, `empire`, `record label`). In a cased question, a phrase
   right next to another capitalised word is part of a longer name the graph does not hold and is
   dropped (`Thomas` of "Dylan Thomas", `Martin Luther` of "Martin Luther King Jr."; an honorific
   before it does not count: `Lord Byron`); a single word also across a connector (`Dynasty` of
   "Eleventh Dynasty of Egypt", `House` of "House of Sima"). A phrase inside a DATE, CARDINAL, ...
   NER mention is dropped (NER knows what `May 1818` is); one that extends beyond it (`apollo 13`)
   replaces that mention.
4. **Longest match** over the NER mentions that found a name and the accepted phrases: longest in
   words first (then in characters; an NER-backed span before a graph-only one; leftmost); a span
   overlapping one already chosen is dropped. An NER mention that found nothing stays (reported
   unlinked) unless a chosen phrase overlaps it. A phrase with the very bounds of an NER mention is
   that mention, with source `ner+graph`.

Every mention records its `source`: `ner`, `graph` or `ner+graph`; a graph phrase that replaced NER
mentions names them in its `note`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import AbstractSet, Any, Iterable, Sequence

from kalma_graph.kg.triples import Entity
from kalma_graph.store.base import name_key

from .lookup import NameMatches

__all__ = [
    "MAX_CHARS",
    "MAX_KEYS",
    "MAX_NGRAM",
    "DetectedMention",
    "MentionPlan",
    "analysed_text",
    "plan_mentions",
    "resolve_mentions",
]

MAX_NGRAM = 8  # words per phrase: longer names are rare, and the keys grow with it
MAX_CHARS = 4000  # characters of a question analysed (NER and phrases); questions are far shorter
MAX_KEYS = 4000  # name keys looked up per question (one query)

_WORD_RE = re.compile(r"\w+")
# How a key extends the phrase's span (the mention is the name as the graph writes it).
_WITH_DOT, _WITH_BANG, _WITH_THE = "with the dot after it", "with the '!' after it", "with 'the' before it"
_WORDCHAR_RE = re.compile(r"\w")
_JOINERS = "-'\u2019`"  # inside a word: Jong-il, O'Brien
_APOSTROPHES = "'\u2019`"
_SENTENCE_END = ".!?:;\n"
_OPENERS = "\"'`\u2018\u201c([{\u00ab"


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(w.casefold() for w in STOP_WORDS)


def analysed_text(text: str) -> tuple[str, bool]:
    """The part of `text` that mention detection reads — at most `MAX_CHARS` characters, cut at a
    space — and whether anything was left out."""
    if len(text) <= MAX_CHARS:
        return text, False
    cut = text.rfind(" ", 0, MAX_CHARS)
    return text[: cut if cut > MAX_CHARS // 2 else MAX_CHARS], True


# --- words ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    text: str
    capital: bool  # starts with an uppercase letter or a digit
    chunk_capital: bool  # the whitespace-delimited chunk holding it does (Jong-il → Jong)
    initial: bool  # first word of a sentence
    stop: bool  # a stop word, case-folded


_ABBREVIATION_END_RE = re.compile(r"(?:^|[\s.])[A-Z][a-z]{0,2}\.$")  # "W." "St." "Dr." "U.S." end no sentence


def _sentence_start(text: str, pos: int) -> bool:
    """Whether `pos` starts a sentence: nothing but openers before it, or a sentence end that is not
    an initial's or an abbreviation's dot (`Theodor W. Adorno`, `St. Louis`). Looks back a bounded
    window, so a long question costs linear time."""
    window = text[max(0, pos - 64) : pos]
    before = window.rstrip().rstrip(_OPENERS).rstrip()
    if not before:
        return pos <= 64 or not text[:pos].strip()
    if before[-1] not in _SENTENCE_END:
        return False
    return not (before[-1] == "." and _ABBREVIATION_END_RE.search(before))


def _is_wordchar(ch: str) -> bool:
    return bool(ch) and _WORDCHAR_RE.match(ch) is not None


def _capital(ch: str) -> bool:
    return ch.isupper() or ch.isdigit()


def _words(text: str) -> list[Word]:
    stops = _stop_words()
    out = []
    for m in _WORD_RE.finditer(text):
        start, end = m.span()
        chunk = start
        while chunk > 0 and not text[chunk - 1].isspace():
            chunk -= 1
        first = next((c for c in text[chunk:end] if c.isalnum()), text[start])
        out.append(
            Word(
                start=start,
                end=end,
                text=m.group(),
                capital=_capital(text[start]),
                chunk_capital=_capital(first),
                initial=_sentence_start(text, start),
                stop=m.group().casefold() in stops,
            )
        )
    return out


def _caseless(text: str) -> bool:
    """No case information: no capital after the first letter (`what disease did anthony perkins
    die of`, `Which language is the film grindhouse in`), or no lowercase letter at all."""
    letters = [c for c in text if c.isalpha()]
    return not any(c.isupper() for c in letters[1:]) or not any(c.islower() for c in letters)


def _start_ok(text: str, start: int) -> bool:
    """A phrase may not start inside a word (`il` of Jong-il, `Brien` of O'Brien)."""
    return not (start >= 2 and text[start - 1] in _JOINERS and _is_wordchar(text[start - 2]))


def _end_ok(text: str, end: int) -> bool:
    """A phrase may not end inside a word, but may end before a possessive (`James` of James's)."""
    if end >= len(text) or text[end] not in _JOINERS:
        return True
    after = text[end + 1 : end + 2]
    if not _is_wordchar(after):  # "Lil' Kim", "the Jameses' house"
        return True
    possessive = text[end] in _APOSTROPHES and after in "sS" and not _is_wordchar(text[end + 2 : end + 3])
    return possessive


# --- phrases and their keys ------------------------------------------------------------------------


@dataclass(frozen=True)
class Phrase:
    """A run of words looked up as a name: char bounds, word indexes, keys in order of preference."""

    start: int
    end: int
    first: int
    last: int
    keys: tuple[tuple[str, str], ...]  # (name key, how it was formed)

    @property
    def n_words(self) -> int:
        return self.last - self.first + 1


def _phrase_keys(text: str, words: Sequence[Word], i: int, j: int) -> list[tuple[str, str]]:
    start, end = words[i].start, words[j].end
    raw = text[start:end]
    forms = [(raw, "as written")]
    if text[end : end + 1] == ".":
        forms.append((raw + ".", _WITH_DOT))
    elif text[end : end + 1] == "!":  # titles: Oklahoma!, Airplane!
        forms.append((raw + "!", _WITH_BANG))
    before = text[max(0, start - 4) : start]
    if before.casefold() == "the " and (start == 4 or not _is_wordchar(text[start - 5])):
        forms.append((before + raw, _WITH_THE))  # "the replacements" → The Replacements
    if any(c in raw for c in "\u2019`"):
        forms.append((raw.replace("\u2019", "'").replace("`", "'"), "apostrophe straightened"))
    if j > i:
        parts = [w.text for w in words[i : j + 1]]
        forms.append((" ".join(parts), "punctuation as spaces"))
        if any(len(p) == 1 and p.isalpha() for p in parts):
            dotted = " ".join(p + "." if len(p) == 1 and p.isalpha() else p for p in parts)
            forms.append((dotted, "initials dotted"))
            forms.append((re.sub(r"(?<=\b\w\.) (?=\w\.)", "", dotted), "initials packed"))
    out: dict[str, str] = {}
    for form, how in forms:
        out.setdefault(name_key(form), how)
    return list(out.items())


@dataclass
class MentionPlan:
    """What one question asks of the store: NER mentions with their name variants, and phrases."""

    text: str  # the analysed text
    words: list[Word]
    caseless: bool
    ner: list[Any]  # NER mentions (any object with text, label, start, end)
    ner_variants: dict[int, list[tuple[str, str]]]  # id(mention) → (name, how); linkable ones only
    phrases: list[Phrase] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    chunks: list[tuple[int, int]] = field(default_factory=list)  # whitespace-delimited, for adjacency

    def names(self) -> set[str]:
        """Every name to look up, NER variants and phrase keys alike (one store query)."""
        found = {v for vs in self.ner_variants.values() for v, _ in vs}
        found.update(k for p in self.phrases for k, _ in p.keys)
        return found


def plan_mentions(
    text: str, ner_mentions: Sequence[Any], ner_variants: dict[int, list[tuple[str, str]]], *, graph: bool
) -> MentionPlan:
    """Words and candidate phrases of `text` (the analysed text). With `graph=False` only the NER
    mentions are looked up, as the paper does."""
    words = _words(text) if graph else []
    plan = MentionPlan(text, words, _caseless(text), list(ner_mentions), ner_variants)
    if not graph:
        return plan
    plan.chunks = [m.span() for m in re.finditer(r"\S+", text)]
    regions = [(m.start, m.end) for m in plan.ner if id(m) in ner_variants]
    n_keys = sum(len(v) for v in ner_variants.values())

    def weak(w: Word) -> bool:
        return w.stop and (plan.caseless or not w.capital or w.initial)

    for i, wi in enumerate(words):
        if weak(wi) or not _start_ok(text, wi.start):
            continue
        for j in range(i, min(i + MAX_NGRAM, len(words))):
            wj = words[j]
            if weak(wj) or not _end_ok(text, wj.end):
                continue
            if all(w.text.isdigit() for w in words[i : j + 1]) or (i == j and len(wi.text) < 2):
                continue
            inside_ner = any(s <= wi.start and wj.end <= e for s, e in regions)
            if not (plan.caseless or inside_ner or (wi.capital and wj.chunk_capital)):
                continue
            keys = _phrase_keys(text, words, i, j)
            if n_keys + len(keys) > MAX_KEYS:
                plan.notes.append(f"name lookup stopped at {MAX_KEYS} keys (the question is very long)")
                return plan
            n_keys += len(keys)
            plan.phrases.append(Phrase(wi.start, wj.end, i, j, tuple(keys)))
    return plan


# --- resolving: accepted phrases, longest match, merge with NER -------------------------------------


@dataclass
class DetectedMention:
    """A mention to link: `text` is `question[start:end]`; `label` the NER label ("" for a phrase
    found only in the graph); `source` ner|graph|ner+graph; `found` the exact matches and `how` the
    name form that found them; `note` what the merge did (NER mentions a phrase replaced)."""

    text: str
    label: str
    start: int
    end: int
    source: str
    found: list[Entity]
    how: str
    note: str = ""
    ner_mention: Any = None


def _common_noun(entities: Iterable[Entity], key: str) -> bool:
    """The graph writes this phrase in lowercase as a Wikidata name or alias: a common noun
    (`film`, `empire`, `record label`), not a name in this question."""
    for e in entities:
        if e.kb != "wikidata":
            continue
        for form in (e.name, *e.aliases):
            if form and name_key(form) == key and form[:1].islower():
                return True
    return False


# Lowercase words inside names: "House of Sima", "Charles the Bald", "Ludwig van Beethoven".
_CONNECTORS = frozenset(
    {"of", "the", "de", "du", "des", "von", "van", "der", "da", "di", "del", "della", "la", "le", "y",
     "al", "el", "bin", "ibn"}
)
_EDGE_PUNCT = "\"'`\u2018\u2019\u201c\u201d()[]{},;:.!?\u00ab\u00bb"


def _name_like_chunk(text: str, chunk: tuple[int, int], honorifics: AbstractSet[str] = frozenset()) -> bool:
    """A whitespace-delimited chunk that reads as part of a name: it has a capital (`Jong-il`,
    `al-Badr`, `IV,`), is not a stop word or one of `honorifics`, and does not start a sentence."""
    core = text[chunk[0] : chunk[1]].strip(_EDGE_PUNCT)
    if not core or not any(c.isupper() for c in core) or core.casefold() in _stop_words():
        return False
    if core.rstrip(".") in honorifics:
        return False
    return not _sentence_start(text, chunk[0])


def _next_to_capital(plan: MentionPlan, phrase: Phrase, honorifics: set[str]) -> bool:
    """A name-like chunk right before or after the phrase (only spaces between): the phrase is part
    of a longer name the graph does not hold (`Thomas` of "Dylan Thomas", `Martin Luther` of
    "Martin Luther King Jr."). An honorific before it does not count (`Lord Byron`). A single word
    is also blocked across a connector (`House` of "House of Sima", `Varna` of "Battle of Varna")."""
    text, chunks = plan.text, plan.chunks
    first = bisect.bisect_right(chunks, (phrase.start, len(text) + 1)) - 1
    last = bisect.bisect_right(chunks, (phrase.end - 1, len(text) + 1)) - 1
    if first < 0 or last < first:
        return False
    single = phrase.n_words == 1
    opens = text[chunks[first][0] : phrase.start]
    closes = text[phrase.end : chunks[last][1]]
    closes = closes[2:] if closes[:2] in ("'s", "\u2019s") else closes  # a possessive ends no name
    if not opens and first > 0:  # the phrase starts its chunk: look at the chunk before
        prev = chunks[first - 1]
        if text[prev[1] - 1] not in ",;:.!?)]}\"\u201d":
            if _name_like_chunk(text, prev, honorifics):
                return True
            across = first > 1 and text[prev[0] : prev[1]] in _CONNECTORS
            if single and across and _name_like_chunk(text, chunks[first - 2], honorifics):
                return True
    if not closes and last + 1 < len(chunks):
        nxt = chunks[last + 1]
        if _name_like_chunk(text, nxt):
            return True
        across = last + 2 < len(chunks) and text[nxt[0] : nxt[1]] in _CONNECTORS
        if single and across and _name_like_chunk(text, chunks[last + 2]):
            return True
    return False


def _n_words(plan: MentionPlan, start: int, end: int) -> int:
    return sum(1 for w in plan.words if start <= w.start and w.end <= end) or 1


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _ner_spans(plan: MentionPlan, matches: NameMatches) -> dict[tuple[int, int], DetectedMention]:
    """NER's linkable mentions by span, each with the graph's names matching its first variant that has any."""
    ner_spans: dict[tuple[int, int], DetectedMention] = {}
    for m in plan.ner:
        if id(m) not in plan.ner_variants:
            continue
        found, how = [], "exact"
        for variant, variant_how in plan.ner_variants[id(m)]:
            hit = matches.get(variant)
            if hit:
                found, how = list(hit), variant_how
                break
        ner_spans.setdefault(
            (m.start, m.end),
            DetectedMention(m.text, m.label, m.start, m.end, "ner", found, how, ner_mention=m),
        )
    return ner_spans


def resolve_mentions(
    plan: MentionPlan, matches: NameMatches, *, linkable: Any, honorifics: Iterable[str] = ()
) -> list[DetectedMention | Any]:
    """The mentions of the question in text order: `DetectedMention`s for linkable ones, the NER
    mention objects themselves for labels that are not entity types (DATE, CARDINAL, ...)."""
    honorific_words = {h for h in honorifics}
    blocked = [(m.start, m.end) for m in plan.ner if not linkable(m.label)]
    ner_spans = _ner_spans(plan, matches)
    graph_spans: list[DetectedMention] = []
    for phrase in plan.phrases:
        key, how, found = next(
            ((k, h, matches.by_key.get(k, [])) for k, h in phrase.keys if matches.by_key.get(k)), ("", "", []))
        if not found:
            continue
        start = phrase.start - 4 if how == _WITH_THE else phrase.start
        end = phrase.end + 1 if how in (_WITH_DOT, _WITH_BANG) else phrase.end
        if any(s <= start and end <= e for s, e in blocked):
            continue  # inside a DATE, CARDINAL, ... mention: NER knows what that is
        same = ner_spans.get((start, end))
        if same is not None:
            if same.found:
                same.source = "ner+graph"
            else:  # NER's variants missed a key form the phrase has (initials, apostrophes)
                same.found, same.how, same.source = (list(found), f"exact ({how})" if how != "as written" else "exact",
                                                     "ner+graph")
            continue
        if _common_noun(found, key):
            continue
        if not plan.caseless and _next_to_capital(plan, phrase, honorific_words):
            continue
        graph_spans.append(
            DetectedMention(plan.text[start:end], "", start, end, "graph", list(found),
                            "exact" if how == "as written" else f"exact ({how})")
        )

    rank = {"ner+graph": 0, "ner": 1, "graph": 2}
    contenders = [d for d in ner_spans.values() if d.found] + graph_spans
    contenders.sort(key=lambda d: (-_n_words(plan, d.start, d.end), -(d.end - d.start), rank[d.source], d.start))
    chosen: list[DetectedMention] = []
    for d in contenders:
        if not any(_overlap((d.start, d.end), (c.start, c.end)) for c in chosen):
            chosen.append(d)
    for d in ner_spans.values():
        if d in chosen:
            continue
        over = [c for c in chosen if _overlap((d.start, d.end), (c.start, c.end))]
        if not over:
            chosen.append(d)  # NER found it but the graph has no such name: reported unlinked
        else:
            for c in over:
                c.note = (c.note + ", " if c.note else "replaces NER ") + f"{d.text!r} ({d.label})"
    # A name repeated in the question is one mention, as NER's are (the first occurrence).
    seen: set[str] = set()
    unique: list[DetectedMention] = []
    for d in sorted(chosen, key=lambda d: (d.start, d.end)):
        key = name_key(d.text)
        if d.source == "graph" and key in seen:
            continue
        if d.found:
            seen.add(key)
        unique.append(d)
    # A DATE, CARDINAL, ... mention inside a longer name ("13" of "apollo 13") is part of that name.
    others = []
    for m in plan.ner:
        if linkable(m.label):
            continue
        over = [c for c in unique if _overlap((m.start, m.end), (c.start, c.end))]
        for c in over:
            c.note = (c.note + ", " if c.note else "replaces NER ") + f"{m.text!r} ({m.label})"
        if not over:
            others.append(m)
    return sorted([*unique, *others], key=lambda d: (d.start, d.end))
