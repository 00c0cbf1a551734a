"""Export sentence–citation items for the verifier's labelled sets (rules: shared alignment-labels.md).

Reads the scored answers (`evaluation/answers_scored.jsonl`) of runs that are NOT Table 3 (Table 3's
committed answers are the held-out test set of the papers' figures and are never labelled), drops every
answer whose text is also one of Table 3's answers (several runs repeat them), de-duplicates answers by
text, and splits the rest by answer into `dev` (for tuning) and `test` (held out: scored once, at the
end) with a seeded hash, so that a sentence never sits in both.

    python bench/verifier_label_export.py --out bench/results/verifier/labels

writes `items.jsonl` (one sentence with its citations, the question and the previous sentence: what an
annotator sees) and `items.md` (the same, readable). Labels go into `labels_<pass>.csv` with columns
`item_id,citation,label`: `citation` is the citation's index (label 0/1/2) or `full` (label 0/1).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
from pathlib import Path

RUNS = "bench/results/paper/{figure5,table5,table7}/*/evaluation/answers_scored.jsonl"


def _names(answers_path: Path) -> dict[str, str]:
    names: dict[str, str] = {}
    for line in answers_path.open(encoding="utf-8"):
        record = json.loads(line)
        for e in record.get("entities") or []:
            for c in e.get("candidates") or []:
                if c.get("id") and c.get("name"):
                    names.setdefault(c["id"], c["name"])
    return names


def sentence_items(answer: dict, names: dict[str, str], key: str, head: dict, tail: dict | None = None) -> list[dict]:
    """One item per cited sentence of a scored answer (what an annotator sees): `head` fields after the item id,
    `tail` fields after the citations (the v2 sets add `source` and `shown`)."""
    items, previous = [], ""
    for s in answer["sentences"]:
        if s["citations"]:
            items.append({
                "item_id": f"{key}-{s['position']}",
                **head,
                "answer_id": answer["id"],
                "question": answer["question"],
                "previous_sentence": previous,
                "sentence": s["clean_text"],
                "sentence_with_marks": s["text"],
                "citations": [{"index": i, "qid": c["qid"], "subject": names.get(c["qid"], c["qid"]),
                               "relation": c["prop"], "value": c["value"]}
                              for i, c in enumerate(s["citations"])],
                **(tail or {}),
            })
        previous = s["clean_text"]
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results/verifier/labels")
    parser.add_argument("--test-share", type=float, default=0.45)
    parser.add_argument("--citations", type=int, default=250,
                        help="citations per split: whole answers in hash order until this many")
    args = parser.parse_args()
    table3 = {json.loads(line)["answer"].strip()
              for f in glob.glob("bench/results/paper/table3/*/answers.jsonl") for line in open(f, encoding="utf-8")}
    paths = sorted(p for pattern in ("figure5", "table5", "table7")
                   for p in glob.glob(f"bench/results/paper/{pattern}/*/evaluation/answers_scored.jsonl"))
    seen: set[str] = set()
    items = []
    for path in map(Path, paths):
        names = _names(path.parent.parent / "answers.jsonl")
        run = f"{path.parent.parent.parent.name}/{path.parent.parent.name}"
        for line in path.open(encoding="utf-8"):
            answer = json.loads(line)
            text = answer["answer"].strip()
            if text in table3 or text in seen:
                continue
            seen.add(text)
            digest = hashlib.sha256(f"{answer['id']}\n{text}".encode()).hexdigest()
            split = "test" if int(digest[:8], 16) / 0xFFFFFFFF < args.test_share else "dev"
            items += sentence_items(answer, names, digest[:10], {"split": split, "run": run})
    kept = []
    for split in ("dev", "test"):
        chosen, total, answers = [], 0, set()
        for item in sorted((i for i in items if i["split"] == split), key=lambda i: i["item_id"]):
            answer = item["item_id"].split("-")[0]
            if answer not in answers and total >= args.citations:
                continue
            answers.add(answer)
            chosen.append(item)
            total += len(item["citations"])
        kept += chosen
    items = kept
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    for split in ("dev", "test"):
        chosen = [i for i in items if i["split"] == split]
        print(f"{split}: {len(chosen)} sentences, {sum(len(i['citations']) for i in chosen)} citations, "
              f"{len({i['item_id'][:10] for i in chosen})} answers")
    for split in ("dev", "test"):
        _write_markdown(out / f"items_{split}.md", [i for i in items if i["split"] == split])


def _write_markdown(path: Path, items: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(f"## {item['item_id']}\n\nQuestion: {item['question']}\n\n")
            if item["previous_sentence"]:
                f.write(f"Previous sentence: {item['previous_sentence']}\n\n")
            f.write(f"Sentence: {item['sentence']}\n\n")
            for c in item["citations"]:
                f.write(f"- citation {c['index']}: {c['subject']} ({c['qid']}) — {c['relation']} — {c['value']}\n")
            f.write("\n")


if __name__ == "__main__":
    main()
