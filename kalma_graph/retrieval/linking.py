"""Entity linking for retrieval and re-ranking (seed 000, §3.1–3.2).

For each NER mention of the question:

1. **exact** — entities whose name or alias equals the mention, case-insensitively (one batched
   `entities_by_names` lookup for all mentions; a trailing abbreviation dot and a leading honorific
   such as "King" or "Dr" are tried next when the mention as written finds nothing);
2. **type filter** — the NER label selects Wikidata classes (`kalma_graph/data/ner_type_map.json`:
   PERSON → human, GPE/LOC → places, ORG → organisations, ...); a candidate passes when one of its
   P31 classes is listed. Candidates without any class cannot contradict the label: they are kept
   only when no typed candidate passes. With `type_policy="prefer"` a filter that would remove every
   candidate is dropped instead (NER mislabels many names, e.g. "Cao Cao" as ORG);
3. **re-ranking** — every remaining candidate is scored by how many of its one-hop neighbours'
   names/values occur in the question as whole words (exact match, case-insensitive); the best score
   wins, ties go to the candidate with more neighbours, then to the smallest id;
4. **partial names** — a mention left without a candidate ("Artemisia" in a question that also names
   Orazio Gentileschi) is matched, as a whole-word part, against the names of entities already
   linked in the question and of their one-hop neighbour entities, and composed with the other person
   mentions' family names ("Artemisia" + "Gentileschi"); only those candidates compete, so the
   fallback never searches the whole graph, and it links only when the answer is unambiguous.
   A Roman numeral right after a mention ("Shapur I") is part of the name and turns the fallback off.

Every candidate keeps its score and the neighbour labels it matched, so a reader can see why one was
chosen.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping, Protocol, Sequence

from kalma_graph.store.base import Entity, GraphStore, name_key

__all__ = [
    "Candidate",
    "LinkedMention",
    "TypeMap",
    "link_entities",
    "load_type_map",
    "selected_entities",
]

TYPE_POLICIES = ("strict", "prefer")
_MIN_PARTIAL_CHARS = 3


@dataclass(frozen=True)
class Candidate:
    """An entity a mention may refer to, with its re-ranking score: the number of its neighbour
    labels found in the question (`matched_labels`)."""

    entity: Entity
    score: float
    matched_labels: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LinkedMention:
    """One mention and what linking made of it. `candidates` are those that survived the type filter,
    best first; `selected` is the first of them, or None; `reason` says how it was decided."""

    mention: str
    ner_label: str
    candidates: list[Candidate]
    selected: Entity | None
    reason: str


class MentionSource(Protocol):
    def mentions(self, text: str) -> list[Any]: ...


# --- the NER label → class map (data) -----------------------------------------------------------


@dataclass(frozen=True)
class TypeMap:
    """NER label → the Wikidata classes it accepts. `None` for a label means "do not link"; a label
    missing from the map is linked without a type filter."""

    labels: Mapping[str, frozenset[str] | None]
    label_groups: Mapping[str, tuple[str, ...] | None]
    honorifics: tuple[str, ...] = ()
    partial_name_labels: frozenset[str] = frozenset({"PERSON"})
    version: str = ""
    sha256: str = ""
    source: str = ""

    def linkable(self, label: str) -> bool:
        return not (label in self.labels and self.labels[label] is None)

    def classes(self, label: str) -> frozenset[str] | None:
        """Accepted classes, or None for "no filter" (unmapped label)."""
        return self.labels.get(label)

    def header(self) -> dict[str, Any]:
        return {"type_map_version": self.version, "type_map_sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], sha256: str = "") -> "TypeMap":
        groups = {g: frozenset(classes) for g, classes in data.get("groups", {}).items()}
        labels: dict[str, frozenset[str] | None] = {}
        label_groups: dict[str, tuple[str, ...] | None] = {}
        for label, wanted in data.get("labels", {}).items():
            if wanted is None:
                labels[label], label_groups[label] = None, None
                continue
            unknown = [g for g in wanted if g not in groups]
            if unknown:
                raise ValueError(f"type map: label {label} names unknown groups {unknown}")
            labels[label] = frozenset().union(*(groups[g] for g in wanted))
            label_groups[label] = tuple(wanted)
        return cls(
            labels=labels,
            label_groups=label_groups,
            honorifics=tuple(data.get("honorifics", ())),
            partial_name_labels=frozenset(data.get("partial_name_labels", ("PERSON",))),
            version=str(data.get("version", "")),
            sha256=sha256,
            source=str(data.get("source", "")),
        )


@lru_cache(maxsize=8)
def load_type_map(path: str | None = None) -> TypeMap:
    """The packaged `kalma_graph/data/ner_type_map.json`, or a file of the same shape."""
    if path is None:
        raw = resources.files("kalma_graph").joinpath("data/ner_type_map.json").read_bytes()
    else:
        with open(path, "rb") as handle:
            raw = handle.read()
    return TypeMap.from_dict(json.loads(raw.decode("utf-8")), sha256=hashlib.sha256(raw).hexdigest())


# --- linking --------------------------------------------------------------------------------------


@dataclass
class _Pending:
    mention: Any
    found: list[Entity]
    how: str  # "exact" | "exact (without honorific 'King')" | ...


def link_entities(
    store: GraphStore,
    text: str,
    ner: MentionSource,
    *,
    type_map: TypeMap | None = None,
    type_policy: str = "strict",
    partial: bool = True,
    mentions: Sequence[Any] | None = None,
) -> list[LinkedMention]:
    """Link the NER mentions of `text` to entities of `store` (see the module docstring).

    `mentions` may be given to skip running `ner` again (they must come from `ner.mentions(text)`).
    Returns one `LinkedMention` per mention, in text order; mentions whose NER label is not an
    entity type (DATE, CARDINAL, ...) are returned unlinked with the reason.
    """
    if type_policy not in TYPE_POLICIES:
        raise ValueError(f"type_policy must be one of {TYPE_POLICIES}, not {type_policy!r}")
    type_map = type_map or load_type_map()
    found_mentions = list(mentions) if mentions is not None else ner.mentions(text)
    variants = {
        id(m): _name_variants(m.text, type_map.honorifics, _regnal_number_after(text, m.end))
        for m in found_mentions
        if type_map.linkable(m.label)
    }
    lookup = store.entities_by_names({v for vs in variants.values() for v, _ in vs}) if variants else {}

    scorer = _Scorer(store, text)
    results: dict[int, LinkedMention] = {}
    unresolved: list[Any] = []
    for m in found_mentions:
        if not type_map.linkable(m.label):
            results[id(m)] = LinkedMention(m.text, m.label, [], None, f"not linked: NER label {m.label} is not an entity type")
            continue
        pending = _exact(m, variants[id(m)], lookup)
        linked = _decide(m, pending.found, pending.how, type_map, type_policy, scorer)
        results[id(m)] = linked
        if linked.selected is None:
            unresolved.append(m)

    if partial and unresolved:
        anchors = [r.selected for r in results.values() if r.selected is not None]
        for m in unresolved:
            if m.label not in type_map.partial_name_labels or _regnal_number_after(text, m.end):
                continue
            found, how = _partial_candidates(store, m, found_mentions, anchors)
            if found:
                linked = _decide_partial(m, found, how, anchors, type_map, scorer)
                if linked is not None:
                    results[id(m)] = linked
    return [results[id(m)] for m in found_mentions]


def selected_entities(linked: Iterable[LinkedMention]) -> list[Entity]:
    """The selected entities, each once, in the order of their first mention."""
    seen: set[str] = set()
    out: list[Entity] = []
    for lm in linked:
        if lm.selected is not None and lm.selected.id not in seen:
            seen.add(lm.selected.id)
            out.append(lm.selected)
    return out


_REGNAL_RE = re.compile(r"[ \t]+((?:X{0,3})(?:IX|IV|V?I{0,3}))(?![\w'\u2019-])")


def _regnal_number_after(text: str, end: int) -> str:
    """A Roman numeral right after a mention ("Shapur" in "Shapur I and Ardashir I"), which NER
    often leaves out of the span; it is part of the name."""
    found = _REGNAL_RE.match(text, end)
    return found.group(1) if found and found.group(1) else ""


def _name_variants(text: str, honorifics: Sequence[str], numeral: str = "") -> list[tuple[str, str]]:
    """Names to look up for a mention, in order of preference, with how each was derived."""
    out = [(f"{text} {numeral}", f"exact (with the regnal number {numeral!r} after the mention)")] if numeral else []
    out.append((text, "exact"))
    if text.endswith(".") and len(text) > 2:
        out.append((text[:-1], "exact (without the final dot)"))
    for title in sorted(honorifics, key=len, reverse=True):
        for form in (title + " ", title + ". "):
            if text.startswith(form) and len(text) > len(form) + 1:
                out.append((text[len(form):], f"exact (without honorific {title!r})"))
                break
        else:
            continue
        break
    return out


def _exact(m: Any, variants: list[tuple[str, str]], lookup: Mapping[str, list[Entity]]) -> _Pending:
    for variant, how in variants:
        found = lookup.get(name_key(variant), [])
        if found:
            return _Pending(m, list(found), how)
    return _Pending(m, [], "exact")


def _decide(
    m: Any, found: list[Entity], how: str, type_map: TypeMap, type_policy: str, scorer: "_Scorer"
) -> LinkedMention:
    if not found:
        return LinkedMention(m.text, m.label, [], None, "no entity with this name or alias")
    kept, filter_note = _type_filter(found, m.label, type_map, type_policy)
    if not kept:
        return LinkedMention(m.text, m.label, [], None, f"{how}: {len(found)} found; {filter_note}")
    ranked = scorer.rank(kept, span=(m.start, m.end))
    best = ranked[0]
    parts = [f"{how}: {len(found)} found"]
    if filter_note:
        parts.append(filter_note)
    if len(ranked) > 1:
        parts.append(_rerank_note(ranked, scorer))
    return LinkedMention(m.text, m.label, ranked, best.entity, "; ".join(parts))


def _type_filter(found: list[Entity], label: str, type_map: TypeMap, policy: str) -> tuple[list[Entity], str]:
    classes = type_map.classes(label)
    if classes is None:
        return found, "" if label in type_map.labels else f"no type filter for NER label {label}"
    groups = "/".join(type_map.label_groups.get(label) or ())
    typed_ok = [e for e in found if classes.intersection(e.types)]
    if typed_ok:
        dropped = [e.id for e in found if e not in typed_ok]
        return typed_ok, (f"type filter {label}→{groups} removed {', '.join(dropped)}" if dropped else "")
    untyped = [e for e in found if not e.types]
    if untyped:
        dropped = [e.id for e in found if e.types]
        note = f"no candidate of type {label}→{groups}; kept those without a class"
        return untyped, note + (f", removed {', '.join(dropped)}" if dropped else "")
    if policy == "prefer":
        return found, f"no candidate of type {label}→{groups}; type filter relaxed (policy 'prefer')"
    return [], f"type filter {label}→{groups} removed all ({', '.join(e.id for e in found)})"


def _rerank_note(ranked: list[Candidate], scorer: "_Scorer") -> str:
    best, second = ranked[0], ranked[1]
    note = "re-ranked by neighbour matches " + ", ".join(f"{c.entity.id}={int(c.score)}" for c in ranked)
    if best.score == second.score:
        if scorer.degree(best.entity.id) != scorer.degree(second.entity.id):
            note += "; tie broken by more neighbours"
        else:
            note += "; tie broken by smallest id"
    return note


class _Scorer:
    """Re-ranking by exact match of neighbour labels in the question, with per-question caches. A
    mention's own words do not count for its candidates ("Stephen" does not support Stephen Crane
    in "Stephen Crane"): the mention's span is blanked before matching."""

    def __init__(self, store: GraphStore, question: str) -> None:
        self.store = store
        self.question = question
        self._labels: dict[str, list[str]] = {}
        self._matched: dict[tuple[str, tuple[int, int]], list[str]] = {}

    def labels(self, entity_id: str) -> list[str]:
        if entity_id not in self._labels:
            self._labels[entity_id] = self.store.neighbour_labels(entity_id)
        return self._labels[entity_id]

    def degree(self, entity_id: str) -> int:
        return len(self.labels(entity_id))

    def matched(self, entity_id: str, span: tuple[int, int] = (0, 0)) -> list[str]:
        key = (entity_id, span)
        if key not in self._matched:
            start, end = span
            text = self.question[:start] + " " * (end - start) + self.question[end:]
            self._matched[key] = [lab for lab in self.labels(entity_id) if _occurs(lab, text)]
        return self._matched[key]

    def rank(self, entities: Sequence[Entity], span: tuple[int, int] = (0, 0)) -> list[Candidate]:
        cands = []
        for e in entities:
            matched = self.matched(e.id, span)
            cands.append(Candidate(entity=e, score=float(len(matched)), matched_labels=matched))
        return sorted(cands, key=lambda c: (-c.score, -self.degree(c.entity.id), _id_order(c.entity.id)))


def _occurs(label: str, text: str) -> bool:
    """`label` occurs in `text` as whole words, case-insensitively."""
    label = label.strip()
    if len(label) < 2:
        return False
    return re.search(rf"(?<!\w){re.escape(label)}(?!\w)", text, re.IGNORECASE) is not None


def _id_order(entity_id: str) -> tuple:
    digits = entity_id[1:] if entity_id[:1] in "QP" else ""
    return (0, int(digits), entity_id) if digits.isdigit() else (1, 0, entity_id)


# --- partial names --------------------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w'\u2019\-]+", text.casefold())


def _contains_tokens(name: str, part: list[str]) -> bool:
    whole = _tokens(name)
    n = len(part)
    return any(whole[i:i + n] == part for i in range(len(whole) - n + 1)) and len(whole) > n


def _partial_candidates(
    store: GraphStore, m: Any, all_mentions: Sequence[Any], anchors: Sequence[Entity]
) -> tuple[list[Entity], str]:
    """Candidates for a person mention that matched nothing: (a) the entities already linked in the
    question and their one-hop neighbour entities whose *name* contains the mention as whole words,
    (b) the mention composed with another person mention's last word ("Jimmy" + "Dorsey" in "Jimmy
    and Tommy Dorsey"; a regnal number or "Jr." is never borrowed). Family-name-first composition
    ("Cao" + "Wei") is not tried: in the BioKaLMA questions it found only wrong persons."""
    part = _tokens(m.text)
    if not part or len(m.text) < _MIN_PARTIAL_CHARS or not m.text[:1].isupper():
        return [], ""
    found: dict[str, Entity] = {}
    notes: list[str] = []
    pool: dict[str, str] = {}  # entity id -> how it relates to the question
    for anchor in anchors:
        pool.setdefault(anchor.id, f"linked {anchor.id}")
        for t in store.one_hop(anchor.id):
            if t.object_id and _contains_tokens(t.value, part):
                pool.setdefault(t.object_id, f"{t.label} of {anchor.id}")
    if pool:
        for e in store.get_entities(pool):
            if e.name and _contains_tokens(e.name, part):
                found[e.id] = e
                notes.append(f"{e.name!r} {e.id} ({pool[e.id]})")
    composed: list[str] = []
    if len(part) == 1:
        for other in all_mentions:
            if other is m or other.label != m.label:
                continue
            words = other.text.split()
            if len(words) >= 2 and not _is_suffix_word(words[-1]):
                composed.append(f"{m.text} {words[-1]}")
    if composed:
        for ents in store.entities_by_names(composed).values():
            for e in ents:
                if e.id not in found:
                    found[e.id] = e
                    notes.append(f"{e.name!r} {e.id} (composed name)")
    how = f"partial name: part of {', '.join(notes)}" if found else ""
    return sorted(found.values(), key=lambda e: _id_order(e.id)), how


def _is_suffix_word(word: str) -> bool:
    return bool(re.fullmatch(r"(?:X{0,3})(?:IX|IV|V?I{0,3})|Jr\.?|Sr\.?|\d+(?:st|nd|rd|th)?", word)) and bool(word)


def _decide_partial(
    m: Any, found: list[Entity], how: str, anchors: Sequence[Entity], type_map: TypeMap, scorer: "_Scorer"
) -> LinkedMention | None:
    """A partial name is linked only when it is unambiguous: one candidate of the right type, or one
    already linked in the question (then it is a second mention of that entity), or a strict winner
    of the neighbour-match score. Untyped candidates and relaxed filters are not accepted here."""
    classes = type_map.classes(m.label)
    typed = [e for e in found if classes is None or classes.intersection(e.types)]
    if not typed:
        return None
    ranked = scorer.rank(typed, span=(m.start, m.end))
    anchor_ids = {a.id for a in anchors}
    linked_before = [c for c in ranked if c.entity.id in anchor_ids]
    if len(ranked) == 1:
        return LinkedMention(m.text, m.label, ranked, ranked[0].entity, how)
    note = _rerank_note(ranked, scorer)
    if len(linked_before) == 1:
        best = linked_before[0]
        ordered = [best] + [c for c in ranked if c is not best]
        return LinkedMention(m.text, m.label, ordered, best.entity, f"{how}; {note}; the one already linked wins")
    if ranked[0].score > ranked[1].score:
        return LinkedMention(m.text, m.label, ranked, ranked[0].entity, f"{how}; {note}")
    return LinkedMention(m.text, m.label, ranked, None, f"{how}; {note}; ambiguous, not linked")
