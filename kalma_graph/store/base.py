"""The `GraphStore` interface every later stage uses, and the records that cross it.

Both implementations (embedded Ladybug, Neo4j) must return *identical* results for every operation:
ordering is always defined here (never left to the engine), so the contract tests can compare the
two stores with `==`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

import msgspec

from ..errors import BadInputError
from ..kg.triples import Entity, Triple  # noqa: F401  (the records queries return; defined in the base layer)
from ..text.names import name_key  # noqa: F401  (the store's key; defined with the other text rules)

# --- records written by ingest ------------------------------------------------------------------


class _computed_once:
    """A property computed on first use and kept in the instance's __dict__ (a frozen record still
    has one: `dict=True`), so later reads are plain attribute reads. `functools.cached_property`
    does the same behind a lock, which cost more than the digest it saved."""

    def __init__(self, compute: Any) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


# Ingest records are msgspec Structs rather than frozen dataclasses: a reader builds one per
# statement, and a frozen dataclass's __init__ (one object.__setattr__ per field) cost about 1 µs a
# record, a Struct's a quarter of that (0.8 s of a 1M-statement load). Immutable, compared and hashed
# by value, built with the same positional or keyword arguments. A reading process (`ingest/
# read_ahead.py`) sends them as msgpack arrays without their empty fields (`array_like`,
# `omit_defaults`), which msgspec decodes back into records here in C.
class EntityRecord(msgspec.Struct, frozen=True, array_like=True, omit_defaults=True):
    """An entity as an ingest reader sees it. Empty fields mean "unknown here", never "erase"."""

    id: str  # QID (Q212657) or Freebase MID (m.0c94fn)
    kb: str  # "wikidata" | "freebase"
    name: str | None = None
    aliases: tuple[str, ...] = ()
    description: str | None = None
    types: tuple[str, ...] = ()  # ids of the entity's classes (Q5 = human); Freebase: type ids
    cvt: bool = False


class StatementRecord(msgspec.Struct, frozen=True, dict=True, array_like=True, omit_defaults=True):
    """One (subject, property, object) statement. Exactly one of `object_id` / `value` is set."""

    subject: str
    pid: str  # P19, or a Freebase predicate such as people.person.place_of_birth
    label: str  # human-readable property label: "place of birth"
    object_id: str | None = None  # an entity id
    value: str | None = None  # a literal
    datatype: str | None = None  # for literals: string | time | quantity | monolingualtext | ...

    # Computed once per record (a load plan asks for both several times; each is a BLAKE2b digest).
    @_computed_once
    def object_key(self) -> str:
        return object_key_of(self.object_id, self.value, self.datatype)

    @_computed_once
    def sid(self) -> str:
        """Deterministic statement id: the same fact ingested twice is the same relationship."""
        return statement_id(self.subject, self.pid, self.object_key)


def object_key_of(object_id: str | None, value: str | None, datatype: str | None) -> str:
    """`StatementRecord.object_key` from its parts: the entity's id, or the literal's Value id."""
    return object_id if object_id is not None else value_id(value or "", datatype)


def statement_id(subject: str, pid: str, object_key: str) -> str:
    """`StatementRecord.sid` from its parts (a reading process computes both for the records it
    sends without the descriptors' calls: `ingest/read_ahead.py`)."""
    return digest(f"{subject}\x1f{pid}\x1f{object_key}")


def value_id(value: str, datatype: str | None) -> str:
    """Literals are shared nodes keyed by (datatype, value), so one-hop retrieval stays uniform."""
    return "v:" + digest(f"{datatype or 'string'}\x1f{value}")


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


class StoreError(BadInputError, RuntimeError):
    """A store could not be opened or reached; the message says what to do."""


# --- records returned by queries ----------------------------------------------------------------


@dataclass(frozen=True)
class StoreStats:
    entities: int
    named_entities: int
    cvt_entities: int
    values: int
    statements: int
    entity_statements: int
    value_statements: int
    per_kb: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "entities": self.entities,
            "named_entities": self.named_entities,
            "cvt_entities": self.cvt_entities,
            "values": self.values,
            "statements": self.statements,
            "entity_statements": self.entity_statements,
            "value_statements": self.value_statements,
            "per_kb": dict(sorted(self.per_kb.items())),
        }


@dataclass
class LoadResult:
    """What one `load_batch` call changed (counts of *new* things; re-ingest gives zeros)."""

    entities_created: int = 0
    entities_updated: int = 0
    values_created: int = 0
    statements_created: int = 0

    def __iadd__(self, other: "LoadResult") -> "LoadResult":
        self.entities_created += other.entities_created
        self.entities_updated += other.entities_updated
        self.values_created += other.values_created
        self.statements_created += other.statements_created
        return self


@dataclass(frozen=True)
class LoadOptions:
    """How one `load_batch` call writes, beyond its records.

    `default_kb`: the knowledge base of records that name none. `checkpoint` (a meta key and value)
    is written with the batch: in its transaction where the engine has one, else after it (on the
    embedded store's first load, after the rows it defers: `GraphStore.finish_load`).
    `written` (`loading.WrittenSoFar`), for a load into a store that was empty: the plan looks up
    only what this load wrote before, and records what it writes."""

    default_kb: str = "wikidata"
    checkpoint: tuple[str, str] | None = None
    written: Any = None


# Distinct neighbour labels read per direction: a person has tens to hundreds; a hub (Q5 "human", a
# country) has millions of incoming statements, which linking must not fetch.
NEIGHBOUR_LABELS_LIMIT = 5000
# Ids per keyset page when the entities of a type are streamed (`iter_entity_ids_of_type`).
ID_PAGE = 10_000


# --- the interface ------------------------------------------------------------------------------


@runtime_checkable
class GraphStore(Protocol):
    """A knowledge graph held in a graph database. Every query text lives in `cypher/`."""

    backend: str  # "embedded" | "neo4j"
    uri: str
    # Whether `load_batch` may run in another thread than the one that opened the store (the ingest
    # then reads the next batch while this one is written).
    concurrent_writes: bool

    def bootstrap(self) -> None:
        """Create tables / constraints / indexes. Idempotent; called before any load."""

    def load_batch(self, entities: Sequence[EntityRecord], statements: Sequence[StatementRecord],
                   options: LoadOptions = LoadOptions()) -> LoadResult:
        """Upsert entities (merging fields), create missing object entities as stubs, literals as
        Value nodes, and statements keyed by `sid`. Idempotent. See `LoadOptions`."""

    def finish_load(self) -> None:
        """Write what `load_batch` deferred, with its checkpoint (the embedded store defers every
        row of a load into an empty store: `embedded._Deferred`); a no-op where nothing is.
        The ingest calls it at the end of each file and before it stops."""

    # named read operations -----------------------------------------------------------------
    def get_entity(self, entity_id: str) -> Entity | None: ...

    def get_entities(self, entity_ids: Iterable[str]) -> list[Entity]:
        """Entities with these ids, sorted by id; unknown ids are left out."""

    def entities_by_name(self, name: str, types: Sequence[str] | None = None) -> list[Entity]:
        """Exact, case-insensitive match on name or alias; optional filter on any of `types`.
        Sorted by id."""

    def entities_by_names(self, names: Iterable[str]) -> dict[str, list[Entity]]:
        """Batch exact lookup: name key → entities sorted by id (every key present)."""

    def one_hop(self, entity_id: str) -> list[Triple]:
        """Outgoing statements of an entity, sorted by (pid, value, object_id)."""

    def one_hop_many(self, entity_ids: Iterable[str]) -> dict[str, list[Triple]]:
        """Batch `one_hop`: id → outgoing statements (every requested id present)."""

    def statements_between(self, entity_ids: Sequence[str]) -> list[Triple]:
        """Statements whose subject and object are both in `entity_ids` (either direction)."""

    def value_holders(self, values: Iterable[str]) -> list[Triple]:
        """Statements whose object is one of these exact string literals (at most 200), sorted: who holds
        "Ian Khama" as a value when no entity has that name."""

    def neighbour_labels(self, entity_id: str, limit: int = NEIGHBOUR_LABELS_LIMIT) -> list[str]:
        """Distinct names/values of the entity's one-hop neighbourhood (both directions), sorted;
        re-ranking counts how many occur in the question. At most `limit` per direction: a hub's
        millions of incoming statements are never fetched (which of them are kept is then arbitrary)."""

    def out_degree(self, entity_id: str) -> int:
        """How many outgoing statements the entity has, counted in the database."""

    def same_name_entities(
        self, min_count: int = 2, limit: int | None = None, kb: str | None = None
    ) -> list[tuple[str, list[str]]]:
        """Names shared by at least `min_count` entities (of knowledge base `kb`, or of any):
        [(name key, sorted ids)], sorted by key."""

    def entity_ids_of_type(self, type_id: str) -> list[str]:
        """Ids of all entities having `type_id` among their types, sorted."""

    def iter_entity_ids_of_type(self, type_id: str, page: int = ID_PAGE) -> Iterator[str]:
        """The same ids, sorted, streamed in keyset pages: memory stays one page."""

    def count_entities_of_type(self, type_id: str) -> int:
        """How many entities have `type_id` among their types, counted in the database."""

    def random_entities_of_type(self, type_id: str, k: int, seed: int = 0) -> list[str]:
        """`k` ids drawn without replacement, deterministic for a seed and identical across stores."""

    def stats(self) -> StoreStats: ...

    def query(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a named statement of `cypher/` (stage-specific operations outside this interface)."""

    # ingest bookkeeping (resume) -----------------------------------------------------------
    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    # evaluation runs: rows built by store/results.py, written by each engine ------------------
    def ensure_run_tables(self) -> None:
        """Create the Run/Answer/Sentence tables or constraints if missing. Idempotent."""

    def write_run_rows(self, run_id: str, rows: Mapping[str, list[dict]], linked: list[dict]) -> None:
        """Replace the run `run_id` with these rows (`results.run_rows`) and CITES links."""

    def delete_run_rows(self, run_id: str) -> None:
        """Remove a run and everything under it; the knowledge graph is untouched."""

    def clear(self) -> None:
        """Delete everything (tests and `--fresh`)."""

    def close(self) -> None: ...
