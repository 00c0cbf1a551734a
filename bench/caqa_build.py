"""Build a CAQA benchmark from the bundled Wikidata + Freebase samples and report its statistics
(Table 4 layout) and build throughput (samples/min).

    python bench/caqa_build.py                                   # ≥ 5,000 samples, template verbaliser
    python bench/caqa_build.py --paths 50 --trees 50 --out runs/caqa-small
    python bench/caqa_build.py --verbaliser llm --model PATH.gguf --limit 200

The dumps are ingested into `--store` first (idempotent: an already loaded store is reused). The
build resumes when `--out` holds an unfinished build with the same settings. Figures are printed and
appended to bench/results/caqa_build.jsonl; nothing here is asserted by tests.
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

from kalma_graph.caqa.build import BuildConfig, build  # noqa: E402
from kalma_graph.caqa.verbalise import LLMVerbaliser, TemplateVerbaliser  # noqa: E402
from kalma_graph.files import append_jsonl  # noqa: E402
from kalma_graph.ingest import ingest  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

KGQA = ROOT / "dumps" / "kgqa"
DEFAULT_KGQA = [KGQA / "simplequestions_wikidata_test_answerable.sample.txt",
                KGQA / "simplequestions_freebase_valid.sample.txt", KGQA / "mintaka_dev.sample.json"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default="embedded:runs/caqa-graph.lbdb")
    ap.add_argument("--out", default="runs/caqa-5k")
    ap.add_argument("--paths", type=int, default=350)
    ap.add_argument("--trees", type=int, default=350)
    ap.add_argument("--singles", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--verbaliser", choices=["template", "llm"], default="template")
    ap.add_argument("--model", default=None, help="GGUF for --verbaliser llm")
    ap.add_argument("--results", default=str(ROOT / "bench" / "results" / "caqa_build.jsonl"))
    args = ap.parse_args()

    store = open_store(args.store)
    t0 = time.perf_counter()
    ingest(store, [ROOT / "dumps" / "wikidata_sample.jsonl.gz", ROOT / "dumps" / "freebase_sample.nt.gz"])
    ingest_s = time.perf_counter() - t0
    if args.verbaliser == "llm":
        from kalma_graph.models.llm import load_llm

        verbaliser = LLMVerbaliser(load_llm(args.model, n_ctx=2048, seed=args.seed), seed=args.seed)
    else:
        verbaliser = TemplateVerbaliser()
    config = BuildConfig(out=args.out, kgqa=[str(p) for p in DEFAULT_KGQA], paths=args.paths, trees=args.trees,
                         singles=args.singles, seed=args.seed, limit=args.limit)
    summary = build(store, config, verbaliser=verbaliser)
    store.close()
    print((Path(args.out) / "stats.md").read_text())
    run = summary["run"]
    print(
        f"{summary['samples']:,} samples from {summary['queries']:,} queries; this run "
        f"{run['samples_written_this_run']:,} samples in {run['build_seconds']} s = {run['samples_per_minute']} "
        f"samples/min (query collection {run['collect_seconds']} s, ingest/check {ingest_s:.1f} s)")
    row = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "host": platform.node(), "cpus": os.cpu_count(),
           "config": config.fingerprint(), "verbaliser": verbaliser.describe(), "samples": summary["samples"],
           "table4": summary["table4"], "run": run, "skipped": summary["skipped"],
           "queries_without": summary["queries_without"]}
    append_jsonl(args.results, [row])


if __name__ == "__main__":
    main()
