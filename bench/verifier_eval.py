"""The verifier on labelled citations: ROC-AUC and accuracy beside MiniLM NLI and the lexical check,
sentence-level `fully_supported` balanced accuracy, and citations per second.

    python bench/verifier_eval.py --split dev            # tune on this one
    python bench/verifier_eval.py --split test           # held out: report, do not tune
    python bench/verifier_eval.py --split dev --show-errors

Labels: `bench/results/verifier/labels/labels_<split>_{A,B}.csv` (two independent passes; items from
`bench/verifier_label_export.py`). A citation counts as supported when the settled label is 2; where the
two passes disagree the lower label is taken (no third look). The NLI column is the entailment probability
the committed evaluation stored for the same citation (MiniLM `nli-minilm-l6-v1`, threshold 0.5); the
lexical column is `--cite verified`'s former check (`states_value`). Appends a line to
`bench/results/verifier/eval.jsonl`.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from datetime import datetime, timezone
from pathlib import Path

LABELS = Path("bench/results/verifier/labels")


def settled(split: str) -> tuple[dict, dict[tuple[str, str], float]]:
    a, b = (read_pass(LABELS / f"labels_{split}_{name}.csv") for name in ("A", "B"))
    merged = {k: min(a[k], b[k]) for k in a if k in b}
    agree = {
        "citations": kappa({k: v for k, v in a.items() if k[1] != "full"},
                           {k: v for k, v in b.items() if k[1] != "full"}),
        "supported": kappa({k: int(v == 2) for k, v in a.items() if k[1] != "full"},
                           {k: int(v == 2) for k, v in b.items() if k[1] != "full"}),
        "full": kappa({k: v for k, v in a.items() if k[1] == "full"},
                      {k: v for k, v in b.items() if k[1] == "full"})}
    return agree, merged


def read_pass(path: Path) -> dict[tuple[str, str], int]:
    """One annotation pass: (item id, citation index or `full`) -> label."""
    with path.open(encoding="utf-8", newline="") as f:
        return {(r["item_id"], r["citation"]): int(r["label"]) for r in csv.DictReader(f)}


def kappa(a: dict, b: dict) -> float | None:
    """Cohen's kappa of two passes over the items both labelled."""
    from kalma_graph.evaluation.metrics.agreement import cohen_kappa

    keys = [k for k in a if k in b]
    value = cohen_kappa([a[k] for k in keys], [b[k] for k in keys])
    return round(value, 4) if value is not None else None


def main() -> None:
    from sklearn.metrics import roc_auc_score

    from kalma_graph.evaluation.answers_file import read_answers
    from kalma_graph.evaluation.verify import verifier_input as answer_input
    from kalma_graph.pipeline.cite import states_value
    from kalma_graph.verification import Verifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument("--nli", default=None, help="also run stage two with this NLI model")
    args = parser.parse_args()
    agreement, labels = settled(args.split)
    items = [json.loads(line) for line in (LABELS / "items.jsonl").open(encoding="utf-8")]
    items = [i for i in items if i["split"] == args.split]
    records: dict[tuple[str, str], object] = {}
    nli_scores: dict[tuple[str, str, int, int], float] = {}
    for run in sorted({i["run"] for i in items}):
        base = Path("bench/results/paper") / run
        for r in read_answers(base / "answers.jsonl").records:
            records[(run, str(r.id))] = r
        for line in (base / "evaluation" / "answers_scored.jsonl").open(encoding="utf-8"):
            d = json.loads(line)
            for s in d["sentences"]:
                for k, c in enumerate(s["citations"]):
                    nli_scores[(run, d["id"], s["position"], k)] = c["entailment"]
    calibrator = None
    if args.nli:
        from kalma_graph.models.nli import load_nli
        from kalma_graph.verification.calibration import Calibrator

        calibrator = Calibrator.load(load_nli(args.nli, cache=None))
    verifier = Verifier(calibrator=calibrator)
    checks = {}
    started = time.perf_counter()
    for key in sorted({(i["run"], i["answer_id"]) for i in items}):
        checks[key] = verifier.verify(answer_input(records[key]))
    seconds = time.perf_counter() - started
    rows, sentence_rows = [], []
    for item in items:
        position = int(item["item_id"].rsplit("-", 1)[1])
        sentence = checks[(item["run"], item["answer_id"])].sentences[position]
        assert sentence.text.strip() == item["sentence"].strip(), (sentence.text, item["sentence"])
        for c in item["citations"]:
            check = sentence.citations[c["index"]]
            label = labels[(item["item_id"], str(c["index"]))]
            rows.append({"item": item["item_id"], "citation": c["index"], "label": label, "y": int(label == 2),
                         "verifier": check.score, "verdict": check.verdict, "reason": check.reason,
                         "nli": nli_scores.get((item["run"], item["answer_id"], position, c["index"])),
                         "lexical": float(states_value(item["sentence"], c["value"])),
                         "triple": f"{c['subject']} | {c['relation']} | {c['value']}", "sentence": item["sentence"]})
        full = labels[(item["item_id"], "full")]
        sentence_rows.append({"item": item["item_id"], "full": full, "predicted": int(sentence.fully_supported),
                              "sentence": item["sentence"], "claims": [(c.text, c.status) for c in sentence.claims]})
    y = [r["y"] for r in rows]
    out = {"split": args.split, "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "citations": len(rows), "supported_share": round(sum(y) / len(y), 4), "sentences": len(sentence_rows),
           "kappa": agreement, "verifier": verifier.describe()}
    for name in ("verifier", "nli", "lexical"):
        scores = [r[name] if r[name] is not None else 0.0 for r in rows]
        out[name + "_roc_auc"] = round(float(roc_auc_score(y, scores)), 4)
        out[name + "_accuracy"] = round(sum((s >= 0.5) == bool(t) for s, t in zip(scores, y)) / len(y), 4)
    pos = [r for r in sentence_rows if r["full"]]
    neg = [r for r in sentence_rows if not r["full"]]
    tpr = sum(r["predicted"] for r in pos) / len(pos) if pos else None
    tnr = sum(1 - r["predicted"] for r in neg) / len(neg) if neg else None
    out["full_share"] = round(len(pos) / len(sentence_rows), 4)
    out["full_balanced_accuracy"] = round((tpr + tnr) / 2, 4) if pos and neg else None
    out["full_tpr"], out["full_tnr"] = round(tpr, 4), round(tnr, 4)
    out["citations_per_second"] = round(len(rows) / seconds, 1)
    print(json.dumps(out, indent=1))
    if args.show_errors:
        for r in rows:
            if (r["verifier"] >= 0.5) != bool(r["y"]):
                print(f"[{r['label']}] {r['verifier']:.2f} {r['triple']}\n    {r['sentence']}\n    -> {r['reason']}")
        for r in sentence_rows:
            if r["predicted"] != r["full"]:
                print(f"FULL {r['full']} pred {r['predicted']}: {r['sentence']}\n    {r['claims']}")
    results = Path("bench/results/verifier/eval.jsonl")
    with results.open("a", encoding="utf-8") as f:
        f.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
