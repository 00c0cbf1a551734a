"""`kalma-graph build biokalma`: build a BioKaLMA-style dataset with gold minimum knowledge sets.

Thin wrapper over `kalma_graph.biokalma.build_biokalma`: parse options, load the models, show a
progress bar, print the summary (or JSON)."""

from __future__ import annotations

import os
import sys

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from .common import KalmaGroup, console, err_console, fail, json_option, print_json
from .options import option


@click.group("build", cls=KalmaGroup)
def build() -> None:
    """Build evaluation datasets from the graph."""


@build.command("biokalma")
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="Dataset JSON lines (one entry per line). Beside it: OUT.gold.jsonl (for evaluate), "
                   "OUT.questions.jsonl (for answer --questions), OUT.checks.json. Re-running resumes.")
@option("store")
@click.option("--pairs", "pairs_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help='Person pairs as JSON lines {"a", "relation", "b", "sentence"?}; default: pairs of humans '
                   "linked in the graph (father, mother, spouse, sibling, child, student (of), doctoral "
                   "advisor/student, influenced by), seed sentence from a template.")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True,
              help="Entries to keep: the first pairs (seeded order) that resolve and whose questions pass the "
                   "gold check.")
@click.option("--reserve", type=click.IntRange(min=0), default=50, show_default=True,
              help="Pairs resolved beyond --limit that stand in for entries dropped by the gold check; "
                   "eq. 1's N counts them.")
@click.option("--all", "all_pairs", is_flag=True, help="Build every pair that resolves (overrides --limit).")
@click.option("--seed", type=int, default=0, show_default=True, help="Pair order and every model call.")
@click.option("--alpha", type=click.FloatRange(0, 1), default=None,
              help="Eq. 1 weight of specificity against coherence [default: kalma_graph.biokalma.DEFAULT_ALPHA].")
@click.option("--rounds", type=click.IntRange(min=1), default=5, show_default=True,
              help="Round 1 annotates the seed sentence; rounds 2..R add one triple each.")
@option("model", help="The model that writes: a registry name (`kalma-graph models list`), a GGUF path or a model "
                      "server (http://HOST:PORT/v1#MODEL) "
                      "[env KALMA_LLM; default: the packaged SmolLM2-135M-Instruct].")
@click.option("--scorer-model", default=None, metavar="NAME|PATH",
              help="The GGUF that computes eq. 1's perplexities in-process (default: --model; required when "
                   "--model is a server).")
@option("n-ctx")
@option("n-gpu-layers")
@option("threads")
@option("temperature")
@click.option("--perplexity-scope", type=click.Choice(["paragraph", "sentence"]), default="paragraph",
              show_default=True, help="perp_r of the whole extended paragraph, or of the new sentence given it.")
@click.option("--annotate", type=click.Choice(["link", "llm"]), default="link", show_default=True,
              help="Round 1: the resolved link's statements; llm: + the model's Table 9 annotations that are "
                   "pool triples the seed sentence mentions (for --pairs with human-written sentences).")
@click.option("--max-candidates", type=click.IntRange(min=1), default=None,
              help="Score only the K most specific candidates per round (default: all, eq. 1 as written).")
@click.option("--max-new", type=click.IntRange(min=0), default=None,
              help="Build at most N more entries in this run, then check (0: only re-check OUT and rewrite "
                   "its side files). The dataset's size stays --limit.")
@option("concurrency",
        help="Entries in flight at once, for a model server writing them (--model http://…); written in plan "
                   "order, so the file is the sequential build's.")
@option("shard",
        help="Build only shard I of N of the plan's pairs (by a stable hash of the entry id; the reserve's "
                   "too); `kalma-graph merge` keeps the first --limit kept entries in plan order (docs/scaling.md).")
@option("nli", help="NLI model for the relevance check (path or hub id) [env KALMA_NLI_MODEL].")
@click.option("--no-nli", is_flag=True, help="Skip the NLI relevance check.")
@click.option("--no-progress", is_flag=True, help="No progress bar (also off when stderr is not a terminal).")
@json_option
def biokalma_cmd(out, store_uri, pairs_file, limit, reserve, all_pairs, seed, alpha, rounds, model, scorer_model, n_ctx,
                 n_gpu_layers,
                 threads, temperature, perplexity_scope, annotate, max_candidates, max_new,
                 concurrency, shard, nli_model, no_nli,
                 no_progress, as_json):
    """Person pairs → name disambiguation → knowledge pools → evolutionary question generation (eq. 1).

    Writes one entry per pair: two persons' QIDs, a general and a specific question, the final
    paragraph and the minimum knowledge set (qid, property, value, round), with provenance."""
    # llama.cpp's OpenMP threads spin while waiting by default; on a shared or small CPU that costs
    # 5-10x in throughput (measured on 2 busy cores). Must be set before llama_cpp is loaded.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from kalma_graph.biokalma import DEFAULT_ALPHA, BuildOptions, EvolveConfig, build_biokalma
    from kalma_graph.models.llm import LLMError, load_llm
    from kalma_graph.models.server import ServerLLM
    from kalma_graph.store import open_store

    config = EvolveConfig(rounds=rounds, alpha=DEFAULT_ALPHA if alpha is None else alpha, seed=seed,
                          temperature=temperature, perplexity_scope=perplexity_scope, annotate=annotate,
                          max_candidates=max_candidates)
    from kalma_graph.shards import Shard

    options = BuildOptions(limit=None if all_pairs else limit, pairs_file=pairs_file, evolve=config,
                           max_new=max_new, reserve=reserve, concurrency=concurrency,
                           shard=Shard.parse(shard) if shard else None)
    # Two instances of one GGUF: one writes (its chat prefix cache survives), one scores (logits kept).
    llm = load_llm(model, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=threads, seed=seed)
    scorer = load_llm(scorer_model or model, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=threads, seed=seed,
                      logits=True)
    if isinstance(scorer, ServerLLM) and "scored_extensions" not in scorer.scoring:
        scorer.close()
        raise LLMError(f"{scorer.endpoint.base} does not compute eq. 1's perplexities (only `kalma-graph serve "
                       "--scoring` does): give --scorer-model NAME|PATH (the GGUF the server serves, in-process)")
    nli = None
    if not no_nli:
        from kalma_graph.models.nli import load_nli

        nli = load_nli(nli_model or os.environ.get("KALMA_NLI_MODEL"))
    store = open_store(store_uri)
    show_bar = not no_progress and sys.stderr.isatty()
    progress = Progress(TextColumn("[bold]biokalma"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TimeRemainingColumn(), TextColumn("{task.description}"), console=err_console,
                        disable=not show_bar)
    task = progress.add_task("", total=None)

    def hook(done: int, total: int, entry_id: str) -> None:
        progress.update(task, completed=done, total=total, description=entry_id)

    try:
        with progress:
            summary = build_biokalma(store, llm, out, options, scorer_llm=scorer, nli=nli, progress=hook)
    except ValueError as exc:  # a malformed --pairs line (file:line: why)
        fail(exc)
    except KeyboardInterrupt:
        err_console.print(f"[yellow]interrupted: finished entries are kept in {escape(out)}; "
                          "the same command resumes after them[/]")
        sys.exit(130)
    finally:
        store.close()
        llm.close()
        scorer.close()
        if nli is not None:
            nli.close()
    if as_json:
        print_json(summary)
        return
    _print_summary(summary)


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _print_summary(summary: dict) -> None:
    checks = summary["checks"]
    table = Table(title=f"BioKaLMA dataset {escape(summary['out'])}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    sizes = checks["set_sizes"]
    rows = [
        *([("shard", f"{summary['shard']}: the entries of its pairs only; `kalma-graph merge` joins the shards")]
          if summary.get("shard") else []),
        ("entries (built now / resumed)", f"{summary['entries']} ({summary['built_now']} / {summary['resumed']})"),
        ("pairs considered / disambiguation", f"{summary['pairs_considered']} / {summary['disambiguation']}"),
        ("entries per minute", f"{summary['entries_per_minute']}"),
        ("gold triples in graph", f"{checks['in_graph']['in_graph']}/{checks['in_graph']['triples']}"),
        ("set size mean (paper 6.8)", f"{sizes.get('mean', 0):.2f}  {sizes.get('histogram')}"),
        ("template sentences", f"{checks['generation']['template_sentences']}/{checks['generation']['rounds']}"),
        ("fallback questions", f"{checks['generation']['fallback_questions']}/{checks['generation']['questions']}"),
        ("specific questions consistent with gold", _share(summary["headline"]["question_gold_consistent_share"])),
        ("gold triples the specific questions ask", _share(summary["headline"]["gold_asked_share"])),
        ("entries regenerated / dropped", f"{summary['headline']['regenerated']} / {summary['headline']['dropped']}"),
    ]
    if checks.get("relevance"):
        rel = checks["relevance"]
        rows.append(
            ("relevance (NLI entailed, micro/macro)", f"{rel['entailed_micro']:.3f} / {rel['entailed_macro']:.3f}"))
    for name, value in rows:
        table.add_row(name, escape(str(value)))
    console.print(table)
    console.print(f"relations (eq. 1): {escape(str(checks['relations']['eq1']))}")
    console.print(f"gold: {escape(summary['gold'])}  questions: {escape(summary['questions'])}  "
                  f"checks: {escape(summary['checks_file'])}")


@build.command("biokalma-sample")
@click.argument("entries_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--n", "n", type=click.IntRange(min=1), default=10, show_default=True, help="Entries to print.")
@click.option("--seed", type=int, default=0, show_default=True, help="Which entries (seeded draw).")
def biokalma_sample_cmd(entries_file: str, n: int, seed: int) -> None:
    """Print N random entries of a built dataset (paragraph, questions, gold) as Markdown, for a
    reader's check of what the dataset asks and what it counts as gold."""
    from kalma_graph.biokalma.checks import reader_sample
    from kalma_graph.files import read_jsonl

    entries = read_jsonl(entries_file).records
    click.echo(reader_sample(entries, n=n, seed=seed))
