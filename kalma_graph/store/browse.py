"""What `kalma-graph neo4j browse` prints: where Neo4j Browser is for a store, the style that captions the run
graph, and the saved query of one evaluation run (`cypher/browse/`). The command only prints this dict."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from kalma_graph import neo4j_server as server

from . import open_store, resolve_store_uri
from .base import StoreError
from .results import list_runs

#: The saved query `browse` hands out (cypher/browse/run_graph.cypher) and the Browser style.
BROWSE_QUERY = "run_graph.cypher"
BROWSE_STYLE = "style.grass"


def browse_file(name: str) -> Any:
    """A file of ``cypher/browse/`` as shipped (``kalma_graph.cypher/browse/<name>``)."""
    path = resources.files("kalma_graph.cypher").joinpath("browse", name)
    if not path.is_file():
        raise StoreError(f"cypher/browse/{name} is not installed with kalma-graph")
    return path


def style_command(grass: str) -> str:
    """Neo4j Browser's ``:style`` takes the GraSS text on one line (its argument stops at a newline)."""
    return ":style " + " ".join(grass.split())


def cypher_string(value: str) -> str:
    """A Cypher string literal (for the ``:param`` line the user pastes)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def bolt_endpoint(uri: str | None) -> tuple[str, int] | None:
    if not uri or "://" not in uri:
        return None
    parts = urlsplit(uri)
    if parts.scheme.split("+")[0] not in ("bolt", "neo4j") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    return ("localhost" if host in ("localhost", "127.0.0.1", "::1") else host), parts.port or 7687


def recorded_server(uri: str) -> dict[str, Any] | None:
    """What `neo4j start` recorded (its credentials file: uri, user, http_url) for a Bolt URI."""
    wanted = bolt_endpoint(uri)
    folder = server.credentials_dir()
    if wanted is None or not folder.is_dir():
        return None
    found = []
    for path in folder.glob("*.json"):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and record.get("http_url") and bolt_endpoint(record.get("uri")) == wanted:
            found.append({**record, "file": str(path)})
    return max(found, key=lambda r: r.get("updated_at") or 0) if found else None


def browse_info(run_id: str | None, home: Path | None, store_uri: str | None) -> dict[str, Any]:
    """Everything `neo4j browse` prints: where Browser is, the style, and the run's query."""
    st = server.status(home)
    if store_uri is None:
        if not st["uri"]:
            raise StoreError(
                f"no local Neo4j server in {st['home']}: start one with `kalma-graph neo4j start` "
                "(then `kalma-graph evaluate … --store bolt://localhost:7687`), or pass --store URI")
        store_uri = st["uri"]
    store_uri = resolve_store_uri(store_uri)
    if store_uri.startswith("embedded:") and not Path(store_uri.removeprefix("embedded:")).exists():
        raise StoreError(f"no store at {store_uri}")
    try:
        store = open_store(store_uri)
    except StoreError as exc:
        hint = "" if st["running"] or not st["uri"] else " (the local server is stopped: `kalma-graph neo4j start`)"
        raise StoreError(f"{exc}{hint}") from exc
    try:
        if store.backend == "embedded":
            store.bootstrap()  # the run tables link to Entity: a store never loaded has none yet
        runs = list_runs(store)
    finally:
        store.close()
    if not runs:
        raise StoreError(
            f"no evaluation run in {store_uri}: write one with `kalma-graph evaluate … --store {store_uri}`")
    by_id = {r["id"]: r for r in runs}
    if run_id is None:
        run = max(runs, key=lambda r: (r.get("created_at") or "", r["id"]))
    elif run_id in by_id:
        run = by_id[run_id]
    else:
        known = ", ".join(sorted(by_id)[:10]) + (" …" if len(by_id) > 10 else "")
        raise StoreError(f"no run {run_id!r} in {store_uri}; runs: {known}")

    address = browser_address(store_uri, st)
    style = browse_file(BROWSE_STYLE)
    query_file = browse_file(BROWSE_QUERY)
    query = "\n".join(line for line in query_file.read_text(encoding="utf-8").splitlines()
                      if not line.lstrip().startswith("//")).strip()
    return {
        "run_id": run["id"],
        "run": dict(run),
        "runs": len(runs),
        "store": store_uri,
        **{k: v for k, v in address.items() if k != "notes"},
        "style_file": str(style),
        "style_command": style_command(style.read_text(encoding="utf-8")),
        "params_command": f":param run_id => {cypher_string(run['id'])}",
        "query_file": str(query_file),
        "query": query,
        "notes": address["notes"],
    }


def browser_address(store_uri: str, st: dict[str, Any]) -> dict[str, Any]:
    """Where Neo4j Browser is for `store_uri`: the local server's (what `neo4j start` wrote into HOME/conf, `st`),
    else the HTTP address `neo4j start` recorded for the store's Bolt endpoint in another home; with the login
    user, the credentials file and what a reader should know (`notes`)."""
    notes: list[str] = []
    database = os.environ.get("KALMA_NEO4J_DATABASE", "neo4j")
    endpoint = bolt_endpoint(store_uri)
    local = endpoint is not None and endpoint == bolt_endpoint(st["uri"])
    browser_url: str | None = None
    user = credentials_file = None
    if endpoint is None:
        notes.append("this store is embedded: Neo4j Browser shows runs written with `evaluate --store bolt://…`; "
                     "the query below runs unchanged on the embedded store too")
    elif local:
        browser_url = st["browser_url"]
        user, credentials_file = st["user"], st["credentials_file"]
        if not st["running"]:
            notes.append("the local server is stopped: `kalma-graph neo4j start`")
    else:
        recorded = recorded_server(store_uri)
        browser_url = f"{recorded['http_url']}/browser/" if recorded else None
        user = recorded.get("user") if recorded else None
        credentials_file = recorded["file"] if recorded else None
        if browser_url is None:
            notes.append(f"no Browser address recorded for {store_uri}: open its server's /browser/ page")
    open_url = None
    if browser_url and endpoint is not None:
        scheme = store_uri.split("://", 1)[0]
        dbms = f"{scheme}://{user + '@' if user else ''}{store_uri.split('://', 1)[1].split('@')[-1]}"
        open_url = f"{browser_url}?{urlencode({'dbms': dbms, 'db': database}, safe=':/@')}"
    return {"browser_url": browser_url, "open_url": open_url, "server_running": bool(st["running"]) if local else None,
            "user": user, "credentials_file": credentials_file, "notes": notes}
