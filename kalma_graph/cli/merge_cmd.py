"""`kalma-graph merge`: join the outputs of one run's shards (`--shard I/N`) into what one unsharded run writes
(thin wrapper over `kalma_graph.shards` and `biokalma.build.merge_builds`):

- answers files (`answer --shard`): one answers file, in question order (`--questions`);
- directories (`experiment --shard`, `evaluate --shard`): one directory, every answers file joined and every
  model cache united; the same command run unsharded with `--out` on it then scores the whole run;
- BioKaLMA entries files (`build biokalma --shard`, recognised by their `.plan.json`): the first `--limit` kept
  entries in plan order; `build biokalma --out` on the result writes the side files and checks.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from .common import console, fail, json_option, print_json


@click.command("merge")
@click.option("--questions", "questions_file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The questions file the shards answered (it gives the order); for answers files and experiments.")
@click.option("--out", "out_path", required=True, type=click.Path(),
              help="The merged answers file, directory or BioKaLMA entries file.")
@click.option("--limit", type=int, default=None, help="The --limit the shards were run with (answers files).")
@click.argument("shards", nargs=-1, required=True, type=click.Path(exists=True))
@json_option
def merge(questions_file, out_path, limit, shards, as_json):
    """Merge the outputs of `answer`, `experiment`, `evaluate` or `build biokalma` runs with --shard I/N."""
    from kalma_graph.biokalma.build import merge_builds, side_paths
    from kalma_graph.pipeline.answer import load_questions
    from kalma_graph.shards import ShardError, merge_answers, merge_directories

    paths = [Path(s) for s in shards]
    kinds = {"directory" if p.is_dir() else "build" if side_paths(p)["plan"].is_file() else "answers" for p in paths}
    try:
        if len(kinds) > 1:
            raise ShardError(f"mixed shard outputs ({', '.join(sorted(kinds))}): merge one run's shards at a time")
        kind = kinds.pop()
        ids = None
        if questions_file:
            questions = load_questions(questions_file)
            ids = [q.id for q in (questions[:limit] if limit else questions)]
        if kind == "build":
            summary = merge_builds(paths, out_path)
        elif kind == "directory":
            summary = merge_directories(ids, paths, out_path)
        else:
            if ids is None:
                raise ShardError("merging answers files needs --questions (the questions file they answered)")
            summary = merge_answers(ids, paths, out_path)
    except (ValueError, OSError) as exc:  # a library's too (a questions file, the OS)
        fail(exc)
    summary["kind"] = kind
    if as_json:
        print_json(summary)
        return
    if kind == "build":
        if summary["complete"]:
            console.print(
                f"{summary['entries']} entries ({summary['dropped']} dropped before the cut) from {len(paths)} "
                f"shards -> {escape(out_path)}; run `kalma-graph build biokalma` with the same options and "
                "--out on it to write its side files and checks")
        else:
            console.print(f"[yellow]not complete: entry {escape(summary['waiting_for'][0])} is not built by any shard "
                          f"yet ({summary['entries']} of {summary['limit']} entries before it); nothing written[/]")
    elif kind == "directory":
        for row in summary["answers"]:
            console.print(f"{escape(row['answers'])}: {row['merged']} answers from {row['shards']} shards"
                          + (f"  [yellow]{row['missing']} not answered yet[/]" if row["missing"] else ""))
        for row in summary["caches"]:
            console.print(f"{escape(row['cache'])}: {row['rows']} cached results")
        console.print(
            f"-> {escape(out_path)}: run the same command unsharded with --out {escape(out_path)} to score it")
    else:
        console.print(
            f"{summary['merged']} of {summary['questions']} answers from {len(paths)} shards -> {escape(out_path)}"
            + (f"  [yellow]{summary['missing']} not answered yet[/]" if summary["missing"] else ""))
