"""Graph stores: one `GraphStore` interface, an embedded default (Ladybug) and Neo4j.

`open_store(uri)` is the only way the rest of the product gets a store:

- `embedded` or `embedded:PATH` — Ladybug, in-process (default path under the user data dir);
- `bolt://HOST:PORT`, `neo4j://…` (and `+s`/`+ssc` variants) — a Neo4j 5 server.

`KALMA_STORE` supplies the URI when no option is given. How long a query may run is set in one place,
`kalma_graph.store.timeouts` (`KALMA_QUERY_TIMEOUT_S`, `KALMA_WRITE_TIMEOUT_S`, …).
"""

from __future__ import annotations

import os
from pathlib import Path

from kalma_graph.kg.triples import Entity, Triple

from .base import EntityRecord, GraphStore, LoadResult, StatementRecord, StoreError, StoreStats, name_key, value_id
from .timeouts import QueryTimeoutError, Timeouts

NEO4J_SCHEMES = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")

__all__ = [
    "Entity",
    "EntityRecord",
    "GraphStore",
    "LoadResult",
    "QueryTimeoutError",
    "StatementRecord",
    "StoreError",
    "StoreStats",
    "Timeouts",
    "Triple",
    "default_embedded_path",
    "name_key",
    "open_store",
    "resolve_store_uri",
    "value_id",
]


def default_embedded_path() -> Path:
    from platformdirs import user_data_dir

    return Path(os.environ.get("KALMA_DATA_DIR") or user_data_dir("kalma-graph")) / "graph.lbdb"


def resolve_store_uri(uri: str | None) -> str:
    """The option, else `KALMA_STORE`, else the embedded default; always in canonical form."""
    uri = uri or os.environ.get("KALMA_STORE") or "embedded"
    if uri == "embedded":
        return f"embedded:{default_embedded_path()}"
    if uri.startswith("embedded:") or uri.startswith(NEO4J_SCHEMES):
        return uri
    raise StoreError(
        f"unrecognised store {uri!r}: use embedded[:PATH] or bolt://HOST:PORT / neo4j://HOST:PORT"
    )


def open_store(
    uri: str | None = None,
    *,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    read_only: bool = False,
    timeouts: Timeouts | None = None,
) -> GraphStore:
    """The store at `uri`; `timeouts` None reads them from the environment (`store.timeouts`)."""
    uri = resolve_store_uri(uri)
    timeouts = timeouts if timeouts is not None else Timeouts.from_env()
    if uri.startswith("embedded:"):
        from .embedded import EmbeddedStore

        return EmbeddedStore(uri.removeprefix("embedded:"), read_only=read_only, timeouts=timeouts)

    from .neo4j_store import Neo4jStore

    user = user or os.environ.get("KALMA_NEO4J_USER")
    password = password if password is not None else os.environ.get("KALMA_NEO4J_PASSWORD")
    if password is None:
        # A server started by `kalma-graph neo4j start` recorded its generated password.
        from ..neo4j_server import credentials_for

        found = credentials_for(uri)
        if found:
            user, password = user or found[0], found[1]
    return Neo4jStore(
        uri,
        user=user,
        password=password,
        database=database or os.environ.get("KALMA_NEO4J_DATABASE", "neo4j"),
        timeouts=timeouts,
    )
