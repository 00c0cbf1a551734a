"""Where a Wikidata JSON ingest spends its reading time: decoding with json / orjson / msgspec (to
dicts, and to the reader's typed structs), then building records, on the generated dump of
bench/ingest.py, in one run.

    python bench/parse_json.py [--statements 200000]

Prints statements per second for each decoder alone and for the reader end to end (gzip, decode,
records). The reader decodes with msgspec into typed structs (`readers/wikidata_json._entity_type`),
which skip what a statement does not need. The generated lines hold only English terms and no
qualifiers, references or sitelinks, so the typed decoder's gain here is a floor: on the official
dump those parts are most of each line.

Measured 2026-11-25 on the 2-core machine, nothing else running (200k statements), statements/s:

| decoder | generated lines (2.5 kB) | official-shaped lines (16.6 kB) |
|---|---:|---:|
| json (stdlib) | 631k | 107k |
| orjson | 1.22M | 178k |
| msgspec, to dicts | 1.26M | 200k |
| msgspec, typed (the reader's) | 1.49M | 672k |

The reader end to end (generated lines): 283k statements/s (101k on 2026-11-24 with the stdlib
decoder and the collector on).

It also prints what decoding in a second process would cost the ingesting process, which must still
receive the parsed lines. Measured 2026-11-24 (200k statements, a model run beside it, collector on):
the reader 107k statements/s in process; receiving the same lines pickled 114k/s as records, 142k/s
as plain tuples rebuilt into records. On 2026-11-25 (collector off) 1.02M/s and 682k/s; a reader
process built on that saved about 1 s of a 15 s load of 1M statements (docs/ingest.md), so it is
not adopted.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import pickle
import random
import sys
import tempfile
import time
from dataclasses import astuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import generate  # noqa: E402  (bench/ingest.py)

from kalma_graph.ingest.readers.base import ParsedLine  # noqa: E402
from kalma_graph.ingest.readers.wikidata_json import WikidataJsonReader  # noqa: E402
from kalma_graph.store.base import EntityRecord, StatementRecord  # noqa: E402


def decoders() -> dict:
    found = {"json": json.loads}
    try:
        import orjson

        found["orjson"] = orjson.loads
    except ImportError:
        pass
    import msgspec

    from kalma_graph.ingest.readers.wikidata_json import _entity_type

    found["msgspec"] = msgspec.json.Decoder().decode
    found["msgspec typed (the reader's)"] = msgspec.json.Decoder(_entity_type("en")).decode
    return found


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
                "snaks": {"P248": [snak("P248", {"entity-type": "item", "numeric-id": 328, "id": "Q328"}, "wikibase-entityid")],
                          "P813": [snak("P813", {"time": "+2024-01-01T00:00:00Z", "precision": 11}, "time")]},
                "snaks-order": ["P248", "P813"]}]}
            if rng.random() < 0.3:
                claim["qualifiers"] = {"P580": [snak("P580", {"time": "+1900-00-00T00:00:00Z", "precision": 9}, "time")]}
                claim["qualifiers-order"] = ["P580"]
            claims[pid].append(claim)
    out["claims"] = claims
    return out


def transfer_steps(parsed: list[ParsedLine], statements: int) -> list[dict]:
    """What decoding in a second process would cost the ingesting process: receiving the parsed
    lines (pickled in chunks of 1,000 lines, as a queue would carry them), as the records themselves
    and as plain tuples rebuilt into records. Decoding elsewhere pays only where this is well below
    the reader's own time."""
    chunks = [parsed[i:i + 1000] for i in range(0, len(parsed), 1000)]
    records = [pickle.dumps(chunk, protocol=5) for chunk in chunks]
    t0 = time.perf_counter()
    for blob in records:
        pickle.loads(blob)
    rows = [{"step": "receive pickled records", "statements_per_s": round(statements / (time.perf_counter() - t0))}]
    tuples = [pickle.dumps([(p.line, [astuple(e) for e in p.entities], [astuple(s) for s in p.statements])
                            for p in chunk], protocol=5) for chunk in chunks]
    t0 = time.perf_counter()
    for blob in tuples:
        [ParsedLine(line, [EntityRecord(*e) for e in ents], [StatementRecord(*s) for s in sts])
         for line, ents, sts in pickle.loads(blob)]
    rows.append({"step": "receive tuples, rebuild records", "statements_per_s": round(statements / (time.perf_counter() - t0))})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kalma-parse-") as tmp:
        dump = Path(tmp) / "wikidata_generated.json.gz"
        statements = generate(dump, args.statements)
        with gzip.open(dump, "rt", encoding="utf-8") as handle:
            lines = [line.rstrip(",\n") for line in handle if line.startswith("{")]
        rng = random.Random(3)
        shaped = [json.dumps(official_shaped(json.loads(line), rng)) for line in lines]
        gc.disable()  # as during an ingest (pipeline._no_cycle_collection)
        rows = []
        for kind, texts in (("generated lines", lines), ("official-shaped lines", shaped)):
            for name, loads in decoders().items():
                t0 = time.perf_counter()
                for line in texts:
                    loads(line)
                seconds = time.perf_counter() - t0
                rows.append({"step": f"decode:{name}", "lines": kind, "statements_per_s": round(statements / seconds),
                             "mean_line_bytes": round(sum(map(len, texts)) / len(texts))})
        t0 = time.perf_counter()
        parsed = [item for item in WikidataJsonReader().read(dump) if isinstance(item, ParsedLine)]
        n = sum(len(item.statements) for item in parsed)
        rows.append({"step": "reader end to end", "statements_per_s": round(n / (time.perf_counter() - t0))})
        rows.extend(transfer_steps(parsed, n))
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
