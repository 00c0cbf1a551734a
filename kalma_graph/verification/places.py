"""Where a place lies, as the graph says it (issue 44): "born in St. Louis, Missouri" cites `place of birth:
St. Louis`, and "Missouri" names where St. Louis lies, not a second claim about the person. Annotators accept it;
a verifier that calls it an absent claim fails a sentence a careful writer would write.

`place_containers` reads, for each place an answer may name (the value of a shown triple whose relation is a
place, `Lexicon.is_place_relation`), the places that contain it: its `containment_relations`
(`verifier_words.json`: located in the administrative territorial entity, country, …) followed up to `DEPTH`
steps, with their names and aliases. `claims.py` accepts a name right after "<held place>," when it is one of
them; any other name there ("Marbach am Neckar, France") stays an absent claim.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from .lexicon import Lexicon
from .records import GraphEntity, GraphTriple
from .text import fold

DEPTH = 3  # city -> state -> country: enough for how a sentence names a place

Lookup = Callable[[list[str]], Mapping[str, Sequence[GraphTriple]]]


def place_containers(shown: Sequence[GraphTriple], lookup: Lookup, lexicon: Lexicon,
                     entities: Callable[[list[str]], Iterable[GraphEntity]] | None = None,
                     depth: int = DEPTH) -> dict[str, frozenset[str]]:
    """Folded place name (a shown place value) -> the folded names (and aliases, via `entities`) of the places
    that contain it within `depth` steps of `lookup` (ids -> their statements)."""
    places = {t.object_id: t.value for t in shown if t.object_id and lexicon.is_place_relation(t.label)}
    if not places:
        return {}
    parents: dict[str, set[str]] = {}
    names: dict[str, str] = dict(places)
    seen = set(places)
    for pid, t in containment_edges(places, lookup, lexicon, depth):
        assert t.object_id is not None  # `containment_edges` yields only statements about an item
        parents.setdefault(pid, set()).add(t.object_id)
        names.setdefault(t.object_id, t.value)
        seen.add(t.object_id)
    said: dict[str, set[str]] = {i: {fold(n)} for i, n in names.items()}
    if entities is not None:
        for e in entities(sorted(seen - set(places))):
            said.setdefault(e.id, set()).update(fold(a) for a in (e.name, *e.aliases) if a)
    out: dict[str, frozenset[str]] = {}
    for pid, name in places.items():
        above: set[str] = set()
        level = parents.get(pid, set())
        for _ in range(depth):
            above |= level
            level = {p for q in level for p in parents.get(q, ())} - above
        if above:
            out[fold(name)] = frozenset(w for p in above for w in said.get(p, ()))
    return out


def containment_edges(places: Iterable[str], lookup: Lookup, lexicon: Lexicon,
                      depth: int = DEPTH) -> list[tuple[str, GraphTriple]]:
    """(place id, its statement saying what contains it) for the places and those containing them, `depth` steps up
    (`Lexicon.containment_labels`), level by level in id order: the walk `place_containers` reads, and what the
    labelled sets' export shows annotators (`bench/verifier_label_export_v2.py --context`)."""
    edges: list[tuple[str, GraphTriple]] = []
    frontier = set(places)
    seen = set(frontier)
    for _ in range(depth):
        if not frontier:
            break
        nxt: set[str] = set()
        for pid, triples in sorted(lookup(sorted(frontier)).items()):
            for t in triples:
                if t.object_id and fold(t.label) in lexicon.containment_labels:
                    edges.append((pid, t))
                    if t.object_id not in seen:
                        nxt.add(t.object_id)
        seen |= nxt
        frontier = nxt
    return edges


def shown_lookup(shown: Sequence[GraphTriple]) -> Lookup:
    """`lookup` over the triples shown (no store): a place's containment only when the answer was shown it."""
    by_subject: dict[str, list[GraphTriple]] = {}
    for t in shown:
        by_subject.setdefault(t.subject, []).append(t)
    return lambda ids: {i: by_subject.get(i, []) for i in ids}


class LazyContainers(Mapping[str, frozenset[str]]):
    """`place_containers`, walked on first use: only a name right after "<held place>," asks for it, or a place
    that would contradict a held one (is it vaguer or more precise?), which most answers never write, and with a
    store the walk costs up to four round trips per answer (`verify` over thousands of answers pays them on its
    hot path otherwise)."""

    def __init__(self, compute: Callable[[], Mapping[str, frozenset[str]]]) -> None:
        self._compute = compute
        self._found: Mapping[str, frozenset[str]] | None = None

    def _walked(self) -> Mapping[str, frozenset[str]]:
        if self._found is None:
            self._found = self._compute()
        return self._found

    def __getitem__(self, key: str) -> frozenset[str]:
        return self._walked()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._walked())

    def __len__(self) -> int:
        return len(self._walked())


class SaidPlaces:
    """Where a place the sentence names lies, as far as the graph knows it: for a folded name, the folded names of
    the places containing it (`place_containers` of the entities of that name) and their descriptions ("city in
    Oxfordshire, England"), or None when the graph knows no place of that name (`contradicts` says what that
    decides). Looked up on first use, once per name: only a would-be contradiction asks."""

    def __init__(self, find: Callable[[str], Sequence[tuple[GraphEntity, str]]], lookup: Lookup, lexicon: Lexicon,
                 entities: Callable[[list[str]], Iterable[GraphEntity]] | None = None) -> None:
        self._find, self._lookup, self._lexicon, self._entities = find, lookup, lexicon, entities
        self._said: dict[str, frozenset[str] | None] = {}
        # `inside`: "Ancient Rome" is no Rome, "Los Angeles County" no Los Angeles
        self._not_after = "".join(rf"(?<!{re.escape(w)} )" for w in sorted(lexicon.other_place_prefixes))
        self._areas = "|".join(map(re.escape, sorted(lexicon.area_words)))

    def lies_in(self, name: str) -> frozenset[str] | None:
        key = fold(name)
        if key not in self._said:
            found = self._find(name)
            if not found:
                self._said[key] = None
            else:
                as_held = [GraphTriple(subject="_", label="place of birth", value=e.name or name, object_id=e.id)
                           for e, _ in found]
                walked = place_containers(as_held, self._lookup, self._lexicon, self._entities)
                self._said[key] = frozenset(w for ws in walked.values() for w in ws) | \
                    frozenset(fold(d) for _, d in found if d)
        return self._said[key]

    def inside(self, name: str, held: str) -> bool | None:
        """Whether the graph puts the place `name` inside the place `held` (None: it cannot say where `name` lies)."""
        above = self.lies_in(name)
        if not above:
            return None
        # the held name as a container's or in a description ("city in Oxfordshire, England", "inner-city area of
        # central London"); not part of another place's name: after an `other_place_prefixes` word (the graph puts
        # London in Ancient Rome, v32) or before an area's word ("city in Los Angeles County" is not in the city of
        # Los Angeles, v32)
        pattern = re.compile(rf"(?<!\w){self._not_after}{re.escape(fold(held))}(?!\w)(?! (?:{self._areas})(?!\w))")
        return any(pattern.search(d) for d in above)

    def contradicts(self, name: str, held: str) -> bool:
        """Whether the place `name`, said where the graph holds `held`, is another place: one the graph locates
        outside `held`, or one it cannot locate where `held` is a town or city (an area may hold it); never one the
        graph puts `held` inside ("born in Tennessee" where it holds Memphis, "county seat of …, Tennessee"): vaguer;
        nor an area the graph cannot place where it cannot place `held` either ("born in Fuping County" where it
        holds Zhonghe: the county may hold it), nor any place where `held` is part of a town the graph cannot
        place ("died in Stockholm" where it holds Oscar Parish), nor a building or part of a town it cannot place
        ("died … at Henry Ford Hospital" where it holds Detroit, v29), nor a nation where the graph cannot place `held`
        ("died in Greece" where it holds the Balkans as a name only)."""
        held_in = self.inside(held, name)
        if held_in or (held_in is None and fold(name) in self._lexicon.demonyms):
            return False  # a nation may hold a place the graph cannot locate ("died in Greece": the Balkans)
        held_words = set(fold(held).split())
        if held_in is None and held_words & self._lexicon.inner_place_words:
            return False
        inside = self.inside(name, held)
        if (inside is None or held_in is None) and spelled_alike(fold(name), fold(held),
                                                                  0.65 if inside is None else 0.8):
            # another spelling of a place the graph cannot locate ("Nafplio": Nauplion); a place it locates said
            # where it holds one it cannot, spelled closer ("Chengdu": Chengtu 0.86, not "Amsterdam": Rotterdam 0.67)
            return False
        if inside is None:
            if held_in is None and set(fold(name).split()) & self._lexicon.area_words:
                return False
            if set(fold(name).split()) & self._lexicon.inner_place_words:
                return False  # a building or part of a town the graph cannot place: "died at Henry Ford Hospital"
            return not (held_words & self._lexicon.area_words or fold(held) in self._lexicon.demonyms
                        or self._an_area(held))
        if not inside and self.lies_in(held) is None and (held_words & self._lexicon.area_words or self._an_area(held)):
            return False  # an area the graph cannot locate may hold the place it locates ("Ye" for Ji Province)
        return not inside

    def _an_area(self, held: str) -> bool:
        """The graph says the held place is an area (`instance of: state of the United States` for Missouri;
        `area_kinds`): a town it cannot locate may lie in it ("buried in Potosi")."""
        found = self._find(held)
        if not found:
            return False
        kinds = [fold(t.value) for ts in self._lookup([e.id for e, _ in found]).values() for t in ts
                 if fold(t.label) == "instance of"]
        return any(k == a or k.startswith(a + " of ") for k in kinds for a in self._lexicon.area_kinds)


def spelled_alike(said: str, held: str, ratio: float = 0.65) -> bool:
    """Two folded place names that differ as transliterations do: about two thirds of their letters in common runs
    (difflib's ratio; "grodno"/"hrodna" 0.67, "nafplio"/"nauplion" 0.80, "paris"/"toulouse" 0.15), the said name
    read up to each of its words ("Nafplio outside the church": "nafplio")."""
    words, held_words = said.split(), held.split()
    shared = set(words) & set(held_words)
    if shared and len(shared) < min(len(words), len(held_words)):
        # a word both names share tells nothing: "San Anselmo" is no spelling of "San Francisco" (0.67 whole; v28)
        words, held = [w for w in words if w not in shared], " ".join(w for w in held_words if w not in shared)
    return any(SequenceMatcher(None, " ".join(words[:k]), held).ratio() >= ratio for k in range(1, len(words) + 1))
