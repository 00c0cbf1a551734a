"""Ingest and one-hop benchmark on a generated Wikidata-shaped dump, for each store in one run.

    python bench/ingest.py                       # 1,000,000 statements, embedded + Neo4j
    python bench/ingest.py --statements 200000 --stores embedded
    python bench/ingest.py --stores neo4j,neo4j-import   # the driver ingest vs `kalma-graph neo4j import` (ratio)

Prints one JSON line per store: `statements_per_s` for the load (end to end: reading, parsing,
planning, writing), one-hop p50/p95 latency over 1,000 random entities right after the load and over
1,000 more (`one_hop_warm_*`: a just-started server still compiles during the first), and for the embedded store
`raw_copy_statements_per_s`: the same rows written by the store's COPY statements alone (read and
planned untimed, in chunks of 1M statements, written as a first load writes them: one COPY per
table), measured in the same run, with `ingest_to_raw_copy` the ratio.
For `neo4j-import` (`kalma-graph neo4j import`
into a throwaway home) `statements_per_s` is end to end (staging the CSV, neo4j-admin, starting the
server, constraints and indexes) and `import_statements_per_s` the import proper (staging + neo4j-admin).
Figures are appended to bench/results/ingest.jsonl. `--statements 10000000` for the 10M run.

Neo4j runs in a throwaway server of its own (the installed jars, a temporary home, auth off), started
and stopped here: the user's own home, its configuration, password and data are never touched. To
measure another server instead set KALMA_BENCH_NEO4J_URI (and KALMA_NEO4J_PASSWORD): its database
is CLEARED before and after the run, which is why the user's KALMA_NEO4J_URI is never used here.

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
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.ingest import ingest  # noqa: E402
from kalma_graph.ingest.read_ahead import MODES as READ_AHEAD_MODES  # noqa: E402
from kalma_graph.neo4j_server.config import initial_heap  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

ITEM_PROPS = ["P19", "P20", "P27", "P106", "P69", "P108", "P166", "P463", "P737", "P1412"]
TIME_PROPS = ["P569", "P570"]


def _item_claim(pid: str, qid: str) -> dict:
    numeric = int(qid[1:])
    return {
        "mainsnak": {
            "snaktype": "value",
            "property": pid,
            "datavalue": {"value": {"entity-type": "item", "numeric-id": numeric, "id": qid},
                          "type": "wikibase-entityid"},
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


def generate(path: Path, statements: int, per_entity: int = 10, seed: int = 7, official: bool = False) -> int:
    """Write a Wikidata JSON dump (array form, one entity per line) with `statements` claims;
    `official`: each line shaped as the official dump writes it (`official_shaped`), the same graph."""
    rng = random.Random(seed)
    shape_rng = random.Random(3)
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
                    value = {
                        "time": f"+{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T00:00:00Z", "precision": 11}
                    claims.setdefault(pid, []).append(_value_claim(pid, "time", value))
                elif roll < 0.95:
                    claims.setdefault("P1559", []).append(
                        _value_claim("P1559", "string", f"name {i}-{rng.randint(0, 999)}"))
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
            if official:
                entity = official_shaped(entity, shape_rng)
            out.write(json.dumps(entity) + (",\n" if i < n_entities else "\n"))
        out.write("]\n")
    return written


LANGUAGES = ["de", "fr", "es", "it", "nl", "pl", "pt", "ru", "ja", "zh", "sv", "uk", "ca", "fa", "ar", "cs", "fi",
             "he", "hu", "id", "ko", "no", "ro", "sr", "tr", "vi", "da", "eo", "eu", "et", "gl", "hr", "hy", "ka",
             "lt", "lv", "ms", "sk", "sl", "th"]


def official_shaped(entity: dict, rng: random.Random) -> dict:
    """The same entity as the official dump writes one: terms in 40 more languages, 40 sitelinks, a
    statement id, references on every claim and qualifiers on some. None of it reaches the graph."""
    def snak(pid: str, value: dict, kind: str) -> dict:
        return {"snaktype": "value", "property": pid, "hash": "%040x" % rng.getrandbits(160),
                "datavalue": {"value": value, "type": kind}}

    def text(lang: str, value: str) -> dict:
        return {"language": lang, "value": value}

    name = entity["labels"]["en"]["value"]
    out = dict(entity)
    out["labels"] = {**entity["labels"], **{lang: text(lang, f"{name} ({lang})") for lang in LANGUAGES}}
    out["descriptions"] = {**entity["descriptions"], **{lang: text(lang, f"description {lang}") for lang in LANGUAGES}}
    out["aliases"] = {**entity["aliases"], **{lang: [text(lang, f"{name} {lang} alias")] for lang in LANGUAGES[:10]}}
    out["sitelinks"] = {f"{lang}wiki": {"site": f"{lang}wiki", "title": name, "badges": []} for lang in LANGUAGES}
    claims = {}
    for pid, group in entity["claims"].items():
        claims[pid] = []
        for claim in group:
            claim = {**claim, "id": f"{entity['id']}${rng.getrandbits(128):032x}", "references": [{
                "hash": "%040x" % rng.getrandbits(160),
                "snaks": {
                    "P248": [
                        snak("P248", {"entity-type": "item", "numeric-id": 328, "id": "Q328"}, "wikibase-entityid")],
                    "P813": [snak("P813", {"time": "+2024-01-01T00:00:00Z", "precision": 11}, "time")]},
                "snaks-order": ["P248", "P813"]}]}
            if rng.random() < 0.3:
                claim["qualifiers"] = {
                    "P580": [snak("P580", {"time": "+1900-00-00T00:00:00Z", "precision": 9}, "time")]}
                claim["qualifiers-order"] = ["P580"]
            claims[pid].append(claim)
    out["claims"] = claims
    return out


def one_hop_latency(store, n_entities: int, samples: int = 1000, seed: int = 11) -> dict:
    """p50/p95 of `one_hop` over `samples` random entities right after the load (after 20 lookups
    that warm caches and query plans), then over `samples` others (`one_hop_warm_*`): a server
    started seconds before (the imported store's) still compiles its code during the first round,
    and the second shows what a user of a running server gets."""
    rng = random.Random(seed)
    ids = [f"Q{rng.randint(1, n_entities)}" for _ in range(2 * samples)]
    for qid in ids[:20]:
        store.one_hop(qid)
    out = {}
    for prefix, round_ids in (("one_hop", ids[:samples]), ("one_hop_warm", ids[samples:])):
        timings = []
        for qid in round_ids:
            t0 = time.perf_counter()
            store.one_hop(qid)
            timings.append((time.perf_counter() - t0) * 1000)
        timings.sort()
        out[f"{prefix}_p50_ms"] = round(statistics.median(timings), 3)
        out[f"{prefix}_p95_ms"] = round(timings[int(0.95 * len(timings)) - 1], 3)
    return out


def _neo4j_uri(stack: ExitStack, **settings) -> str:
    uri = os.environ.get("KALMA_BENCH_NEO4J_URI")
    if uri:
        return uri
    from kalma_graph.neo4j_server import throwaway_server

    return stack.enter_context(throwaway_server(**settings)).uri


def import_rate(dump: Path, tmp: Path, n_entities: int, read_ahead: bool | None = None, **settings) -> dict:
    """`kalma-graph neo4j import` of `dump` into a throwaway home: end to end (staging, neo4j-admin,
    server start, constraints and indexes) and the import proper (staging + neo4j-admin), then the
    one-hop latency on the imported database."""
    from kalma_graph.ingest.neo4j_import import import_files
    from kalma_graph.neo4j_server import free_port, stop, throwaway_home

    home = throwaway_home(tmp / "neo4j-import")
    try:
        summary = import_files(home, [dump], start_options={"bolt_port": free_port(), "http_port": free_port(),
                                                              "auth": False, **settings}, read_ahead=read_ahead)
        statements = summary["stats"]["statements"]
        offline = summary["stage_seconds"] + summary["import_seconds"]
        store = open_store(summary["store"])
        try:
            latency = one_hop_latency(store, n_entities)
        finally:
            store.close()
    finally:
        stop(home)
    return {
        "store": "neo4j-import",
        "statements": statements,
        "entities": summary["stats"]["entities"],
        "seconds": summary["seconds"],
        "statements_per_s": round(statements / summary["seconds"]),
        "stage_seconds": summary["stage_seconds"],
        "import_seconds": summary["import_seconds"],
        "schema_seconds": summary["schema_seconds"],
        "import_statements_per_s": round(statements / offline),
        **latency,
    }


def raw_copy_rate(dump: Path, tmp: Path, chunk_statements: int = 1_000_000) -> dict:
    """Statements per second of the embedded store's COPY statements alone, on the rows of `dump`,
    written as a first load writes them: read and planned in chunks of 1M statements, every table
    in one COPY at the end (`embedded._Deferred`). Only the time inside the store's COPY (and
    entity update) statements counts: reading, planning and building the Arrow tables are left out."""
    from kalma_graph.ingest.formats import make_reader
    from kalma_graph.ingest.readers.base import ParsedLine
    from kalma_graph.store.base import LoadOptions
    from kalma_graph.store.embedded import EmbeddedStore
    from kalma_graph.store.loading import WrittenSoFar

    store = EmbeddedStore(tmp / "raw-copy.lbdb")
    store.bootstrap()
    execute, seconds = store._execute, [0.0]

    def timed(text, params):
        if not text.startswith(("COPY", "LOAD")):
            return execute(text, params)
        t0 = time.perf_counter()
        try:
            return execute(text, params)
        finally:
            seconds[0] += time.perf_counter() - t0

    store._execute = timed
    reader = make_reader("wikidata-json")
    options = LoadOptions(default_kb=reader.kb, written=WrittenSoFar())
    entities, statements, written = [], [], 0

    def flush() -> None:
        nonlocal entities, statements, written
        written += store.load_batch(entities, statements, options).statements_created
        entities, statements = [], []

    for item in reader.read(dump):
        if isinstance(item, ParsedLine):
            entities.extend(item.entities)
            statements.extend(item.statements)
            if len(statements) >= chunk_statements:
                flush()
    flush()
    store.finish_load()
    store.close()
    return {"raw_copy_statements": written, "raw_copy_seconds": round(seconds[0], 3),
            "raw_copy_statements_per_s": round(written / seconds[0]) if seconds[0] else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=1_000_000)
    parser.add_argument("--stores", default="embedded,neo4j")
    parser.add_argument("--batch-size", type=int, default=None,
                        help="default: the ingest default (200,000 on a first load into the embedded store)")
    parser.add_argument("--no-raw-copy", action="store_true", help="Skip the raw COPY measurement.")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "ingest.jsonl"))
    parser.add_argument("--note", default="", help="what changed since the last run, kept with each result line")
    parser.add_argument("--lines", choices=("generated", "official"), default="generated",
                        help="official: each entity line shaped as the official dump writes it (terms in 41 "
                             "languages, sitelinks, references: 16.6 kB against 2.5 kB), the same graph")
    parser.add_argument("--read-ahead", choices=list(READ_AHEAD_MODES), default="auto",
                        help="read the dump in a second process (ingest/read_ahead.py); "
                             "auto: for files of 4 MB and more")
    parser.add_argument("--neo4j-heap", default="1g", help="the throwaway server's maximum heap (its default: 1g)")
    parser.add_argument("--neo4j-gc", choices=("g1", "parallel"), default="g1",
                        help="the throwaway server's garbage collector (`kalma-graph neo4j start --gc`)")
    args = parser.parse_args()
    read_ahead = READ_AHEAD_MODES[args.read_ahead]
    # The heap starts as `kalma-graph neo4j start --heap` starts it.
    server_settings = {"heap_initial": initial_heap(args.neo4j_heap), "heap_max": args.neo4j_heap,
                       "gc": args.neo4j_gc}

    results = []
    with tempfile.TemporaryDirectory(prefix="kalma-bench-") as tmp, ExitStack() as servers:
        dump = Path(tmp) / "wikidata_generated.json.gz"
        t0 = time.perf_counter()
        written = generate(dump, args.statements, official=args.lines == "official")
        n_entities = max(1, args.statements // 10)
        print(f"generated {written:,} statements over {n_entities:,} entities in {time.perf_counter() - t0:.1f}s")
        for backend in args.stores.split(","):
            if backend == "neo4j-import":
                row = {**import_rate(dump, Path(tmp), n_entities, read_ahead, **server_settings),
                       "neo4j_heap": args.neo4j_heap, "neo4j_gc": args.neo4j_gc}
                results.append(row)
                print(json.dumps(row), flush=True)
                continue
            uri = f"embedded:{tmp}/graph.lbdb" if backend == "embedded" else _neo4j_uri(servers, **server_settings)
            store = open_store(uri)
            if backend != "embedded":
                store.clear()
            summary = ingest(store, [dump], batch_size=args.batch_size, read_ahead=read_ahead)
            seconds = summary["seconds"]
            row = {
                "store": backend,
                "statements": summary["totals"]["statements_created"],
                "entities": summary["stats"]["entities"],
                "batch_size": summary["batch_size"],
                "seconds": seconds,
                "statements_per_s": round(summary["totals"]["statements_created"] / seconds),
                **one_hop_latency(store, n_entities),
                **({"neo4j_heap": args.neo4j_heap, "neo4j_gc": args.neo4j_gc} if backend == "neo4j" else {}),
            }
            if backend != "embedded":
                store.clear()
            store.close()
            if backend == "embedded" and not args.no_raw_copy:
                row.update(raw_copy_rate(dump, Path(tmp)))
                if row.get("raw_copy_statements_per_s"):
                    row["ingest_to_raw_copy"] = round(row["statements_per_s"] / row["raw_copy_statements_per_s"], 3)
            results.append(row)
            print(json.dumps(row), flush=True)
    # the driver ingest against `neo4j import` of the same rows in this run: end to end, and the import proper
    by_store = {row["store"]: row for row in results}
    if "neo4j" in by_store and "neo4j-import" in by_store:
        driver, imported = by_store["neo4j"], by_store["neo4j-import"]
        driver["driver_to_import"] = round(driver["statements_per_s"] / imported["statements_per_s"], 3)
        driver["driver_to_import_proper"] = round(driver["statements_per_s"] / imported["import_statements_per_s"], 3)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as handle:
        for row in results:
            handle.write(
                json.dumps(
                    {**row, "lines": args.lines, "read_ahead": args.read_ahead,
                     "machine": f"{platform.machine()} {os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d"),
                     **({"note": args.note} if args.note else {})}) + "\n")
    print(f"{'store':<13} {'statements/s':>14} {'p50 ms':>8} {'p95 ms':>8} {'warm p95':>9}")
    for row in results:
        print(
            f"{row['store']:<13} {row['statements_per_s']:>14,} {row['one_hop_p50_ms']:>8} {row['one_hop_p95_ms']:>8} "
            f"{row['one_hop_warm_p95_ms']:>9}")
    if "driver_to_import" in by_store.get("neo4j", {}):
        neo = by_store["neo4j"]
        print(f"neo4j driver / neo4j import: {neo['driver_to_import']:.2f}x end to end, "
              f"{neo['driver_to_import_proper']:.2f}x the import proper (staging + neo4j-admin)")


if __name__ == "__main__":
    main()
