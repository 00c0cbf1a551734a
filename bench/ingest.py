"""Ingest and one-hop benchmark on a generated Wikidata-shaped dump, for each store in one run.

    python bench/ingest.py                       # 1,000,000 statements, embedded + Neo4j
    python bench/ingest.py --statements 200000 --stores embedded

Prints statements/second for the load and one-hop p50/p95 latency over 1,000 random entities, and
appends the figures to bench/results/ingest.jsonl. Neo4j is reached through KALMA_NEO4J_URI (with
KALMA_NEO4J_PASSWORD) when set, else a throwaway server started by our launcher.

The dump is synthetic *in shape only*: the official Wikidata JSON line format with item, time,
string and quantity claims, ~10 claims per entity and a Zipf-like object distribution, so the store
sees the same work as on a real dump. No timing here is asserted anywhere.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.ingest import ingest  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

ITEM_PROPS = ["P19", "P20", "P27", "P106", "P69", "P108", "P166", "P463", "P737", "P1412"]
TIME_PROPS = ["P569", "P570"]


def _item_claim(pid: str, qid: str) -> dict:
    numeric = int(qid[1:])
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": pid,
            "datavalue": {"value": {"entity-type": "item", "numeric-id": numeric, "id": qid}, "type": "wikibase-entityid"},
            "datatype": "wikibase-item",
        },
        "type": "statement",
        "rank": "normal",
    }


def _value_claim(pid: str, kind: str, value) -> dict:
    return {
        "mainsnak": {"snaktype": "value", "property": pid, "datavalue": {"value": value, "type": kind}},
        "type": "statement",
        "rank": "normal",
    }


def generate(path: Path, statements: int, per_entity: int = 10, seed: int = 7) -> int:
    """Write a Wikidata JSON dump (array form, one entity per line) with `statements` claims."""
    rng = random.Random(seed)
    n_entities = max(1, statements // per_entity)
    written = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        out.write("[\n")
        for i in range(1, n_entities + 1):
            claims: dict[str, list] = {}
            for _ in range(per_entity):
                roll = rng.random()
                if roll < 0.7:
                    pid = rng.choice(ITEM_PROPS)
                    target = f"Q{int(rng.paretovariate(1.2)) % n_entities + 1}"
                    claims.setdefault(pid, []).append(_item_claim(pid, target))
                elif roll < 0.85:
                    pid = rng.choice(TIME_PROPS)
                    year = rng.randint(1500, 2000)
                    value = {"time": f"+{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z", "precision": 11}
                    claims.setdefault(pid, []).append(_value_claim(pid, "time", value))
                elif roll < 0.95:
                    claims.setdefault("P1559", []).append(_value_claim("P1559", "string", f"name {i}-{rng.randint(0, 999)}"))
                else:
                    amount = {"amount": f"+{rng.randint(1, 10**6)}", "unit": "1"}
                    claims.setdefault("P1082", []).append(_value_claim("P1082", "quantity", amount))
                written += 1
            entity = {
                "type": "item",
                "id": f"Q{i}",
                "labels": {"en": {"language": "en", "value": f"Entity {i % (n_entities // 2 or 1)}"}},
                "aliases": {"en": [{"language": "en", "value": f"E{i}"}]},
                "descriptions": {"en": {"language": "en", "value": f"generated entity {i}"}},
                "claims": claims,
            }
            out.write(json.dumps(entity) + (",\n" if i < n_entities else "\n"))
        out.write("]\n")
    return written


def one_hop_latency(store, n_entities: int, samples: int = 1000, seed: int = 11) -> dict:
    rng = random.Random(seed)
    ids = [f"Q{rng.randint(1, n_entities)}" for _ in range(samples)]
    for qid in ids[:20]:  # warm caches and query plans
        store.one_hop(qid)
    timings = []
    for qid in ids:
        t0 = time.perf_counter()
        store.one_hop(qid)
        timings.append((time.perf_counter() - t0) * 1000)
    timings.sort()
    return {
        "one_hop_p50_ms": round(statistics.median(timings), 3),
        "one_hop_p95_ms": round(timings[int(0.95 * len(timings)) - 1], 3),
    }


def _neo4j_uri(stack) -> str:
    uri = os.environ.get("KALMA_NEO4J_URI")
    if uri:
        return uri
    from kalma_graph.neo4j_server import default_home, free_port, install, start, stop

    home = default_home()
    install(home)
    info = start(home, bolt_port=free_port(), http_port=free_port(), auth=False)
    stack.append(lambda: stop(home))
    return info.uri


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=1_000_000)
    parser.add_argument("--stores", default="embedded,neo4j")
    parser.add_argument("--batch-size", type=int, default=20000)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "ingest.jsonl"))
    args = parser.parse_args()

    cleanup: list = []
    results = []
    with tempfile.TemporaryDirectory(prefix="kalma-bench-") as tmp:
        dump = Path(tmp) / "wikidata_generated.json.gz"
        t0 = time.perf_counter()
        written = generate(dump, args.statements)
        n_entities = max(1, args.statements // 10)
        print(f"generated {written:,} statements over {n_entities:,} entities in {time.perf_counter() - t0:.1f}s")
        try:
            for backend in args.stores.split(","):
                uri = f"embedded:{tmp}/graph.lbdb" if backend == "embedded" else _neo4j_uri(cleanup)
                store = open_store(uri)
                if backend != "embedded":
                    store.clear()
                summary = ingest(store, [dump], batch_size=args.batch_size)
                seconds = summary["seconds"]
                row = {
                    "store": backend,
                    "statements": summary["totals"]["statements_created"],
                    "entities": summary["stats"]["entities"],
                    "seconds": seconds,
                    "statements_per_s": round(summary["totals"]["statements_created"] / seconds),
                    **one_hop_latency(store, n_entities),
                }
                if backend != "embedded":
                    store.clear()
                store.close()
                results.append(row)
                print(json.dumps(row))
        finally:
            for fn in cleanup:
                fn()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as handle:
        for row in results:
            handle.write(json.dumps({**row, "machine": f"{platform.machine()} {os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d")}) + "\n")
    print(f"{'store':<10} {'statements/s':>14} {'p50 ms':>8} {'p95 ms':>8}")
    for row in results:
        print(f"{row['store']:<10} {row['statements_per_s']:>14,} {row['one_hop_p50_ms']:>8} {row['one_hop_p95_ms']:>8}")


if __name__ == "__main__":
    main()
