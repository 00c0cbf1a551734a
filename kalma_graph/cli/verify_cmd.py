"""`kalma-graph verify`: which claims of an answer the graph supports, contradicts or does not hold.

Thin: reading, checking and counting live in `kalma_graph.evaluation.verify`."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table

from .common import console, err_console, fail, json_option, print_json
from .options import option

_STATUS_STYLE = {"supported": "green", "supported_uncited": "cyan", "absent": "yellow", "contradicted": "bold red",
                 "partial": "yellow", "unsupported": "red"}


@click.command("verify")
@click.argument("inputs", required=False, type=click.Path(dir_okay=False))
@click.option("--answer", "answer_text", default=None, help="One answer's text (instead of a file).")
@click.option("--question", default="", help="The question of --answer (its names help find the entities).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Write every check as JSON here [default: none, or verify.json beside a file input].")
@option("store")
@json_option
def verify(inputs, answer_text, question, out_path, store_uri, as_json):
    """Check answers against the loaded graph: INPUTS is a JSONL or CSV of (question, answer) — any LLM's
    answers — or an answers file of `kalma-graph answer`; or give --answer TEXT --question TEXT.

    For each sentence: each cited triple supported / partial / unsupported with a reason, and each claim
    supported by a citation, held by the graph but uncited, absent from the graph, or contradicted by it."""
    from kalma_graph.evaluation.verify import read_items, verify_answers, verify_report
    from kalma_graph.files import atomic_write_json
    from kalma_graph.store import open_store
    from kalma_graph.store.base import StoreError

    if bool(inputs) == (answer_text is not None):
        fail("give either an INPUTS file or --answer TEXT")
    items = read_items(inputs) if inputs else [{"id": "answer", "question": question, "answer": answer_text}]
    try:
        store = open_store(store_uri)
    except (StoreError, ValueError, OSError) as exc:
        fail(f"cannot open the store: {exc}")
    if not store.stats().entities:
        err_console.print("warning: the store holds no entities, so every claim will be 'absent': load a graph first "
                          "(kalma-graph ingest …), or name the store with --store")
    try:
        checks = verify_answers(items, store=store, progress=_progress if len(items) > 20 and not as_json else None)
    finally:
        store.close()
    report = verify_report(checks)
    target = Path(out_path) if out_path else (Path(inputs).with_suffix(".verify.json") if inputs else None)
    if target is not None:
        atomic_write_json(target, report)
    if as_json:
        print_json(report)
        return
    for check in checks:
        print_check(check)
    c = report["counts"]
    console.print(f"{report['answers']} answers, {report['citations']} citations: {c.get('supported', 0)} supported, "
                  f"{c.get('partial', 0)} partly, {c.get('unsupported', 0)} not; claims: "
                  f"{c.get('claims_supported', 0)} supported by a citation, {c.get('claims_supported_uncited', 0)} "
                  f"held by the graph but uncited, {c.get('claims_absent', 0)} absent, "
                  f"{c.get('claims_contradicted', 0)} contradicted")
    if target is not None:
        console.print(f"written: {escape(str(target))}")


def print_check(check) -> None:
    table = Table(title=f"{escape(check.id)}: {escape(check.question[:100])}", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("sentence")
    table.add_column("citations")
    table.add_column("claims")
    for s in check.sentences:
        cites = "\n".join(
            f"[{_STATUS_STYLE[c.verdict]}]{c.verdict}[/] {escape(c.relation)}: {escape(c.value)} — {escape(c.reason)}"
            for c in s.citations) or "[dim]none[/]"
        claims = "\n".join(f"[{_STATUS_STYLE[c.status]}]{c.status}[/] {escape(c.text)}"
                           + (f" ({escape(c.evidence)})" if c.evidence else "") for c in s.claims) or "[dim]none[/]"
        mark = " [green]✓[/]" if s.fully_supported else ""
        table.add_row(str(s.position), escape(s.text) + mark, cites, claims)
    console.print(table)


def _progress(done: int, total: int) -> None:
    """Every 20th answer verified (the condition once sat outside the callback and named its arguments)."""
    if done % 20 == 0 or done == total:
        err_console.print(f"  verified {done}/{total}", highlight=False)
