"""``kalma-graph neo4j …``: install, start, stop and inspect the local Neo4j server (no Docker).

Thin wrappers around :mod:`kalma_graph.neo4j_server`; every command takes ``--home`` (default:
``$KALMA_NEO4J_HOME`` or ``<user data dir>/kalma-graph/neo4j-<version>``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, Literal

import click
from rich.console import Console
from rich.table import Table

from kalma_graph import neo4j_server as server
from kalma_graph.errors import KalmaError
from kalma_graph.ingest import FORMATS
from kalma_graph.neo4j_server.config import DEFAULT_GC, GC_FLAGS, initial_heap
from kalma_graph.store.browse import browse_info

from .common import KalmaGroup, json_option, print_json
from .options import option

console = Console()

NO_AUTH_WARNING = (
    "warning: --no-auth: authentication is off. Anyone on this machine (every user and every "
    "program, including a web page's scripts reaching 127.0.0.1) can read, change and delete this "
    "database on {bolt} and {http}. Use it only for throwaway data."
)

neo4j = KalmaGroup(
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
    """Any error of a `neo4j` command is click's `Error: <message>` with exit 1, whatever its class's exit code
    (the server's errors are 1 anyway; a store or input error of `import` or `browse` is 1 here too)."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (KalmaError, ValueError, FileNotFoundError) as exc:
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
@click.option("--no-auth", is_flag=True,
              help="Disable authentication (throwaway test servers only: anyone on this machine can then read "
                   "and write the database).")
@click.option("--force", is_flag=True,
              help="With --no-auth: start even a home whose database was created with auth (it loses its password "
                   "protection while running).")
@click.option("--heap", default="1g", show_default=True, help="Maximum JVM heap, e.g. 1g, 4g.")
@click.option("--pagecache", default="512m", show_default=True, help="Page cache size, e.g. 512m, 4g.")
@click.option("--gc", type=click.Choice(sorted(GC_FLAGS)), default=DEFAULT_GC, show_default=True,
              help="JVM garbage collector: g1 (Neo4j's default) or parallel (faster bulk loads through the driver "
                   "on few cores, with --heap 2g: docs/ingest.md).")
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
    gc: str,
    wait_s: float,
    show_password: bool,
    force: bool,
) -> None:
    """Start the server in the background and wait until Bolt answers."""
    target = home or server.default_home()
    _bytes(heap)  # a usage error for what is not a size
    heap_initial = initial_heap(heap)
    if force and not no_auth:
        raise click.UsageError("--force only applies to --no-auth")
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
            force=force,
            gc=gc,
        )
    if info.already_running:
        console.print(f"[yellow]Neo4j is already running[/yellow] (pid {info.pid}); options were not applied.")
    else:
        check = info.jar_check or {}
        console.print(
            f"[green]Neo4j started[/green] (pid {info.pid}) in {info.startup_seconds}s; jars match the pinned "
            f"sha256 ({check.get('hashed', 0)} hashed, {check.get('cached', 0)} unchanged since verified)"
        )
    rows: dict[str, Any] = {"bolt": info.uri, "browser": info.browser_url}
    if info.auth:
        rows["user"] = info.user
        rows["password"] = info.password if show_password else "(hidden; --show-password)"
        rows["credentials"] = str(server.credentials_path(target))
    else:
        rows["auth"] = "disabled"
    console.print(_table(rows))
    if not info.auth:  # on stderr, so it is seen even when stdout is captured or piped
        click.secho(NO_AUTH_WARNING.format(bolt=info.uri, http=info.http_url), fg="yellow", bold=True, err=True)


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
@json_option
@_friendly_errors
def status_cmd(home: Path | None, as_json: bool) -> None:
    """Show whether Neo4j is installed and running, and where to reach it."""
    info = server.status(home)
    if as_json:
        print_json(info)
        return
    state = "[green]running[/green]" if info["running"] else "[dim]stopped[/dim]"
    console.print(f"Neo4j {info['version']}: {state}")
    console.print(_table(info))


@neo4j.command("import")
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@_home_option
@click.option("--database", default="neo4j", show_default=True,
              help="The database to create (Neo4j Community serves one: neo4j).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Default: detected per file.")
@click.option("--subset", "subset_rules", multiple=True, metavar="RULES",
              help="Import part of the files, as `ingest --subset` (see docs/ingest.md).")
@click.option("--on-error", type=click.Choice(["skip", "fail"]), default="skip", show_default=True,
              help="skip: report malformed lines (file:line) and go on; fail: stop, importing nothing.")
@click.option("--overwrite", is_flag=True, help="Replace the database if it exists (everything in it is lost).")
@click.option("--bolt-port", type=click.IntRange(1, 65535), default=7687, show_default=True)
@click.option("--http-port", type=click.IntRange(1, 65535), default=7474, show_default=True)
@click.option("--no-auth", is_flag=True, help="Start the server without authentication (throwaway data only).")
@json_option
@_friendly_errors
def import_cmd(sources: tuple[str, ...], home: Path | None, database: str, fmt: str | None,
               subset_rules: tuple[str, ...], on_error: Literal["skip", "fail"], overwrite: bool, bolt_port: int,
               http_port: int, no_auth: bool, as_json: bool) -> None:
    """Create a new database from dumps with neo4j-admin (offline, server stopped), then start the
    server and create the constraints and indexes. Far faster than `ingest` into a running server."""
    from kalma_graph.ingest import IngestInterrupted, parse_subset
    from kalma_graph.ingest.neo4j_import import import_files

    target = home or server.default_home()
    try:
        summary = import_files(
            target, sources, database=database, fmt=fmt, subset=parse_subset(subset_rules), on_error=on_error,
            overwrite=overwrite,
            on_line_error=(lambda m: click.echo(f"skipped {m}", err=True)) if on_error == "skip" else None,
            start_options={"bolt_port": bolt_port, "http_port": http_port, "auth": not no_auth},
        )
    except IngestInterrupted as exc:  # an import is all or nothing: nothing to resume
        raise click.ClickException("interrupted while staging: nothing was imported; run the same command "
                                   "to start over") from exc
    if no_auth:
        click.secho(NO_AUTH_WARNING.format(bolt=summary["store"], http=f"http://127.0.0.1:{http_port}"),
                    fg="yellow", bold=True, err=True)
    if as_json:
        print_json(summary)
        return
    stats = summary["stats"]
    console.print(f"[green]imported[/green] {stats['statements']:,} statements, {stats['entities']:,} entities "
                  f"into {summary['database']} in {summary['seconds']}s "
                  f"({summary['statements_per_second']:,.0f} statements/s end to end)")
    console.print(_table({"store": summary["store"], "stage (read + CSV)": f"{summary['stage_seconds']}s",
                          "neo4j-admin import": f"{summary['import_seconds']}s",
                          "start + constraints + indexes": f"{summary['schema_seconds']}s"}))



# --- browse: look at an evaluation run in Neo4j Browser ------------------------------------------

@neo4j.command("browse")
@click.argument("run_id", required=False)
@_home_option
@option("store", help="Where the runs are (default: the local server of --home, bolt://127.0.0.1:<port>).")
@json_option
@_friendly_errors
def browse_cmd(run_id: str | None, home: Path | None, store_uri: str | None, as_json: bool) -> None:
    """How to look at an evaluation run (default: the latest) in Neo4j Browser.

    Prints the Browser URL of the local server, the `:style` command that captions Answer nodes with
    their question, Sentence with its text and Entity with its name (cypher/browse/style.grass), and
    the parameter and query to paste.
    """
    info = browse_info(run_id, home, store_uri)
    if as_json:
        print_json(info)
        return
    run = info["run"]
    state = {True: "running", False: "stopped", None: ""}[info["server_running"]]
    click.echo(f"Neo4j Browser  {info['open_url'] or info['browser_url'] or '—'}" + (f"  ({state})" if state else ""))
    if info["user"]:
        where = f"password in {info['credentials_file']}" if info["credentials_file"] else "password from neo4j start"
        click.echo(f"login          {info['user']} ({where}; `kalma-graph neo4j start --show-password` shows it)")
    click.echo(f"run            {info['run_id']}  ({run.get('records')} answers, evaluated {run.get('created_at')}; "
               f"{info['runs']} run(s) in {info['store']})")
    for note in info["notes"]:
        click.echo(f"note           {note}")
    click.echo("")
    click.echo(f"1. Style: drag {info['style_file']} onto the Browser window, or run:")
    click.echo(info["style_command"])
    click.echo("")
    click.echo("2. Set the run:")
    click.echo(info["params_command"])
    click.echo("")
    click.echo(f"3. Paste the query ({info['query_file']}):")
    click.echo(info["query"])

def _bytes(size: str) -> int:
    size = size.strip().lower()
    factor = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(size[-1:], 1)
    digits = size[:-1] if size[-1:] in "kmg" else size
    try:
        return int(digits) * factor
    except ValueError as exc:
        raise click.BadParameter(f"not a size: {size!r} (use e.g. 512m or 2g)") from exc
