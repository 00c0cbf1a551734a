"""`kalma-graph evaluate`: score an answers file (citations, alignment, [NA], G-Eval) and report it.

Thin: options are parsed here, models loaded once, and `kalma_graph.evaluation.evaluate.evaluate_file`
does the work."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.markup import escape
from rich.table import Table

from kalma_graph.evaluation.geval import ASPECTS, DEFAULT_MIN_MASS
from kalma_graph.evaluation.matching import MATCH_MODES
from kalma_graph.evaluation.metrics.conscious_incompetence import ABSENT_SETS
from kalma_graph.evaluation.metrics.entailment import HYPOTHESIS_FORMATS

from .common import console, err_console, failing_on, figure, json_option, print_json
from .options import option

if TYPE_CHECKING:
    from kalma_graph.evaluation_result import EvaluationResult


def nli_options(func):
    for decorator in reversed([
        option("nli", help="NLI model (local directory or hub id) for alignment and [NA] [env KALMA_NLI_MODEL; "
                           "default: the NLI component's default]."),
        click.option("--alignment", "alignment_method", type=click.Choice(["verifier", "nli"]), default="verifier",
                     show_default=True,
                     help="Who judges text–citation alignment: the graph-grounded verifier (no model "
                          "needed) or the paper's NLI model (--nli). With an NLI model the "
                          "verifier's report also gives the NLI figure beside it."),
        click.option("--verifier-nli", is_flag=True,
                     help="Verifier stage two: combine its structural verdicts with the NLI model's entailment "
                          "(weights fitted on graph-generated pairs for nli-minilm-l6-v1; docs/verifier.md: not "
                          "better than stage one on held-out labels, so off by default)."),
        click.option("--no-nli", is_flag=True, help="Skip alignment and [NA] quality (no NLI model is loaded)."),
        click.option("--nli-batch-size", type=int, default=32, show_default=True),
        option("nli-cache", help="SQLite cache of NLI results [default: OUT/cache/nli.sqlite]."),
        click.option("--device", default=None, help="NLI device: auto | cpu | cuda | cuda:N [env KALMA_DEVICE]."),
        option("judge"),
        click.option("--judge-ctx", type=int, default=4096, show_default=True, help="Judge context window."),
        click.option("--judge-gpu-layers", type=int, default=None,
                     help="Judge layers on the GPU (default: all when built with one)."),
        click.option("--judge-threads", type=int, default=None,
                     help="CPU threads for the judge (default: llama.cpp's)."),
        click.option("--judge-concurrency", type=click.IntRange(min=1), default=1, show_default=True,
                     help="G-Eval judgements in flight (for a model server, --judge http://…)."),
        click.option("--geval-aspects", default=",".join(ASPECTS), show_default=True),
        click.option("--geval-sample", type=int, default=None,
                     help="Judge a seeded sample of N answers (the paper: 100)."),
        click.option("--geval-min-mass", type=float, default=DEFAULT_MIN_MASS, show_default=True,
                     help="Below this probability on the tokens 1-5 a G-Eval score is missing."),
        click.option("--matching", type=click.Choice(MATCH_MODES), default="strict", show_default=True,
                     help="When a citation equals a graph triple."),
        click.option("--hypothesis", "hypothesis_format", type=click.Choice(HYPOTHESIS_FORMATS), default="prop_value",
                     show_default=True, help="NLI hypothesis: 'prop: value' (the paper) or a verbalised sentence."),
        click.option("--na-absent", "absent_set", type=click.Choice(ABSENT_SETS), default="removed", show_default=True,
                     help="[NA] absent set: knowledge removed from the prompt (the paper) or gold not cited "
                          "(the original code)."),
        click.option("--threshold", type=float, default=0.5, show_default=True,
                     help="Entailment probability counted as entailed."),
        click.option("--alignment-first", type=int, default=None,
                     help="Score alignment on the first N answers only (original code: 400)."),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed for sampling (G-Eval sample)."),
    ]):
        func = decorator(func)
    return func


def build_options(matching, hypothesis_format, absent_set, threshold, alignment_first, nli_batch_size,
                  geval_sample, seed, alignment="verifier"):
    from kalma_graph.evaluation.evaluate import EvaluateOptions

    return EvaluateOptions(alignment=alignment, matching=matching, hypothesis_format=hypothesis_format,
                           absent_set=absent_set, threshold=threshold, alignment_first_n=alignment_first,
                           nli_batch_size=nli_batch_size,
                           geval_sample=geval_sample, seed=seed)


def load_models(out: Path, *, nli_model, no_nli, nli_batch_size, nli_cache, device, judge, judge_ctx,
                judge_gpu_layers, geval_aspects, geval_min_mass, seed, judge_threads=None,
                judge_concurrency=1) -> tuple[Any, Any]:
    nli = judge_obj = None
    if not no_nli and nli_model is None:
        from kalma_graph.models.nli import DEFAULT_NLI_MODEL, MODEL_ENV, default_nli_available

        if not default_nli_available():
            # plain `evaluate` never fails for want of a download: the verifier's figures need no model
            no_nli = True
            err_console.print(
                f"[yellow]NLI skipped[/]: no --nli given and {escape(os.environ.get(MODEL_ENV) or DEFAULT_NLI_MODEL)} "
                f"is not on this machine; the report has the verifier's figures, without the NLI alignment column "
                f"and [NA] quality. Add them with --nli PATH (e.g. ../shared/models/nli-minilm-l6-v1) or ${MODEL_ENV}.")
    if not no_nli:
        from kalma_graph.models.nli import load_nli

        nli = load_nli(nli_model, device=device, batch_size=nli_batch_size,
                       cache=nli_cache or (out / "cache" / "nli.sqlite"))
        err_console.print(f"NLI: {escape(nli.name_or_path)} on {nli.device}")
    if judge:
        from kalma_graph.evaluation.geval import GEvalJudge
        from kalma_graph.models.llm import load_llm

        llm = load_llm(judge, n_ctx=judge_ctx, n_gpu_layers=judge_gpu_layers, n_threads=judge_threads, seed=seed)
        aspects = [a.strip() for a in geval_aspects.split(",") if a.strip()]
        judge_obj = GEvalJudge(llm, aspects=aspects, cache=out / "cache" / "geval.sqlite", min_mass=geval_min_mass,
                               concurrency=judge_concurrency)
        header = llm.header()
        err_console.print(f"G-Eval judge: {escape(header['model_file'])} on {header['device']} "
                          f"({header['n_gpu_layers']} GPU layers)")
    return nli, judge_obj


def progress_printer(enabled: bool):
    if not enabled:
        return None
    last: dict[str, int] = {}

    def report(stage: str, done: int, total: int) -> None:
        step = max(1, total // 20)
        if done == total or done - last.get(stage, -step) >= step:
            last[stage] = done
            err_console.print(f"  {stage}: {done}/{total}", highlight=False)

    return report


@click.command("evaluate")
@click.option("--answers", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Answers JSONL written by `kalma-graph answer` (its .header.json sidecar is read too).")
@click.option("--gold", type=click.Path(exists=True, dir_okay=False), default=None,
              help='Gold minimum knowledge sets, JSONL {"id", "gold": [[qid, prop, value], ...]}; without it '
                   "citation precision/recall/F1 are not computed.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Report directory; re-running with the same one reuses its NLI and judge caches.")
@option("store", help="Also write the run into this graph store (embedded[:PATH] or bolt://…) [env KALMA_STORE].")
@click.option("--run-id", default=None,
              help="Run id in the graph [default: <answers stem>-<hash of inputs and choices>].")
@click.option("--no-plots", is_flag=True, help="Skip the PNG plots.")
@option("shard",
        help="Score only shard I of N of the answers (a stable hash of their id), filling OUT's NLI and judge "
                   "caches; `kalma-graph merge --out DIR OUT1 OUT2 …` unites the shards' caches, and `evaluate --out "
                   "DIR` then scores the whole file without asking the models again (docs/scaling.md).")
@click.option("--progress/--no-progress", default=True, show_default=True)
@json_option
@nli_options
def evaluate(answers, gold, out_dir, store_uri, run_id, no_plots, shard, progress, as_json, nli_model, no_nli,
             nli_batch_size, nli_cache, device, judge, judge_ctx, judge_gpu_layers, judge_threads, judge_concurrency,
             geval_aspects,
             geval_sample, geval_min_mass, matching, hypothesis_format, absent_set, threshold, alignment_first, seed,
             alignment_method, verifier_nli):
    """Score an answers file: citation quality, text–citation alignment (the verifier; or NLI), [NA] quality, G-Eval.

    Writes OUT/results.json, OUT/per_answer.csv, OUT/answers_scored.jsonl, OUT/summary.md and
    OUT/plots/*.png; with --store, the run is written into the graph (browse it with the saved
    queries in cypher/browse/)."""
    from kalma_graph.evaluation.evaluate import evaluate_file
    from kalma_graph.shards import Shard

    out = Path(out_dir)
    with failing_on(ValueError):  # a library's too (pydantic); the project's own: main_errors
        part = Shard.parse(shard) if shard else None
        options = build_options(matching, hypothesis_format, absent_set, threshold, alignment_first,
                                nli_batch_size, geval_sample, seed, alignment_method)
        if alignment_method == "nli" and no_nli:
            raise ValueError("--alignment nli needs an NLI model: give --nli MODEL (not --no-nli)")
        nli, judge_obj = load_models(out, nli_model=nli_model, no_nli=no_nli, nli_batch_size=nli_batch_size,
                                     nli_cache=nli_cache, device=device, judge=judge, judge_ctx=judge_ctx,
                                     judge_gpu_layers=judge_gpu_layers, geval_aspects=geval_aspects,
                                     geval_min_mass=geval_min_mass, seed=seed, judge_threads=judge_threads,
                                     judge_concurrency=judge_concurrency)
        store = None
        if store_uri:
            from kalma_graph.store import open_store

            store = open_store(store_uri)
        verifier = None
        if verifier_nli:
            from kalma_graph.verification import Verifier
            from kalma_graph.verification.calibration import Calibrator

            if nli is None:
                raise ValueError("--verifier-nli needs an NLI model (--nli MODEL)")
            verifier = Verifier(store, calibrator=Calibrator.load(nli))
        try:
            results = evaluate_file(answers, out_dir=out, gold=gold, nli=nli, judge=judge_obj, options=options,
                                    store=store, run_id=run_id, plots=not no_plots,
                                    progress=progress_printer(progress), verifier=verifier, shard=part)
        finally:
            if store is not None:
                store.close()
            if nli is not None:
                nli.close()
            if judge_obj is not None:
                judge_obj.close()
    if as_json:
        print_json(results.model_dump(exclude={"per_answer"}))  # the scored answers are never dumped
        return
    print_summary(results)


def print_summary(results: EvaluationResult) -> None:
    summary = results.summary
    figures = summary.model_dump()  # the figures written only for some runs (the verifier's) read by name
    table = Table(title=f"evaluation {results.run_id}", show_header=True)
    table.add_column("metric")
    table.add_column("value", justify="right")

    def pct(value):
        return figure(value, 1, scale=100)

    rows = [("answers", str(summary.answers)), ("citations", str(summary.citations)),
            ("correctness %", pct(summary.correctness)),
            ("precision % (micro / macro)", f"{pct(summary.precision_micro)} / {pct(summary.precision_macro)}"),
            ("recall % (micro / macro)", f"{pct(summary.recall_micro)} / {pct(summary.recall_macro)}"),
            ("F1 % (micro / macro)", f"{pct(summary.f1_micro)} / {pct(summary.f1_macro)}"),
            (f"alignment % (micro / macro, {figures.get('alignment_method') or 'n/a'})"
             + ((" — SELF-SCORED: the verifier kept these citations" if figures.get("alignment_method") == "verifier"
                else " — SELF-SCORED: the same NLI placed the citations") if summary.alignment_self_scored else ""),
             f"{pct(summary.alignment_micro)} / {pct(summary.alignment_macro)}")]
    if figures.get("alignment_method") == "verifier":
        if figures.get("alignment_before_filter_micro") is not None:
            rows.append(("alignment % of the citations as written (before the verifier's filter)",
                         pct(figures.get("alignment_before_filter_micro"))))
        rows += [("alignment % (the paper's NLI)", pct(figures.get("alignment_nli_micro"))),
                 ("citations partly / not supported",
                  f"{figures.get('citations_partial')} / {figures.get('citations_unsupported')}"),
                 ("cited sentences fully supported %", pct(figures.get("fully_supported_share"))),
                 ("claims absent / contradicted",
                  f"{figures.get('claims_absent')} / {figures.get('claims_contradicted')}")]
    rows += [
            ("[NA] precision / recall / F1 %", f"{pct(summary.na_precision)} / {pct(summary.na_recall)} / "
                                               f"{pct(summary.na_f1)}")]
    for aspect, scores in summary.geval().items():
        rows.append((f"G-Eval {aspect}", figure(scores.mean, 2) + f" (missing {scores.missing})"))
    rows += [("answers without citation", str(summary.answers_without_citation)),
             ("sloppy citations %", pct(summary.sloppy_share)), ("truncated answers", str(summary.truncated))]
    for name, value in rows:
        table.add_row(name, value)
    console.print(table)
    for part, reason in results.skipped.items():
        console.print(f"[yellow]{part} skipped:[/] {escape(reason)}")
    for note in results.notes:
        console.print(f"[dim]note:[/] {escape(note)}")
    if results.store:
        s = results.store
        console.print(
            f"run [bold]{escape(results.run_id or '')}[/] written to {escape(s.uri or '')}: {s.answers} answers, "
            f"{s.sentences} sentences, {s.cites} CITES links")
    console.print(f"report: {escape((results.files or {})['markdown'])}")
