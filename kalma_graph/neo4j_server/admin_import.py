"""`neo4j-admin database import full` from the installed jars, for a home whose server is stopped.

Run as ``java -cp lib/* org.neo4j.cli.AdminTool database import full …`` (the import tool,
``neo4j-import-tool-<version>.jar``, is in the pinned jar set), with the home's configuration, so the
database lands where the server will look for it. The import builds a new store offline, far faster
than transactions; it refuses a database that exists unless ``overwrite``.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any, Sequence

from .errors import Neo4jServerError, NotInstalledError
from .installer import is_installed, require_verified_jars
from .paths import Layout, home_lock
from .server import _admin_env, running_pid
from .tooling import require_java
from .versions import ADMIN_MAIN_CLASS, NEO4J_VERSION

#: Neo4j Community serves one user database; the launcher leaves its name at the default.
COMMUNITY_DATABASE = "neo4j"


def database_folder(home: Path | str, database: str) -> Path:
    return Layout.of(home).data / "databases" / database


def import_full(
    home: Path | str,
    arguments: Sequence[str],
    database: str = COMMUNITY_DATABASE,
    *,
    overwrite: bool = False,
    report_file: Path | None = None,
) -> dict[str, Any]:
    """Import the CSV files named by `arguments` (``--nodes=…``, ``--relationships=…`` and the CSV
    options) into `database` of the stopped server of `home`. Returns ``seconds`` and the tool's
    summary lines; raises :class:`Neo4jServerError` with the tool's last output when it fails."""
    layout = Layout.of(home)
    check_target(layout.home, database, overwrite=overwrite)
    java = require_java()
    require_verified_jars(layout.home)
    report = report_file or layout.run / f"import-{database}.report"
    cmd = [java.path, "-cp", str(layout.lib / "*"), ADMIN_MAIN_CLASS, "database", "import", "full",
           *arguments, f"--report-file={report}", "--bad-tolerance=0", "--skip-bad-relationships=false",
           "--skip-duplicate-nodes=false", *(["--overwrite-destination=true"] if overwrite else []), database]
    t0 = time.perf_counter()
    with home_lock(layout.home, "server"):  # no start of this home meanwhile
        if (pid := running_pid(layout.home)) is not None:
            raise Neo4jServerError(f"Neo4j (pid {pid}) is running from {layout.home}; stop it before an import")
        proc = subprocess.run(cmd, env=_admin_env(layout), cwd=layout.home, capture_output=True, text=True)
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        raise Neo4jServerError(
            f"neo4j-admin database import full failed (exit {proc.returncode}); report: {report}\n"
            + "\n".join(output.splitlines()[-40:])
        )
    summary = [ln.strip() for ln in output.splitlines()
               if re.match(r"\s*(IMPORT DONE|\d+ (nodes|relationships|properties))", ln)]
    return {"seconds": round(time.perf_counter() - t0, 3), "summary": summary, "report": str(report)}


def check_target(home: Path | str, database: str, *, overwrite: bool) -> None:
    """Refuse, before any staging work, an import the server could not serve or that would replace
    a database without `overwrite`, a running server and a home without the jars."""
    layout = Layout.of(home)
    if database != COMMUNITY_DATABASE:
        raise Neo4jServerError(
            f"database {database!r}: the local Neo4j Community server serves one database, "
            f"{COMMUNITY_DATABASE!r} (more than one is an Enterprise feature); import into it (add --overwrite "
            "to replace what it holds) or use another --home"
        )
    if (pid := running_pid(layout.home)) is not None:
        raise Neo4jServerError(
            f"Neo4j (pid {pid}) is running from {layout.home}: an import builds the database offline; "
            "stop it first (`kalma-graph neo4j stop`)"
        )
    folder = database_folder(layout.home, database)
    if not overwrite and folder.is_dir() and any(folder.iterdir()):
        raise Neo4jServerError(
            f"{folder} already holds a database; `neo4j import` creates a new one: pass --overwrite to "
            "replace it (everything in it is lost), or load into it with `kalma-graph ingest --store bolt://…`"
        )
    if not is_installed(layout.home):
        raise NotInstalledError(
            f"Neo4j {NEO4J_VERSION} is not installed in {layout.home}: run `kalma-graph neo4j install` first"
        )
