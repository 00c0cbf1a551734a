"""What the verifier knows about words: relation cues, implied relations, near relations, kinship, names of
nations (`kalma_graph/data/relation_cues.json`), its own word tables — pronouns, copulas, the words of names
and places, month names, ... (`kalma_graph/data/verifier_words.json`) —, Wikidata property labels and aliases
(`kalma_graph/data/wikidata_properties.tsv.gz`) for every relation relation_cues.json does not list, and the
common verbs of `kalma_graph/data/question_topics.json`.

`load_lexicon()` is the one loader (cached); `Lexicon.sha256` hashes every data file it reads (`DATA_FILES`), so
that a changed word changes the verifier's id (`Verifier.id()`) with no version bump."""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol

from kalma_graph.errors import KalmaError

from .text import CenturyWords, fold, phrase

# Every data file the verifier reads, in the order the id hashes them (question_topics.json: its common verbs,
# which are no left-over claim; the rest of it is the question reader's, `verification.topics`).
DATA_FILES = ("relation_cues.json", "verifier_words.json", "wikidata_properties.tsv.gz", "question_topics.json")


class LexiconError(KalmaError, ValueError):
    """A data file of the verifier that does not read as its code expects (a key missing, or one no code reads)."""


@dataclass(frozen=True)
class RelationCues:
    label: str
    cues: tuple[tuple[str, ...], ...]  # each cue: word stems that must follow one another
    implied: bool = False  # the value said of the subject states the relation
    near: tuple[str, ...] = ()
    kin: str | None = None
    single: bool = False  # one value per subject (place of birth, father): another value contradicts
    naming: bool = False  # a name, not a fact: stated only when the sentence speaks of the name
    active_inverts: bool = False  # "S influenced V" states the inverse of "S influenced by V"
    demonym: bool = False
    # the relation as a noun where its label is none ("influences"): names it like its label
    nouns: tuple[str, ...] = ()
    not_words: tuple[str, ...] = ()  # family words that state another relation ("married" is no unmarried partner)
    not_as_region: bool = False  # a value written as where a place lies ("in Indore, India") is not this relation


@dataclass(frozen=True)
class PersonField:
    """A field of work a question may give the person it names (verifier_words.json `person_fields`)."""

    name: str
    asked: tuple[str, ...]  # the question's words that give it ("literary": "his literary prowess")
    held: tuple[str, ...]  # stems of a profile value's words that show the person works in it
    any_of: frozenset[str] = frozenset()  # relations whose mere presence shows it (`position held`: politics)
    same_word: bool = False  # the profile must hold the `held` stem at the asked word's place ("wrestl")


@dataclass(frozen=True)
class Lexicon:
    relations: dict[str, RelationCues]
    kin_words: dict[str, tuple[str, ...]]
    kin_endings: frozenset[str]  # what may follow a family word's stem ("sons", "married"; not "Song-ju")
    kin_inverse: dict[str, str]
    person_words: frozenset[str]
    evaluative: tuple[tuple[str, ...], ...]
    demonyms: dict[str, tuple[str, ...]]  # folded country/people name -> adjectives
    stop_words: frozenset[str] = frozenset()
    kin_gender: dict[str, str] = field(default_factory=dict)  # folded family word -> "m" / "f" ("daughter" -> "f")
    symmetric: frozenset[str] = frozenset()  # folded labels of relations that read the same both ways
    possessed_nouns: frozenset[str] = frozenset()  # "S's brother", "his teacher": a person other than S
    possessed_modifiers: frozenset[str] = frozenset()  # words that may stand between ("S's older brother")
    # verifier_words.json (its "about" says what each is for)
    singular_pronouns: frozenset[str] = frozenset()
    pronoun_gender: dict[str, str] = field(default_factory=dict)  # "he" -> "m"
    subject_pronouns: frozenset[str] = frozenset()
    plural_pronouns: frozenset[str] = frozenset()
    object_pronouns: frozenset[str] = frozenset()
    possessive_pronouns: frozenset[str] = frozenset()
    relative_pronouns: frozenset[str] = frozenset()
    articles: frozenset[str] = frozenset()
    copulas: frozenset[str] = frozenset()
    copula_adverbs: frozenset[str] = frozenset()
    coordinators: frozenset[str] = frozenset()
    clause_verbs: frozenset[str] = frozenset()
    name_connectors: frozenset[str] = frozenset()
    generic_heads: frozenset[str] = frozenset()
    place_words: frozenset[str] = frozenset()
    glue: frozenset[str] = frozenset()
    adjacent_nouns: dict[str, str] = field(default_factory=dict)  # noun -> the relation it names
    noun_followers: frozenset[str] = frozenset()
    human_values: frozenset[str] = frozenset()
    gender_values: dict[str, str] = field(default_factory=dict)  # folded `sex or gender` value -> "m" / "f"
    parent_relations: tuple[str, ...] = ()
    negations: frozenset[str] = frozenset()  # "not", "never": a held value denied
    aside_openers: tuple[tuple[str, ...], ...] = ()  # "if you mean": an aside about another person
    assumed_openers: tuple[tuple[str, ...], ...] = ()  # "assuming you mean": an aside when another is named
    apposed_kinds: frozenset[str] = frozenset()  # "the band Toto": a group's kind before its name
    field_relations: frozenset[str] = frozenset()  # folded relations whose values are fields or styles ("genre")
    life_span_relations: tuple[str, ...] = ()  # "Carl Sagan (1934–1996)": the relations of a life span's two dates
    suffix_forms: tuple[tuple[str, str], ...] = ()  # (ending, ending of the other form), in the file's order
    kind_heads: frozenset[str] = frozenset()
    forward_followers: frozenset[str] = frozenset()  # reads_forward.followers, and so on
    forward_stems: tuple[str, ...] = ()
    forward_not_stems: tuple[str, ...] = ()
    forward_noun_endings: tuple[str, ...] = ()
    forward_noun_verbs: frozenset[str] = frozenset()
    forward_participles: frozenset[str] = frozenset()
    influence_nouns: tuple[str, ...] = ()
    skip_after_cue: frozenset[str] = frozenset()
    place_prepositions: frozenset[str] = frozenset()
    cause_prepositions: frozenset[str] = frozenset()
    place_label_words: tuple[str, ...] = ()  # place_relations.containing
    place_labels: frozenset[str] = frozenset()  # place_relations.labels
    containment_labels: frozenset[str] = frozenset()  # relations that say where a place lies
    distributive_words: frozenset[str] = frozenset()  # "respectively": values paired with a group one by one
    ordinals: frozenset[str] = frozenset()  # "the third pharaoh": a place in a series the graph does not hold
    role_words: frozenset[str] = frozenset()  # "a professor at X": a cue of `employer` and a role of its own
    centuries: CenturyWords = field(default_factory=CenturyWords)  # "the late 4th or early 3rd century BC"
    speaker_pronouns: frozenset[str] = frozenset()  # "I", "me": the answerer speaking of itself
    talk_words: frozenset[str] = frozenset()  # "reliable information", "help": its talk, no claim
    frame_words: frozenset[str] = frozenset()  # "his career", "family background": frame a claim, make none
    birth_order_words: frozenset[str] = frozenset()  # "the youngest child": an order among siblings, not held
    value_phrases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # folded value -> its other wordings
    implied_words: dict[str, frozenset[str]] = field(default_factory=dict)  # word -> folded values implying it
    none_phrases: dict[tuple[str, ...], str] = field(default_factory=dict)  # folded phrase -> relation it denies
    age_cues: tuple[tuple[str, ...], ...] = ()  # "at the age of": the number after it is an age
    age_after_cues: tuple[tuple[str, ...], ...] = ()  # "years old": the number before it is an age
    rename_words: frozenset[str] = frozenset()  # "Bombay (now Mumbai)": another name of the place before
    lives_determiners: frozenset[str] = frozenset()
    months: frozenset[str] = frozenset()  # month names
    month_index: dict[str, int] = field(default_factory=dict)  # month names and their first three letters -> 1..12
    alias_skip_words: frozenset[str] = frozenset()
    area_words: frozenset[str] = frozenset()  # "Fenghua District": a held place an unlocated one may lie in
    apposed_participles: frozenset[str] = frozenset()  # "Jaden Smith, born on …": a clause about the name
    short_year_before: frozenset[str] = frozenset()  # "born in 155": a three-digit year
    short_year_after: frozenset[str] = frozenset()
    elapsed_time_words: frozenset[str] = frozenset()  # "died a few days later, on V": not counted before a date
    bound_words: dict[str, int] = field(default_factory=dict)  # "after 1565": +1 (the date is later), "before": -1
    reference_prepositions: frozenset[str] = frozenset()  # "near London": a place to find another by
    range_words: frozenset[str] = frozenset()  # "born in 1431 or 1433": the years of a range
    maiden_name_words: frozenset[str] = frozenset()  # "Caroline Louise Büchner, née Reuss"
    area_kinds: frozenset[str] = frozenset()  # `instance of` values of an area: "state of the United States"
    object_relative_pronouns: frozenset[str] = frozenset()  # ", whom his supporters killed": the name before it
    era_bc_words: frozenset[str] = frozenset()  # "8 BC": a year before year 1 (text.py `dates_in`)
    era_ad_words: frozenset[str] = frozenset()  # "AD 238", "238 AD"
    approximate_words: frozenset[str] = frozenset()  # "born around 601": a year two or more off contradicts
    nickname_words: frozenset[str] = frozenset()  # "nicknamed 'Putzi'": the name after it is the person's own
    hedge_words: frozenset[str] = frozenset()  # "probably in West Ham": a hedged value contradicts nothing
    count_words: frozenset[str] = frozenset()  # "wrote many works": a count no single cited value gives
    inner_place_words: frozenset[str] = frozenset()  # "Oscar Parish": part of a town a said town may hold
    other_place_prefixes: frozenset[str] = frozenset()  # "Ancient Rome" is no Rome
    profile_relations: frozenset[str] = frozenset()  # person_fields: the relations that say what a person does
    person_fields: tuple[PersonField, ...] = ()
    verbs: frozenset[str] = frozenset()  # question_topics.json `verbs`: common verbs, no claim by themselves
    stop_and_glue: frozenset[str] = frozenset()  # stop_words | glue: words that are no name and no claim
    # sha256 of the lines "<file> <sha256 of the file>\n" of DATA_FILES: what the verifier's id hashes
    sha256: str = ""
    data_sha256: dict[str, str] = field(default_factory=dict)  # each data file -> its sha256
    _aliases_gz: bytes = field(default=b"", repr=False, compare=False, hash=False)
    _aliases: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False, hash=False)
    _fallback: dict[str, RelationCues] = field(default_factory=dict, compare=False, hash=False)

    def verb_like(self, word: str) -> bool:
        """A folded word that reads as a verb or participle ("worked", "grew", "born")."""
        return (word.endswith("ed") or word in self.verbs or word in self.clause_verbs
                or word in self.apposed_participles)

    def relation(self, label: str) -> RelationCues:
        """The cues of a property label; labels the data file does not list use their Wikidata label and
        aliases (`field of work` → `field`, `work`) as cues."""
        key = fold(label.strip())
        found = self.relations.get(key)
        if found is not None:
            return found
        cached = self._fallback.get(key)
        if cached is None:
            skip = self.alias_skip_words
            words = [w for w in phrase(label) if w not in skip]
            cues = {tuple(w[:6] for w in words)} if words else set()
            for alias in self._wikidata_aliases().get(key, ()):
                alias_words = [w for w in phrase(alias) if w not in skip]
                if alias_words and len(alias_words) <= 3:
                    cues.add(tuple(w[:6] for w in alias_words))
            cached = RelationCues(label=key, cues=tuple(sorted(cues)))
            self._fallback[key] = cached
        return cached

    def is_place_relation(self, label: str) -> bool:
        """Whether the relation's value is a place (`place_relations`)."""
        label = fold(label)
        return any(w in label for w in self.place_label_words) or label in self.place_labels

    def kin_class_of(self, word: str) -> str | None:
        for cls, words in self.kin_words.items():
            if any(word.startswith(w) and word[len(w):] in self.kin_endings for w in words):
                return cls
        return None

    def _wikidata_aliases(self) -> dict[str, tuple[str, ...]]:
        """Folded Wikidata property label -> its aliases (read on first use)."""
        if not self._aliases and self._aliases_gz:
            for line in gzip.decompress(self._aliases_gz).decode("utf-8").splitlines()[1:]:
                parts = line.split("\t")
                if len(parts) >= 4 and parts[1]:
                    self._aliases[fold(parts[1])] = tuple(a.strip() for a in parts[3].split("|") if a.strip())
        return self._aliases


class _Folder(Protocol):
    def joinpath(self, *names: str) -> Any: ...


class _Keys:
    """A data file's object whose keys are read one by one; `done()` fails on a key nothing read (a typo, or a
    table no code uses any more) and a missing key fails where it is read."""

    def __init__(self, data: dict[str, Any], where: str) -> None:
        self.data, self.where = data, where
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        try:
            return self.data[key]
        except KeyError:
            raise LexiconError(f"{self.where} has no key '{key}'") from None

    def sub(self, key: str) -> "_Keys":
        return _Keys(self[key], f"{self.where}: {key}")

    def words(self, key: str) -> frozenset[str]:
        return frozenset(fold(w) for w in self[key])

    def ordered(self, key: str) -> tuple[str, ...]:
        return tuple(fold(w) for w in self[key])

    def done(self, *skipped: str) -> None:
        unread = sorted(set(self.data) - self.read - set(skipped))
        if unread:
            raise LexiconError(f"{self.where}: no code reads {', '.join(unread)}")


def _person_field(name: str, spec: dict[str, Any]) -> PersonField:
    unknown = set(spec) - {"asked", "held", "any_of", "same_word"}
    if unknown:
        raise LexiconError(f"verifier_words.json: person_fields: {name}: no code reads {', '.join(sorted(unknown))}")
    out = PersonField(name, tuple(fold(w) for w in spec["asked"]), tuple(fold(w) for w in spec["held"]),
                      frozenset(fold(r) for r in spec.get("any_of", ())), bool(spec.get("same_word")))
    if out.same_word and len(out.asked) != len(out.held):
        raise LexiconError(f"verifier_words.json: person_fields: {name}: `same_word` pairs `asked` with `held` "
                           "one by one")
    return out


def _stems(cue: str) -> tuple[str, ...]:
    return tuple(fold(w) for w in cue.split())


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    return read_lexicon(resources.files("kalma_graph").joinpath("data"))


def read_lexicon(folder: _Folder) -> Lexicon:
    """The lexicon of the data files (`DATA_FILES`) in `folder`: `kalma_graph/data` for `load_lexicon`, a changed
    copy of it for a test."""
    raw = {name: folder.joinpath(name).read_bytes() for name in DATA_FILES}
    digests = {name: hashlib.sha256(raw[name]).hexdigest() for name in DATA_FILES}
    sha256 = hashlib.sha256("".join(f"{name} {digests[name]}\n" for name in DATA_FILES).encode("utf-8")).hexdigest()
    cues = _relation_fields(json.loads(raw["relation_cues.json"]))
    words = _word_fields(_Keys(json.loads(raw["verifier_words.json"]), "verifier_words.json"))
    verbs = frozenset(json.loads(raw["question_topics.json"]).get("verbs", ()))  # as `topics.load_topics` reads them
    return Lexicon(**cues, **words, verbs=verbs, stop_and_glue=cues["stop_words"] | words["glue"], sha256=sha256,
                   data_sha256=digests, _aliases_gz=raw["wikidata_properties.tsv.gz"])


def _relation_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The Lexicon's fields from relation_cues.json."""
    relations = {}
    for label, spec in data["relations"].items():
        relations[fold(label)] = RelationCues(
            label=fold(label),
            cues=tuple(_stems(c) for c in spec.get("cues", ())),
            implied=bool(spec.get("implied")),
            near=tuple(fold(n) for n in spec.get("near", ())),
            kin=spec.get("kin"),
            single=bool(spec.get("single")),
            naming=bool(spec.get("naming")),
            active_inverts=bool(spec.get("active_inverts")),
            demonym=bool(spec.get("demonym")),
            nouns=tuple(spec.get("nouns", ())),
            not_words=tuple(fold(w) for w in spec.get("not_words", ())),
            not_as_region=bool(spec.get("not_as_region")),
        )
    return dict(
        relations=relations,
        kin_words={k: tuple(fold(w) for w in v) for k, v in data["kin_words"].items()},
        kin_endings=frozenset(data["kin_endings"]),
        kin_inverse=dict(data["kin_inverse"]),
        person_words=frozenset(fold(w) for w in data["person_words"]),
        evaluative=tuple(_stems(e) for e in data["evaluative"]),
        demonyms={fold(k): tuple(v) for k, v in data["demonyms"].items()},
        stop_words=frozenset(fold(w) for w in data.get("stop_words", ())),
        kin_gender={fold(w): g for g, words in data.get("kin_gender", {}).items() for w in words},
        symmetric=frozenset(fold(label) for label in data.get("symmetric", ())),
        possessed_nouns=frozenset(fold(w) for w in data.get("possessed_persons", {}).get("nouns", ())),
        possessed_modifiers=frozenset(fold(w) for w in data.get("possessed_persons", {}).get("modifiers", ())),
    )


def _century_words(own: _Keys) -> CenturyWords:
    words = CenturyWords(nouns=own.words("nouns"), joins=own.words("joins"),
                         halves={fold(w): (int(lo), int(hi)) for w, (lo, hi) in own["halves"].items()})
    own.done()
    return words


def _pronoun_fields(own: _Keys) -> dict[str, Any]:
    """The Lexicon's pronoun tables (who a pronoun may stand for, and the answerer's own "I")."""
    return dict(
        singular_pronouns=own.words("singular_pronouns"),
        pronoun_gender={fold(w): g for w, g in own["pronoun_gender"].items()},
        subject_pronouns=own.words("subject_pronouns"),
        plural_pronouns=own.words("plural_pronouns"),
        object_pronouns=own.words("object_pronouns"),
        possessive_pronouns=own.words("possessive_pronouns"),
        relative_pronouns=own.words("relative_pronouns"),
        speaker_pronouns=own.words("speaker_pronouns"),
    )


def _word_fields(own: _Keys) -> dict[str, Any]:
    """The Lexicon's fields from verifier_words.json (each key read once; one no code reads is an error)."""
    forward, places, fields = own.sub("reads_forward"), own.sub("place_relations"), own.sub("person_fields")
    months = own.ordered("months")
    out = dict(
        **_pronoun_fields(own),
        articles=own.words("articles"),
        copulas=own.words("copulas"),
        copula_adverbs=own.words("copula_adverbs"),
        coordinators=own.words("coordinators"),
        clause_verbs=own.words("clause_verbs"),
        name_connectors=own.words("name_connectors"),
        generic_heads=own.words("generic_heads"), place_words=own.words("place_words"),
        glue=own.words("glue"),
        adjacent_nouns={fold(w): label for w, label in own["adjacent_nouns"].items()},
        noun_followers=own.words("noun_followers"),
        human_values=own.words("human_values"),
        gender_values={fold(v): g for v, g in own["gender_values"].items()},
        parent_relations=own.ordered("parent_relations"), life_span_relations=own.ordered("life_span_relations"),
        field_relations=own.words("field_relations"), apposed_kinds=own.words("apposed_kinds"),
        negations=own.words("negations"),
        aside_openers=tuple(tuple(fold(w) for w in o.split()) for o in own.ordered("aside_openers")),
        assumed_openers=tuple(tuple(fold(w) for w in o.split()) for o in own.ordered("assumed_openers")),
        suffix_forms=tuple((fold(a), fold(b)) for a, b in own["suffix_forms"].items()),
        kind_heads=own.words("kind_heads"),
        forward_followers=forward.words("followers"),
        forward_stems=forward.ordered("stems"),
        forward_not_stems=forward.ordered("not_stems"),
        forward_noun_endings=forward.ordered("noun_endings"),
        forward_noun_verbs=forward.words("noun_verbs"),
        forward_participles=forward.words("participles"),
        influence_nouns=own.ordered("influence_nouns"),
        skip_after_cue=own.words("skip_after_cue"),
        place_prepositions=own.words("place_prepositions"),
        cause_prepositions=own.words("cause_prepositions"),
        place_label_words=places.ordered("containing"),
        place_labels=places.words("labels"),
        containment_labels=own.words("containment_relations"),
        distributive_words=own.words("distributive_words"),
        ordinals=own.words("ordinals"), role_words=own.words("role_words"),
        centuries=_century_words(own.sub("centuries")),
        talk_words=own.words("talk_words"),
        frame_words=own.words("frame_words"), birth_order_words=own.words("birth_order_words"),
        value_phrases={fold(v): tuple(ps) for v, ps in own["value_phrases"].items()},
        implied_words={fold(w): frozenset(fold(v) for v in vs) for w, vs in own["implied_words"].items()},
        none_phrases={tuple(fold(w) for w in p.split()): label for p, label in own["none_phrases"].items()},
        age_cues=tuple(tuple(fold(w) for w in cue.split()) for cue in own["age_cues"]),
        age_after_cues=tuple(tuple(fold(w) for w in cue.split()) for cue in own["age_after_cues"]),
        rename_words=own.words("rename_words"),
        lives_determiners=own.words("lives_determiners"),
        months=frozenset(months),
        month_index={m: i + 1 for i, m in enumerate(months)} | {m[:3]: i + 1 for i, m in enumerate(months)},
        alias_skip_words=own.words("alias_skip_words"),
        area_words=own.words("area_words"),
        apposed_participles=own.words("apposed_participles"),
        short_year_before=own.words("short_year_before"),
        short_year_after=own.words("short_year_after"),
        elapsed_time_words=own.words("elapsed_time_words"),
        bound_words={**dict.fromkeys(own.words("bound_words_earlier"), -1),
                     **dict.fromkeys(own.words("bound_words_later"), 1)},
        reference_prepositions=own.words("reference_prepositions"),
        range_words=own.words("range_words"),
        maiden_name_words=own.words("maiden_name_words"),
        area_kinds=own.words("area_kinds"),
        object_relative_pronouns=own.words("object_relative_pronouns"),
        era_bc_words=own.words("era_bc_words"), era_ad_words=own.words("era_ad_words"),
        approximate_words=own.words("approximate_words"),
        nickname_words=own.words("nickname_words"),
        hedge_words=own.words("hedge_words"),
        count_words=own.words("count_words"),
        inner_place_words=own.words("inner_place_words"),
        other_place_prefixes=own.words("other_place_prefixes"),
        profile_relations=fields.words("profile_relations"),
        person_fields=tuple(_person_field(name, spec) for name, spec in fields["fields"].items()),
    )
    forward.done()
    places.done()
    fields.done()
    own.done("version", "about")
    return out
