"""BioKaLMA construction benchmark: build N entries from the bundled sample graph and report figures.

    python bench/biokalma.py --entries 60                    # packaged SmolLM2, shared NLI model
    python bench/biokalma.py --entries 200 --model M.gguf --store embedded:/path/graph.lbdb

Without `--store`, the sample dumps (dumps/wikidata_sample.jsonl.gz + dumps/biokalma_records.jsonl.gz)
are ingested into a throwaway embedded store first. Prints throughput (entries/min, seconds per
entry), the set-size distribution, the relations chosen by eq. 1, the NLI relevance figures, the
template-fallback share, and an α sensitivity table: for each recorded round, which candidate eq. 1
picks under other α values (from the recorded Count_r and perplexities of every candidate), and how
often that differs from the pure-specificity (α=1) and pure-coherence (α=0) choices. Appends a
summary row to bench/results/biokalma.jsonl. Nothing here is asserted by the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # llama.cpp's OpenMP threads must not spin on shared cores

from kalma_graph.biokalma import DEFAULT_ALPHA, BuildOptions, EvolveConfig, build_biokalma  # noqa: E402
from kalma_graph.biokalma.scoring import rank  # noqa: E402
from kalma_graph.files import append_jsonl  # noqa: E402
from kalma_graph.ingest import ingest  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

ALPHAS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


def alpha_sensitivity(entries: list[dict], n: int) -> list[dict]:
    rounds = [r["scored"] for e in entries for r in e["rounds"] if r.get("scored")]
    rows = []
    for alpha in ALPHAS:
        picks, spec_only, coh_only = [], [], []
        for scored in rounds:
            counts = [c for _, c, _ in scored]
            perps = [p for _, _, p in scored]
            picks.append(rank(counts, perps, n, alpha)[0].index)
            spec_only.append(rank(counts, perps, n, 1.0)[0].index)
            coh_only.append(rank(counts, perps, n, 0.0)[0].index)
        same_spec = sum(a == b for a, b in zip(picks, spec_only))
        same_coh = sum(a == b for a, b in zip(picks, coh_only))
        rows.append({"alpha": alpha, "rounds": len(rounds),
                     "differs_from_specificity_only": 1 - same_spec / len(rounds) if rounds else None,
                     "differs_from_coherence_only": 1 - same_coh / len(rounds) if rounds else None})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=60)
    parser.add_argument("--store", default=None, help="Store URI holding the graph (default: ingest the samples).")
    parser.add_argument("--model", default=None, help="GGUF (default: packaged SmolLM2-135M-Instruct).")
    parser.add_argument("--nli", default=str(REPO.parent / "shared" / "models" / "nli-minilm-l6-v1"))
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--max-candidates", type=int, default=None)
    parser.add_argument("--perplexity-scope", choices=["paragraph", "sentence"], default="paragraph")
    parser.add_argument("--work", default=None, help="Folder for the dataset files (default: a temp dir).")
    parser.add_argument("--results", default=str(REPO / "bench" / "results" / "biokalma.jsonl"))
    args = parser.parse_args()

    from kalma_graph.models.llm import load_llm
    from kalma_graph.models.nli import load_nli

    work = Path(args.work or tempfile.mkdtemp(prefix="bench-biokalma-"))
    work.mkdir(parents=True, exist_ok=True)
    ingest_seconds = None
    if args.store:
        store = open_store(args.store)
    else:
        store = open_store(f"embedded:{work / 'graph.lbdb'}")
        t0 = time.perf_counter()
        ingest(store, [REPO / "dumps" / "wikidata_sample.jsonl.gz", REPO / "dumps" / "biokalma_records.jsonl.gz"])
        ingest_seconds = time.perf_counter() - t0
    llm = load_llm(args.model, n_ctx=4096, n_threads=args.threads, seed=args.seed)
    scorer = load_llm(args.model, n_ctx=4096, n_threads=args.threads, seed=args.seed, logits=True)
    nli = load_nli(args.nli, device="cpu", cache=None) if args.nli else None
    config = EvolveConfig(alpha=args.alpha, seed=args.seed, max_candidates=args.max_candidates,
                          perplexity_scope=args.perplexity_scope, record_candidates=True)
    out = work / "biokalma.jsonl"
    t0 = time.perf_counter()
    summary = build_biokalma(store, llm, out, BuildOptions(limit=args.entries, evolve=config),
                             scorer_llm=scorer, nli=nli,
                             progress=lambda d, t, e: print(f"\r{d}/{t} {e}", end="", file=sys.stderr, flush=True))
    wall = time.perf_counter() - t0
    print(file=sys.stderr)
    entries = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    checks = summary["checks"]
    rounds = [r for e in entries for r in e["rounds"]]
    stats = Counter()
    for e in entries:
        stats.update(e["stats"])
    row = {
        "bench": "biokalma",
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "model": summary["model"],
        "nli": (summary.get("nli") or {}).get("name_or_path"),
        "entries": len(entries),
        "ingest_seconds": ingest_seconds,
        "build_seconds": round(wall, 1),
        "generation_seconds": summary["generation_seconds"],
        "entries_per_minute": summary["entries_per_minute"],
        "seconds_per_entry": round(summary["generation_seconds"] / max(summary["built_now"], 1), 2),
        "llm_calls_per_entry": stats["llm_calls"] / len(entries),
        "perplexity_calls_per_entry": stats["perplexity_calls"] / len(entries),
        "settings": summary["settings"]["evolve"],
        "disambiguation": summary["disambiguation"],
        "in_graph": checks["in_graph"]["share"],
        "set_sizes": checks["set_sizes"],
        "relations_eq1": checks["relations"]["eq1"],
        "relations_distinct": checks["relations"]["distinct"],
        "generation": checks["generation"],
        "relevance": checks["relevance"],
        "mean_perplexity_chosen": sum(r["perplexity"] for r in rounds) / len(rounds) if rounds else None,
        "alpha_sensitivity": alpha_sensitivity(entries, summary["dataset_size_N"]),
        "dataset": str(out),
    }
    print(json.dumps(row, indent=1, ensure_ascii=False, default=str))
    append_jsonl(args.results, [row])
    store.close()
    llm.close()
    scorer.close()


if __name__ == "__main__":
    main()
