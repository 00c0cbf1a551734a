"""`kalma-graph merge`: join the answers files of one run's shards (`answer --shard I/N`) into the file one
unsharded run writes (thin wrapper over `kalma_graph.pipeline.shards.merge_answers`)."""

from __future__ import annotations

import click
from rich.markup import escape

from .common import console, fail, json_option, print_json


@click.command("merge")
@click.option("--questions", "questions_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The questions file the shards answered (it gives the order).")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False), help="The merged answers file.")
@click.option("--limit", type=int, default=None, help="The --limit the shards were run with.")
@click.argument("shards", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@json_option
def merge(questions_file, out_path, limit, shards, as_json):
    """Merge the answers files of `answer --shard I/N` runs, in question order."""
    from kalma_graph.pipeline.answer import load_questions
    from kalma_graph.pipeline.shards import ShardError, merge_answers

    try:
        questions = load_questions(questions_file)
        if limit:
            questions = questions[:limit]
        summary = merge_answers([q.id for q in questions], list(shards), out_path)
    except (ShardError, ValueError, OSError) as exc:
        fail(exc)
    if as_json:
        print_json(summary)
        return
    console.print(f"{summary['merged']} of {summary['questions']} answers from {len(shards)} shards -> {escape(out_path)}"
                  + (f"  [yellow]{summary['missing']} not answered yet[/]" if summary["missing"] else ""))
