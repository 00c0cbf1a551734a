"""`kalma-graph`: the command group. Commands are thin: parse options, call a library function that
returns a dict, print it (rich tables, or JSON with `--json`)."""

from __future__ import annotations

import click

from kalma_graph import __version__

from .common import main_errors
from .graph_cmds import ingest_cmd, show_cmd, stats_cmd


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="kalma-graph")
def cli() -> None:
    """Knowledge-graph-attributed QA and its evaluation, fully offline.

    Stores: `--store embedded[:PATH]` (default, no server) or `--store bolt://HOST:PORT` (Neo4j);
    `KALMA_STORE` sets the default.
    """


cli.add_command(ingest_cmd)
cli.add_command(stats_cmd)
cli.add_command(show_cmd)


def _add_optional(module: str, attr: str) -> None:
    """Commands whose module may be absent in a partial checkout register themselves if present."""
    import importlib

    try:
        command = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("kalma_graph"):
            return
        raise
    cli.add_command(command)


# One module per command family; each exposes a click command or group of the same name.
for _module, _attr in (
    ("neo4j_cmd", "neo4j"),
    ("nli_cmd", "nli"),
    ("answer_cmd", "answer"),
    ("evaluate_cmd", "evaluate"),
    ("experiment_cmd", "experiment"),
    ("build_cmd", "build"),
    ("caqa_cmd", "caqa"),
    ("score_cmd", "score"),
    ("annotate_cmd", "annotate"),
    ("models_cmd", "models"),
):
    _add_optional(f"kalma_graph.cli.{_module}", _attr)


def main() -> None:
    with main_errors():
        cli(standalone_mode=True)


if __name__ == "__main__":
    main()
