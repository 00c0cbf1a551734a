"""`kalma-graph caqa build | bench | train` — thin wrappers around `kalma_graph.caqa`."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from kalma_graph.caqa.evaluators import EVALUATORS

from .common import KalmaGroup, console, err_console, figure, json_option, print_json
from .options import option, renamed


@click.group("caqa", cls=KalmaGroup)
def caqa() -> None:
    """CAQA: build a complex-attribution benchmark from the graph; benchmark and train evaluators."""


def _bar(label: str, disable: bool) -> Progress:
    return Progress(TextColumn(f"[bold]{label}[/] {{task.description}}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=err_console, disable=disable)


@caqa.command("build")
@option("store")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output directory (samples.jsonl, stats.md, …); re-running resumes.")
@click.option("--kgqa", "kgqa", multiple=True, metavar="[FORMAT=]PATH",
              help="KGQA questions (repeatable): sq-wikidata, sq-freebase or mintaka; format detected when omitted.")
@click.option("--kb", "kbs", multiple=True, type=click.Choice(["wikidata", "freebase"]),
              help="Knowledge bases to use (default: both).")
@click.option("--paths", default=0, show_default=True, help="Sampled 2-hop path queries per knowledge base.")
@click.option("--trees", default=0, show_default=True, help="Sampled two-subject tree queries per knowledge base.")
@click.option("--singles", default=0, show_default=True,
              help="Sampled single-triple queries with a same-name subject (union-ready) per knowledge base.")
@click.option("--seed", default=0, show_default=True)
@click.option("--test-entity-rate", default=0.02, show_default=True,
              help="Share of entities held out: queries mentioning one form the test split.")
@click.option("--verbaliser", type=click.Choice(["template", "llm"]), default="template", show_default=True)
@option("model", help="The model for --verbaliser llm: a registry name or a GGUF path [env KALMA_LLM; default: the "
                      "packaged SmolLM2].")
@option("n-ctx", default=2048)
@option("n-gpu-layers")
@click.option("--limit", type=int, default=None, help="Process at most N queries this run (resume later).")
@click.option("--fresh", is_flag=True, help="Discard an existing build in --out.")
@click.option("--no-progress", is_flag=True)
@json_option
def build_cmd(store_uri, out_dir, kgqa, kbs, paths, trees, singles, seed, test_entity_rate, verbaliser, model,
              n_ctx, n_gpu_layers, limit, fresh, no_progress, as_json):
    """Collect queries (KGQA files + graph sampler), extend them, ground and edit the subgraphs into
    the four attribution categories, verbalise, and write JSONL plus Table 4-style statistics."""
    from kalma_graph.caqa.build import BuildConfig, build
    from kalma_graph.caqa.verbalise import LLMVerbaliser, TemplateVerbaliser
    from kalma_graph.store import open_store

    config = BuildConfig(out=out_dir, kgqa=list(kgqa), kbs=tuple(kbs) or ("wikidata", "freebase"), paths=paths,
                         trees=trees, singles=singles, seed=seed, test_entity_rate=test_entity_rate, limit=limit)
    if verbaliser == "llm":
        from kalma_graph.models.llm import load_llm

        verb = LLMVerbaliser(load_llm(model, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, seed=seed), seed=seed)
    else:
        verb = TemplateVerbaliser()
    store = open_store(store_uri)
    bar = _bar("caqa build", no_progress or as_json or not sys.stderr.isatty())
    with store, bar:
        task = bar.add_task("queries", total=None)
        summary = build(store, config, verbaliser=verb, fresh=fresh,
                        progress=lambda done, total: bar.update(task, completed=done, total=total))
    if as_json:
        print_json(summary)
        return
    console.print(Path(summary["out"], "stats.md").read_text(encoding="utf-8"))
    run = summary["run"]
    console.print(f"{summary['samples']:,} samples from {summary['queries']:,} queries in {summary['out']}; "
                  f"this run: {run['samples_written_this_run']:,} samples in {run['build_seconds']} s "
                  f"({run['samples_per_minute']} samples/min), {run['queries_remaining']} queries left")
    if summary.get("skipped"):
        console.print(f"skipped queries: {summary['skipped']}")


@caqa.command("bench")
@click.argument("samples", type=click.Path(exists=True))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False))
@click.option("--evaluator", "evaluators", multiple=True, required=True, metavar="NAME",
              help=f"{', '.join(EVALUATORS)} (repeatable; verifier: the graph-grounded verifier, no model).")
@option("nli", help="NLI model of the NLI evaluators: a local directory or hub id [env KALMA_NLI_MODEL].")
@option("nli-cache", default="default", show_default=True,
        help="SQLite cache of NLI scores: 'default' (user cache dir, env KALMA_NLI_CACHE), a path, or 'none'.")
@option("model",
        help="The model of the LLM evaluators: a registry name, a GGUF path or a model server [env KALMA_LLM].")
@renamed("--llm", "--model", "--model names the generation model in every command")
@option("n-ctx")
@option("n-gpu-layers")
@click.option("--constrained", is_flag=True,
              help="LLM evaluators decode with a grammar admitting only the category words (not in the paper).")
@click.option("--short-prompt", is_flag=True,
              help="Table 12/13 'Other Evaluators' prompts instead of the 'GPT series' ones.")
@click.option("--split", type=click.Choice(["test", "train", "all"]), default="test", show_default=True)
@click.option("--limit", type=int, default=None, help="A seeded subset of N samples (the same for every evaluator).")
@click.option("--factscore-limit", default=200, show_default=True,
              help="Partially supportive samples for FActScore (0: none).")
@click.option("--device", default=None,
              help="auto | cpu | cuda[:N] for the NLI / fine-tuned models [env KALMA_DEVICE].")
@click.option("--batch-size", default=16, show_default=True)
@click.option("--seed", default=0, show_default=True)
@option("concurrency", help="LLM judges: samples judged at once (for a model server, --model http://…).")
@click.option("--no-progress", is_flag=True)
@json_option
def bench_cmd(samples, out_dir, evaluators, nli_model, nli_cache, model, n_ctx, n_gpu_layers, constrained,
              short_prompt, split, limit, factscore_limit, device, batch_size, seed, concurrency, no_progress, as_json):
    """Run attribution evaluators on built samples; write report.md (Table 5 layout), report.json,
    confusion matrices and FActScore on partially supportive samples."""
    from kalma_graph.caqa.bench import load_samples, run_bench
    from kalma_graph.caqa.evaluators import NEEDS_LLM, NEEDS_NLI, make_evaluator
    from kalma_graph.caqa.evaluators.llm_judge import demos_from

    chosen = load_samples(samples, split=split, limit=limit, seed=seed)
    if not chosen:
        raise click.UsageError(f"no {split} samples in {samples}")
    nli = llm = None
    if any(e in NEEDS_NLI for e in evaluators):
        from kalma_graph.models.nli import load_nli

        nli = load_nli(nli_model, device=device, cache=None if nli_cache.lower() == "none" else nli_cache)
    if any(e in NEEDS_LLM for e in evaluators):
        from kalma_graph.models.llm import load_llm

        llm = load_llm(model, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, seed=seed)
    demos = None
    if "llm-few-shot" in evaluators:
        demos = demos_from(load_samples(samples, split="train"), seed=seed) or None
    built = [make_evaluator(e, nli=nli, llm=llm, demos=demos, short_prompt=short_prompt, seed=seed, device=device,
                            constrained=constrained, concurrency=concurrency) for e in evaluators]
    header = {"samples_file": str(samples), "split": split, "subset": limit, "seed": seed,
              "constrained": constrained, "short_prompt": short_prompt}
    bar = _bar("caqa bench", no_progress or as_json or not sys.stderr.isatty())
    tasks: dict[str, int] = {}

    def progress(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = bar.add_task(name, total=total)
        bar.update(tasks[name], completed=done)

    with bar:  # a damaged predictions file: CorruptJsonlError, its file:line, nothing dropped
        report = run_bench(chosen, built, out_dir, batch_size=batch_size, factscore_limit=factscore_limit,
                           header=header, progress=progress)
    if as_json:
        print_json(report)
        return
    console.print(Path(out_dir, "report.md").read_text(encoding="utf-8"))


@caqa.command("train")
@click.argument("samples", type=click.Path(exists=True))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False))
@click.option("--init", default=None,
              help="Starting checkpoint (default: $KALMA_NLI_MODEL, else ../shared/models/nli-minilm-l6-v1).")
@click.option("--epochs", default=1.0, show_default=True)
@click.option("--batch-size", default=16, show_default=True)
@click.option("--lr", default=5e-5, show_default=True)
@click.option("--max-length", default=192, show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option("--max-steps", type=int, default=None)
@click.option("--max-train", type=int, default=None, help="Train on a seeded subset of N samples.")
@click.option("--strict-entities", is_flag=True,
              help="Also drop training samples mentioning an entity a test question is about.")
@click.option("--time-limit", type=float, default=None, help="Stop cleanly after N seconds (resumable).")
@click.option("--device", default=None, help="auto | cpu | cuda[:N] [env KALMA_DEVICE].")
@option("threads")
@click.option("--no-progress", is_flag=True)
@json_option
def train_cmd(samples, out_dir, init, epochs, batch_size, lr, max_length, seed, max_steps, max_train, strict_entities,
              time_limit, device, threads, no_progress, as_json):
    """Fine-tune a 4-way classifier on the build's training split (test entities never seen)."""
    from kalma_graph.caqa.train import CAQATrainConfig, default_init, train_caqa

    config = CAQATrainConfig(samples=samples, output_dir=out_dir, init=init or default_init(), epochs=epochs,
                             batch_size=batch_size, lr=lr, max_length=max_length, seed=seed, max_steps=max_steps,
                             max_train=max_train, strict_entities=strict_entities, time_limit_s=time_limit,
                             device=device, threads=threads)
    bar = _bar("caqa train", no_progress or as_json or not sys.stderr.isatty())
    with bar:
        task = bar.add_task("steps", total=None)
        result = train_caqa(config, progress=lambda step, total, loss: bar.update(
            task, completed=step, total=total, description=f"loss {loss:.3f}"))
    if as_json:
        print_json(result)
        return
    if result["status"] != "done":
        console.print(f"stopped at step {result['step']}/{result['total_steps']}; re-run to resume")
        sys.exit(130)
    table = Table(title=f"caqa train -> {out_dir}")
    table.add_column("field")
    table.add_column("value")
    table.add_row("init", str(result["config"]["init"]))
    table.add_row("device", str(result["device"]))
    table.add_row("train / dev / test",
                  f"{result['data']['train']} / {result['data']['dev']} / {result['data']['test']}")
    table.add_row("entity leakage", str(result["data"]["leakage"]))
    table.add_row("steps / seconds", f"{result['steps']} / {result['train_seconds']}")
    for part in ("dev", "test"):
        r = result[part]
        if r:
            table.add_row(f"{part} micro-F1", f"{figure(r['overall'], 3)} (n={r['n']})")
            table.add_row(f"{part} F1 Sup/Par/Con/Irr", " / ".join(figure(v, 3) for v in r["category"].values()))
    console.print(table)
