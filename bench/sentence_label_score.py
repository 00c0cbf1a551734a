"""Score an annotators' check of sentences (issue 32, deliverable 3): the share fully supported, Cohen's κ of
the two passes, and how the verifier's verdicts on the same sentences agree with them.

    python bench/sentence_label_score.py bench/results/grounded/table3/labels

reads `items.jsonl` (from `bench/sentence_label_export.py`) and `labels_A.csv`, `labels_B.csv` (two
independent passes under `../shared/docs/alignment-labels.md`: per citation 0/1/2, per sentence `full` 0/1),
settles disagreements to the lower label (no third look, as `bench/verifier_eval.py`), runs the verifier on
each item's answer (the answers file named in the item, with its shown graph) and writes `summary.json`
beside the labels.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.verifier_eval import kappa, read_pass
    from kalma_graph.evaluation.answers_file import read_answers
    from kalma_graph.evaluation.verify import verifier_input
    from kalma_graph.files import atomic_write_text
    from kalma_graph.verification import Verifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", help="the folder holding items.jsonl and labels_{A,B}.csv")
    args = parser.parse_args()
    folder = Path(args.labels)
    items = [json.loads(line) for line in (folder / "items.jsonl").open(encoding="utf-8")]
    passes = [read_pass(folder / f"labels_{name}.csv") for name in ("A", "B")]
    both = [k for k in passes[0] if k in passes[1]]
    missing = [f"{i['item_id']}/{key}" for i in items for key in ["full", *(str(c["index"]) for c in i["citations"])]
               if (i["item_id"], key) not in both]
    if missing:
        raise SystemExit(f"labels missing in a pass for {len(missing)} keys, e.g. {missing[:3]}")
    settled = {k: min(passes[0][k], passes[1][k]) for k in both}
    cite_keys = [k for k in both if k[1] != "full"]
    full_keys = [k for k in both if k[1] == "full"]
    verifier = Verifier()
    records = {}
    for run in sorted({i["run"] for i in items}):
        records.update({(run, str(r.id)): r for r in read_answers(run).records})
    checks = {key: verifier.verify(verifier_input(records[key])) for key in {(i["run"], i["answer_id"]) for i in items}}
    predicted = {}
    for item in items:
        position = int(item["item_id"].rsplit("-", 1)[1])
        sentence = checks[(item["run"], item["answer_id"])].sentences[position]
        if sentence.text.strip() != item["sentence"].strip():
            raise SystemExit(f"{item['item_id']}: the answers file changed since the export")
        predicted[item["item_id"]] = int(sentence.fully_supported)
    full = [settled[k] for k in full_keys]
    summary = {
        "sentences": len(full_keys),
        "annotated_full_share": round(sum(full) / len(full), 4),
        "kappa_full": kappa({k: passes[0][k] for k in full_keys}, {k: passes[1][k] for k in full_keys}),
        "citations": len(cite_keys),
        "annotated_citations_supported": round(sum(settled[k] == 2 for k in cite_keys) / len(cite_keys), 4)
        if cite_keys else None,
        "kappa_citation_supported": kappa({k: int(passes[0][k] == 2) for k in cite_keys},
                                          {k: int(passes[1][k] == 2) for k in cite_keys}),
        "verifier_full_share_same_sentences": round(sum(predicted.values()) / len(predicted), 4),
        "verifier_annotator_full_agreement": round(
            sum(predicted[i] == settled[(i, "full")] for i in predicted) / len(predicted), 4),
        "verifier": verifier.id(),
    }
    atomic_write_text(folder / "summary.json", json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
