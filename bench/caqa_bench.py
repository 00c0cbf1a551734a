"""Benchmark attribution evaluators on a built CAQA benchmark (Table 5 layout) and report the
evaluators' throughput.

    python bench/caqa_bench.py runs/caqa-5k --evaluator nli-2way --evaluator nli-3way --evaluator cot-nli
    python bench/caqa_bench.py runs/caqa-5k --evaluator llm-zero-shot --llm PATH.gguf --limit 200

Same code path as `kalma-graph caqa bench` (resumable predictions under --out); the figures are
printed and appended to bench/results/caqa_bench.jsonl. Nothing here is asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kalma_graph.caqa.bench import load_samples, run_bench  # noqa: E402
from kalma_graph.caqa.evaluators import NEEDS_LLM, NEEDS_NLI, make_evaluator  # noqa: E402
from kalma_graph.caqa.evaluators.llm_judge import demos_from  # noqa: E402
from kalma_graph.files import append_jsonl  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("samples")
    ap.add_argument("--evaluator", action="append", required=True)
    ap.add_argument("--out", default=None, help="default: <samples>/bench")
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--factscore-limit", type=int, default=200)
    ap.add_argument("--nli-model", default=str(ROOT.parent / "shared" / "models" / "nli-minilm-l6-v1"))
    ap.add_argument("--llm", default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--results", default=str(ROOT / "bench" / "results" / "caqa_bench.jsonl"))
    args = ap.parse_args()

    samples = load_samples(args.samples, split=args.split, limit=args.limit, seed=args.seed)
    nli = llm = None
    if any(e in NEEDS_NLI for e in args.evaluator):
        from kalma_graph.models.nli import load_nli

        nli = load_nli(args.nli_model, device=args.device)
    if any(e in NEEDS_LLM for e in args.evaluator):
        from kalma_graph.models.llm import load_llm

        llm = load_llm(args.llm, n_ctx=4096, seed=args.seed)
    demos = demos_from(load_samples(args.samples, split="train"), seed=args.seed) or None
    evaluators = [make_evaluator(e, nli=nli, llm=llm, demos=demos, seed=args.seed, device=args.device)
                  for e in args.evaluator]
    out = Path(args.out or Path(args.samples) / "bench")
    t0 = time.perf_counter()
    report = run_bench(samples, evaluators, out, factscore_limit=args.factscore_limit,
                       header={"samples_file": args.samples, "split": args.split, "subset": args.limit,
                               "seed": args.seed})
    seconds = time.perf_counter() - t0
    print((out / "report.md").read_text())
    row = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "host": platform.node(), "cpus": os.cpu_count(),
           "samples": len(samples), "split": args.split, "subset": args.limit, "seconds": round(seconds, 1),
           "scores": {k: v["scores"] for k, v in report["evaluators"].items()},
           "seconds_per_evaluator": {k: v["seconds_this_run"] for k, v in report["evaluators"].items()},
           "factscore": report["factscore"]}
    append_jsonl(args.results, [row])


if __name__ == "__main__":
    main()
