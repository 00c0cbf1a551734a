"""`kalma-graph models list | pull NAME | path NAME | verify NAME`: named, hash-pinned GGUF models
(thin wrappers over `kalma_graph.models.registry`, whose functions return the dicts `--json` prints)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from .common import KalmaGroup, console, err_console, fail, json_option, print_json


def _model_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A registry error exits 1 here, where every other command exits 2 (`ModelError` is bad input there):
    `models` answers whether a model is there and right, and says no with 1, as `verify` does on a mismatch."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from kalma_graph.models.registry import ModelError

        try:
            return fn(*args, **kwargs)
        except ModelError as exc:
            fail(exc, 1)

    return wrapper


@click.group("models", cls=KalmaGroup)
def models() -> None:
    """Named GGUF models and model servers (registry: kalma_graph/data/models.json, or $KALMA_MODEL_REGISTRY).

    Every --model option takes one of these names or a GGUF path. Pulled models live in
    $KALMA_MODELS_DIR, else $KALMA_DATA_DIR/models, else <user data dir>/kalma-graph/models, and are
    hash-checked against their pinned sha256 when loaded.
    """


@models.command("list")
@json_option
@_model_errors
def list_cmd(as_json: bool) -> None:
    """The registry, best model first, and which models are present."""
    from kalma_graph.models.registry import list_models

    data = list_models()
    if as_json:
        print_json(data)
        return
    table = Table(title=f"models ({escape(data['registry'])})", title_justify="left")
    table.add_column("name", no_wrap=True)
    table.add_column("size", justify="right")
    table.add_column("licence")
    table.add_column("state")
    for row in data["models"]:
        table.add_row(row["name"], f"{row['size'] / 1e6:.0f} MB", row["licence"], row["state"])
    console.print(table)
    for row in data["models"]:
        if row["present"]:
            click.echo(f"{row['name']}: {row['path']}")  # whole, never cropped to the terminal
    if data["servers"]:
        servers = Table(title="model servers (--model NAME)", title_justify="left")
        for column in ("name", "endpoint", "serves", "timeout"):
            servers.add_column(column, no_wrap=column != "endpoint")
        for row in data["servers"]:
            servers.add_row(row["name"], row["endpoint"], row["serves"] or "-", f"{row['timeout']:g} s")
        console.print(servers)
    console.print(f"default for answer/judge: {data['default'] or 'none present'}")


@models.command("pull")
@click.argument("name")
@json_option
@_model_errors
def pull_cmd(name: str, as_json: bool) -> None:
    """Download NAME from its pinned sources, check its sha256, move it into place atomically."""
    from kalma_graph.models.registry import pull

    result = pull(name, progress=lambda line: err_console.print(escape(line)))
    if as_json:
        print_json(result)
        return
    console.print(
        f"[green]{result['name']}[/] {result['status']} in {result['seconds']}s from {escape(result['source'])}")
    console.print(escape(result["path"]))


@models.command("path")
@click.argument("name")
@json_option
@_model_errors
def path_cmd(name: str, as_json: bool) -> None:
    """Print the file of NAME (exit 1 if it is not pulled)."""
    from kalma_graph.models.registry import path_of

    result = path_of(name)
    if as_json:
        print_json(result)
    elif result["present"]:
        click.echo(result["path"])
    if not result["present"]:
        if not as_json:
            err_console.print(f"[bold red]error:[/] {name} is not pulled: run `kalma-graph models pull {name}`")
        sys.exit(1)


@models.command("verify")
@click.argument("name")
@json_option
@_model_errors
def verify_cmd(name: str, as_json: bool) -> None:
    """Re-hash the file of NAME and compare with its pinned sha256 (exit 1 on a mismatch)."""
    from kalma_graph.models.registry import verify

    result = verify(name)
    if as_json:
        print_json(result)
    elif result["ok"]:
        console.print(
            f"[green]ok[/] {result['name']} sha256 {result['sha256']} ({result['seconds']}s) {escape(result['path'])}")
    else:
        err_console.print(f"[bold red]error:[/] {escape(result['error'])}")
    if not result["ok"]:
        sys.exit(1)
