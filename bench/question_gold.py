"""The question-against-gold check (`biokalma.checks.question_gold_consistency`, issue 33) over a built dataset:
the share of specific questions consistent with their gold sets, the share of gold triples they ask, and the
entries that fail with why.

    python bench/question_gold.py dumps/biokalma_built/biokalma_built.jsonl [--store URI] [--out FILE]

Reads the persons' one-hop graphs from the store (default: the embedded default), so a question may be found
to ask what its gold set lacks. Writes the report as JSON (default: bench/results/biokalma_qwen1.5b/question_gold.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from kalma_graph.biokalma.checks import question_gold_consistency
    from kalma_graph.files import atomic_write_text
    from kalma_graph.store import open_store

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--store", default=None)
    parser.add_argument("--out", default="bench/results/biokalma_qwen1.5b/question_gold.json")
    args = parser.parse_args()
    entries = [json.loads(line) for line in Path(args.dataset).open(encoding="utf-8") if line.strip()]
    store = open_store(args.store)
    try:
        report = {"dataset": args.dataset, "entries": len(entries), **question_gold_consistency(store, entries)}
    finally:
        store.close()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(Path(args.out), json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "failing"}, indent=1))


if __name__ == "__main__":
    main()
