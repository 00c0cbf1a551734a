"""Entity linking for retrieval and re-ranking (seed 000, §3.1–3.2; issue 18).

For each mention of the question:

0. **mentions** — the NER mentions; under the `graph` type policy (the default) also the phrases of
   the question that are names or aliases in the graph (`mentions.py`: longest match, n ≤ 8 words,
   possessives stripped, punctuation-tolerant), merged with the NER spans. Every mention records its
   `source` (`ner`, `graph`, `ner+graph`). All names of a question go to the store in one query
   (`lookup.py`, `cypher/name_matches.*.cypher`);
1. **exact** — entities whose name or alias equals the mention, case-insensitively (a trailing
   abbreviation dot and a leading honorific such as "King" or "Dr" are tried next when an NER
   mention as written finds nothing);
2. **type filter** — `strict` (the paper): the NER label selects Wikidata classes
   (`kalma_graph/data/ner_type_map.json`: PERSON → human, GPE/LOC → places, ORG → organisations,
   ...); a candidate passes when one of its P31 classes is listed. Candidates without any class cannot
   contradict the label: they are kept only when no typed candidate passes. `prefer`: a filter that
   would remove every candidate is dropped instead. `graph`: the label, the question's wording and
   the graph (an exact match that is human) all name right classes (`evidence.py`); a candidate
   without a class never beats one of a right class;
3. **re-ranking** — every remaining candidate is scored by how many of its one-hop neighbours'
   names/values occur in the question as whole words (exact match, case-insensitive); the best score
   wins. Ties: under `graph` first the candidate of a class the NER label or wording names, then
   one with a class; under every policy then the **prior**: the candidate with more statements (its
   outgoing statements, as Wikidata counts an item's statements — well-described entities are the
   ones questions ask about), then the smallest id;
4. **partial names** — a PERSON mention left without a candidate ("Artemisia" in a question that
   also names Orazio Gentileschi) is matched, as a whole-word part, against the names of entities
   already linked in the question and of their one-hop neighbour entities, and composed with the other
   person mentions' family names ("Artemisia" + "Gentileschi"); only those candidates compete, so the
   fallback never searches the whole graph, and it links only when the answer is unambiguous.
   A Roman numeral right after a mention ("Shapur I") is part of the name and turns the fallback off.

Every candidate keeps its score and the neighbour labels it matched, so a reader can see why one was
chosen. Work is bounded: `MAX_CHARS` characters of a question are read, `MAX_MENTIONS` mentions
linked and `MAX_CANDIDATES` candidates per mention scored (those with most statements).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

from kalma_graph.kg.triples import Entity
from kalma_graph.models.protocols import MentionDetector
from kalma_graph.store.base import GraphStore

from .evidence import graph_type_filter, wording_classes
from .lookup import lookup_names
from .mentions import MAX_CHARS, DetectedMention, analysed_text, plan_mentions, resolve_mentions

__all__ = [
    "Candidate",
    "DEFAULT_TYPE_POLICY",
    "LinkedMention",
    "Linking",
    "TYPE_POLICIES",
    "TypeMap",
    "link_entities",
    "link_question",
    "load_type_map",
    "selected_entities",
]

TYPE_POLICIES = ("strict", "prefer", "graph")
# The default: graph-aware mentions and type evidence (issue 18). `strict` is the paper's and what
# the paper-reproduction experiments use.
DEFAULT_TYPE_POLICY = "graph"
MAX_MENTIONS = 48  # linkable mentions per question; each costs re-ranking queries
MAX_CANDIDATES = 24  # candidates scored per mention (those with most statements), for huge namesake sets
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
    best first; `selected` is the first of them, or None; `reason` says how it was decided;
    `source` where the mention came from (`ner`, `graph`: a name of the graph found in the question,
    `ner+graph`: both); `ner_label` is "" for a graph-only mention; `start`/`end` its offsets."""

    mention: str
    ner_label: str
    candidates: list[Candidate]
    selected: Entity | None
    reason: str
    source: str = "ner"
    start: int = -1
    end: int = -1


@dataclass(frozen=True)
class Linking:
    """A question's linked mentions, and question-level notes (what was bounded, why nothing was
    linked)."""

    linked: list[LinkedMention]
    notes: tuple[str, ...] = ()
    graph_mentions: bool = False
    holders: tuple[Entity, ...] = ()  # entities holding an unlinked person's name as a family value

    @property
    def reason(self) -> str:
        """Why the question has no selected entity ("" when it has one), plus the notes."""
        parts = list(self.notes)
        if not any(lm.selected is not None for lm in self.linked) and not self.holders:
            linkable = [lm for lm in self.linked if not lm.reason.startswith("not linked: NER label")]
            if not self.linked:
                parts.insert(0, "no entity: NER found no mention" + (
                    " and no phrase of the question is a name or alias in the graph" if self.graph_mentions else ""))
            elif not linkable:
                parts.insert(0, "no entity: the question's mentions are dates or numbers, not entities")
            else:
                parts.insert(0, f"no entity: {len(linkable)} mention(s), none linked")
        return "; ".join(parts)


# --- the NER label → class map (data) -----------------------------------------------------------


@dataclass(frozen=True)
class TypeMap:
    """NER label → the Wikidata classes it accepts. `None` for a label means "do not link"; a label
    missing from the map is linked without a type filter."""

    labels: Mapping[str, frozenset[str] | None]
    label_groups: Mapping[str, tuple[str, ...] | None]
    honorifics: tuple[str, ...] = ()
    partial_name_labels: frozenset[str] = frozenset({"PERSON"})
    value_link_relations: frozenset[str] = frozenset()
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
            value_link_relations=frozenset(data.get("value_link_relations", ())),
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


def link_entities(store: GraphStore, text: str, ner: MentionDetector | None, **options: Any) -> list[LinkedMention]:
    """The linked mentions of `link_question` (same options), without the question-level notes."""
    return link_question(store, text, ner, **options).linked


def link_question(
    store: GraphStore,
    text: str,
    ner: MentionDetector | None,
    *,
    type_map: TypeMap | None = None,
    type_policy: str = DEFAULT_TYPE_POLICY,
    partial: bool = True,
    mentions: Sequence[Any] | None = None,
    graph_mentions: bool | None = None,
    score_single: bool = True,
) -> Linking:
    """Link the mentions of `text` to entities of `store` (see the module docstring).

    `mentions` may be given to skip running `ner` again (they must come from `ner.mentions(text)`).
    `graph_mentions` adds the phrases found in the graph's name index (default: under the `graph`
    policy only, so `strict` stays the paper's NER-only pipeline). The result holds one `LinkedMention` per
    mention, in text order; mentions whose NER label is not an entity type (DATE, CARDINAL, ...) are
    returned unlinked with the reason; `Linking.reason` notes the question as a whole. `score_single=False`: a
    mention with one candidate is not scored (its matched labels, two round trips, decide nothing; `verify`).
    """
    if type_policy not in TYPE_POLICIES:
        raise ValueError(f"type_policy must be one of {TYPE_POLICIES}, not {type_policy!r}")
    type_map = type_map or load_type_map()
    use_graph = type_policy == "graph" if graph_mentions is None else graph_mentions
    text = text if isinstance(text, str) else str(text or "")
    analysed, cut = analysed_text(text)
    notes = [f"only the first {len(analysed)} of {len(text)} characters were read (limit {MAX_CHARS})"] if cut else []
    if mentions is not None:
        found_mentions = list(mentions)
    else:
        found_mentions = ner.mentions(analysed) if ner is not None and analysed.strip() else []

    variants = {
        id(m): _name_variants(m.text, type_map.honorifics, _regnal_number_after(text, m.end))
        for m in found_mentions
        if type_map.linkable(m.label)
    }
    plan = plan_mentions(analysed, found_mentions, variants, graph=use_graph)
    notes += plan.notes
    lookup = lookup_names(store, plan.names())
    detected = resolve_mentions(plan, lookup, linkable=type_map.linkable, honorifics=type_map.honorifics)

    scorer = _Scorer(store, analysed, lookup.statements, type_policy, score_single)
    results: list[LinkedMention] = []
    unresolved: list[tuple[int, DetectedMention]] = []
    n_linkable = 0
    for d in detected:
        if not isinstance(d, DetectedMention):  # an NER mention of a DATE, CARDINAL, ... label
            results.append(
                LinkedMention(d.text, d.label, [], None, f"not linked: NER label {d.label} is not an entity type",
                              "ner", d.start, d.end))
            continue
        n_linkable += 1
        if n_linkable > MAX_MENTIONS:
            results.append(_unlinked(d, f"not linked: more than {MAX_MENTIONS} mentions in the question"))
            continue
        linked = _decide(d, type_map, type_policy, scorer, analysed)
        results.append(linked)
        if linked.selected is None and d.source == "ner":
            unresolved.append((len(results) - 1, d))

    if partial and unresolved:
        anchors = [r.selected for r in results if r.selected is not None]
        for index, d in unresolved:
            m = d.ner_mention
            if m.label not in type_map.partial_name_labels or _regnal_number_after(text, m.end):
                continue
            found, how = _partial_candidates(store, m, found_mentions, anchors, scorer.one_hop)
            if found:
                decided = _decide_partial(m, found, how, anchors, type_map, scorer)
                if decided is not None:
                    results[index] = decided
    holders = _value_holders(store, results, type_map)
    if holders:
        notes.append("held only as a family value: " + ", ".join(f"{m} ({e.name or e.id})" for m, e in holders))
    return Linking(results, tuple(notes), use_graph, tuple(dict.fromkeys(e for _, e in holders)))


MAX_HOLDERS = 3  # a name held by more entities is too common to say whose relative it is


def _value_holders(store: GraphStore, results: Sequence[LinkedMention], type_map: TypeMap) -> list[tuple[str, Entity]]:
    """For each PERSON mention left unlinked, the entities that hold its exact name as the value of a family
    relation (`value_link_relations`): "Ian Khama" is Seretse Khama's child in the BioKaLMA records, and no
    entity of his own. (mention, holder) pairs, at most `MAX_HOLDERS` a mention."""
    wanted = [lm.mention for lm in results if lm.selected is None and lm.ner_label in type_map.partial_name_labels
              and not any(o.selected is not None and lm.mention in o.mention for o in results)]
    if not wanted or not type_map.value_link_relations:
        return []
    found = [t for t in store.value_holders(wanted) if t.label in type_map.value_link_relations]
    entities = {e.id: e for e in store.get_entities({t.subject for t in found})}
    out = []
    for mention in dict.fromkeys(wanted):
        ids = list(dict.fromkeys(t.subject for t in found if t.value == mention and t.subject in entities))
        if 0 < len(ids) <= MAX_HOLDERS:
            out += [(mention, entities[i]) for i in ids]
    return out


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
    """Names to look up for an NER mention, in order of preference, with how each was derived."""
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


def _unlinked(d: DetectedMention, reason: str) -> LinkedMention:
    return LinkedMention(d.text, d.label, [], None, reason, d.source, d.start, d.end)


def _decide(d: DetectedMention, type_map: TypeMap, type_policy: str, scorer: "_Scorer", text: str) -> LinkedMention:
    prefix = _source_note(d)
    if not d.found:
        return _unlinked(d, prefix + "no entity with this name or alias")
    preferred: frozenset[str] = frozenset()
    if type_policy == "graph":
        cue_classes, cue = wording_classes(text, d.start, d.end, type_map)
        evidence = graph_type_filter(d.found, d.label, type_map, cue_classes, cue)
        kept, filter_note, preferred = evidence.kept, evidence.note, evidence.preferred
    else:
        kept, filter_note = _type_filter(d.found, d.label, type_map, type_policy)
    if not kept:
        return _unlinked(d, f"{prefix}{d.how}: {len(d.found)} found; {filter_note}")
    parts = [f"{prefix}{d.how}: {len(d.found)} found"]
    if filter_note:
        parts.append(filter_note)
    if len(kept) > MAX_CANDIDATES:
        kept = sorted(kept, key=lambda e: (-scorer.statements(e.id), _id_order(e.id)))[:MAX_CANDIDATES]
        parts.append(f"scored the {MAX_CANDIDATES} with most statements")
    ranked = scorer.rank(kept, span=(d.start, d.end), preferred=preferred)
    if len(ranked) > 1:
        parts.append(_rerank_note(ranked, scorer, preferred))
    return LinkedMention(d.text, d.label, ranked, ranked[0].entity, "; ".join(parts), d.source, d.start, d.end)


def _source_note(d: DetectedMention) -> str:
    if d.source != "graph":
        return ""
    return f"graph name ({d.note}): " if d.note else "graph name: "


def _type_filter(found: list[Entity], label: str, type_map: TypeMap, policy: str) -> tuple[list[Entity], str]:
    classes = type_map.classes(label)
    if classes is None:
        if not label:
            return found, ""
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


def _rerank_note(ranked: list[Candidate], scorer: "_Scorer", preferred: frozenset[str] = frozenset()) -> str:
    best, second = ranked[0], ranked[1]
    note = "re-ranked by neighbour matches " + ", ".join(f"{c.entity.id}={int(c.score)}" for c in ranked)
    if best.score == second.score:
        note += "; tie broken by " + scorer.tie_break(best.entity, second.entity, preferred)
    return note


class _Scorer:
    """Re-ranking by exact match of neighbour labels in the question, with per-question caches. A
    mention's own words do not count for its candidates ("Stephen" does not support Stephen Crane
    in "Stephen Crane"): the mention's span, and the same name elsewhere in the question, are blanked
    before matching, and a label that is a word of the name (the given-name entity "Kim") does not
    count. Ties go to the prior (more
    statements), under `graph` after the class evidence."""

    def __init__(self, store: GraphStore, question: str, statements: Mapping[str, int], policy: str,
                 score_single: bool = True) -> None:
        self.store = store
        self.score_single = score_single
        self.question = question
        self.policy = policy
        self._statements = dict(statements)
        self._labels: dict[str, list[str]] = {}
        self._one_hop: dict[str, list] = {}
        self._matched: dict[tuple[str, tuple[int, int]], list[str]] = {}

    def labels(self, entity_id: str) -> list[str]:
        if entity_id not in self._labels:
            self._labels[entity_id] = self.store.neighbour_labels(entity_id)
        return self._labels[entity_id]

    def one_hop(self, entity_id: str) -> list:
        """The entity's outgoing statements, fetched once per question."""
        if entity_id not in self._one_hop:
            self._one_hop[entity_id] = self.store.one_hop(entity_id)
        return self._one_hop[entity_id]

    def statements(self, entity_id: str) -> int:
        """Outgoing statements: from the name lookup, else (partial-name candidates) counted once in
        the database."""
        if entity_id not in self._statements:
            self._statements[entity_id] = self.store.out_degree(entity_id)
        return self._statements[entity_id]

    def matched(self, entity_id: str, span: tuple[int, int] = (0, 0)) -> list[str]:
        key = (entity_id, span)
        if key not in self._matched:
            start, end = span
            text = self.question[:start] + " " * (end - start) + self.question[end:]
            name = self.question[start:end].strip()
            if len(name) >= 2:  # the same name elsewhere in the question ("Victor Hugo's ... Victor Hugo's")
                text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", lambda m: " " * len(m.group()), text,
                              flags=re.IGNORECASE)
            # A label that is a word of the name itself (the given-name entity "Kim" of Kim Jong-il)
            # supports every namesake alike: it does not count either.
            self._matched[key] = [lab for lab in self.labels(entity_id) if _occurs(lab, text)
                                  and not _occurs(lab, name)]
        return self._matched[key]

    def _tie_key(self, e: Entity, preferred: frozenset[str]) -> tuple:
        if self.policy == "graph":
            return (not preferred.intersection(e.types), not e.types, -self.statements(e.id), _id_order(e.id))
        return (-self.statements(e.id), _id_order(e.id))

    def tie_break(self, best: Entity, second: Entity, preferred: frozenset[str]) -> str:
        """Which part of the tie key decided between the two best (for the reason)."""
        a, b = self._tie_key(best, preferred), self._tie_key(second, preferred)
        names = (["the class the NER label or wording names", "having a class"] if self.policy == "graph" else [])
        names += ["more statements (prior)", "smallest id"]
        return next((n for n, x, y in zip(names, a, b) if x != y), "smallest id")

    def rank(self, entities: Sequence[Entity], span: tuple[int, int] = (0, 0),
             preferred: frozenset[str] = frozenset()) -> list[Candidate]:
        cands = []
        for e in entities:
            matched = self.matched(e.id, span) if self.score_single or len(entities) > 1 else []
            cands.append(Candidate(entity=e, score=float(len(matched)), matched_labels=matched))
        return sorted(cands, key=lambda c: (-c.score, *self._tie_key(c.entity, preferred)))


def _occurs(label: str, text: str) -> bool:
    """`label` occurs in `text` as whole words, case-insensitively. Plain string search, not a regular expression
    per label: a question's candidates bring thousands of labels, and compiling each (past `re`'s cache of 512)
    took 80 % of `verify`'s time on a large graph."""
    label = label.strip().casefold()
    if len(label) < 2:
        return False
    hay = _folded(text)
    start = hay.find(label)
    while start != -1:
        end = start + len(label)
        if (start == 0 or not _is_word(hay[start - 1])) and (end == len(hay) or not _is_word(hay[end])):
            return True
        start = hay.find(label, start + 1)
    return False


@lru_cache(maxsize=64)
def _folded(text: str) -> str:
    return text.casefold()


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


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
    store: GraphStore, m: Any, all_mentions: Sequence[Any], anchors: Sequence[Entity], one_hop: Any = None
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
        for t in (one_hop or store.one_hop)(anchor.id):
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
        for ents in lookup_names(store, composed).by_key.values():
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
        return LinkedMention(m.text, m.label, ranked, ranked[0].entity, how, "ner", m.start, m.end)
    note = _rerank_note(ranked, scorer)
    if len(linked_before) == 1:
        best = linked_before[0]
        ordered = [best] + [c for c in ranked if c is not best]
        reason = f"{how}; {note}; the one already linked wins"
        return LinkedMention(m.text, m.label, ordered, best.entity, reason, "ner", m.start, m.end)
    if ranked[0].score > ranked[1].score:
        return LinkedMention(m.text, m.label, ranked, ranked[0].entity, f"{how}; {note}", "ner", m.start, m.end)
    return LinkedMention(m.text, m.label, ranked, None, f"{how}; {note}; ambiguous, not linked", "ner", m.start, m.end)
