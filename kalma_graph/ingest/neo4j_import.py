"""`kalma-graph neo4j import FILE…`: a new Neo4j database from dumps, built offline by `neo4j-admin`.

1. *stage*: the ingest pipeline (readers, `--subset`, `file:line` errors) runs into a `StagingStore`,
   which plans with the engines' planner and writes CSV files (`neo4j_csv.py`) under the home's
   `run/` folder;
2. *import*: `neo4j-admin database import full` writes the store files (server stopped);
3. *schema*: the server starts, the engine's `bootstrap()` creates the constraints and indexes of
   `schema.neo4j.cypher` (after the data: building an index once is cheaper than updating it per
   row) and waits for them, and empty lists are set as the engine stores them;
4. *check*: the counts in the server must equal the staged ones.

The checkpoints and the subset rule are written as `Meta` nodes, as an ingest writes them, so every
command sees a normal store (a later `kalma-graph ingest` of the same file says it is done). An
import is all or nothing: interrupted before step 2 ends, it leaves no database (the staged files
are removed); the run is simply started again.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from ..neo4j_server import start
from ..neo4j_server.admin_import import COMMUNITY_DATABASE, check_target, import_full
from ..neo4j_server.paths import Layout
from ..store.neo4j_store import Neo4jStore
from .formats import FormatError, detect_format
from .pipeline import FRESH_BATCH_SIZE, OnError, ingest, no_cycle_collection
from .staging import StagingStore
from .subset import Subset

#: Formats whose statements are linked against the graph while loading (not possible offline).
LINKED_FORMATS = ("biokalma",)


def import_files(
    home: Path | str,
    paths: Sequence[str | Path],
    *,
    database: str = COMMUNITY_DATABASE,
    fmt: str | None = None,
    subset: Subset | None = None,
    on_error: OnError = "skip",
    overwrite: bool = False,
    on_line_error: Callable[[str], None] | None = None,
    start_options: dict[str, Any] | None = None,
    read_ahead: bool | None = None,
) -> dict:
    """Import `paths` into a new `database` of the server home `home` and start it; a summary dict."""
    t0 = time.perf_counter()
    layout = Layout.of(home)
    check_target(layout.home, database, overwrite=overwrite)  # before any work
    for path in map(Path, paths):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
        if (fmt or detect_format(path)) in LINKED_FORMATS:
            raise FormatError(
                f"{path}: BioKaLMA records link their labels against the graph while loading, which an "
                "offline import cannot do; load them with `kalma-graph ingest --store bolt://…`"
            )
    folder = layout.run / f"import-staging-{database}"
    shutil.rmtree(folder, ignore_errors=True)
    staging = StagingStore(folder)
    try:
        # The cyclic collector stays off until the files are written, as during an ingest: on, it walked
        # the ten million staged records again and again while the entities were written (18.3 s
        # instead of 7.2 s at 10M statements), and one collection at the end replaces two.
        with no_cycle_collection():
            # a store for what ingest() calls of one (loading, meta, the queries it asks), not a whole GraphStore
            staged = ingest(staging, paths, fmt=fmt, on_error=on_error,  # type: ignore[arg-type]
                            batch_size=FRESH_BATCH_SIZE, subset=subset, on_line_error=on_line_error,
                            read_ahead=read_ahead)
            csv = staging.finish()
        t_import = time.perf_counter()
        imported = import_full(layout.home, csv.admin_arguments(), database, overwrite=overwrite)
    finally:
        staging.close()
        shutil.rmtree(folder, ignore_errors=True)
    t_schema = time.perf_counter()
    info = start(layout.home, **(start_options or {}))
    store = Neo4jStore(info.uri, user=info.user, password=info.password, database=database)
    try:
        store.bootstrap(await_s=int(store.timeouts.write_s) or 86_400)  # building them takes minutes on a big graph
        store.execute_in_transactions("update_imported_empty_lists")
        stats = store.stats().as_dict()
    finally:
        store.close()
    if stats != staged["stats"]:
        raise RuntimeError(f"the imported database holds {stats}, the staged files {staged['stats']}")
    statements = stats["statements"]
    seconds = time.perf_counter() - t0
    return {
        "store": info.uri,
        "database": database,
        "home": str(layout.home),
        "files": staged["files"],
        "subset": staged.get("subset"),
        "stats": stats,
        "stage_seconds": round(t_import - t0, 3),
        "import_seconds": imported["seconds"],
        "schema_seconds": round(time.perf_counter() - t_schema, 3),
        "seconds": round(seconds, 3),
        "statements_per_second": round(statements / seconds, 1) if seconds > 0 else None,
        "import_summary": imported["summary"],
    }
