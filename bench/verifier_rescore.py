"""Committed paper runs re-scored with the verifier's alignment, beside the NLI alignment their committed
reports hold (MiniLM `nli-minilm-l6-v1`). Prints a Markdown table; appends to bench/results/verifier/rescore.jsonl.

    python bench/verifier_rescore.py bench/results/paper/table3/*/
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def main(dirs: list[str]) -> None:
    from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_records, read_answers

    print("| run | citations | NLI alignment (committed) | verifier alignment | partly / not supported | "
          "cited sentences fully supported | claims absent / contradicted | verifier citations/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    out = []
    for d in map(Path, dirs):
        records = read_answers(d / "answers.jsonl").records
        committed = json.loads((d / "evaluation" / "results.json").read_text(encoding="utf-8"))
        started = time.perf_counter()
        result = evaluate_records(records, options=EvaluateOptions(alignment="verifier"))
        al = result.metrics.alignment
        extra = result.summary.model_extra or {}
        row = {"run": str(d), "citations": al["pairs"], "nli_alignment": committed["summary"].get("alignment_micro"),
               "verifier_alignment": al["alignment_micro"], "partial": al["partial"], "unsupported": al["unsupported"],
               "fully_supported_share": al["fully_supported_share"], "claims": al["claims"],
               "citations_per_second": (result.throughput.model_extra or {}).get("verified_citations_per_second"),
               "seconds": round(time.perf_counter() - started, 2)}
        out.append(row)
        pct = lambda x: "n/a" if x is None else f"{100 * x:.1f}"
        print(f"| {d.name} | {row['citations']} | {pct(row['nli_alignment'])} | {pct(row['verifier_alignment'])} | "
              f"{row['partial']} / {row['unsupported']} | {pct(row['fully_supported_share'])} | "
              f"{row['claims']['absent']} / {row['claims']['contradicted']} | {row['citations_per_second']} |")
    with Path("bench/results/verifier/rescore.jsonl").open("a", encoding="utf-8") as f:
        for row in out:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
