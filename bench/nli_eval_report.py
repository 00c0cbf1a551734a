"""Held-out figures for one or more NLI models, side by side (the table in docs/nli.md).

    python bench/nli_eval_report.py --model baseline=../shared/models/nli-minilm-l6-v1 \
        --model kalma=models/nli-kalma-v1 --data runs/nli-full/data --out runs/nli-report.json

Sets (none of them trained on by our recipe; see docs/nli.md for the baseline's caveat):
- MNLI-dev: our fixed 20% MNLI evaluation portion (2,017 pairs); ANLI: our 30% ANLI dev portion (921);
- AttributionBench dev (1,198 claim/evidence pairs): premise = evidence in sentence windows (max over
  windows), hypothesis = claim; ROC-AUC on all rows, accuracy at a threshold fitted by 5-fold
  cross-validation (each fold's threshold chosen on the other four folds);
- KG held-out: pairs generated from the BioKaLMA entities of the test split (unseen in training).
All at max_length 128 (the length both models were trained with), CPU fp32.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kalma_graph.models.nli import load_nli  # noqa: E402
from kalma_graph.nli.data import load_attribution, read_jsonl, write_jsonl  # noqa: E402
from kalma_graph.nli.evaluate import eval_attribution, eval_kg, eval_nli  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

KALMA_CASES = [  # premise, hypothesis, expected
    ("Hertwig served as a professor at the University of Jena.", "employer: University of Jena", "entailment"),
    ("Hertwig served as a professor at the University of Jena.", "employer: University of Vienna", "contradiction"),
    ("Stephen Crane was born on November 1, 1871, in Newark.", "place of birth: Newark", "entailment"),
    ("Stephen Crane was born on November 1, 1871, in Newark.", "date of birth: 1871-11-01", "entailment"),
    ("Stephen Crane was born on November 1, 1871, in Newark.", "place of death: Newark", "neutral"),
    ("Stephen Crane was born on November 1, 1871, in Newark.", "date of birth: 1870-05-14", "contradiction"),
]


def ensure_data(data_dir: Path) -> None:
    if (data_dir / "kg_test.jsonl").exists():
        return
    from kalma_graph.nli.kg_pairs import records_from_biokalma
    from kalma_graph.nli.recipe import build_datasets

    data = build_datasets(nli_file=SHARED / "data" / "nli" / "_derived" / "nli_pairs.jsonl",
                          kg_records=records_from_biokalma(SHARED / "data" / "biokalma" / "dataset"
                                                           / "simple_question_graph.json"))
    for name in ("mnli_dev", "anli_dev", "kg_dev", "kg_test"):
        write_jsonl(data_dir / f"{name}.jsonl", data[name])


def evaluate(name: str, path: str, data_dir: Path, max_length: int, attribution: Path) -> dict:
    t0 = time.time()
    model = load_nli(path, device="cpu", cache=None, max_length=max_length)
    out: dict = {"model": model.describe()}
    out["mnli_dev"] = eval_nli(model, read_jsonl(data_dir / "mnli_dev.jsonl"))
    out["anli_dev"] = eval_nli(model, read_jsonl(data_dir / "anli_dev.jsonl"))
    out["kg_test"] = eval_kg(model, read_jsonl(data_dir / "kg_test.jsonl"))
    rows = load_attribution(attribution)
    out["attribution_dev"] = eval_attribution(model, rows, folds=5, window=True)
    out["attribution_dev_truncated"] = eval_attribution(model, rows, folds=5, window=False)
    preds = model.predict([c[0] for c in KALMA_CASES], [c[1] for c in KALMA_CASES])
    out["kalma_cases"] = [{"premise": c[0], "hypothesis": c[1], "expected": c[2], "label": p.label,
                           "entailment_prob": round(p.entailment_prob, 3)} for c, p in zip(KALMA_CASES, preds)]
    out["seconds"] = round(time.time() - t0, 1)
    print(f"{name}: mnli {out['mnli_dev']['accuracy']:.3f} anli {out['anli_dev']['accuracy']:.3f} "
          f"kg {out['kg_test']['accuracy']:.3f} attr acc {out['attribution_dev']['accuracy']:.3f} "
          f"auc {out['attribution_dev']['roc_auc']:.3f} ({out['seconds']}s)", flush=True)
    return out


def markdown(results: dict) -> str:
    names = list(results)
    lines = ["| figure | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    rows = [
        ("MNLI-dev accuracy (our 20% portion)", lambda r: r["mnli_dev"]["accuracy"]),
        ("MNLI-dev macro-F1", lambda r: r["mnli_dev"]["macro_f1"]),
        ("ANLI dev accuracy (our 30% portion)", lambda r: r["anli_dev"]["accuracy"]),
        ("AttributionBench-dev accuracy (5-fold CV threshold, windows)", lambda r: r["attribution_dev"]["accuracy"]),
        ("AttributionBench-dev ROC-AUC (windows)", lambda r: r["attribution_dev"]["roc_auc"]),
        ("AttributionBench-dev accuracy (truncated evidence)", lambda r: r["attribution_dev_truncated"]["accuracy"]),
        ("AttributionBench-dev ROC-AUC (truncated evidence)", lambda r: r["attribution_dev_truncated"]["roc_auc"]),
        ("KG held-out 3-way accuracy", lambda r: r["kg_test"]["accuracy"]),
        ("KG held-out macro-F1", lambda r: r["kg_test"]["macro_f1"]),
        ("KG held-out supported-vs-not ROC-AUC", lambda r: r["kg_test"]["binary"]["roc_auc"]),
    ]
    for label, get in rows:
        lines.append(f"| {label} | " + " | ".join(f"{get(results[n]):.3f}" for n in names) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", action="append", required=True, help="NAME=PATH (repeatable)")
    ap.add_argument("--data", default=str(REPO / "runs" / "nli-full" / "data"))
    ap.add_argument("--attribution", default=str(SHARED / "data" / "nli" / "_derived" / "attribution_pairs_dev.jsonl"))
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", default=str(REPO / "runs" / "nli-report.json"))
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    data_dir = Path(args.data)
    ensure_data(data_dir)
    results = {}
    for item in args.model:
        name, _, path = item.partition("=")
        results[name] = evaluate(name, path, data_dir, args.max_length, Path(args.attribution))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
