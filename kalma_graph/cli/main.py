"""`kalma-graph`: the command group. Commands are thin: parse options, call a library function that
returns a dict, print it (rich tables, or JSON with `--json`)."""

from __future__ import annotations

import click

from kalma_graph import __version__

from .annotate_cmd import annotate
from .answer_cmd import answer
from .build_cmd import build
from .caqa_cmd import caqa
from .common import KalmaGroup, main_errors
from .evaluate_cmd import evaluate
from .experiment_cmd import experiment
from .graph_cmds import ingest_cmd, show_cmd, stats_cmd
from .merge_cmd import merge
from .models_cmd import models
from .neo4j_cmd import neo4j
from .nli_cmd import nli
from .score_cmd import score
from .serve_cmd import serve
from .verify_cmd import verify


@click.group(cls=KalmaGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="kalma-graph")
def cli() -> None:
    """Knowledge-graph-attributed QA and its evaluation, fully offline.

    Stores: `--store embedded[:PATH]` (default, no server) or `--store bolt://HOST:PORT` (Neo4j);
    `KALMA_STORE` sets the default.
    """


# One module per command family, each exposing a click command or group; imported plainly, so a
# command that fails to import is an error at start, never a command silently missing from --help.
for _command in (ingest_cmd, stats_cmd, show_cmd, neo4j, nli, answer, evaluate, experiment, build, caqa, score,
                 annotate, models, verify, merge, serve):
    cli.add_command(_command)


def main() -> None:
    with main_errors():
        cli(standalone_mode=True)


if __name__ == "__main__":
    main()
