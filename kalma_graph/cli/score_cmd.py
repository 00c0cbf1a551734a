"""`kalma-graph score`: SCK scores (seed 004) for (question, answer) pairs against the loaded graph.

A thin wrapper over `kalma_graph.sck.run`: parse options, build the scorer, run with a progress bar,
print the per-intent table (or the summary as JSON)."""

from __future__ import annotations

import sys

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from kalma_graph.attribution.registry import REGISTRY as SHARED_EVALUATORS

from .common import console, err_console, failing_on, figure, json_option, print_json
from .options import option, renamed


def _k_weights(value: str | None) -> dict[str, float] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        numbers = []
    if len(numbers) != 3 or any(n < 0 for n in numbers) or sum(numbers) <= 0:
        raise click.BadParameter("expected three non-negative numbers VE,ER,KG-ATTR (e.g. 0.2,0.3,0.5)",
                                 param_hint="--k-weights")
    total = sum(numbers)
    return {"ve": numbers[0] / total, "er": numbers[1] / total, "kg_attr": numbers[2] / total}


@click.command("score")
@click.option("--in", "in_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="JSONL / JSON array / CSV with question, answer, optional reference and id "
                   "(answer-pipeline JSONL records are read as they are).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output directory; re-running with the same one skips answers already scored.")
@option("store")
@click.option("--attribution-judge", "judge", type=click.Choice(["nli", "llm", *SHARED_EVALUATORS]), default="nli",
              show_default=True,
              help="KG-AttrScore judge: the NLI model, the local LLM with the Figure 2 prompt, or kalma-graph's "
                   "graph-grounded verifier (no model).")
@renamed("--judge", "--attribution-judge", "--judge names the G-Eval judge model in evaluate and experiment")
@click.option("--intent", "intent", type=click.Choice(["nli", "llm", "rules"]), default="nli", show_default=True,
              help="Intent classifier: zero-shot NLI, the local LLM, or cue-phrase rules.")
@option("nli")
@option("model", help="The model for --attribution-judge llm / --intent llm: a registry name, a GGUF path or a model "
                      "server [env KALMA_LLM; default: the packaged SmolLM2].")
@click.option("--embedder", default=None, metavar="PATH",
              help="sentence-transformers model directory for ER [env KALMA_EMBEDDER; default: all-MiniLM-L6-v2].")
@option("ner")
@click.option("--device", default=None, help="auto | cpu | cuda | cuda:N for NLI and embeddings [env KALMA_DEVICE].")
@click.option("--evidence", type=click.Choice(["context", "between"]), default="context", show_default=True,
              help="between: the paper's triplets between the sentence's entities only; context: also their "
                   "one-hop statements (finds contradictions such as a wrong birthplace).")
@click.option("--question-entities/--no-question-entities", default=True, show_default=True,
              help="Add the question's entities to every sentence's entity set.")
@click.option("--nli-threshold", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.5,
              show_default=True, help="P(entailment) from which the NLI judge counts a triplet as stated.")
@click.option("--nli-premise", type=click.Choice(["question+sentence", "sentence"]), default="question+sentence",
              show_default=True, help="NLI judge premise: the question then the sentence (resolves 'He ...'), "
                                      "or the sentence alone.")
@click.option("--k-weights", default=None, metavar="VE,ER,KG",
              help="Weights of eq. 3 (normalised to sum to 1) [default: equal].")
@click.option("--attr-penalty", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Weight of a contradictory sentence against an attributable one in KG-AttrScore.")
@click.option("--intent-weights", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A Table 3 file replacing kalma_graph/data/sck_intent_weights.json.")
@click.option("--batch-size", type=click.IntRange(min=1), default=8, show_default=True,
              help="Answers per batch (intent classification runs per batch).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Score only the first N records.")
@option("concurrency", help="--attribution-judge llm: an answer's sentences judged at once (for a model server, "
                            "--model http://…).")
@click.option("--fresh", is_flag=True, help="Delete the previous results in --out and start over.")
@click.option("--no-progress", is_flag=True, help="No progress bar (it is also off when stderr is not a terminal).")
@json_option
def score(in_path, out_dir, store_uri, judge, intent, nli_model, model, embedder, ner, device, evidence,
          question_entities, nli_threshold, nli_premise, k_weights, attr_penalty, intent_weights, batch_size, limit,
          concurrency, fresh, no_progress, as_json):
    """SCK answer scores: S (structure), C (content), K (knowledge: VE, ER, KG-AttrScore), with evidence.

    Writes header.json, answers.{jsonl,csv}, sentences.{jsonl,csv} and summary.{json,md} to --out.
    """
    from kalma_graph.sck.run import build_scorer, score_file
    from kalma_graph.sck.scorer import ScoreOptions
    from kalma_graph.store import open_store

    options = ScoreOptions(evidence=evidence, question_entities=question_entities, attr_penalty=attr_penalty,
                           intent_weights=intent_weights,
                           **({"k_weights": _k_weights(k_weights)} if k_weights else {}))
    store = open_store(store_uri)
    show_bar = not no_progress and sys.stderr.isatty()
    progress = Progress(TextColumn("[bold]scoring"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TimeRemainingColumn(), console=err_console, disable=not show_bar)
    task = progress.add_task("score", total=None)

    def hook(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    with store, failing_on(ValueError):  # a library's too; the project's own errors: main_errors
        err_console.print("[dim]loading models…[/]")
        scorer = build_scorer(store, judge=judge, intent=intent, nli=nli_model, model=model, embedder=embedder,
                              ner=ner, device=device, nli_threshold=nli_threshold, nli_premise=nli_premise,
                              options=options, concurrency=concurrency)
        with progress:
            summary = score_file(scorer, in_path, out_dir, fresh=fresh, limit=limit, batch_size=batch_size,
                                 progress=hook)
    if as_json:
        print_json(summary)
        return
    table = Table(title=f"SCK scores → {out_dir}")
    for col in ("intent", "n", "SCK", "S", "C", "K", "VE", "ER", "KG-Attr"):
        table.add_column(col, justify="left" if col == "intent" else "right")

    def fmt(value):
        return figure(value, 2)

    blocks = list(summary["per_intent"].items()) + [("all", summary["overall"])]
    for name, block in blocks:
        if block["n"]:
            table.add_row(name, str(block["n"]),
                          *(fmt(block[c]) for c in ("sck", "s", "c", "k", "ve", "er", "kg_attr")))
    console.print(table)
    labels = summary["sentence_labels"]
    console.print(f"sentences: {labels['Attributable']} attributable, {labels['Extrapolatory']} extrapolatory, "
                  f"{labels['Contradictory']} contradictory, {labels['missing']} missing")
    tp = summary["throughput"]
    if tp["scored_now"]:
        console.print(f"scored {tp['scored_now']} answers in {tp['seconds']} s ({tp['answers_per_second']} answers/s)")
    else:
        console.print("nothing new to score (all ids already in the output); reports rewritten")
