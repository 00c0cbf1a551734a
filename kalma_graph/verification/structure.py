"""Stage one of the verifier: structure, no model.

For each sentence of an answer it finds who the sentence speaks of (names and aliases of the graph's
entities, surnames, pronouns resolved to the person the answer is talking about), where each value of
the graph occurs (names, aliases, names of nations, dates with their precision, numbers), and which
relation words stand between a value and the one it is said of. A cited triple is then

- **supported** when its value is said of its subject with its relation (a cue such as "studied at" for
  `educated at`, or a value that states the relation by itself, such as "was a poet"), in the right
  direction;
- **partial** when the value is said of the subject with a near or looser relation ("taught at" for
  `educated at`), without any relation word where one is needed, or a vaguer value ("Oxford" for
  "University of Oxford", a wrong full date in the right year);
- **unsupported** when the value is absent, said of someone else ("influenced by Camus, a French writer"
  does not state the subject's `occupation: writer`), inverted ("X's son, Y" for `X father: Y`), or a
  name cited as a fact (`given name`), or `instance of: human` where the sentence never says "person".

Every claim of the sentence (each value, name, date, number and evaluation it states) gets a status:
supported by a cited triple, supported by a shown but uncited triple, absent from the graph, or
contradicted (the graph holds another value for a single-valued relation of that subject).
Rules: ../shared/docs/alignment-labels.md. Scores: supported ≥ 0.5 > partial, unsupported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Mapping, Sequence

from .lexicon import Lexicon, RelationCues
from .places import SaidPlaces
from .records import CitationCheck, CitedTriple, GraphEntity, GraphTriple, evidence_text
from .text import (
    DateValue,
    Token,
    find_phrase,
    find_spelled,
    find_stem,
    fold,
    number_of,
    numbers_in,
    one_letter_off,
    parse_iso_date,
    phrase,
    span_text,
    spans_overlap,
    written_phrase,
)

MAX_SENTENCE_CHARS = 2000  # a longer "sentence" is cut here: the checks are per clause anyway
# The words the checks read (pronouns, copulas, the words of names and places, ...) are the lexicon's
# (`kalma_graph/data/verifier_words.json`, hashed into the verifier's id), never tables here.

# How a denied value's reason starts ("Charles was not a writer"): claims.py words its claim from it.
DENIES = "the sentence denies it"

# Score of each outcome (the calibrated second stage refines them when a model is given).
SCORE = {
    "supported_cue": 0.95,
    "supported_implied": 0.82,
    "supported_demonym": 0.72,
    "partial_near": 0.4,
    "partial_no_cue": 0.32,
    "partial_vaguer": 0.3,
    "partial_date": 0.3,
    "unsupported_bystander": 0.1,
    "unsupported_inverted": 0.08,  # the triple's inverse: its other direction, or a denial ("was not a writer")
    "unsupported_naming": 0.05,
    "unsupported_person": 0.06,
    "unsupported_absent_near": 0.08,
    "unsupported_absent": 0.03,
}


# --- mentions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    kind: str  # "entity" (a graph entity), "pronoun", "name" (a capitalised name the graph does not hold)
    ids: tuple[str, ...] = ()  # the entity ids it refers to (pronouns: resolved)
    text: str = ""
    subject: bool = False  # refers to an entity the answer is about (a subject of the shown graph)
    thing: bool = False  # an entity the graph says is not a person (`GraphView.not_person`): Germany, Rhode Island


@dataclass
class GraphView:
    """The graph an answer may rest on, indexed for the checks."""

    names: dict[str, str]  # entity id -> name
    aliases: dict[str, tuple[str, ...]]
    subjects: list[str]  # the entities the answer is about, in order of first appearance
    by_subject: dict[str, list[GraphTriple]] = field(default_factory=dict)
    name_variants: list[tuple[tuple[str, ...], str, bool]] = field(default_factory=list)  # (words, id, full)
    genders: dict[str, str] = field(default_factory=dict)  # folded `sex or gender` value -> "m" / "f" (the lexicon's)
    human_values: frozenset[str] = frozenset()  # folded `instance of` values that mean a person (the lexicon's)
    connectors: frozenset[str] = frozenset()  # the lexicon's lower-case words inside a name ("von", "van", "de")
    stop: frozenset[str] = frozenset()  # the lexicon's stop words and glue: they join no name
    articles: frozenset[str] = frozenset()  # the lexicon's: capitalised inside a sentence they still join none
    # a surname or first name alone that several subjects share -> their ids (`entity_mentions`' `prefer`)
    shared_names: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    _kin_by_name: dict[tuple[str, ...], list[tuple[str, GraphTriple]]] | None = None  # `kin_named`'s index
    _not_persons: dict[str, bool] = field(default_factory=dict)  # `not_person`'s answers

    @classmethod
    def build(cls, shown: Sequence[GraphTriple], entities: Sequence[GraphEntity], lexicon: Lexicon) -> "GraphView":
        names: dict[str, str] = {}
        aliases: dict[str, tuple[str, ...]] = {}
        for e in entities:
            if e.name:
                names[e.id] = e.name
            if e.aliases:
                aliases[e.id] = tuple(e.aliases)
        subjects: list[str] = []
        by_subject: dict[str, list[GraphTriple]] = {}
        for t in shown:
            if t.subject not in by_subject:
                subjects.append(t.subject)
                by_subject[t.subject] = []
            by_subject[t.subject].append(t)
            if t.label == "name" and t.value and t.subject not in names:
                names[t.subject] = t.value
            if t.object_id and t.value and t.object_id not in names and t.value != t.object_id:
                names[t.object_id] = t.value
        view = cls(names, aliases, subjects, by_subject, genders=lexicon.gender_values, stop=lexicon.stop_and_glue,
                   articles=lexicon.articles, human_values=lexicon.human_values, connectors=lexicon.name_connectors)
        view.name_variants = view._variants(lexicon.stop_and_glue)
        return view

    def _variants(self, stop: frozenset[str]) -> list[tuple[tuple[str, ...], str, bool]]:
        out: dict[tuple[str, ...], tuple[str, bool]] = {}
        surnames: dict[tuple[str, ...], set[str]] = {}
        firsts: dict[tuple[str, ...], set[str]] = {}
        subject_set = set(self.subjects)
        for eid, name in self.names.items():
            for variant in (name, *self.aliases.get(eid, ())):
                words = phrase(_without_parenthesis(variant))
                if words and not (len(words) == 1 and len(words[0]) < 3):
                    out.setdefault(words, (eid, True))
            words = phrase(_without_parenthesis(name))
            if eid in subject_set and len(words) >= 2 and len(words[-1]) >= 3 and words[-1] not in stop:
                surnames.setdefault((words[-1],), set()).add(eid)
            if eid in subject_set and len(words) >= 2 and len(words[0]) >= 3 and words[0] not in stop:
                firsts.setdefault((words[0],), set()).add(eid)
        for words, ids in [*surnames.items(), *firsts.items()]:
            if len(ids) == 1 and words not in out:
                out[words] = (next(iter(ids)), False)
            elif words not in out:  # "Chiang" of Chiang Kai-shek and Chiang Ching-kuo: the one the answer is about
                self.shared_names[words] = tuple(sorted(ids | set(self.shared_names.get(words, ()))))
        return sorted(((w, eid, full) for w, (eid, full) in out.items()), key=lambda v: -len(v[0]))

    def gender_statement(self, eid: str) -> GraphTriple | None:
        return next((t for t in self.by_subject.get(eid, ()) if fold(t.label) == "sex or gender"), None)

    def gender(self, eid: str) -> str | None:
        t = self.gender_statement(eid)
        return self.genders.get(fold(t.value)) if t else None

    def label(self, eid: str) -> str:
        return self.names.get(eid) or eid

    def value_names(self, value: str, object_id: str | None) -> list[str]:
        """A value as written, then its entity's name and aliases, where it is one."""
        if not object_id:
            return [value]
        return [value, *([self.names[object_id]] if self.names.get(object_id) else []),
                *self.aliases.get(object_id, ())]

    def kin_named(self, said: tuple[str, ...], lexicon: Lexicon) -> list[tuple[str, GraphTriple]]:
        """The family triples (holder id, triple) whose value is named `said` (a `phrase`), indexed on first use."""
        if self._kin_by_name is None:
            self._kin_by_name = {}
            for sid in self.subjects:
                for t in self.by_subject.get(sid, ()):
                    if lexicon.relation(t.label).kin:
                        self._kin_by_name.setdefault(phrase(t.value), []).append((sid, t))
        return self._kin_by_name.get(said, [])

    def not_person(self, eid: str) -> bool:
        """The graph says what the entity is (`instance of`), and none of it is a person: Germany, a country, is
        no "he" and no one's relative. An entity the graph says nothing of that kind about may be a person. Asked
        for every pronoun's candidates and every mention of every sentence: read once per entity."""
        if eid not in self._not_persons:
            kinds = [fold(t.value) for t in self.by_subject.get(eid, ()) if fold(t.label) == "instance of"]
            self._not_persons[eid] = bool(kinds) and not any(k in self.human_values for k in kinds)
        return self._not_persons[eid]


@lru_cache(maxsize=65536)
def _without_parenthesis(text: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", text).strip() or text


def entity_mentions(tokens: Sequence[Token], view: GraphView, prefer: Sequence[str] = ()) -> list[Mention]:
    """Longest-first, non-overlapping mentions of the graph's entities (names, aliases, surnames). A surname or
    first name alone that several subjects share names the first of `prefer` (the persons the answer is about,
    the latest first) among them, and nobody when none is."""
    taken: set[int] = set()
    out = []
    subject_set = set(view.subjects)
    first_words: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        if t.word:
            first_words.setdefault(t.norm, []).append(i)
    shared = [(words, eid, False) for words, ids in view.shared_names.items()
              for eid in [next((p for p in prefer if p in ids), None)] if eid is not None]
    for words, eid, full in [*view.name_variants, *shared]:
        for i in first_words.get(words[0], ()):
            span = (i, i + len(words))
            if span[1] > len(tokens) or any(k in taken for k in range(*span)):
                continue
            if find_phrase(tokens[i:span[1]], words) != [(0, len(words))]:
                continue
            if not full and not tokens[i].capital:
                continue
            if (not full or (len(words) == 1 and eid in subject_set)) and _in_another_name(tokens, span, view):
                continue  # a person's alias of one word is a surname too ("Rousseau": "the son of Isaac Rousseau")
            if full and len(words) == 1 and _in_another_name(tokens, span, view, through_connectors=False):
                continue  # whoever's it is: "Bach" (Johann Sebastian's) in "his wife, Anna Magdalena Bach" (v28)
            taken.update(range(*span))
            out.append(Mention(span[0], span[1], "entity", (eid,), span_text(tokens, span), eid in subject_set))
    return sorted(out, key=lambda m: m.start)


def _in_another_name(tokens: Sequence[Token], span: tuple[int, int], view: GraphView,
                     through_connectors: bool = True) -> bool:
    """A surname or first name alone that a capitalised word joins into another's name: "Louis Joxe" is not
    Pierre Joxe, nor "Pierre Mendès" Pierre Joxe (a word of the glue, "The Joxe family", does not join, unless
    capitalised inside the sentence: "One Bull" is not Sitting Bull). Without `through_connectors`, only a word right
    before or after the span joins it."""
    start = span[0]
    while through_connectors and start > 1 and tokens[start - 1].word and tokens[start - 1].norm in view.connectors:
        start -= 1  # "Hans-Georg von Friedeburg" is not Karl von Friedeburg ("the President of Ireland" is Ireland)
    before = tokens[start - 1] if start > 0 else None
    after = tokens[span[1]] if span[1] < len(tokens) else None
    return any(t is not None and t.word and t.capital and not t.possessive
               and (t.norm not in view.stop or (t is before and start > 1 and t.norm not in view.articles))
               for t in (before, after))


def name_mentions(tokens: Sequence[Token], taken: set[int], lexicon: Lexicon) -> list[Mention]:
    """Runs of capitalised words the graph does not name (`Doris Lessing`): someone or something the
    sentence speaks of. A capital at the start of the sentence alone does not make a name."""
    demonyms = demonym_words(lexicon)
    stop = lexicon.stop_and_glue
    connectors = lexicon.name_connectors
    out = []
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        if (not (t.word and t.capital and i not in taken) or t.norm in demonyms
            or (t.norm in stop and t.norm not in ("may",) and not _pronoun_as_name(tokens, i, lexicon))):
            i += 1
            continue
        j = i + 1
        while j < n and j not in taken and tokens[j].word and (
                tokens[j].capital or (tokens[j].norm in connectors and j + 1 < n and tokens[j + 1].capital)):
            if tokens[j - 1].possessive:
                break
            j += 1
        while j > i + 1 and tokens[j - 1].norm in connectors:
            j -= 1
        if not (i == 0 and j == i + 1 and t.norm in stop) and not t.norm.isdigit():
            out.append(Mention(i, j, "name", (), span_text(tokens, (i, j))))
        i = j
    return out


_DEMONYM_WORDS: dict[str, frozenset[str]] = {}  # per lexicon (by its sha256)


def demonym_words(lexicon: Lexicon) -> frozenset[str]:
    """Nation adjectives ("German", "American") are not names of someone the sentence speaks of."""
    if lexicon.sha256 not in _DEMONYM_WORDS:
        _DEMONYM_WORDS[lexicon.sha256] = frozenset(fold(w) for ws in lexicon.demonyms.values()
                                                   for d in ws for w in d.split())
    return _DEMONYM_WORDS[lexicon.sha256]


def _pronoun_as_name(tokens: Sequence[Token], i: int, lexicon: Lexicon) -> bool:
    """A pronoun's word written with a capital inside the sentence and before a name's capitalised word is a name:
    "He Yan's father was He Sheng", "two children: He Shu and He Zhi" (v33) name He Sheng, He Shu, not "he"."""
    t = tokens[i]
    return (t.capital and i > 0 and t.norm in lexicon.singular_pronouns and i + 1 < len(tokens)
            and tokens[i + 1].word and tokens[i + 1].capital and tokens[i + 1].norm not in lexicon.stop_and_glue)


def pronoun_mentions(tokens: Sequence[Token], taken: set[int], lexicon: Lexicon) -> list[Mention]:
    singular, plural, copulas = lexicon.singular_pronouns, lexicon.plural_pronouns, lexicon.copulas
    out = []
    for i, t in enumerate(tokens):
        if i in taken or not t.word:
            continue
        if t.norm == "both" and i + 1 < len(tokens) and (tokens[i + 1].capital or (i + 1) in taken):
            continue  # "influenced by both Poe and Dickens": a determiner of the names after it, not "the two"
        if (t.norm in singular or t.norm in plural) and not _pronoun_as_name(tokens, i, lexicon):
            out.append(Mention(i, i + 1, "pronoun", (), t.text))
        elif t.norm == "two" and i > 0 and tokens[i - 1].norm == "the" and (
                i + 1 >= len(tokens) or not tokens[i + 1].word or tokens[i + 1].norm in copulas):
            out.append(Mention(i - 1, i + 1, "pronoun", (), "the two"))
    return out


# --- who a value is said of ---------------------------------------------------------------------


def opens_clause(tokens: Sequence[Token], end: int, lexicon: Lexicon) -> bool:
    """The words right after a mention say something of it: a relative or appositive clause, a verb, a nickname,
    a possessive (`M, who`, `M, a poet`, `M, also a footballer`, `M, born on`, `M, son of`, `M, often called`,
    `M was`, `M's father`)."""
    if end >= len(tokens):
        return False
    t = tokens[end]
    if t.text == "(":
        return True
    if t.text == ",":
        nxt = tokens[end + 1] if end + 1 < len(tokens) else None
        return nxt is not None and nxt.word and (nxt.norm in lexicon.relative_pronouns or nxt.norm in lexicon.articles
                                                 or nxt.norm in lexicon.apposed_participles
                                                 or nxt.norm in lexicon.nickname_words
                                                 or _kin_apposed(tokens, end, lexicon)
                                                 or (nxt.norm in lexicon.copula_adverbs and end + 2 < len(tokens)
                                                     and (tokens[end + 2].norm in lexicon.nickname_words
                                                          or tokens[end + 2].norm in lexicon.articles)))
    if not t.word:
        return False
    return (t.norm in lexicon.relative_pronouns or t.norm in lexicon.copulas or t.norm.endswith("ed")
            or t.norm in lexicon.clause_verbs or t.norm in lexicon.verbs)


def _kin_apposed(tokens: Sequence[Token], end: int, lexicon: Lexicon) -> bool:
    """A comma, maybe an article, and a family word right after a mention: an apposition about it ("Randolph
    Churchill, son of Winston Churchill"), which no place can be ("Stockholm, the son of …")."""
    k = end + 1 + (end + 1 < len(tokens) and tokens[end + 1].norm in lexicon.articles)
    return end < len(tokens) and tokens[end].text == "," and k < len(tokens) \
        and lexicon.kin_class_of(tokens[k].norm) is not None


def apposed_participle(tokens: Sequence[Token], end: int, lexicon: Lexicon) -> bool:
    """A comma (or a bracket) and a participle right after a mention (`M, born on`, `Wyatt (born 2020)`)."""
    return end + 1 < len(tokens) and tokens[end].text in (",", "(") and tokens[end + 1].word \
        and tokens[end + 1].norm in lexicon.apposed_participles


def _shared_subject(tokens: Sequence[Token], before: Sequence[Mention], span: tuple[int, int],
                    lexicon: Lexicon) -> Mention | None:
    """"Angela kept house for Hitler …, married Martin Hammitzsch in 1936, and died in Hanover": a verb right after
    "and", with no subject of its own before the value, shares the sentence's subject (the person who opens it,
    not a possessive: "His father was a painter and died in V" is the father's)."""
    if len(before) < 2:
        return None
    first = before[0]
    if first.start > 1 or tokens[first.end - 1].possessive or first.text.casefold() in lexicon.possessive_pronouns:
        return None
    # a person the graph does not hold opens a clause of their own too where a participle follows the name ("twins
    # Yash and Roohi, born via surrogacy in 2017": their birth)
    persons = {k for m in before[1:] if ((m.kind == "pronoun" or m.subject) and opens_clause(tokens, m.end, lexicon))
               or (m.kind == "name" and apposed_participle(tokens, m.end, lexicon)) for k in range(m.start, m.end)}
    for k in range(span[0] - 2, first.end - 1, -1):  # back from the value, up to a new clause's subject
        if k in persons:
            return None
        if tokens[k].word and tokens[k].norm in lexicon.coordinators and opens_clause(tokens, k + 1, lexicon) \
                and tokens[k + 1].norm not in lexicon.relative_pronouns and not tokens[k + 1].capital:
            return first
    return None


def _closed_apposition(tokens: Sequence[Token], m: Mention, lexicon: Lexicon) -> bool:
    """"Iemitsu's father, Tokugawa Hidetada, was born in Hamamatsu": a name between commas, a verb after them, is
    the clause's subject (what follows is said of Hidetada, not of Iemitsu)."""
    if m.start == 0 or tokens[m.start - 1].text != "," or m.end + 1 >= len(tokens) or tokens[m.end].text != ",":
        return False
    nxt = tokens[m.end + 1]
    if nxt.word and (nxt.norm in lexicon.copulas or nxt.norm in lexicon.clause_verbs):
        return True
    # a second appositive before the verb: "His son, Gaius Laelius Sapiens, consul in 140 BC, died after 129 BC" (v28)
    for k in range(m.end + 1, min(m.end + 8, len(tokens) - 1)):
        if not tokens[k].word:
            after = tokens[k + 1]
            return tokens[k].text == "," and after.word and (after.norm in lexicon.copulas
                                                              or after.norm in lexicon.clause_verbs)
        if tokens[k].norm in lexicon.copulas or tokens[k].norm in lexicon.clause_verbs or tokens[k].norm == "and":
            return False
    return False


def holders(tokens: Sequence[Token], mentions: Sequence[Mention], span: tuple[int, int],
            lexicon: Lexicon) -> tuple[list[Mention], str]:
    """The mention(s) the value at `span` is said of, and how they were found. Scanning left from the
    value, the first mention that opens a clause (a subject, a possessive, a name followed by `, who` or
    `, a`) holds it; names joined by `and` hold it together. A value before any mention is said of the
    first person named after it; one no mention holds, of the person who opens the sentence."""
    nxt = [m for m in mentions if m.start == span[1] and m.kind != "pronoun" and tokens[m.start].capital]
    if nxt:  # "the Romantic poets John Milton": the value describes the name right after it
        return [nxt[0]], "apposed"
    before = [m for m in mentions if m.end <= span[0] and (m.kind == "pronoun" or m.subject or tokens[m.start].capital)]
    # a nation's adjective right before the value modifies it ("an English writer", "a Czech tennis player"),
    # even where the graph has an entity of that name (the English language): it holds nothing
    demonyms = demonym_words(lexicon)
    before = [m for m in before if not (m.end == span[0] and m.kind == "entity" and fold(m.text) in demonyms)]
    shared = _shared_subject(tokens, before, span, lexicon)
    if shared is not None:
        return [shared], "left"
    antecedent = _object_clause_antecedent(tokens, before, span, lexicon)
    if antecedent is not None:
        return [antecedent], "left"
    for m in reversed(before):
        if m.kind == "pronoun" and m.text.casefold() in lexicon.object_pronouns:
            continue
        if m.thing and (apposed_participle(tokens, m.end, lexicon) or _kin_apposed(tokens, m.end, lexicon)):
            continue  # "a politician from Rhode Island, born on V": no place is born; the politician is; nor a son
        if tokens[m.end - 1].possessive or m.end == span[0] and m.kind != "name" \
                or opens_clause(tokens, m.end, lexicon) or _closed_apposition(tokens, m, lexicon) \
                or (m.kind == "pronoun" and m.text.casefold() in lexicon.subject_pronouns):
            group = [m]
            k = before.index(m)
            while k > 0 and joined(tokens, before[k - 1], group[0], lexicon):
                group.insert(0, before[k - 1])
                k -= 1
            return group, "left"
    after = [m for m in mentions if m.start >= span[1] and (m.subject or m.kind == "pronoun")]
    if after:
        return [after[0]], "right"
    if before and _opens_sentence(tokens, before[0], lexicon) and before[0].subject and not before[0].thing:
        return [before[0]], "left"  # "Mustafa II, Ottoman sultan from 1695 to 1703, was born on V": the opener's
    return [], "none"


def _opens_sentence(tokens: Sequence[Token], m: Mention, lexicon: Lexicon) -> bool:
    """The mention opens the sentence, alone or after an article and lower-case words ("The best-known Decimus
    Junius Silanus, consul in 62 BC …, was the son of V", v27)."""
    head = tokens[:m.start]
    return not head or (head[0].norm in lexicon.articles
                        and all(t.word and (k == 0 or not t.capital) for k, t in enumerate(head)))


def _object_clause_antecedent(tokens: Sequence[Token], before: Sequence[Mention], span: tuple[int, int],
                              lexicon: Lexicon) -> Mention | None:
    """The name a clause opened by ", whom" is about, when the value stands in that clause ("Ulrich II of Celje,
    whom his supporters killed at Belgrade in 1456": Ulrich died there, not the owner of "his")."""
    for k in range(span[0] - 1, 0, -1):
        if not tokens[k].word:
            return None
        if tokens[k].norm in lexicon.object_relative_pronouns and tokens[k - 1].text == ",":
            return next((m for m in before if m.end == k - 1 and m.kind != "pronoun"), None)
    return None


def joined(tokens: Sequence[Token], first: Mention, second: Mention, lexicon: Lexicon) -> bool:
    """Nothing but `and`, `&` and commas (`Lexicon.coordinators`) between two mentions: they name one group."""
    gap = tokens[first.end:second.start]
    return bool(gap) and all((g.text if not g.word else g.norm) in lexicon.coordinators for g in gap)


# --- the check ----------------------------------------------------------------------------------


@dataclass
class _ValueHit:
    span: tuple[int, int]
    # "name", "alias", "phrase", "form", "part", "demonym", "vaguer", "date", "date_year", "date_wrong", "number"
    how: str


def value_hits(tokens: Sequence[Token], value: str, object_id: str | None, view: GraphView, lexicon: Lexicon,
               dates: Sequence[tuple[int, int, DateValue]]) -> list[_ValueHit]:
    """Where the sentence states `value`: its name, aliases, a nation's adjective, a date (to its
    precision), a number; or, failing those, the distinctive part of a longer name (vaguer)."""
    hits: list[_ValueHit] = []
    date = parse_iso_date(value)
    if date is not None:
        for a, b, d in dates:
            if not d.same_year(date.year):
                continue
            if d.month is None or date.month is None:
                hits.append(
                    _ValueHit((a, b),
                              "date" if (d.month is None) == (date.month is None) or d.month is None else "date_year"))
            elif d.month == date.month and (d.day is None or date.day is None or d.day == date.day):
                hits.append(_ValueHit((a, b), "date"))
            else:
                hits.append(_ValueHit((a, b), "date_wrong"))
        return hits
    number = number_of(value)
    if number is not None:
        return [_ValueHit((a, b), "number") for a, b, x in numbers_in(tokens) if abs(x - number) < 1e-9]
    names = view.value_names(value, object_id)
    seen: set[tuple[str, ...]] = set()
    for k, name in enumerate(names):
        words = phrase(_without_parenthesis(name))
        if not words or words in seen:
            continue
        if k > 0 and len(words) == 1 and (len(words[0]) < 3 or words[0] in lexicon.stop_and_glue):
            continue  # an alias such as India's "IN" is the word "in", not the value (as for mentions)
        seen.add(words)
        # the value's own comma ("Order of Saint Anna, 2nd class"); an alias's ("Memphis, Tennessee") names where
        # the place lies, a claim of its own
        written = written_phrase(_without_parenthesis(name)) if k == 0 else words
        for span in find_phrase(tokens, words) + (find_phrase(tokens, written) if "," in written else []):
            hits.append(_ValueHit(span, "name" if k == 0 else "alias"))
    if not hits:  # "Queen Ashi Kesang Choden Wangchuck" names the held Kesang Choden Wangchuk (v30)
        for k, name in enumerate(names):
            hits += [_ValueHit(span, "name" if k == 0 else "alias")
                     for span in find_spelled(tokens, phrase(_without_parenthesis(name)), lexicon.name_connectors)]
    # "took his own life", "committed suicide": the value in other words, in place of its name inside them
    worded = [_ValueHit(span, "phrase") for wording in lexicon.value_phrases.get(fold(value), ())
              for span in find_phrase(tokens, phrase(wording))]
    hits = [h for h in hits if not any(w.span[0] <= h.span[0] and h.span[1] <= w.span[1] for w in worded)] + worded
    if not hits:
        for name in names[:2]:
            own_words = set(phrase(_without_parenthesis(name)))
            for adjective in lexicon.demonyms.get(fold(_without_parenthesis(name)), ()):
                for a, b in find_phrase(tokens, phrase(adjective)):
                    # "an ancient Roman" names Ancient Rome: a word of the name before its adjective is part of it
                    a -= a > 0 and tokens[a - 1].word and tokens[a - 1].norm in own_words
                    hits.append(_ValueHit((a, b), "demonym"))
    words = phrase(_without_parenthesis(value))
    if not hits:
        core = tuple(w for w in words if w not in lexicon.place_words)
        if core and core != words:  # "City of Brussels" is named by "Brussels"
            hits += [_ValueHit(span, "name") for span in find_phrase(tokens, core)]
        for variant in _word_forms(words, lexicon):
            # the last word in another form names the value as the subject's own ("a communist", "left-handed");
            # a genre by its kind alone ("pop" of "pop music") is only its name
            how = "form" if len(variant) == len(words) else "name"
            hits += [_ValueHit(span, how) for span in find_phrase(tokens, variant)]
    if not hits and len(words) == 1 and value[:1].islower() and len(parts := words[0].split("-")) == 2 \
            and min(map(len, parts)) >= 5:
        # a held "singer-songwriter" is a singer and a songwriter, each said alone (v32: "an American singer,
        # songwriter, and record producer"); two words of five letters or more ("anti-communism", "left-handedness"
        # are no such pair)
        hits += [_ValueHit(span, "part") for part in parts for span in find_phrase(tokens, (part,))]
    if not hits and len(words) >= 2:
        for w in words:
            if w in lexicon.generic_heads or w in lexicon.stop_and_glue or len(w) < 4:
                continue
            for a, b in find_phrase(tokens, (w,)):
                # not a part of another name: "Jackson" of "La Toya Jackson" is no vaguer "Randy Jackson", nor
                # "Silanus" of "Marcus Junius Silanus" a vaguer "Lucius Junius Silanus Manlianus" (v27): any word
                # of the capitalised run around it that the value lacks makes it another name
                if tokens[a].capital and not _another_name_around(tokens, a, b, words):
                    hits.append(_ValueHit((a, b), "vaguer"))
    return hits


def _another_name_around(tokens: Sequence[Token], a: int, b: int, words: tuple[str, ...]) -> bool:
    """A capitalised word next to `tokens[a:b]`, or further along the run of capitalised words it stands in
    (a possessive ends the run), that is not one of the value's `words` nor one letter off one ("Michal" for
    "Michał", v9; "Engelke" is not "Engel")."""
    def foreign(word: str) -> bool:
        return word not in words and not any(one_letter_off(word, w) for w in words)

    k = a - 1
    while k >= 0 and tokens[k].word and tokens[k].capital and not tokens[k].possessive:
        if foreign(tokens[k].norm):
            return True
        k -= 1
    k = b
    while k < len(tokens) and tokens[k].word and tokens[k].capital:
        if foreign(tokens[k].norm):
            return True
        if tokens[k].possessive:
            break
        k += 1
    return False


def _a_noun_here(tokens: Sequence[Token], span: tuple[int, int], lexicon: Lexicon) -> bool:
    """"was a human" and "a human being" name a person; "human nature" and "human rights" do not."""
    nxt = tokens[span[1]] if span[1] < len(tokens) else None
    return nxt is None or not nxt.word or nxt.norm in lexicon.noun_followers


def _word_forms(words: tuple[str, ...], lexicon: Lexicon) -> list[tuple[str, ...]]:
    """Other forms of a value's last word: atheism/atheist, actor/actress, left-handedness/left-handed
    (`Lexicon.suffix_forms`); of a one-word value, arrest/arrested;
    and a genre by its kind alone (`Lexicon.kind_heads`): "pop music" is said in "a pop singer"."""
    if len(words) >= 2 and words[-1] in lexicon.kind_heads:
        return [words[:-1]]
    if not words:
        return []
    *head, w = words
    out = []
    if not head and len(w) >= 5 and w.isalpha():  # an event named by its verb: "arrest" by "was arrested"
        out += [w + "ed", w[:-1] + "ed" if w.endswith("e") else w + "ing"]
    for ending, other in lexicon.suffix_forms:  # of the last word: "left-handedness" is said by "left-handed"
        if w.endswith(ending) and len(w) >= len(ending) + 2:  # "actor": "actress"
            out.append(w[:-len(ending)] + other)
    return [(*head, x) for x in out]


def _cue_spans(tokens: Sequence[Token], rel: RelationCues, lo: int, hi: int) -> list[tuple[int, int]]:
    out = []
    for cue in rel.cues:
        out += find_stem(tokens, cue, lo, hi)
    return out


@dataclass
class Context:
    tokens: list[Token]
    mentions: list[Mention]
    view: GraphView
    lexicon: Lexicon
    dates: list[tuple[int, int, DateValue]]
    question_words: frozenset[str]
    # folded place name -> the folded names of the places containing it (`places.place_containers`)
    containers: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # entity id -> why: the question's persons whose graph namesake is not the one it asks of (`namesakes`)
    namesakes: Mapping[str, str] = field(default_factory=dict)
    # where a place the sentence names lies (`places.SaidPlaces`); None: every other place contradicts a held one
    said_places: SaidPlaces | None = None
    _hits: dict = field(default_factory=dict)
    _in_dates: frozenset[int] | None = None  # `in_dates`
    # words a supported citation's check found wrong beside the relation ("daughter" of a man): claims
    # the graph contradicts, (token span, the triple that contradicts, why)
    wrong: list[tuple[tuple[int, int], str, str]] = field(default_factory=list)
    # family words that say a sex the graph shown does not hold ("Cao Pi's son was Cao Rui", citing `child`): claims
    # of their own, absent, (token span, why)
    unsaid: list[tuple[tuple[int, int], str]] = field(default_factory=list)

    @property
    def in_dates(self) -> frozenset[int]:
        """The token positions inside the sentence's dates (computed once)."""
        if self._in_dates is None:
            self._in_dates = frozenset(k for a, b, _ in self.dates for k in range(a, b))
        return self._in_dates

    def hits(self, value: str, object_id: str | None) -> list["_ValueHit"]:
        """`value_hits` for this sentence, computed once per value."""
        key = (value, object_id)
        found = self._hits.get(key)
        if found is None:
            found = self._hits[key] = value_hits(self.tokens, value, object_id, self.view, self.lexicon, self.dates)
        return found


def check_citation(ctx: Context, cited: CitedTriple, in_graph: bool,
                   object_id: str | None) -> tuple[CitationCheck, list[tuple[int, int]]]:
    """The verdict on one cited triple, and the token spans (value and cue) it accounts for."""
    lex, tokens, view = ctx.lexicon, ctx.tokens, ctx.view
    rel = lex.relation(cited.relation)
    subject_name = view.label(cited.subject)

    def verdict(kind: str, reason: str, spans: Iterable[tuple[int, int]] = ()) -> tuple[CitationCheck, list]:
        return _outcome(cited, kind, reason, spans, in_graph)

    # A part of the value's name met inside another entity's name is not the value: "Haasan" in "Akshara
    # Haasan's father is an actor" never names her father Kamal Haasan.
    hits = [h for h in ctx.hits(cited.value, object_id) if h.how != "vaguer"
            or not _inside_other_name(ctx, h.span, object_id)]
    if rel.naming:
        cue = _cue_spans(tokens, rel, 0, len(tokens))
        if hits and cue:
            return verdict("supported_cue", f"the sentence speaks of the {cited.relation} '{cited.value}'",
                           [hits[0].span, cue[0]])
        return verdict("unsupported_naming",
                       f"a name is not a fact: the sentence does not speak of {subject_name}'s {cited.relation}")
    if fold(cited.relation) == "instance of" and fold(cited.value) in lex.human_values:
        found = [s for w in sorted(lex.person_words) for s in find_phrase(tokens, phrase(w))
                 if _a_noun_here(tokens, s, lex)]
        if not found:
            return verdict("unsupported_person",
                           "being about a person does not state 'instance of: human' (the sentence never says so)")
        hits = [_ValueHit(found[0], "name")]
    if not hits:
        partial_words = [w for w in phrase(_without_parenthesis(cited.value))
                         if w not in lex.stop_and_glue and len(w) > 3]
        near = any(find_phrase(tokens, (w,)) for w in partial_words)
        return verdict("unsupported_absent_near" if near else "unsupported_absent",
                       f"the value '{cited.value}' is not stated")
    best: tuple[CitationCheck, list] | None = None
    # at equal scores, a hit clear of the persons' names first: "Lata Mangeshkar's family was the Mangeshkar
    # Family" names the value at its end, not in "Mangeshkar's family"
    entities = [(m.start, m.end) for m in ctx.mentions if m.kind == "entity"]
    for hit in sorted(hits, key=lambda h: any(spans_overlap(h.span, e) for e in entities)):
        result = _judge_hit(ctx, cited, rel, hit, subject_name, in_graph)
        if best is None or result[0].score > best[0].score:
            best = result
    assert best is not None
    return best


def _inside_other_name(ctx: Context, span: tuple[int, int], object_id: str | None) -> bool:
    """Whether `span` lies inside a longer mention of an entity other than `object_id`."""
    return any(m.kind == "entity" and m.start <= span[0] and span[1] <= m.end and m.end - m.start > span[1] - span[0]
               and object_id not in m.ids for m in ctx.mentions)


def _outcome(cited: CitedTriple, kind: str, reason: str, spans: Iterable[tuple[int, int]],
             in_graph: bool) -> tuple[CitationCheck, list]:
    """A CitationCheck for the outcome `kind` (a key of SCORE; its prefix is the verdict) and the spans it
    accounts for."""
    verdict = ("supported" if kind.startswith("supported") else "partial" if kind.startswith("partial")
               else "unsupported")
    return CitationCheck(subject=cited.subject, relation=cited.relation, value=cited.value, verdict=verdict,
                         score=SCORE[kind], reason=reason, in_graph=in_graph, outcome=kind), list(spans)


def _judge_hit(ctx: Context, cited: CitedTriple, rel: RelationCues, hit: _ValueHit, subject_name: str,
               in_graph: bool) -> tuple[CitationCheck, list]:
    tokens, lex = ctx.tokens, ctx.lexicon

    def out(kind: str, reason: str, spans: Iterable[tuple[int, int]] = ()) -> tuple[CitationCheck, list]:
        return _outcome(cited, kind, reason, spans, in_graph)

    found, how = holders(tokens, [m for m in ctx.mentions if not spans_overlap((m.start, m.end), hit.span)], hit.span,
                         lex)
    ids = {i for m in found for i in m.ids}
    if found and cited.subject not in ids:
        other = ", ".join(ctx.view.label(m.ids[0]) if m.ids else m.text for m in found)
        return out("unsupported_bystander", f"'{cited.value}' is said of {other}, not of {subject_name}")
    if not found and ctx.view.subjects and cited.subject not in ctx.view.subjects[:1]:
        return out("unsupported_bystander", f"the sentence does not speak of {subject_name}")
    relative = _possessed_person(tokens, found[-1], hit.span, rel, lex) if how == "left" and not rel.kin else None
    if relative:  # "S's brother taught at V": V is said of the brother (a family relation itself is read by _judge_kin)
        return out("unsupported_bystander",
                   f"'{cited.value}' is said of {subject_name}'s {relative}, not of {subject_name}")
    lo, hi = _between(found, how, hit.span, len(tokens))
    if (denied := _denial(ctx, lo, hit.span, rel)) is not None:
        return out("unsupported_inverted", f"{DENIES} ('{denied}'): the graph holds it")
    spans = [hit.span]
    if rel.not_as_region and _as_region(tokens, hit.span, lex):
        return out("partial_near", f"'{span_text(tokens, hit.span)}' says where the place before it lies, not "
                   f"{subject_name}'s {cited.relation}", spans)
    date_off = _date_precision(ctx, cited, hit)
    if date_off is not None:
        return out("partial_date", date_off, spans)
    if rel.kin:
        return _judge_kin(ctx, cited, rel, lo, hi, spans, out, how == "right")
    own = _cue_spans(tokens, rel, lo, min(hi, len(tokens)))
    following = tokens[hit.span[1]] if hit.span[1] < len(tokens) else None
    if how == "left" and not own and not (following is not None and following.word
                                          and following.norm in lex.coordinators):
        # "... in Jena, where he was born": a cue right after the value; not one of another clause ("born in
        # England and lived in Scotland" says nothing of living in England)
        own = _cue_spans(tokens, rel, hit.span[1], min(hit.span[1] + 4, len(tokens)))
    first = min((m.start for m in found), default=0)
    if not own and found and first > 0 and tokens[first - 1].norm == "of":
        # "The place of birth of S is V": the relation is named before its subject
        own = _cue_spans(tokens, rel, max(first - 8, 0), first - 1)
    if how == "left" and own and fold(cited.relation) not in lex.symmetric \
            and _names_value_by_relation(tokens, own[0], cited.relation, lo, lex):
        return out("unsupported_inverted",
                   f"the sentence says {subject_name} is the {cited.relation} of {cited.value}: "
                   f"the inverse of '{cited.relation}'")
    if rel.active_inverts and own and not _passive(tokens, own[0], lex):
        return out("unsupported_inverted", f"the sentence says {subject_name} {tokens[own[0][0]].text} {cited.value}: "
                   f"the inverse of '{cited.relation}'")
    if hit.how == "vaguer":
        return out("partial_vaguer", f"a vaguer value than '{cited.value}'", spans + own[:1])
    after = tokens[hit.span[1]].norm if hit.span[1] < len(tokens) and tokens[hit.span[1]].word else ""
    adjacent = lex.adjacent_nouns.get(after)
    if adjacent and adjacent != rel.label:
        return out("partial_near",
                   f"'{span_text(tokens, hit.span)} {tokens[hit.span[1]].text}' states '{adjacent}', not "
                   f"'{cited.relation}'", spans)
    said_with = _another_relation_said(ctx, cited, hit.span, own[0] if own else None)
    if said_with is not None:
        return out("partial_near", said_with, spans)
    if not own and life_span_opening(ctx, hit.span, cited.relation, cited.subject) is not None:
        return out("supported_cue", f"'{span_text(tokens, hit.span)}' ends {subject_name}'s life span", spans)
    if own:  # a role noun ("a professor at X") is the relation's cue and still a claim of its own (`role_words`)
        return out("supported_cue", f"'{cited.value}' is said of {subject_name} with '{span_text(tokens, own[0])}'",
                   spans + [c for c in own[:1] if not (c[1] - c[0] == 1 and tokens[c[0]].norm in lex.role_words)])
    near = _near_cue(tokens, rel, lex, _clause_start(tokens, lo, hit.span[0], lex) if how == "left" else lo, hi)
    if near is not None:
        return out("partial_near", f"'{span_text(tokens, near[1])}' states '{near[0]}', not '{cited.relation}'", spans)
    if hit.how == "demonym":
        if rel.demonym:
            return out("supported_demonym",
                       f"'{span_text(tokens, hit.span)}' states {subject_name}'s {cited.relation}", spans)
        return out("partial_no_cue",
                   f"'{span_text(tokens, hit.span)}' names the value but does not state '{cited.relation}'", spans)
    if rel.implied or hit.how in ("phrase", "form", "part"):  # "took his own life" says the manner of death itself
        return out("supported_implied", f"'{span_text(tokens, hit.span).rstrip('.')}' is said of {subject_name}", spans)
    return out("partial_no_cue",
               f"'{cited.value}' is said of {subject_name} without a word for '{cited.relation}'", spans)


def _denial(ctx: Context, lo: int, span: tuple[int, int], rel: RelationCues) -> str | None:
    """A negation in the value's own clause, between its holder and it ("Charles was not a writer", "He was not a
    member of the Church of England": v25's passes call each citation unsupported): the word, or None. Not "not
    only"; not a negation of another verb ("should not be confused with X"; the relation's own verb may stand
    between: "was not born in X"), nor in reported or hedged words ("Rumors that he was not really …'s son"); the
    clause ends at a comma or a coordinator ("born not in Paris but in London")."""
    tokens, lex = ctx.tokens, ctx.lexicon
    # runs for every value of every triple judged: the sentence's words are read only once a negation is found
    for k in range(span[0] - 1, max(lo, span[0] - 7) - 1, -1):
        t = tokens[k]
        if not t.word and t.text == "," or t.word and t.norm in lex.coordinators:
            return None
        if t.word and lex.verb_like(t.norm) and t.norm not in lex.copulas \
                and not t.norm.startswith(tuple(c[0] for c in rel.cues if len(c) == 1)):
            return None
        if t.word and t.norm in lex.negations and not (k + 1 < span[0] and tokens[k + 1].norm in ("only", "just")):
            return None if any(w.word and w.norm in lex.hedge_words for w in tokens[:span[0]]) else t.text
    return None


def _between(found: Sequence[Mention], how: str, span: tuple[int, int], n: int) -> tuple[int, int]:
    """The tokens between the value at `span` and its holders, on the side `holders` found them (all, if none)."""
    if how == "left":
        return max(m.end for m in found), span[0]
    if how == "right":
        return span[1], min(m.start for m in found)
    return 0, n


def life_span(ctx: Context, span: tuple[int, int]) -> tuple[str, int, frozenset[str]] | None:
    """The relation the date at `span` states as one end of a life span, where its parenthesis opens, and whose life
    it is (the ids of the name before it): "Carl Sagan (1934–1996)", "Leonhard Euler (15 April 1707 – 18 September
    1783)", "Alessandro Marcello (1673 to 1747)": two dates in parentheses right after the name that opens the
    sentence, joined by a dash or a `range_words` word, are that person's birth and death (`life_span_relations`);
    None for any other date."""
    tokens, lex, dates = ctx.tokens, ctx.lexicon, ctx.dates
    for (a1, b1, _), (a2, b2, _) in zip(dates, dates[1:]):
        if span not in ((a1, b1), (a2, b2)) or b2 >= len(tokens) or tokens[b2].text != ")":
            continue
        opens = a1 - 1
        while opens >= 0 and tokens[opens].word and tokens[opens].norm in lex.approximate_words:
            opens -= 1  # "(c. 268 to 208 BC)"
        joins = all(tokens[k].text in ("–", "—", "-") or tokens[k].norm in lex.range_words for k in range(b1, a2))
        # the name that opens the sentence: a relative's life span mid-sentence may be a namesake's ("his
        # grandfather, Lord Randolph Churchill (1849–1895)", where the graph's Randolph Churchill is born 1911, v5)
        named = [m for m in ctx.mentions if m.end == opens and m.kind != "pronoun"
                 and not any(t.word for t in tokens[:m.start])]
        if opens < 1 or tokens[opens].text != "(" or not joins or a2 == b1 or not named:
            return None
        return lex.life_span_relations[0 if span == (a1, b1) else 1], opens, frozenset(i for m in named for i in m.ids)
    return None


def life_span_opening(ctx: Context, span: tuple[int, int], relation: str, subject: str) -> int | None:
    """Where the parenthesis opens, when the date at `span` is `subject`'s `relation` said as an end of their life
    span (`life_span`): the cue of that relation; None otherwise."""
    if fold(relation) not in ctx.lexicon.life_span_relations:
        return None  # most relations: no scan of the sentence's dates
    said = life_span(ctx, span)
    return said[1] if said is not None and said[0] == fold(relation) and subject in said[2] else None


def _said_as_influence(tokens: Sequence[Token], span: tuple[int, int], lex: Lexicon) -> bool:
    """The value right after "influenced by" or "inspired by" (an article may stand between): an influence, not the
    person's genre or movement ("Natalie Cole's music was influenced by soul music", citing `genre: soul music`; both
    passes of v9 and v10 call every such citation partly supported)."""
    k = span[0] - 1
    while k >= 0 and tokens[k].word and tokens[k].norm in lex.articles:
        k -= 1
    return k >= 1 and tokens[k].norm == "by" and tokens[k - 1].norm in lex.forward_participles


def _another_relation_said(ctx: Context, cited: CitedTriple, span: tuple[int, int],
                           cue: tuple[int, int] | None) -> str | None:
    """Why the value is said with another relation the subject holds than the cited one, or None: the cue is part of
    that relation's wider cue ("Huygens's doctoral students were Papin and …", citing `student: Denis Papin`), or, with
    no cue, another relation's verb takes the nation (`_other_verb_governs`: "worked in Greece") or the value says of
    what another held value is ("the monarch of French Annam", citing `country of citizenship: French Annam`); or the
    value is an influence ("influenced by soul music", citing `genre`)."""
    if _said_as_influence(ctx.tokens, span, ctx.lexicon) and not fold(cited.relation).startswith("influenced"):
        return f"'influenced by {cited.value}' states an influence, not '{cited.relation}'"
    if cue is not None:
        wider = _wider_cue(ctx, cited, cue)
        return None if wider is None else \
            f"'{span_text(ctx.tokens, wider[1])}' states '{wider[0]}', not '{cited.relation}'"
    governing = _other_verb_governs(ctx, ctx.lexicon.relation(cited.relation), span)
    if governing is not None:
        return f"{governing}, not '{cited.relation}'"
    of_value = _of_another_value(ctx, cited, span)
    return None if of_value is None else (f"'{of_value} of {span_text(ctx.tokens, span).rstrip('.')}' says the "
                                          f"{of_value}'s place, not {ctx.view.label(cited.subject)}'s {cited.relation}")


def _of_another_value(ctx: Context, cited: CitedTriple, span: tuple[int, int]) -> str | None:
    """The nation follows "of" after a value of another relation the subject holds ("the monarch of French Annam",
    `position held: monarch`): it says of what the other value is, not the cited relation. That value's words."""
    of = span[0] - 1
    if of > 0 and ctx.tokens[of].norm in ctx.lexicon.articles:
        of -= 1  # "a sovereign of the Byzantine Empire"
    if of < 1 or ctx.tokens[of].norm != "of" or not ctx.lexicon.relation(cited.relation).demonym:
        return None  # a nation's relation only: "a composer of opera" states `genre: opera`
    label = fold(cited.relation)
    for t in ctx.view.by_subject.get(cited.subject, ()):
        if fold(t.label) != label and any(h.span[1] == of and h.how != "vaguer"
                                          for h in ctx.hits(t.value, t.object_id)):
            return span_text(ctx.tokens, (of - 1, of))
    return None


def _wider_cue(ctx: Context, cited: CitedTriple, cue: tuple[int, int]) -> tuple[str, tuple[int, int]] | None:
    """Another relation the graph holds for the subject whose cue holds the cited relation's cue and more: "doctoral
    students" is the cue of `doctoral student`, not of `student`, which its last word alone would be. That relation
    and its cue's span."""
    label = fold(cited.relation)
    wider = [(other, span) for other in sorted({fold(t.label) for t in ctx.view.by_subject.get(cited.subject, ())}
                                               - {label})
             for span in _cue_spans(ctx.tokens, ctx.lexicon.relation(other), max(cue[0] - 3, 0), cue[1])
             if span[0] <= cue[0] and cue[1] <= span[1] and span != cue]
    # the widest; of equals, the one named like the cited relation ("doctoral student", not "doctoral advisor")
    return max(wider, key=lambda w: (w[1][1] - w[1][0], label in w[0]), default=None)


def _date_precision(ctx: Context, cited: CitedTriple, hit: _ValueHit) -> str | None:
    """Why a held date said at `hit` only partly holds: another full date in its year, or a day and month where the
    subject holds the year alone for the cited relation ("died on January 20, 120 BCE" where the graph holds -0120:
    both passes of v16; beside a held "1845-01-01" the year's citation counts, as v9's to v14's passes label it)."""
    if hit.how == "date_wrong":
        return f"another full date in the year of {cited.value}"
    if hit.how != "date_year":
        return None  # every citation passes here: the subject's statements are read for a year's citation alone
    label = fold(cited.relation)
    if any(h.span == hit.span and h.how == "date" for t in ctx.view.by_subject.get(cited.subject, ())
           if fold(t.label) == label for h in ctx.hits(t.value, t.object_id)):
        return None
    return f"a day or month where the graph holds only the year of {cited.value}"


_PLACE_FIRST: dict[str, list[tuple[str, RelationCues]]] = {}


def _place_relations_first(lex: Lexicon) -> list[tuple[str, RelationCues]]:
    """The lexicon's relations, place relations first ("born in" states the place of birth, not the date); once per
    lexicon."""
    if lex.sha256 not in _PLACE_FIRST:
        _PLACE_FIRST[lex.sha256] = sorted(lex.relations.items(), key=lambda kv: not lex.is_place_relation(kv[0]))
    return _PLACE_FIRST[lex.sha256]


def _other_verb_governs(ctx: Context, rel: RelationCues, span: tuple[int, int]) -> str | None:
    """Another relation's verb right before a nation, a place preposition between ("worked in Greece", "grew up in
    Cambodia", citing `country of citizenship`): the sentence says where the person did something, not the cited
    relation, whose value said with no word of its own would otherwise read as implied (v8 and v16: both passes
    call such a sentence not fully supported). What the words from the verb to the value state, or None."""
    tokens, lex = ctx.tokens, ctx.lexicon
    if not rel.demonym:
        return None  # a nation's relation only: "involved in politics" still states `field of work: politics`
    start = span[0]
    while start > 0 and tokens[start - 1].word and tokens[start - 1].norm in lex.articles:
        start -= 1
    # "born on May 25, 1972, India": the nation after the date the verb takes, a comma between (v3, v14)
    dated = next((a for a, b, _ in ctx.dates if b == start - 1 and tokens[b].text == ","), None) \
        if start > 0 else None
    prepositions = lex.place_prepositions | ({"on"} if dated is not None else set())
    start = start if dated is None else dated
    if start == 0 or not tokens[start - 1].word or tokens[start - 1].norm not in prepositions:
        return None
    for label, other in _place_relations_first(lex):
        if other.label == rel.label or label in rel.near:
            continue
        for cue in _cue_spans(tokens, other, max(start - 5, 0), start):
            if cue[1] in (start - 1, start) and lex.verb_like(tokens[cue[0]].norm):
                return f"'{span_text(tokens, (cue[0], span[1])).rstrip('.')}' states '{other.label}'"
    return None


def _near_cue(tokens: Sequence[Token], rel: RelationCues, lex: Lexicon, lo: int,
              hi: int) -> tuple[str, tuple[int, int]] | None:
    """A word of a looser relation (`near`) between `lo` and `hi`: that relation and the word's span. Called with
    `lo` at the value's own clause ("born in Berlin and was a German physicist" says nothing of being born a
    citizen)."""
    for near_label in rel.near:
        near = _cue_spans(tokens, lex.relation(near_label), lo, hi)
        if near:
            return near_label, near[0]
    return None


def _clause_start(tokens: Sequence[Token], lo: int, value_start: int, lex: Lexicon) -> int:
    """Where the clause holding the value at `value_start` begins, scanning back to `lo`: after the last
    coordinator or comma between them."""
    for k in range(value_start - 1, lo - 1, -1):
        t = tokens[k]
        if t.text == "," or t.text == ";" or (t.word and t.norm in lex.coordinators):
            return k + 1
    return lo


def _as_region(tokens: Sequence[Token], span: tuple[int, int], lex: Lexicon) -> bool:
    """"born … in Indore, India": the value follows a place (a capitalised name after a place preposition) and a
    comma."""
    a = span[0]
    if a < 3 or tokens[a - 1].text != "," or not tokens[a - 2].capital:
        return False
    return any(t.word and t.norm in lex.place_prepositions for t in tokens[max(a - 5, 0):a - 2])


def _judge_kin(ctx: Context, cited: CitedTriple, rel: RelationCues, lo: int, hi: int, spans: list,
               out: Callable[..., tuple[CitationCheck, list]], value_first: bool = False) -> tuple[CitationCheck, list]:
    tokens, lex = ctx.tokens, ctx.lexicon
    want = rel.kin
    assert want is not None  # called for a family relation
    subject_name = ctx.view.label(cited.subject)
    between = range(max(lo, 0), min(hi, len(tokens)))
    if not value_first and tokens[spans[0][1] - 1].possessive:
        between = range(0)  # "his mother was Lady Zhang, one of Liu Yuan's consorts": a possessor is no one's mother
    # the family word nearest the value governs it: in "He is the son of Maurice Garrel and the father of Louis
    # Garrel", "son" is Maurice's word, not Louis's (read first, it made Louis his father)
    for i in (between if value_first else reversed(between)):
        cls = lex.kin_class_of(tokens[i].norm) if tokens[i].word else None
        if cls is None:
            continue
        # "S, son of V" / "S was the father of V" / "the son and successor of V": S is <word> of V, so V is S's
        # inverse relative
        of_follows = i + 1 < len(tokens) and tokens[i + 1].norm == "of" or (
            i + 3 < len(tokens) and tokens[i + 1].norm == "and" and tokens[i + 2].word and tokens[i + 3].norm == "of")
        if value_first:  # "V was a child of S", "V, S's son": V is S's <word>
            stated = lex.kin_inverse.get(cls, cls) if (i > 0 and tokens[i - 1].possessive and i - 1 < lo) else cls
        else:
            stated = lex.kin_inverse.get(cls, cls) if of_follows else cls
        if stated == want or want == "relative":
            word = tokens[i].norm
            # "S is the daughter of V" says S is female; "S's son V" says V is male: the graph may disagree
            described = cited.subject if (of_follows and not value_first) else next(
                (t.object_id or "" for t in ctx.view.by_subject.get(cited.subject, ())
                 if fold(t.label) == fold(cited.relation) and t.value == cited.value), "")
            said, held = lex.kin_gender.get(word.rstrip("s")) or lex.kin_gender.get(word), ctx.view.gender(described)
            if said and held and said != held:
                # the relation is stated; the family word is a claim the graph contradicts
                statement = ctx.view.gender_statement(described)
                if statement is not None and all(span != (i, i + 1) for span, _, _ in ctx.wrong):
                    ctx.wrong.append(((i, i + 1), evidence_text(statement.subject, statement.label, statement.value),
                                      f"'{tokens[i].text}' gets {ctx.view.label(described)}'s sex or gender wrong"))
            elif said and not held and want in ("child", "sibling") and stated == want \
                    and all(span != (i, i + 1) for span, _ in ctx.unsaid):
                # "son" where `child` is cited says the child's sex, which the graph shown does not hold
                ctx.unsaid.append(((i, i + 1), f"'{tokens[i].text}' says {ctx.view.label(described) or cited.value}'s "
                                   f"sex, which the graph shown does not hold"))

            exact = rel.label in lex.parent_relations and of_follows is False \
                and word.startswith(lex.parent_relations) and not word.startswith(rel.label[:4])
            if exact or word.startswith(rel.not_words or ("\0",)):
                return out("partial_near", f"'{tokens[i].text}' is not '{cited.relation}'", spans)
            said_of = (f"{subject_name} is {cited.value}'s" if of_follows and not value_first
                       else f"{cited.value} is {subject_name}'s")
            return out("supported_cue", f"{said_of} {tokens[i].text}", spans + [(i, i + 1)])
        if stated == lex.kin_inverse.get(want) and want != stated:
            return out("unsupported_inverted", f"the sentence makes {cited.value} {subject_name}'s {tokens[i].text} "
                       f"({'of ' if of_follows else ''}the inverse of '{cited.relation}')")
        return out("partial_near", f"'{tokens[i].text}' is another family relation than '{cited.relation}'", spans)
    own = _cue_spans(tokens, rel, max(lo, 0), min(hi, len(tokens)))
    if own:  # no family word, but the relation's own cue: "lives with his partner V" for a cohabitant
        return out("supported_cue", f"'{cited.value}' is said of {subject_name} with '{span_text(tokens, own[0])}'",
                   spans + own[:1])
    return out("partial_no_cue", f"'{cited.value}' is named without a family word for '{cited.relation}'", spans)


def _possessed_person(tokens: Sequence[Token], holder: Mention, value: tuple[int, int], rel: RelationCues,
                      lex: Lexicon) -> str | None:
    """`S's brother` / `his teacher` opening the value's clause ("S's brother taught at V"): the person the
    possessive names, of whom the value is said; None when there is none, or when the value is that person."""
    if not (tokens[holder.end - 1].possessive or tokens[holder.end - 1].norm in lex.possessive_pronouns):
        return None
    i = holder.end
    while i < value[0] and tokens[i].word and tokens[i].norm in lex.possessed_modifiers:
        i += 1
    if (not (i < value[0] and tokens[i].word and tokens[i].norm in lex.possessed_nouns)
        or _cue_spans(tokens, rel, i, i + 1)):
        return None  # no person named, or the word is the cited relation itself ("S's students include V")
    between = tokens[i + 1:value[0]]
    if not rel.implied and all(not t.word or t.norm in lex.copulas or t.norm in lex.articles for t in between):
        return None  # "S's student was V", "S's son, V": the value is that person, not said of them
    # but "S's father is an actor" says the father's occupation: a value that alone states its relation
    # (`implied`) after a copula is said of the person the possessive names
    return tokens[i].norm


def _names_value_by_relation(tokens: Sequence[Token], cue: tuple[int, int], relation: str, subject_end: int,
                             lex: Lexicon) -> bool:
    """`S is the record label of V` for `S record label: V`: the relation's own name after S, then `of V`, makes
    S the value's <relation>, the inverse of the triple. Only the label itself counts: a role noun that reads
    forward ("S is an employee of V", "a graduate of V", "a member of V") is another cue, never this; and S must
    be what the copula speaks of ("S's work is a genre of V" is not S's)."""
    end = cue[1]
    start = end - len(relation.split())  # the cue may be the label's head word ("label" of "record label")
    if end >= len(tokens) or tokens[end].norm != "of" or start - 2 < subject_end:
        return False
    if fold(span_text(tokens, (start, end))) != fold(relation):
        return False
    between = tokens[subject_end + 1:start - 1]  # "was also a student of": adverbs after the copula
    return tokens[start - 1].norm in lex.articles and tokens[subject_end].norm in lex.copulas \
        and all(t.norm in lex.copula_adverbs for t in between)


def _passive(tokens: Sequence[Token], cue: tuple[int, int], lex: Lexicon) -> bool:
    """`influenced by V`, `was a student of V`, `his influences included V`: the cue reads forward (the words:
    verifier_words.json `reads_forward`)."""
    word = tokens[cue[0]].norm
    nxt = tokens[cue[1]].norm if cue[1] < len(tokens) else ""
    prev = tokens[cue[0] - 1].norm if cue[0] > 0 else ""
    if nxt in lex.forward_followers or word.startswith(lex.forward_stems):
        return not word.startswith(lex.forward_not_stems)
    if word.endswith(lex.forward_noun_endings) \
            and (prev in lex.possessive_pronouns or tokens[cue[0] - 1].possessive if cue[0] else False):
        return True
    if word in lex.influence_nouns and nxt in lex.forward_noun_verbs:
        return True
    return word in lex.forward_participles and prev in lex.copulas

