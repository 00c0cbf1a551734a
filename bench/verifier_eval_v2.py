"""The verifier on the labelled sets v2 (issue 44), per source: `grounded-dev` and `attribute-first-dev` (cited
sentences of answers to the paper's own development questions: citation ROC-AUC / accuracy, sentence `full`
balanced accuracy) and `chatbot` (uncited chatbot answers checked as `kalma-graph verify` checks them: sentence
`full` and `contradicted` balanced accuracy, and how many contradicted sentences are caught).

    python bench/verifier_eval_v2.py --split dev                 # tune on this one
    python bench/verifier_eval_v2.py --split test                # held out: report, do not tune
    python bench/verifier_eval_v2.py --split dev --show-errors

Labels: `bench/results/verifier/labels_v2/labels_{A,B}.csv` (two independent passes; items and rules in that
folder's README). Settled as in `bench/verifier_eval.py`: where the passes disagree the lower label is taken.
The chatbot answers are checked against the store their items were exported from (`--store`, default a copy of
the bundled graph at /tmp/chatbot.lbdb; `bench/verifier_label_export_v2.py` made it); the verifier's chatbot
predictions: `full` = no claim absent or contradicted, `contradicted` = some claim contradicted. Appends a line to
`bench/results/verifier/eval_v2.jsonl`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verifier_eval import kappa, read_pass  # noqa: E402

LABELS = Path("bench/results/verifier/labels_v2")


def passes(labels: Path = LABELS) -> tuple[dict, dict]:
    """The two annotation passes' labels, (item_id, citation | "full" | "contradicted") -> label."""
    return read_pass(labels / "labels_A.csv"), read_pass(labels / "labels_B.csv")


def verifier_kappa(predicted: dict, a: dict, b: dict) -> dict:
    """Cohen's kappa of the verifier's sentence verdicts with each pass (`passes`), beside the passes' own (the
    issue's moonshot: the verifier agrees with each annotator as often as they agree with each other)."""
    out = {}
    for kind in ("full", "contradicted"):
        mine = {k: v for k, v in predicted.items() if k[1] == kind}
        if mine:
            out[kind] = {"A": kappa(mine, a), "B": kappa(mine, b)}
    return out


def settled(a: dict, b: dict) -> tuple[dict, dict[tuple[str, str], int]]:
    """The passes' agreement and their settled labels (the lower of the two)."""
    merged = {k: min(a[k], b[k]) for k in a if k in b}

    def part(d: dict, kind: str, f=lambda v: v) -> dict:
        return {k: f(v) for k, v in d.items() if (k[1] == kind if kind in ("full", "contradicted")
                                                   else k[1] not in ("full", "contradicted"))}

    agree = {"citations": kappa(part(a, "c"), part(b, "c")),
             "supported": kappa(part(a, "c", lambda v: int(v == 2)), part(b, "c", lambda v: int(v == 2))),
             "full": kappa(part(a, "full"), part(b, "full")),
             "contradicted": kappa(part(a, "contradicted"), part(b, "contradicted"))}
    return agree, merged


def balanced(pairs: list[tuple[int, int]]) -> dict:
    """Balanced accuracy of predictions against labels (1 = the positive class), with the class rates."""
    pos = [p for y, p in pairs if y]
    neg = [p for y, p in pairs if not y]
    tpr = sum(pos) / len(pos) if pos else None
    tnr = sum(1 - p for p in neg) / len(neg) if neg else None
    both = (tpr + tnr) / 2 if tpr is not None and tnr is not None else None
    return {"n": len(pairs), "positives": len(pos), "tpr": _r(tpr), "tnr": _r(tnr), "balanced_accuracy": _r(both)}


def _r(x: float | None) -> float | None:
    return round(x, 4) if x is not None else None


def _sentence_of(check, item: dict):
    """The item's sentence in the check: by its position (the item id's suffix), as an answer may repeat a sentence
    with other citations; by its text where the check segmented the answer otherwise."""
    position = int(item["item_id"].rsplit("-", 1)[1])
    if position < len(check.sentences) and check.sentences[position].text.strip() == item["sentence"].strip():
        return check.sentences[position]
    return next(s for s in check.sentences if s.text.strip() == item["sentence"].strip())


def main() -> None:
    from sklearn.metrics import roc_auc_score

    from kalma_graph.evaluation.answers_file import read_answers
    from kalma_graph.evaluation.verify import text_input, verifier_input
    from kalma_graph.store import open_store
    from kalma_graph.verification import Verifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--store", default="embedded:/tmp/chatbot.lbdb", help="the store the chatbot items came from")
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument("--labels", type=Path, default=LABELS, help="the labelled set's folder (v3: labels_v3)")
    args = parser.parse_args()
    pass_a, pass_b = passes(args.labels)
    agreement, labels = settled(pass_a, pass_b)
    items = [json.loads(line) for line in (args.labels / "items.jsonl").open(encoding="utf-8")]
    items = [i for i in items if i["split"] == args.split]
    verifier = Verifier()
    started = time.perf_counter()
    checks: dict[tuple[str, str], object] = {}
    for run in sorted({i["run"] for i in items if i["source"] != "chatbot"}):
        records = {str(r.id): r for r in read_answers(Path(run) / "answers.jsonl").records}
        for answer_id in sorted({i["answer_id"] for i in items if i["run"] == run}):
            checks[(run, answer_id)] = verifier.verify(verifier_input(records[answer_id]))
    chatbot = [i for i in items if i["source"] == "chatbot"]
    if chatbot:
        store = open_store(args.store, read_only=True)
        answers = {json.loads(line)["id"]: json.loads(line) for line in open(chatbot[0]["run"], encoding="utf-8")}
        chat_verifier = Verifier(store)
        for answer_id in sorted({i["answer_id"] for i in chatbot}):
            a = answers[answer_id]
            checks[(chatbot[0]["run"], answer_id)] = chat_verifier.verify(
                text_input(a["answer"], question=a["question"], store=store, answer_id=answer_id))
    seconds = time.perf_counter() - started
    by_source: dict[str, dict] = defaultdict(lambda: {"rows": [], "full": [], "contradicted": []})
    errors = []
    predicted: dict[tuple[str, str], int] = {}  # the verifier's sentence verdicts, keyed as the passes' labels
    for item in items:
        check = checks[(item["run"], item["answer_id"])]
        sentence = _sentence_of(check, item)
        bucket = by_source[item["source"]]
        for c in item["citations"]:
            got = sentence.citations[c["index"]]
            label = labels[(item["item_id"], str(c["index"]))]
            bucket["rows"].append((int(label == 2), got.score))
            if (got.score >= 0.5) != (label == 2):
                errors.append(f"[{item['source']} {label}] {got.score:.2f} {c['subject']} | {c['relation']} | "
                              f"{c['value']}\n    {item['sentence']}\n    -> {got.reason}")
        statuses = [claim.status for claim in sentence.claims]
        if item["source"] == "chatbot":
            # a sentence that states nothing ("I don't have reliable information on his parents' names") is fully
            # held, as the rules read `full` and as `kalma-graph verify` reports it (until v18 it was counted not held)
            predicted_full = int(all(s in ("supported", "supported_uncited") for s in statuses))
            predicted_contra = predicted[(item["item_id"], "contradicted")] = int("contradicted" in statuses)
            bucket["contradicted"].append((labels[(item["item_id"], "contradicted")], predicted_contra))
            if predicted_contra != labels[(item["item_id"], "contradicted")]:
                errors.append(f"[chatbot contradicted {labels[(item['item_id'], 'contradicted')]}] "
                              f"{item['sentence']}\n    {[(c.text, c.status) for c in sentence.claims]}")
        else:
            predicted_full = int(sentence.fully_supported)
        full = labels[(item["item_id"], "full")]
        predicted[(item["item_id"], "full")] = predicted_full
        bucket["full"].append((full, predicted_full))
        if predicted_full != full:
            errors.append(f"[{item['source']} full {full}] {item['sentence']}\n    "
                          f"{[(c.text, c.status) for c in sentence.claims]}")
    out: dict = {"labels": str(args.labels), "split": args.split,
                 "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "kappa": agreement, "verifier_kappa": verifier_kappa(predicted, pass_a, pass_b),
                 "verifier": verifier.describe(), "seconds": round(seconds, 1), "sources": {}}
    for source, bucket in sorted(by_source.items()):
        figures: dict = {"sentences": len(bucket["full"]), "full": balanced(bucket["full"])}
        if bucket["rows"]:
            y = [t for t, _ in bucket["rows"]]
            scores = [s for _, s in bucket["rows"]]
            figures.update(citations=len(y), supported_share=_r(sum(y) / len(y)),
                           roc_auc=_r(float(roc_auc_score(y, scores))) if 0 < sum(y) < len(y) else None,
                           accuracy=_r(sum((s >= 0.5) == bool(t) for s, t in zip(scores, y)) / len(y)))
        if bucket["contradicted"]:
            figures["contradicted"] = balanced(bucket["contradicted"])
        out["sources"][source] = figures
    print(json.dumps(out, indent=1))
    if args.show_errors:
        print("\n".join(errors))
    with (Path("bench/results/verifier") / "eval_v2.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
