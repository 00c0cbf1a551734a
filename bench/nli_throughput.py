"""Inference throughput of an NLI model (pairs/s) at several batch sizes, cache off.

    python bench/nli_throughput.py [--model PATH] [--pairs 256] [--batch-sizes 1,16,64] [--threads N]

Pairs: a fixed mix of short KaLMA-style pairs (sentence vs `property: value`) and MNLI pairs, the
same for every batch size; a warm-up batch is run first. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from kalma_graph.models.nli import load_nli  # noqa: E402
from kalma_graph.nli.data import nli_portions, read_jsonl  # noqa: E402
from kalma_graph.nli.kg_pairs import kg_pairs_by_split, records_from_biokalma  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=str(SHARED / "models" / "nli-minilm-l6-v1"))
    ap.add_argument("--pairs", type=int, default=256)
    ap.add_argument("--batch-sizes", default="1,16,64")
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", default=str(REPO / "runs" / "nli-throughput.json"))
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    kg = kg_pairs_by_split(
        records_from_biokalma(SHARED / "data" / "biokalma" / "dataset" / "simple_question_graph.json"))["test"]
    mnli = nli_portions(read_jsonl(SHARED / "data" / "nli" / "_derived" / "nli_pairs.jsonl"))["mnli_dev"]
    half = args.pairs // 2
    pairs = [(r["premise"], r["hypothesis"]) for r in kg[:half] + mnli[: args.pairs - half]]
    model = load_nli(args.model, device=args.device, cache=None, max_length=args.max_length)
    premises, hypotheses = [p for p, _ in pairs], [h for _, h in pairs]
    model.predict_proba(premises[:16], hypotheses[:16], batch_size=16)  # warm-up
    results = {"model": model.describe(), "pairs": len(pairs), "torch_threads": torch.get_num_threads(),
               "cpu_count": os.cpu_count(), "load_average": os.getloadavg(), "batch": {}}
    for bs in (int(x) for x in args.batch_sizes.split(",")):
        start = time.perf_counter()
        model.predict_proba(premises, hypotheses, batch_size=bs)
        seconds = time.perf_counter() - start
        results["batch"][bs] = {"seconds": round(seconds, 2), "pairs_per_s": round(len(pairs) / seconds, 1)}
        print(f"batch {bs:>3}: {len(pairs) / seconds:8.1f} pairs/s ({seconds:.1f}s for {len(pairs)})", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
