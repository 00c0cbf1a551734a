"""Finish the issue-33 rebuild and publish it as the bundled dataset (`dumps/biokalma_built/`).

    python bench/biokalma_publish.py recheck     # entries whose general question a rule added since refuses
    python bench/biokalma_publish.py recheck --remove && bench/biokalma_rebuild.sh   # build those again
    python bench/biokalma_publish.py publish     # copy the finished build into dumps/biokalma_built/

`recheck` reads `bench/results/biokalma_rebuild/biokalma_built.jsonl` with the current question check
(`biokalma.consistency.question_gold`) and lists the entries whose general question presupposes a value both persons
share that their gold values do not (the rule added after the annotators' check of entries 31-95), and those with a
gold value the graph knows only by its id (`kg.knowledge.is_unlabelled`: no knowledge block shows it); `--remove` moves
them to `biokalma_built.rechecked.jsonl` (kept, with why), so that the resumed build makes them again under the rule
(the build is deterministic per entry: only the refused question changes). `publish` checks that the build is
complete (200 entries, side files written by its last run) and copies it in the plan's order (the order of its gold
file) into `dumps/biokalma_built/`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BUILD = REPO / "bench/results/biokalma_rebuild/biokalma_built"
DUMPS = REPO / "dumps/biokalma_built/biokalma_built"


def recheck(remove: bool) -> list[dict]:
    from kalma_graph.biokalma.consistency import gold_triples, question_gold
    from kalma_graph.files import atomic_write_text, read_jsonl
    from kalma_graph.kg.knowledge import is_unlabelled

    entries = read_jsonl(f"{BUILD}.jsonl").records
    refused = []
    for entry in entries:
        row = question_gold(entry, kind="general")
        unlabelled = [f"{t.label}: {t.value}" for t in gold_triples(entry) if is_unlabelled(t)]
        if row["unshared"]:
            refused.append({"id": entry["id"], "general_question": entry["general_question"],
                            "why": "presupposes a value both share: " + ", ".join(row["unshared"])})
        elif unlabelled:  # no knowledge block shows it, so no answer can cite it (issue 33, a literal entity id)
            refused.append({"id": entry["id"], "general_question": entry["general_question"],
                            "why": "gold value known only by its id: " + ", ".join(unlabelled)})
    for row in refused:
        print(f"{row['id']}: {row['general_question']}  ({row['why']})")
    if remove and refused:
        gone = {r["id"] for r in refused}
        kept = [e for e in entries if e["id"] not in gone]
        with open(f"{BUILD}.rechecked.jsonl", "a", encoding="utf-8") as log:
            for entry in entries:
                if entry["id"] in gone:
                    log.write(json.dumps({**entry, "rechecked": next(r["why"] for r in refused
                                                                      if r["id"] == entry["id"])},
                                         ensure_ascii=False) + "\n")
        atomic_write_text(f"{BUILD}.jsonl", "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in kept))
        print(f"moved {len(refused)} entries to {BUILD}.rechecked.jsonl; "
              "run bench/biokalma_rebuild.sh to build them again")
    return refused


def publish(expected: int) -> None:
    from kalma_graph.files import read_jsonl

    entries = {e["id"]: e for e in read_jsonl(f"{BUILD}.jsonl").records}
    order = [r["id"] for r in read_jsonl(f"{BUILD}.gold.jsonl").records]
    if len(entries) != expected or sorted(order) != sorted(entries):
        raise SystemExit(f"not complete: {len(entries)} entries, {len(order)} in the gold file (expected {expected}); "
                         "finish the build (bench/biokalma_rebuild.sh) first")
    Path(f"{DUMPS}.jsonl").write_text("".join(json.dumps(entries[i], ensure_ascii=False) + "\n" for i in order),
                                      encoding="utf-8")
    for suffix in (".gold.jsonl", ".questions.jsonl", ".checks.json", ".timings.jsonl"):
        shutil.copyfile(f"{BUILD}{suffix}", f"{DUMPS}{suffix}")
    dropped = Path(f"{BUILD}.dropped.jsonl")
    if dropped.is_file() and dropped.stat().st_size:
        shutil.copyfile(dropped, f"{DUMPS}.dropped.jsonl")
    headline = json.loads(Path(f"{BUILD}.checks.json").read_text(encoding="utf-8"))["headline"]
    print(json.dumps(headline, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("recheck")
    check.add_argument("--remove", action="store_true")
    done = sub.add_parser("publish")
    done.add_argument("--entries", type=int, default=200)
    args = parser.parse_args()
    if args.command == "recheck":
        recheck(args.remove)
    else:
        publish(args.entries)


if __name__ == "__main__":
    main()
