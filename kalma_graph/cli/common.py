"""What every command shares: JSON output and turning known errors into a
one-line message with a non-zero exit instead of a traceback."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator, NoReturn

import click
from rich.console import Console
from rich.markup import escape

console = Console(stderr=False, highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

# Output options every command shares (the model and data options: `options.py`).
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
json_out_option = click.option("--json-out", "json_out", type=click.Path(dir_okay=False),
                               help="Also write the result as JSON to this file.")


def figure(value: Any, digits: int, scale: float = 1) -> str:
    """A figure with `digits` decimals (times `scale`: 100 for a percentage); `n/a` when undefined
    (a 0/0 ratio is None in every metric), so every table prints a missing figure the same way."""
    return "n/a" if value is None else f"{scale * float(value):.{digits}f}"


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def fail(error: object, code: int = 2) -> NoReturn:
    """Print `error: <message>` on stderr and exit with `code` (2: bad input or state, 1: a check
    failed). The message is escaped: error texts quote answers, and `[NA]` or `[Q42, …]` there are
    not Rich markup."""
    err_console.print(f"[bold red]error:[/] {escape(str(error))}")
    sys.exit(code)


@contextmanager
def failing_on(*errors: type[BaseException]) -> Iterator[None]:
    """The errors a command expects (bad input, a conflicting run) become one `error:` line and
    exit 2, without a traceback; anything else is a bug and keeps its traceback."""
    try:
        yield
    except errors as exc:
        fail(exc)


@contextmanager
def main_errors() -> Iterator[None]:
    from kalma_graph.ingest import FormatError, IngestError, IngestLocked, InputError, SubsetError
    from kalma_graph.store import StoreError

    try:
        yield
    except (StoreError, FormatError, IngestError, IngestLocked, InputError, SubsetError, FileNotFoundError) as exc:
        fail(exc)
