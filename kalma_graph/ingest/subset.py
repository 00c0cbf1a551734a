"""Subsets of a dump, chosen while streaming it: `kalma-graph ingest … --subset RULES`.

Rules, joined with `;` (or given as several `--subset` options):

- `P31=Q5` — entities with a statement `P31 → Q5` (several classes: `P31=Q5|Q95074`; a class file,
  one id per line, e.g. a subclass closure: `P31=@classes.txt`). Any property works (`P106=Q36180`).
- `seeds=FILE` and `hops=N` (0, 1 or 2) — the ids in FILE (one per line) and the entities their
  item-valued statements reach in N hops.
- `props=P19|P20|P27` — only these properties of the kept entities; `-props=P1343|P1455` all but these.

An entity is kept (its name, aliases, description and the allowed statements) when it matches any
membership rule (`P…=` or `seeds=`), or always when there is none. Objects of kept statements that
are outside the subset are written as *labelled objects*: their id, name, aliases and description,
no statements — read in a last pass over the same files, so `Gustave Flaubert —place of birth→ Rouen`
shows `Rouen` by name without loading Rouen's own claims.

Passes: membership that a line cannot decide alone (a class statement on another line of an
N-Triples dump; hops) is collected first, one streaming pass per need (ids only: memory grows with
the subset, not the dump); then the load pass; then the labels pass.

The rule and its fingerprint (the rule text, plus the SHA-256 of every file it names) are stored in
the graph: an ingest with another rule, or none, into that store is refused rather than mixed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from ..errors import BadInputError
from ..files import file_sha256
from ..store.base import EntityRecord, GraphStore, StatementRecord
from .readers.base import LineError, ParsedLine, Reader

SUBSET_KEY = "ingest:subset"
MAX_HOPS = 2
# Formats whose line holds a whole entity (its class statements included): membership by class is
# decided on the line itself, without a collection pass.
WHOLE_ENTITY_FORMATS = frozenset({"wikidata-json", "biokalma"})


class SubsetError(BadInputError, ValueError):
    """A subset rule that cannot be read, or one that differs from the store's."""


@dataclass(frozen=True)
class ClassRule:
    pid: str
    classes: frozenset[str]
    source: str  # as written: `Q5|Q95074` or `@classes.txt`


@dataclass
class Subset:
    """A parsed rule; `members` is filled by `collect_members` (collection passes) when needed."""

    class_rules: list[ClassRule] = field(default_factory=list)
    seeds: frozenset[str] = frozenset()
    seeds_file: str | None = None
    hops: int = 0
    allow: frozenset[str] | None = None
    deny: frozenset[str] = frozenset()
    file_hashes: dict[str, str] = field(default_factory=dict)
    members: set[str] | None = None  # ids decided by collection passes

    @property
    def has_membership(self) -> bool:
        return bool(self.class_rules or self.seeds_file)

    @property
    def fingerprint(self) -> str:
        canonical = json.dumps({"rule": self.canonical(), "files": self.file_hashes}, sort_keys=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def canonical(self) -> str:
        parts = [f"{r.pid}={r.source}" for r in self.class_rules]
        if self.seeds_file:
            parts += [f"seeds={self.seeds_file}", f"hops={self.hops}"]
        if self.allow is not None:
            parts.append("props=" + "|".join(sorted(self.allow)))
        if self.deny:
            parts.append("-props=" + "|".join(sorted(self.deny)))
        return ";".join(parts)

    # --- deciding ---------------------------------------------------------------------------------
    def needs_collection(self, fmt: str) -> bool:
        return bool(self.seeds_file) or (bool(self.class_rules) and fmt not in WHOLE_ENTITY_FORMATS)

    def matches_class(self, statements: Iterable[StatementRecord]) -> set[str]:
        """Subjects that these statements put in a class of the rule."""
        return {
            st.subject for st in statements for rule in self.class_rules
            if st.pid == rule.pid and st.object_id in rule.classes
        }

    def keeps_statement(self, st: StatementRecord) -> bool:
        if self.allow is not None and st.pid not in self.allow:
            return False
        return st.pid not in self.deny

    def apply(self, item: ParsedLine) -> ParsedLine:
        """The part of a parsed line that belongs to the subset."""
        if not self.has_membership:
            members = None
        elif self.members is not None:
            members = self.members
        else:  # a whole entity per line: decide on the line
            members = self.matches_class(item.statements)
        keep = (lambda i: True) if members is None else (lambda i: i in members)  # noqa: E731
        return ParsedLine(
            item.line,
            entities=[e for e in item.entities if keep(e.id)],
            statements=[st for st in item.statements if keep(st.subject) and self.keeps_statement(st)],
        )


def parse_subset(rules: Sequence[str], base: Path | None = None) -> Subset | None:
    """`--subset` options (each possibly `;`-joined) as a `Subset`; None when there are none."""
    parts = [p.strip() for rule in rules for p in rule.split(";") if p.strip()]
    if not parts:
        return None
    subset = Subset()
    base = base or Path.cwd()
    for part in parts:
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise SubsetError(f"subset rule {part!r}: expected KEY=VALUE (P31=Q5, seeds=FILE, hops=1, props=P19|P20)")
        if key == "seeds":
            subset.seeds_file = value
            subset.seeds = frozenset(_ids_file(base / value, part, subset.file_hashes, value))
        elif key == "hops":
            if not value.isdigit() or int(value) > MAX_HOPS:
                raise SubsetError(f"subset rule {part!r}: hops is 0, 1 or 2")
            subset.hops = int(value)
        elif key in ("props", "-props"):
            pids = frozenset(p.strip() for p in value.split("|") if p.strip())
            if key == "props":
                subset.allow = pids
            else:
                subset.deny = pids
        elif key[:1] in "PpMm" or "." in key:  # a property: P31, or a Freebase predicate
            if value.startswith("@"):
                classes = _ids_file(base / value[1:], part, subset.file_hashes, value[1:])
            else:
                classes = [c.strip() for c in value.split("|") if c.strip()]
            if not classes:
                raise SubsetError(f"subset rule {part!r}: no class ids")
            subset.class_rules.append(ClassRule(key, frozenset(classes), value))
        else:
            raise SubsetError(
                f"subset rule {part!r}: unknown key {key!r} (a property such as P31, seeds, hops, props, -props)")
    if subset.hops and not subset.seeds_file:
        raise SubsetError("subset rule hops= needs seeds=FILE")
    return subset


def _ids_file(path: Path, part: str, hashes: dict[str, str], name: str) -> list[str]:
    if not path.is_file():
        raise SubsetError(f"subset rule {part!r}: no file {path}")
    hashes[name] = file_sha256(path)
    ids = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            if any(ch.isspace() for ch in text):
                raise SubsetError(f"{path}:{number}: one id per line, not {text!r}")
            ids.append(text)
    return ids


# --- collection passes --------------------------------------------------------------------------


def collect_members(subset: Subset, sources: Sequence[tuple[Path, Reader]]) -> set[str]:
    """The subset's member ids, from streaming passes over `sources` (ids only)."""
    members: set[str] = set()
    if subset.class_rules:
        for item in _parsed(sources):
            members |= subset.matches_class(item.statements)
    if subset.seeds_file:
        reached = set(subset.seeds)
        frontier = set(subset.seeds)
        for _ in range(subset.hops):
            following: set[str] = set()
            for item in _parsed(sources):
                for st in item.statements:
                    if st.subject in frontier and st.object_id and subset.keeps_statement(st):
                        following.add(st.object_id)
            frontier = following - reached
            reached |= frontier
            if not frontier:
                break
        members |= reached
    return members


def labelled_objects(items: Iterable[ParsedLine], wanted: set[str]) -> Iterator[EntityRecord]:
    """Name, aliases and description (no types, no statements) of the wanted entities."""
    for item in items:
        for e in item.entities:
            if e.id in wanted and (e.name or e.aliases or e.description):
                yield EntityRecord(e.id, e.kb, name=e.name, aliases=e.aliases, description=e.description)


def _parsed(sources: Sequence[tuple[Path, Reader]]) -> Iterator[ParsedLine]:
    for path, reader in sources:
        for item in reader.read(path):
            if not isinstance(item, LineError):
                yield item


# --- the rule in the graph ----------------------------------------------------------------------


def check_store_subset(store: GraphStore, subset: Subset | None) -> None:
    """Refuse to mix: a store loaded with one rule takes no ingest with another (or with none)."""
    raw = store.get_meta(SUBSET_KEY)
    recorded = json.loads(raw) if raw else None
    if recorded is None:
        if subset is not None:
            store.set_meta(SUBSET_KEY, json.dumps({"rule": subset.canonical(), "fingerprint": subset.fingerprint}))
        return
    mine = subset.fingerprint if subset is not None else None
    if recorded.get("fingerprint") != mine:
        asked = f"--subset {subset.canonical()!r}" if subset is not None else "no --subset"
        raise SubsetError(
            f"{store.uri} holds the subset {recorded.get('rule')!r} (fingerprint "
            f"{recorded.get('fingerprint', '')[:12]}); this ingest asks for {asked}, "
            "which would mix two subsets in one graph. "
            "Load it into another store, or give the same rule (and the same rule files)."
        )
