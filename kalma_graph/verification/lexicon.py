"""What the verifier knows about relations: cues, implied relations, near relations, kinship, names of
nations (data: `kalma_graph/data/relation_cues.json`; Wikidata property labels and aliases from
`kalma_graph/data/wikidata_properties.tsv.gz` for every relation the data file does not list)."""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .text import fold, phrase

_GENERIC_ALIAS_WORDS = frozenset("the a an of in at on to is was has have for by with and or".split())


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
    nouns: tuple[str, ...] = ()  # the relation as a noun where its label is none ("influences"): names it like its label
    not_words: tuple[str, ...] = ()  # family words that state another relation ("married" is no unmarried partner)
    not_as_region: bool = False  # a value written as where a place lies ("in Indore, India") is not this relation


@dataclass(frozen=True)
class Lexicon:
    relations: dict[str, RelationCues]
    kin_words: dict[str, tuple[str, ...]]
    kin_inverse: dict[str, str]
    person_words: frozenset[str]
    evaluative: tuple[tuple[str, ...], ...]
    demonyms: dict[str, tuple[str, ...]]  # folded country/people name -> adjectives
    stop_words: frozenset[str] = frozenset()
    kin_gender: dict[str, str] = field(default_factory=dict)  # folded family word -> "m" / "f" ("daughter" -> "f")
    symmetric: frozenset[str] = frozenset()  # folded labels of relations that read the same both ways
    possessed_nouns: frozenset[str] = frozenset()  # "S's brother", "his teacher": a person other than S
    possessed_modifiers: frozenset[str] = frozenset()  # words that may stand between ("S's older brother")
    sha256: str = ""
    _fallback: dict[str, RelationCues] = field(default_factory=dict, compare=False, hash=False)

    def relation(self, label: str) -> RelationCues:
        """The cues of a property label; labels the data file does not list use their Wikidata label and
        aliases (`field of work` → `field`, `work`) as cues."""
        key = fold(label.strip())
        found = self.relations.get(key)
        if found is not None:
            return found
        cached = self._fallback.get(key)
        if cached is None:
            words = [w for w in phrase(label) if w not in _GENERIC_ALIAS_WORDS]
            cues = {tuple(w[:6] for w in words)} if words else set()
            for alias in _wikidata_aliases().get(key, ()):
                alias_words = [w for w in phrase(alias) if w not in _GENERIC_ALIAS_WORDS]
                if alias_words and len(alias_words) <= 3:
                    cues.add(tuple(w[:6] for w in alias_words))
            cached = RelationCues(label=key, cues=tuple(sorted(cues)))
            self._fallback[key] = cached
        return cached

    def kin_class_of(self, word: str) -> str | None:
        for cls, words in self.kin_words.items():
            if any(word.startswith(w) for w in words):
                return cls
        return None


@lru_cache(maxsize=1)
def _wikidata_aliases() -> dict[str, tuple[str, ...]]:
    raw = resources.files("kalma_graph").joinpath("data/wikidata_properties.tsv.gz").read_bytes()
    out: dict[str, tuple[str, ...]] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) >= 4 and parts[1]:
            out[fold(parts[1])] = tuple(a.strip() for a in parts[3].split("|") if a.strip())
    return out


def _stems(cue: str) -> tuple[str, ...]:
    return tuple(fold(w) for w in cue.split())


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    raw = resources.files("kalma_graph").joinpath("data/relation_cues.json").read_bytes()
    data = json.loads(raw)
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
    return Lexicon(
        relations=relations,
        kin_words={k: tuple(fold(w) for w in v) for k, v in data["kin_words"].items()},
        kin_inverse=dict(data["kin_inverse"]),
        person_words=frozenset(fold(w) for w in data["person_words"]),
        evaluative=tuple(_stems(e) for e in data["evaluative"]),
        demonyms={fold(k): tuple(v) for k, v in data["demonyms"].items()},
        stop_words=frozenset(fold(w) for w in data.get("stop_words", ())),
        kin_gender={fold(w): g for g, words in data.get("kin_gender", {}).items() for w in words},
        symmetric=frozenset(fold(label) for label in data.get("symmetric", ())),
        possessed_nouns=frozenset(fold(w) for w in data.get("possessed_persons", {}).get("nouns", ())),
        possessed_modifiers=frozenset(fold(w) for w in data.get("possessed_persons", {}).get("modifiers", ())),
        sha256=hashlib.sha256(raw).hexdigest(),
    )
