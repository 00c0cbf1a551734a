"""The ingest lock: one ingest at a time per store, recorded in the graph itself.

Two ingests into one Neo4j database would each plan "this statement is new" before the other
commits and both CREATE it (statements are created, not merged, for speed), so the second waits for
nothing and duplicates edges. The lock is a `Meta` node whose key is unique, claimed with one MERGE:
of two concurrent claims exactly one creates it. It names its holder (host, pid, start time) so the
refusal can say who holds it, and so a lock left by a killed process on this machine is taken over
(its pid no longer runs). A holder on another machine cannot be checked: `--break-lock` takes it.
(Ladybug lets one process open a store for writing, so the embedded store had this guarantee from its
file lock already; the same code runs there and costs one statement per ingest.)
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from contextlib import contextmanager
from typing import Iterator

from ..errors import BadInputError
from ..files import pid_alive
from ..store.base import GraphStore

LOCK_KEY = "ingest:lock"


class IngestLocked(BadInputError, RuntimeError):
    """Another ingest holds the store's lock."""


def _holder_is_gone(holder: dict) -> bool:
    """True when the holder ran on this machine and its process no longer exists."""
    if holder.get("host") != socket.gethostname():
        return False
    try:
        pid = int(holder.get("pid", 0))
    except (TypeError, ValueError):
        return False  # not ours to judge: leave it to --break-lock
    return pid <= 0 or not pid_alive(pid)


def _describe(raw: str) -> dict:
    try:
        holder = json.loads(raw)
        return holder if isinstance(holder, dict) else {}
    except json.JSONDecodeError:
        return {}


@contextmanager
def ingest_lock(store: GraphStore, *, break_lock: bool = False) -> Iterator[dict]:
    """Hold the store's ingest lock for the body; raise `IngestLocked` if a live ingest holds it."""
    me = {"host": socket.gethostname(), "pid": os.getpid(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
          "token": uuid.uuid4().hex}
    mine = json.dumps(me, sort_keys=True)
    rows = store.query("meta_take", {"key": LOCK_KEY, "value": mine})
    held = rows[0]["value"] if rows else None
    if held != mine:
        holder = _describe(held or "")
        if not (break_lock or _holder_is_gone(holder)):
            raise IngestLocked(
                f"{store.uri} is being written by another ingest (pid {holder.get('pid', '?')} on "
                f"{holder.get('host', '?')}, since {holder.get('since', '?')}); wait for it to finish, or, "
                "if that process is gone, run the same command with --break-lock"
            )
        rows = store.query("meta_swap", {"key": LOCK_KEY, "expected": held, "value": mine})
        if not rows or rows[0]["value"] != mine:
            raise IngestLocked(f"{store.uri}: another ingest took the lock at the same moment; try again")
        me["took_over"] = holder
    try:
        yield me
    finally:
        store.query("meta_drop", {"key": LOCK_KEY, "value": mine})
