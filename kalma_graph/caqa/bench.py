"""`caqa bench`: run attribution evaluators on built samples and write the Table 5-style report.

    report = run_bench(samples, [evaluator, ...], out_dir="runs/caqa-bench")

Output directory:

| file | what |
|---|---|
| `predictions/<evaluator>.jsonl` | first line: the evaluator's description; then one judgement per sample id |
| `report.json` | header (versions, models, prompts, seed, split, subset); per evaluator: scores, confusion, FActScore |
| `report.md` | Table 5 layout, FActScore table (Table 6 layout), header |
| `confusion_<evaluator>.png` | gold × predicted counts (incl. unparsed) |

Resumable: judgements are appended (and fsynced) in batches; a re-run with the same evaluator
description (model hash, prompt version, parameters) reuses them and judges only what is missing; a
changed description starts that evaluator's file afresh. A line cut by a crash is trimmed and that
sample judged again; a corrupt line inside the file stops the run with its `file:line`.
"""

from __future__ import annotations

import json
import platform
import random
import re
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from kalma_graph.caqa.evaluators.base import Evaluator, Judgement
from kalma_graph.caqa.factscore import factscore_markdown, factscore_report
from kalma_graph.caqa.metrics import confusion, confusion_png, scores, table5_markdown
from kalma_graph.caqa.model import Sample
from kalma_graph.files import JsonlAppender, atomic_write_json, atomic_write_text
from kalma_graph.provenance import library_versions

ProgressFn = Callable[[str, int, int], None]  # (evaluator, done, total)


def load_samples(path: str | Path, split: str = "test", limit: int | None = None, seed: int = 0) -> list[Sample]:
    """Samples of a build (directory or samples.jsonl), optionally one split and a seeded subset of
    `limit` samples (sorted by id, then a seeded shuffle: the same subset for every evaluator)."""
    from kalma_graph.caqa.build import read_samples

    rows = read_samples(path)
    samples = [Sample.from_dict(r) for r in rows if split == "all" or r["split"] == split]
    samples.sort(key=lambda s: s.id)
    if limit is not None and limit < len(samples):
        random.Random(seed).shuffle(samples)
        samples = sorted(samples[:limit], key=lambda s: s.id)
    return samples


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _stored_header(path: Path) -> Any:
    """The first line of a predictions file (None when missing, unreadable or cut by a crash)."""
    try:
        with open(path, "rb") as fh:
            line = fh.readline()
        return json.loads(line) if line.endswith(b"\n") else None
    except (OSError, ValueError):
        return None


def open_predictions(path: Path, description: dict[str, Any]) -> tuple[JsonlAppender, dict[str, Judgement]]:
    """The predictions file of one evaluator opened for appending, and the judgements it holds.

    Its first line names the evaluator (model hash, prompt version, parameters); a file made by
    another description is started afresh (judgements are not comparable). A torn last line is
    trimmed and that sample judged again; a corrupt line inside raises `CorruptJsonlError`."""
    header = {"evaluator": description}
    if _stored_header(path) != header:
        atomic_write_text(path, json.dumps(header, ensure_ascii=False, default=str) + "\n")
    out = JsonlAppender(path)
    return out, {row["id"]: Judgement.from_dict(row) for row in out.records[1:]}


def _judge_all(evaluator: Evaluator, samples: Sequence[Sample], path: Path, batch_size: int,
               progress: ProgressFn | None) -> dict[str, Judgement]:
    out, done = open_predictions(path, evaluator.describe())
    todo = [s for s in samples if s.id not in done]
    total = len(samples)
    with out:
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            judged = list(zip(batch, evaluator.judge(batch)))
            out.append_many({"id": s.id, **j.as_dict()} for s, j in judged)
            done.update((s.id, j) for s, j in judged)
            if progress:
                progress(evaluator.name, total - len(todo) + start + len(batch), total)
    return done


def run_bench(
    samples: Sequence[Sample],
    evaluators: Sequence[Evaluator],
    out_dir: str | Path,
    *,
    batch_size: int = 16,
    factscore_limit: int | None = 200,
    header: dict[str, Any] | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    out = Path(out_dir)
    (out / "predictions").mkdir(parents=True, exist_ok=True)
    gold = [s.category for s in samples]
    complexity = [s.complexity for s in samples]
    results: dict[str, Any] = {}
    rows: dict[str, dict[str, Any]] = {}
    for ev in evaluators:
        t0 = time.perf_counter()
        judged = _judge_all(ev, samples, out / "predictions" / f"{_safe(ev.name)}.jsonl", batch_size, progress)
        seconds = time.perf_counter() - t0
        pred = [judged[s.id].label for s in samples]
        row = scores(gold, pred, complexity, ev.labels)
        conf = confusion(gold, pred, ev.labels)
        png = out / f"confusion_{_safe(ev.name)}.png"
        confusion_png(conf, png, f"{ev.name} (n={len(samples)})")
        rows[ev.name] = row
        results[ev.name] = {"scores": row, "confusion": conf, "confusion_png": png.name,
                            "seconds_this_run": round(seconds, 1), "describe": ev.describe()}
    fs = (factscore_report(evaluators, samples, limit=factscore_limit) if factscore_limit != 0
          else {"n": 0, "skipped": True})
    report = {
        "header": {**(header or {}), **_versions(), "samples": len(samples),
                   "by_category": {c: gold.count(c) for c in dict.fromkeys(gold)}},
        "evaluators": results,
        "factscore": fs,
    }
    atomic_write_json(out / "report.json", report)
    atomic_write_text(out / "report.md", report_markdown(report, rows))
    return report


def report_markdown(report: dict[str, Any], rows: dict[str, dict[str, Any]]) -> str:
    h = report["header"]
    lines = ["# CAQA benchmark report", ""]
    for key in ("samples_file", "split", "samples", "subset", "seed"):
        if key in h:
            lines.append(f"- {key}: {h[key]}")
    lines.append(f"- categories: {h.get('by_category')}")
    lines.append(f"- python {h['python']}, torch {h.get('torch')}, transformers {h.get('transformers')}")
    lines += ["", "F1 per category; micro-F1 overall and per complexity (Table 5 layout). "
              "'-' = the evaluator cannot output that category, or the F1 is undefined (0/0: no sample of it "
              "and none predicted, or no sample of that complexity); unparsed = judge outputs naming no category.", ""]
    lines.append(table5_markdown(rows))
    lines.append(factscore_markdown(report["factscore"]))
    lines.append("## Evaluators")
    for name, r in report["evaluators"].items():
        lines.append(f"- **{name}**: `{json.dumps(r['describe'], default=str)}`")
    return "\n".join(lines) + "\n"


def _versions() -> dict[str, Any]:
    return {"python": platform.python_version(),
            **library_versions(("torch", "transformers", "llama-cpp-python", "kalma-graph"),
                               key=lambda dist: dist.replace("-", "_"))}
