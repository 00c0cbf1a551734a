"""`kalma-graph nli train|eval`: thin wrappers over `kalma_graph.nli` that print with rich."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from kalma_graph.files import atomic_write_text

from .common import KalmaGroup, err_console, figure, json_option, json_out_option, print_json
from .options import option, renamed

console = Console()


def _parse_sizes(values: tuple[str, ...]) -> dict[str, int | None]:
    sizes: dict[str, int | None] = {}
    for item in values:
        name, _, count = item.partition("=")
        if not name or not count:
            raise click.BadParameter(f"expected PART=N (e.g. kg=300), got {item!r}", param_hint="--size")
        sizes[name.strip().lower()] = None if count.strip().lower() == "all" else int(count)
    return sizes


def _parse_label_map(text: str | None) -> dict[str, str] | None:
    if not text:
        return None
    pairs = [p.split("=", 1) for p in text.split(",") if p.strip()]
    if any(len(p) != 2 for p in pairs):
        raise click.BadParameter("expected NAME=LABEL,... (e.g. LABEL_0=entailment)", param_hint="--label-map")
    return {k.strip(): v.strip() for k, v in pairs}


def _write_json(path: str | None, data: dict[str, Any], as_json: bool = False) -> None:
    """`--json-out PATH` writes the result there; `--json` prints it on stdout (as every command does)."""
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(Path(path), json.dumps(data, indent=1, default=str))
        err_console.print(f"[dim]wrote {path}[/dim]")
    if as_json:
        print_json(data)


@click.group("nli", cls=KalmaGroup)
def nli() -> None:
    """Train and evaluate NLI / attribution models."""


@nli.command("train")
@click.option("--init", "init", default=lambda: os.environ.get("KALMA_NLI_MODEL"),
              help="Checkpoint to start from: a local model directory or hub id [env KALMA_NLI_MODEL].")
@click.option("--out", "output_dir", required=True, type=click.Path(file_okay=False),
              help="Output directory; re-running with the same one resumes from its latest checkpoint.")
@click.option("--nli-file", type=click.Path(exists=True, dir_okay=False),
              help="Public NLI pairs (nli_pairs.jsonl format); MNLI/ANLI evaluation portions are never trained on.")
@click.option("--kg-records", "kg_records", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Knowledge-graph records (BioKaLMA *_question_graph.json) to generate attribution pairs from.")
@click.option("--size", "sizes", multiple=True, metavar="PART=N",
              help="Cap a training part: snli, mnli, anli, sick, conjnli, kg (N, 'all' or 0 to drop). Repeatable.")
@click.option("--kg-per-entity", default=12, show_default=True, help="Generated pairs per entity.")
@click.option("--epochs", default=1.0, show_default=True)
@click.option("--batch-size", default=16, show_default=True)
@click.option("--lr", default=3e-5, show_default=True)
@click.option("--max-length", default=128, show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option("--save-every", default=200, show_default=True, help="Checkpoint every N steps.")
@click.option("--max-steps", type=int, default=None)
@click.option("--time-limit", type=float, default=None, help="Stop cleanly after this many seconds (resumable).")
@click.option("--device", default=None, help="auto | cpu | cuda | cuda:N [env KALMA_DEVICE].")
@option("threads")
@click.option("--heldout/--no-heldout", default=True, show_default=True,
              help="Score a held-out slice (MNLI eval portion + KG pairs of unseen entities) at the end.")
@click.option("--heldout-size", default=300, show_default=True,
              help="Pairs per held-out part (MNLI portion, KG test entities) scored at the end.")
@json_out_option
@json_option
def train_cmd(init: str | None, output_dir: str, nli_file: str | None, kg_records: tuple[str, ...],
              sizes: tuple[str, ...],
              kg_per_entity: int, epochs: float, batch_size: int, lr: float, max_length: int, seed: int,
              save_every: int, max_steps: int | None, time_limit: float | None, device: str | None,
              threads: int | None, heldout: bool, heldout_size: int, json_out: str | None, as_json: bool) -> None:
    """Fine-tune an NLI cross-encoder on public NLI pairs and KG-generated attribution pairs."""
    out = err_console if as_json else console  # stdout holds only the JSON with --json
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from kalma_graph.nli.recipe import run_training
    from kalma_graph.nli.train import TrainConfig

    if not init:
        raise click.UsageError("give --init PATH (or set KALMA_NLI_MODEL)")
    if not nli_file and not kg_records:
        raise click.UsageError("give --nli-file, --kg-records, or both")
    config = TrainConfig(init=init, output_dir=output_dir, epochs=epochs, batch_size=batch_size, lr=lr,
                         max_length=max_length, seed=seed, save_every=save_every, max_steps=max_steps,
                         time_limit_s=time_limit, device=device, threads=threads)
    with Progress(
            TextColumn("training"), BarColumn(), MofNCompleteColumn(), TextColumn("loss {task.fields[loss]}"),
            TimeRemainingColumn(), console=out) as bar:
        task = bar.add_task("train", total=None, loss="-")

        def progress(step: int, total: int, loss: float) -> None:
            bar.update(task, completed=step, total=total, loss=f"{loss:.4f}")

        result = run_training(config, nli_file=nli_file, kg_record_files=kg_records, sizes=_parse_sizes(sizes),
                              kg_per_entity=kg_per_entity, heldout=heldout, heldout_nli=heldout_size,
                              heldout_kg=heldout_size, progress=progress)
    table = Table(title=f"nli train -> {output_dir}")
    table.add_column("field")
    table.add_column("value")
    for key in ("init", "rows", "steps", "total_steps", "completed", "stopped", "resumed_from_step",
                "train_seconds", "pairs_per_s"):
        table.add_row(key, str(result.get(key)))
    table.add_row("device", str(result["device"]))
    if "heldout" in result:
        h = result["heldout"]
        table.add_row("held-out accuracy", f"{h['accuracy']:.3f} (n={h['n']})")
        table.add_row("held-out macro-F1", figure(h["macro_f1"], 3))
        for source, v in h["by_source"].items():
            table.add_row(f"  {source}", f"{v['accuracy']:.3f} (n={v['n']})")
    out.print(table)
    _write_json(json_out, result, as_json)


@nli.command("eval")
@option("nli", help="The NLI model to score: a hub id or local path [env KALMA_NLI_MODEL; default: the documented hub "
                    "model].")
@renamed("--model", "--nli", "--model names the generation model in every command")
@click.option("--nli-file", "nli_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Labelled NLI pairs (jsonl: premise, hypothesis, label). Repeatable.")
@click.option("--portion", default="all", show_default=True,
              type=click.Choice(["all", "mnli_dev", "anli_dev", "train"]),
              help="Which fixed portion of --nli-file to score (see docs/nli.md).")
@click.option("--source", default=None, help="Only NLI rows whose source starts with this.")
@click.option("--attribution-file", "attribution_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Claim-evidence pairs in AttributionBench format. Repeatable.")
@click.option("--with-question/--claim-only", default=False, show_default=True,
              help="Attribution hypothesis = question + claim, or the claim alone.")
@click.option("--folds", default=5, show_default=True, help="Cross-validation folds for the attribution threshold.")
@click.option("--window/--truncate", default=True, show_default=True,
              help="Score long evidence in sentence windows (max over windows) or truncate it.")
@click.option("--kg-pairs", "kg_pair_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Generated KG pairs (jsonl). Repeatable.")
@click.option("--kg-records", "kg_record_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="BioKaLMA graph records: score the generated pairs of the held-out (test) entities.")
@click.option("--limit", type=int, default=None, help="Score a deterministic sample of at most N rows per file.")
@click.option("--device", default=None, help="auto | cpu | cuda | cuda:N [env KALMA_DEVICE].")
@click.option("--batch-size", default=32, show_default=True)
@click.option("--max-length", type=int, default=None, help="Token limit per pair (default: the model's).")
@click.option("--label-map", default=None, help="NAME=LABEL,... for models with LABEL_0-style names.")
@click.option("--cache", default="default", show_default=True,
              help="SQLite cache file, 'default' (user cache dir) or 'none'.")
@json_out_option
@json_option
def eval_cmd(nli_model: str | None, nli_files: tuple[str, ...], portion: str, source: str | None,
             attribution_files: tuple[str, ...], with_question: bool, folds: int, window: bool,
             kg_pair_files: tuple[str, ...], kg_record_files: tuple[str, ...], limit: int | None,
             device: str | None, batch_size: int, max_length: int | None, label_map: str | None, cache: str,
             json_out: str | None, as_json: bool) -> None:
    """Accuracy / macro-F1 on NLI files; attribution accuracy + ROC-AUC on claim-evidence files."""
    out = err_console if as_json else console  # stdout holds only the JSON with --json
    from kalma_graph.models.nli import load_nli
    from kalma_graph.nli.evaluate import evaluate_files

    if not (nli_files or attribution_files or kg_pair_files or kg_record_files):
        raise click.UsageError("give at least one of --nli-file, --attribution-file, --kg-pairs, --kg-records")
    model = load_nli(nli_model, device=device, label_map=_parse_label_map(label_map), max_length=max_length,
                     batch_size=batch_size, cache=None if cache.lower() == "none" else cache)
    out.print(f"model {model.name_or_path} ({model.model_hash[:12]}) on {model.device}; labels {model.labels}")
    report = evaluate_files(model, nli_files=nli_files, portion=portion, source=source,
                            attribution_files=attribution_files, with_question=with_question, folds=folds,
                            window=window, kg_pair_files=kg_pair_files, kg_record_files=kg_record_files,
                            limit=limit, batch_size=batch_size)
    table = Table(title="nli eval")
    for col in ("kind", "file", "n", "accuracy", "macro-F1 / ROC-AUC", "pairs/s"):
        table.add_column(col)
    for path, r in report["nli"].items():
        table.add_row(f"nli {r['mode']}", f"{Path(path).name} [{r['portion']}]", str(r["n"]), f"{r['accuracy']:.3f}",
                      figure(r["macro_f1"], 3), str(r["pairs_per_s"]))
    for path, r in report["attribution"].items():
        auc = "-" if r["roc_auc"] is None else f"{r['roc_auc']:.3f}"
        table.add_row("attribution", f"{Path(path).name} [{r['calibration']['method']}]", str(r["n"]),
                      f"{r['accuracy']:.3f}", auc, "-")
    for path, r in report["kg"].items():
        table.add_row("kg 3-way", Path(path).name, str(r["n"]), f"{r['accuracy']:.3f}", figure(r["macro_f1"], 3),
                      str(r["pairs_per_s"]))
    out.print(table)
    _write_json(json_out, report, as_json)
