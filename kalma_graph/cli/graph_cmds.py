"""`ingest`, `stats`, `show`: load a dump, count what is there, look at one entity."""

from __future__ import annotations

import sys

import click
from rich.markup import escape
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn
from rich.table import Table

from kalma_graph.ingest import FORMATS, IngestInterrupted, ingest, parse_subset
from kalma_graph.ingest.read_ahead import MODES as READ_AHEAD_MODES
from kalma_graph.store import open_store

from .common import console, err_console, json_option, print_json
from .options import option


@click.command("ingest")
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Default: detected per file.")
@option("store")
@click.option("--on-error", type=click.Choice(["skip", "fail"]), default="skip", show_default=True,
              help="skip: report malformed lines (file:line) and go on; "
                   "fail: stop before writing the batch holding one.")
@click.option("--batch-size", type=click.IntRange(min=1), default=None,
              help="Records (entities + statements) per write batch [default: 200,000 for a first load into an "
                   "empty embedded store, else 20,000].")
@click.option("--force", is_flag=True, help="Re-read files already ingested (still idempotent).")
@click.option("--subset", "subset_rules", multiple=True, metavar="RULES",
              help="Load part of the files: P31=Q5 (class; P31=@classes.txt for a class file), seeds=FILE;hops=1, "
                   "props=P19|P20 or -props=P1343. Joined with ';' or repeated. See docs/ingest.md.")
@click.option("--break-lock", is_flag=True,
              help="Take the store's ingest lock even if its holder may still run (one on another machine "
                   "cannot be checked). A lock left by a killed process on this machine is taken over anyway.")
@click.option("--read-ahead", type=click.Choice(list(READ_AHEAD_MODES)), default="auto", show_default=True,
              help="Read each file in a second process while this one loads (auto: files of 4 MB and more).")
@click.option("--no-progress", is_flag=True, help="No progress bar (it is also off when stderr is not a terminal).")
@json_option
def ingest_cmd(sources, fmt, store_uri, on_error, batch_size, force, subset_rules, break_lock, read_ahead, no_progress,
               as_json):
    """Load Wikidata JSON / N-Triples, Freebase N-Triples, TSV triples or BioKaLMA records.

    Files may be .gz or .bz2. Re-running is safe: finished files are skipped, interrupted ones resume.
    """
    subset = parse_subset(subset_rules)  # a bad rule fails before the store is opened
    store = open_store(store_uri)
    show_bar = not no_progress and sys.stderr.isatty()
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
        TimeRemainingColumn(), console=err_console, disable=not show_bar,
    )
    tasks: dict[str, int] = {}

    def hook(path: str, done: int, total: int) -> None:
        if path not in tasks:
            tasks[path] = progress.add_task(path.rsplit("/", 1)[-1], total=total)
        progress.update(tasks[path], completed=done)

    def warn(message: str) -> None:
        err_console.print(f"[yellow]skipped[/] {message}", markup=True, highlight=False)

    try:
        with progress:
            summary = ingest(store, sources, fmt=fmt, on_error=on_error, batch_size=batch_size, force=force,
                             break_lock=break_lock, subset=subset, progress=hook,
                             on_line_error=warn if on_error == "skip" and not as_json else None,
                             read_ahead=READ_AHEAD_MODES[read_ahead])
    except IngestInterrupted as exc:
        err_console.print(f"[yellow]{exc}[/]")
        sys.exit(130)
    finally:
        store.close()
    if as_json:
        print_json(summary)
        return
    table = Table(title=f"ingest into {summary['store']}")
    for col in ("file", "format", "status", "entities new", "updated", "statements new", "skipped lines", "s"):
        table.add_column(col, justify="left" if col in ("file", "format", "status") else "right")
    for f in summary["files"]:
        table.add_row(escape(f["path"]), f["format"], f["status"], f"{f['entities_created']:,}",
                      f"{f['entities_updated']:,}",
                      f"{f['statements_created']:,}", f"{f['error_count']:,}", f"{f['seconds']:.1f}")
    console.print(table)
    if summary.get("subset"):
        sub = summary["subset"]
        members = f", {sub['members']:,} members collected" if "members" in sub else ""
        console.print(f"subset {escape(sub['rule'])} (fingerprint {sub['fingerprint'][:12]}){members}, "
                      f"{sub['labelled_objects']:,} objects outside it named")
    _print_stats(summary["stats"])


@click.command("stats")
@option("store")
@json_option
def stats_cmd(store_uri, as_json):
    """Entity, statement, value and per-knowledge-base counts."""
    store = open_store(store_uri)
    try:
        stats = store.stats().as_dict()
    finally:
        store.close()
    if as_json:
        print_json(stats)
    else:
        _print_stats(stats)


@click.command("show")
@click.argument("entity")
@option("store")
@click.option("--limit", type=int, default=50, show_default=True, help="Statements shown (0 = all).")
@json_option
def show_cmd(entity, store_uri, limit, as_json):
    """One entity's one-hop subgraph, by id (Q206534, m.0c94fn) or exact name."""
    from kalma_graph.retrieval.subgraph import describe_entity

    store = open_store(store_uri)
    try:
        result = describe_entity(store, entity)
    finally:
        store.close()
    if as_json:
        print_json(result)
        return
    for ent in result["entities"]:
        console.print(f"[bold]{ent['id']}[/] {escape(ent['name'] or '(unnamed)')} — {escape(ent['description'] or '')}")
        triples = ent["statements"] if not limit else ent["statements"][:limit]
        table = Table(show_header=True)
        table.add_column("property")
        table.add_column("value")
        table.add_column("object")
        for t in triples:
            table.add_row(escape(f"{t['label']} ({t['pid']})"), escape(t["value"]),
                          t["object_id"] or t["datatype"] or "")
        console.print(table)
        if limit and len(ent["statements"]) > limit:
            console.print(f"… {len(ent['statements']) - limit} more (use --limit 0)")
        console.print(ent["knowledge_block"], markup=False, soft_wrap=True)
        if ent.get("unlabelled_left_out"):
            console.print(
                f"({ent['unlabelled_left_out']} statements left out of the knowledge block: their objects have "
                "no label in the loaded sources)")


def _print_stats(stats: dict) -> None:
    table = Table(title="graph")
    table.add_column("count")
    table.add_column("n", justify="right")
    for key in ("entities", "named_entities", "cvt_entities", "values", "statements", "entity_statements",
                "value_statements"):
        table.add_row(key.replace("_", " "), f"{stats[key]:,}")
    for kb, n in stats["per_kb"].items():
        table.add_row(f"entities in {kb or '(unknown kb)'}", f"{n:,}")
    console.print(table)
