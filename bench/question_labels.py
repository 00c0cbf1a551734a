"""The annotators' check of a built BioKaLMA dataset's questions (issue 33, deliverable 5).

    python bench/question_labels.py export DATASET.jsonl --n 30 --seed 0 --out DIR
    python bench/question_labels.py score DIR [--store URI]

`export` draws `n` entries (seeded) and writes `DIR/items.jsonl` and `DIR/items.md` — per entry both persons,
the general and the specific question and the numbered gold set — with the labelling rules below at the top of
`items.md`. Two annotators label independently into `DIR/labels_A.csv` and `DIR/labels_B.csv`:

    entry_id,general_coherent,specific_consistent,gold_asked
    biokalma-Q1-P737-Q2,1,0,"0,2"

`score` writes `DIR/summary.json`: per pass and settled (an entry counts as coherent / consistent only when
both passes say so; the gold triples asked are those both passes list), Cohen's κ of each binary label and of
each gold triple's asked / not asked, and the build's own check (`consistency.question_gold`) against the
settled labels.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

RULES = """\
## Rules

Label each entry from its questions and its gold set only (the gold set is what the graph says; do not use
what you know of the persons).

- **general_coherent** — 1 when the general question is one well-formed question a reader understands and
  could answer about these persons: grammatical, not garbled, not self-contradictory, no name stuck in where
  it makes no sense, no presupposition that the gold set contradicts (a reversed relation between the two
  persons counts as contradicted). 0 otherwise.
- **specific_consistent** — 1 when every fact the specific question asks for is a gold triple: the right
  person, the right relation, the right direction (who influenced whom, who is whose father); and the question
  names both persons. A question asking anything the gold set lacks (another person's fact, a relation not in
  the set, the inverse of a gold relation) is 0. A question that asks nothing of the gold set is 0.
- **gold_asked** — the numbers of the gold triples the specific question asks for (a triple is asked when an
  answer to the question would have to state it), comma-separated; empty when none.
"""


def export(dataset: Path, n: int, seed: int, out: Path) -> dict:
    entries = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = sorted(random.Random(seed).sample(range(len(entries)), min(n, len(entries))))
    items = []
    for index in chosen:
        e = entries[index]
        items.append({"entry_id": e["id"], "index": index, "names": e["names"], "qids": e["qids"],
                      "general_question": e["general_question"], "specific_question": e["specific_question"],
                      "gold": [[g["qid"], g["property"], g["value"]] for g in e["minimum_knowledge_set"]]})
    out.mkdir(parents=True, exist_ok=True)
    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    lines = [f"# Questions of {dataset.name}: {len(items)} of {len(entries)} entries (seed {seed})", "", RULES]
    for item in items:
        names = dict(zip(item["qids"], item["names"]))
        lines += [f"### `{item['entry_id']}` — {item['names'][0]} / {item['names'][1]}", "",
                  f"- general: {item['general_question']}", f"- specific: {item['specific_question']}", "- gold:"]
        lines += [f"  {i}. {names.get(s, s)} ({s}) — {p} — {v}" for i, (s, p, v) in enumerate(item["gold"])]
        lines.append("")
    (out / "items.md").write_text("\n".join(lines), encoding="utf-8")
    return {"items": len(items), "of": len(entries), "seed": seed, "out": str(out)}


def read_labels(path: Path) -> dict[str, dict]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = {}
        for line, r in enumerate(csv.DictReader(f), 2):
            try:
                rows[r["entry_id"]] = {"general_coherent": int(r["general_coherent"]),
                                       "specific_consistent": int(r["specific_consistent"]),
                                       "gold_asked": {int(x)
                                                      for x in (r.get("gold_asked") or "").replace(" ", "").split(",")
                                                      if x}}
            except (KeyError, ValueError) as exc:
                raise SystemExit(f"{path}:{line}: {exc!r}") from None
    return rows


def score(folder: Path, store_uri: str | None = None) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.verifier_eval import kappa
    from kalma_graph.biokalma.consistency import question_gold

    items = {i["entry_id"]: i
             for i in map(json.loads, (folder / "items.jsonl").read_text(encoding="utf-8").splitlines())}
    a, b = (read_labels(folder / f"labels_{name}.csv") for name in ("A", "B"))
    ids = [k for k in items if k in a and k in b]
    missing = sorted(set(items) - set(ids))
    gold_total = sum(len(items[k]["gold"]) for k in ids)

    def shares(p: dict[str, dict]) -> dict:
        return {"general_coherent": sum(p[k]["general_coherent"] for k in ids) / len(ids),
                "specific_consistent": sum(p[k]["specific_consistent"] for k in ids) / len(ids),
                "gold_asked_share": sum(len(p[k]["gold_asked"]) for k in ids) / gold_total}

    settled = {k: {"general_coherent": a[k]["general_coherent"] & b[k]["general_coherent"],
                   "specific_consistent": a[k]["specific_consistent"] & b[k]["specific_consistent"],
                   "gold_asked": a[k]["gold_asked"] & b[k]["gold_asked"]} for k in ids}
    triple_keys = [(k, i) for k in ids for i in range(len(items[k]["gold"]))]
    # the build reads a question against the persons' whole one-hop graphs, not only the gold set
    hops: dict = {}
    if store_uri:
        from kalma_graph.store import open_store

        store = open_store(store_uri)
        try:
            hops = store.one_hop_many(sorted({q for k in ids for q in items[k]["qids"]}))
        finally:
            store.close()
    build = {}
    for k in ids:
        item = items[k]
        entry = {"id": k, "qids": item["qids"], "names": item["names"], "specific_question": item["specific_question"],
                 "minimum_knowledge_set": [{"qid": s, "property": p, "value": v} for s, p, v in item["gold"]]}
        build[k] = int(question_gold(entry, [t for q in item["qids"] for t in hops.get(q, [])])["consistent"])
    agree = sum(build[k] == settled[k]["specific_consistent"] for k in ids)
    summary = {
        "entries": len(ids), "missing": missing, "gold_triples": gold_total,
        "A": shares(a), "B": shares(b), "settled": shares(settled),
        "kappa": {
            "general_coherent": kappa({k: a[k]["general_coherent"] for k in ids},
                                      {k: b[k]["general_coherent"] for k in ids}),
            "specific_consistent": kappa({k: a[k]["specific_consistent"] for k in ids},
                                         {k: b[k]["specific_consistent"] for k in ids}),
            "gold_asked": kappa({t: int(t[1] in a[t[0]]["gold_asked"]) for t in triple_keys},
                                {t: int(t[1] in b[t[0]]["gold_asked"]) for t in triple_keys}),
        },
        "build_check_vs_settled": {"agree": agree, "of": len(ids), "graph": store_uri,
                                   "build_consistent_annotators_not": sorted(k for k in ids if build[k]
                                                                             and not settled[k]["specific_consistent"]),
                                   "annotators_consistent_build_not": sorted(k for k in ids
                                                                             if settled[k]["specific_consistent"]
                                                                             and not build[k])},
        "incoherent_general": sorted(k for k in ids if not settled[k]["general_coherent"]),
        "inconsistent_specific": sorted(k for k in ids if not settled[k]["specific_consistent"]),
    }
    (folder / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export")
    ex.add_argument("dataset", type=Path)
    ex.add_argument("--n", type=int, default=30)
    ex.add_argument("--seed", type=int, default=0)
    ex.add_argument("--out", type=Path, required=True)
    sc = sub.add_parser("score")
    sc.add_argument("folder", type=Path)
    sc.add_argument("--store", help="the graph the dataset was built from (the check probes the persons' relations)")
    args = parser.parse_args()
    result = (export(args.dataset, args.n, args.seed, args.out) if args.command == "export"
              else score(args.folder, args.store))
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
