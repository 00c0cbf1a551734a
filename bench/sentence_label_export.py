"""Export a seeded sample of an answers file's sentences for an annotators' check (issue 32, deliverable 3).

    python bench/sentence_label_export.py ANSWERS.jsonl --n 60 --out bench/results/grounded/labels

writes `items.jsonl` and `items.md` (per sentence: the question, the previous sentence, the sentence and the
triples it cites) in the format of `bench/verifier_label_export.py`, so the same instructions and the same
scorer (`bench/verifier_eval.py`'s label reading) apply. Sentences are drawn across answers with a seed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path


def main() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.verifier_label_export import _write_markdown
    from kalma_graph.evaluation.answers_file import read_answers, scored_answer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("answers")
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    items = []
    for record in read_answers(args.answers).records:
        scored = scored_answer(record)
        previous = ""
        digest = hashlib.sha256(f"{scored.id}\n{scored.text}".encode()).hexdigest()
        for position, s in enumerate(scored.parsed.sentences):
            if s.clean_text.strip():
                items.append({"item_id": f"{digest[:10]}-{position}", "split": "check", "run": args.answers,
                              "answer_id": scored.id, "question": scored.question, "previous_sentence": previous,
                              "sentence": s.clean_text, "sentence_with_marks": s.text,
                              "citations": [
                                  {"index": i, "qid": c.qid, "subject": scored.subject_names.get(c.qid, c.qid),
                                   "relation": c.prop, "value": c.value} for i, c in enumerate(s.citations)]})
            previous = s.clean_text
    chosen = sorted(random.Random(args.seed).sample(items, min(args.n, len(items))), key=lambda i: i["item_id"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for item in chosen:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    _write_markdown(out / "items.md", chosen)
    print(f"{len(chosen)} of {len(items)} sentences, {sum(len(i['citations']) for i in chosen)} citations -> {out}")


if __name__ == "__main__":
    main()
