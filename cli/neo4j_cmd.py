"""``kalma-graph neo4j …``: install, start, stop and inspect the local Neo4j server (no Docker).

Thin wrappers around :mod:`kalma_graph.neo4j_server`; every command takes ``--home`` (default:
``$KALMA_NEO4J_HOME`` or ``<user data dir>/kalma-graph/neo4j-<version>``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from kalma_graph import neo4j_server as server

console = Console()

neo4j = click.Group(
    name="neo4j",
    help=(
        f"A local Neo4j Community {server.NEO4J_VERSION} server fetched from Maven Central "
        "(needs java 17/21 and mvn; no Docker). Bound to 127.0.0.1 only."
    ),
)

_home_option = click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Server home (default: $KALMA_NEO4J_HOME or the user data dir).",
)


def _friendly_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (server.Neo4jServerError, ValueError) as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def _table(rows: dict[str, Any]) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan")
    table.add_column()
    for key, value in rows.items():
        table.add_row(key, "—" if value is None else str(value))
    return table


@neo4j.command("install")
@_home_option
@click.option("--apoc", is_flag=True, help=f"Also install APOC Core {server.APOC_VERSION} into plugins/.")
@click.option("--verbose", "-v", is_flag=True, help="Show Maven's output (default: only on failure).")
@_friendly_errors
def install_cmd(home: Path | None, apoc: bool, verbose: bool) -> None:
    """Fetch Neo4j, Neo4j Browser (and APOC) with Maven and verify every jar's sha256."""
    target = home or server.default_home()
    if not verbose:
        console.print(f"Installing Neo4j {server.NEO4J_VERSION} into {target} (first run downloads ~145 MB)…")
    result = server.install(target, with_apoc=apoc, verbose=verbose)
    verb = "installed" if result["changed"] else "already installed, all jars verified"
    console.print(f"[green]Neo4j {result['version']} {verb}[/green] in {result['seconds']}s")
    console.print(
        _table(
            {
                "home": result["home"],
                "lib": f"{result['lib_jars']} jars, {result['lib_bytes'] / 1e6:.1f} MB",
                "browser": result["browser_version"],
                "apoc": result["apoc_version"] or "not installed (use --apoc)",
                "java": result["java"] + ("" if result["java_supported"] else "  [yellow](untested by Neo4j)[/yellow]"),
            }
        )
    )


@neo4j.command("start")
@_home_option
@click.option("--bolt-port", type=click.IntRange(1, 65535), default=7687, show_default=True)
@click.option("--http-port", type=click.IntRange(1, 65535), default=7474, show_default=True)
@click.option("--no-auth", is_flag=True, help="Disable authentication (throwaway test servers only).")
@click.option("--heap", default="1g", show_default=True, help="Maximum JVM heap, e.g. 1g, 4g.")
@click.option("--pagecache", default="512m", show_default=True, help="Page cache size, e.g. 512m, 4g.")
@click.option("--wait", "wait_s", type=float, default=120, show_default=True, help="Seconds to wait for Bolt.")
@click.option("--show-password", is_flag=True, help="Print the generated password.")
@_friendly_errors
def start_cmd(
    home: Path | None,
    bolt_port: int,
    http_port: int,
    no_auth: bool,
    heap: str,
    pagecache: str,
    wait_s: float,
    show_password: bool,
) -> None:
    """Start the server in the background and wait until Bolt answers."""
    target = home or server.default_home()
    heap_initial = heap if _bytes(heap) < _bytes("512m") else "512m"
    with console.status("Starting Neo4j…"):
        info = server.start(
            target,
            bolt_port=bolt_port,
            http_port=http_port,
            auth=not no_auth,
            wait_s=wait_s,
            heap_initial=heap_initial,
            heap_max=heap,
            pagecache=pagecache,
        )
    if info.already_running:
        console.print(f"[yellow]Neo4j is already running[/yellow] (pid {info.pid}); options were not applied.")
    else:
        console.print(f"[green]Neo4j started[/green] (pid {info.pid}) in {info.startup_seconds}s")
    rows: dict[str, Any] = {"bolt": info.uri, "browser": info.browser_url}
    if info.auth:
        rows["user"] = info.user
        rows["password"] = info.password if show_password else "(hidden; --show-password)"
        rows["credentials"] = str(server.credentials_path(target))
    else:
        rows["auth"] = "disabled"
    console.print(_table(rows))


@neo4j.command("stop")
@_home_option
@click.option("--timeout", "timeout_s", type=float, default=60, show_default=True, help="Seconds before SIGKILL.")
@_friendly_errors
def stop_cmd(home: Path | None, timeout_s: float) -> None:
    """Stop the server (SIGTERM; SIGKILL only after --timeout)."""
    result = server.stop(home, timeout_s=timeout_s)
    if not result["was_running"]:
        console.print("Neo4j was not running.")
    elif result["forced"]:
        console.print(f"[yellow]Neo4j (pid {result['pid']}) was killed[/yellow] after {result['seconds']}s")
    else:
        console.print(f"[green]Neo4j stopped[/green] (pid {result['pid']}) in {result['seconds']}s")


@neo4j.command("status")
@_home_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@_friendly_errors
def status_cmd(home: Path | None, as_json: bool) -> None:
    """Show whether Neo4j is installed and running, and where to reach it."""
    info = server.status(home)
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    state = "[green]running[/green]" if info["running"] else "[dim]stopped[/dim]"
    console.print(f"Neo4j {info['version']}: {state}")
    console.print(_table(info))


def _bytes(size: str) -> int:
    size = size.strip().lower()
    factor = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(size[-1:], 1)
    digits = size[:-1] if size[-1:] in "kmg" else size
    try:
        return int(digits) * factor
    except ValueError as exc:
        raise click.BadParameter(f"not a size: {size!r} (use e.g. 512m or 2g)") from exc
