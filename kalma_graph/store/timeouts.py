"""How long a graph-store query may run: the one place that reads the timeout settings.

Like the rest of the store settings (`KALMA_STORE`, `KALMA_NEO4J_USER`, …) they come from the
environment; `0` means no limit.

| variable                        | bounds                                                          | default |
|---------------------------------|-----------------------------------------------------------------|---------|
| `KALMA_QUERY_TIMEOUT_S`         | each read query, both stores (retrieval, stats, CAQA/BioKaLMA)   | 600     |
| `KALMA_WRITE_TIMEOUT_S`         | each write: an ingest batch, a run's results, meta, clear        | 3600    |
| `KALMA_NEO4J_CONNECT_TIMEOUT_S` | the TCP connect to Neo4j (driver `connection_timeout`)           | 15      |
| `KALMA_NEO4J_TX_TIMEOUT_S`      | `db.transaction.timeout` in the neo4j.conf `neo4j start` writes  | 3600    |

Opening a Neo4j connection as a whole, Bolt handshake included, gets twice the connect timeout
(`connection_acquisition_timeout`). The transaction timeout, in the neo4j.conf `kalma-graph neo4j start`
writes, is the server's limit for clients that set none (Browser, cypher-shell).

Why these defaults: every read the product makes answers in milliseconds to seconds on the bundled
graphs, and a graph-wide scan (stats, namesakes) of a multi-million-entity subset in well under a
minute, so ten minutes only ever stops a runaway query. An ingest batch is bounded in size (5,000
rows on Neo4j, one reader batch on the embedded store) and takes seconds; an hour per batch leaves a
slow disk or a large `--batch-size` ample room while a hung transaction still ends, and an interrupted
batch is redone by the idempotent re-run. Neo4j enforces its limit on the server (the driver sends
the timeout with the transaction, overriding `db.transaction.timeout`); Ladybug on the connection
(`Connection.set_query_timeout`). A query that runs past its limit raises :class:`QueryTimeoutError`
naming the limit and the variable that sets it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kalma_graph.neo4j_server.config import (  # noqa: F401 - the server's limit is the launcher's setting
    DEFAULT_SERVER_TX_S,
    SERVER_TX_TIMEOUT_ENV,
    env_seconds,
    server_tx_timeout_s,
)

from .base import StoreError

QUERY_TIMEOUT_ENV = "KALMA_QUERY_TIMEOUT_S"
WRITE_TIMEOUT_ENV = "KALMA_WRITE_TIMEOUT_S"
CONNECT_TIMEOUT_ENV = "KALMA_NEO4J_CONNECT_TIMEOUT_S"

DEFAULT_READ_S = 600.0
DEFAULT_WRITE_S = 3600.0
DEFAULT_CONNECT_S = 15.0


class QueryTimeoutError(StoreError):
    """A query ran past its timeout and was stopped by the database (nothing it wrote is kept)."""


def _seconds(name: str, default: float, *, allow_zero: bool = True) -> float:
    try:
        return env_seconds(name, default, allow_zero=allow_zero)
    except ValueError as exc:
        raise StoreError(str(exc)) from None


@dataclass(frozen=True)
class Timeouts:
    """Seconds a read / a write may run (0 = no limit) and a Bolt connection may take to open."""

    read_s: float = DEFAULT_READ_S
    write_s: float = DEFAULT_WRITE_S
    connect_s: float = DEFAULT_CONNECT_S

    @classmethod
    def from_env(cls) -> "Timeouts":
        return cls(
            read_s=_seconds(QUERY_TIMEOUT_ENV, DEFAULT_READ_S),
            write_s=_seconds(WRITE_TIMEOUT_ENV, DEFAULT_WRITE_S),
            connect_s=_seconds(CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_S, allow_zero=False),
        )

    def for_query(self, write: bool) -> float:
        return self.write_s if write else self.read_s

    def env_name(self, write: bool) -> str:
        return WRITE_TIMEOUT_ENV if write else QUERY_TIMEOUT_ENV


def statement_summary(text: str, width: int = 100) -> str:
    """The first line of a statement that is not a comment, cut to `width` characters."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("//"):
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


def timeout_message(backend: str, seconds: float, write: bool, text: str) -> str:
    kind = "write" if write else "read"
    env = WRITE_TIMEOUT_ENV if write else QUERY_TIMEOUT_ENV
    return (
        f"{backend} store: a {kind} query ran past its {seconds:g} s timeout and was stopped "
        f"({statement_summary(text)}); raise the limit with {env}=SECONDS (0 = none)"
    )


# --- which statements write ------------------------------------------------------------------------
_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_WRITE = re.compile(r"\b(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|COPY|DROP|ALTER|INSTALL|LOAD\s+EXTENSION)\b",
                    re.IGNORECASE)


@lru_cache(maxsize=1024)
def is_write(text: str) -> bool:
    """True when a Cypher statement (of `cypher/`, or the schema scripts) writes; comments and string
    literals are ignored, so `// deleted statements` or `'SET'` do not count."""
    bare = _STRING.sub("''", _COMMENT.sub("", text))
    return bool(_WRITE.search(bare))


__all__ = [
    "CONNECT_TIMEOUT_ENV",
    "QUERY_TIMEOUT_ENV",
    "QueryTimeoutError",
    "SERVER_TX_TIMEOUT_ENV",
    "Timeouts",
    "WRITE_TIMEOUT_ENV",
    "is_write",
    "server_tx_timeout_s",
    "statement_summary",
    "timeout_message",
]
