"""Writing load batches one at a time, the next batch read while this one is written.

A Neo4j batch spends most of its time in the server (one transaction per batch); reading and parsing
the next batch meanwhile keeps the client busy in that time instead of idle. At most one batch is in
flight and batches commit in file order, so every guarantee of a sequential load holds: each batch
commits with its own checkpoint, a crash loses at most the batch in flight (rolled back, redone by
the re-run), and `wait()` before anything that must see the store (a failed line under
`--on-error fail`, Ctrl-C, the end of a file, BioKaLMA label linking) makes it as after the last batch.

Stores whose connection belongs to one thread (the embedded Ladybug store) write in the caller's
thread: `background` is the store's `concurrent_writes`.
"""

from __future__ import annotations

import threading
from typing import Callable

from ..store.base import LoadResult


class BatchWriter:
    def __init__(self, background: bool) -> None:
        self.background = background
        self._thread: threading.Thread | None = None
        self._outcome: tuple[LoadResult | None, BaseException | None] = (None, None)
        self._on_done: Callable[[LoadResult], None] | None = None

    def submit(self, write: Callable[[], LoadResult], on_done: Callable[[LoadResult], None]) -> None:
        """Write a batch (after the one in flight has committed); `on_done(result)` runs in the
        caller's thread once it has committed, at the latest at the next `submit` or `wait`."""
        self.wait()
        if not self.background:
            on_done(write())
            return

        def run() -> None:
            try:
                self._outcome = (write(), None)
            except BaseException as exc:  # handed to the caller's thread by wait()
                self._outcome = (None, exc)

        self._on_done = on_done
        # A daemon thread: a second Ctrl-C ends the process at once, as without it; the server rolls
        # back the transaction of a connection that went away.
        self._thread = threading.Thread(target=run, name="kalma-ingest-writer", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Block until the batch in flight (if any) has committed; re-raise its error here."""
        if self._thread is None:
            return
        self._thread.join()
        (result, error), on_done = self._outcome, self._on_done
        self._thread, self._outcome, self._on_done = None, (None, None), None
        if error is not None:
            raise error
        if on_done is not None and result is not None:
            on_done(result)
