"""What every command shares: JSON output and turning the project's errors into a
one-line message with a non-zero exit instead of a traceback.

Every error the project raises is a `kalma_graph.errors.KalmaError`; `main_errors` catches it once, round
every command group (`KalmaGroup`), and exits with the class's `exit_code` (the table in
`kalma_graph/errors.py` and docs/CONTRIBUTING.md: 1 a failure that is not the input, 2 bad input or state,
130 interrupted). A command catches an error itself only to say more than its message, or for a
built-in error (`ValueError`, `OSError`) a library raised."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator, NoReturn

import click
from rich.console import Console
from rich.markup import escape

from kalma_graph.errors import KalmaError

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
    failed; a `KalmaError`'s own code in `main_errors`). The message is escaped: error texts quote
    answers, and `[NA]` or `[Q42, …]` there are not Rich markup."""
    err_console.print(f"[bold red]error:[/] {escape(str(error))}")
    sys.exit(code)


@contextmanager
def failing_on(*errors: type[BaseException]) -> Iterator[None]:
    """Built-in errors a command expects from a library (a `ValueError` of a malformed value) become one
    `error:` line and exit 2, without a traceback; anything else is a bug and keeps its traceback. The
    project's own errors need no listing here: `main_errors` reports every one of them."""
    try:
        yield
    except errors as exc:
        fail(exc)


@contextmanager
def main_errors() -> Iterator[None]:
    """Every `KalmaError` becomes `error: <message>` on one line on stderr and exits with the class's
    `exit_code`; a `FileNotFoundError` (a path no option checked) exits 2."""
    try:
        yield
    except KalmaError as exc:
        fail(exc, exc.exit_code)
    except FileNotFoundError as exc:
        fail(exc)


class KalmaGroup(click.Group):
    """A command group whose commands' `KalmaError`s go through `main_errors`: the same one line and exit
    code whether the group runs as `kalma-graph` or is invoked directly (click's CliRunner in the tests)."""

    def invoke(self, ctx: click.Context) -> Any:
        with main_errors():
            return super().invoke(ctx)
