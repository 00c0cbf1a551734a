"""Where a Wikidata JSON ingest spends its reading time: decoding with json / orjson / msgspec, then
building records, on the generated dump of bench/ingest.py, in one run.

    python bench/parse_json.py [--statements 200000]

Prints statements per second for each decoder alone (the stdlib's `json` is what the reader uses;
orjson and msgspec are measured when installed) and for the reader end to end (gzip, decode, records).
Measured 2026-11-24 on the 2-core machine with a model run beside it (100k statements): decoding
alone json 391k, orjson 852k, msgspec 669k statements/s; the reader end to end 101k statements/s, so
decoding is about a quarter of reading, and a first load into the embedded store writes 24k
statements/s: the store, not the decoder, is the bottleneck, and no faster decoder is adopted yet.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import generate  # noqa: E402  (bench/ingest.py)

from kalma_graph.ingest.readers.base import ParsedLine  # noqa: E402
from kalma_graph.ingest.readers.wikidata_json import WikidataJsonReader  # noqa: E402


def decoders() -> dict:
    found = {"json": json.loads}
    try:
        import orjson

        found["orjson"] = orjson.loads
    except ImportError:
        pass
    try:
        import msgspec

        found["msgspec"] = msgspec.json.Decoder().decode
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kalma-parse-") as tmp:
        dump = Path(tmp) / "wikidata_generated.json.gz"
        statements = generate(dump, args.statements)
        with gzip.open(dump, "rt", encoding="utf-8") as handle:
            lines = [line.rstrip(",\n") for line in handle if line.startswith("{")]
        rows = []
        for name, loads in decoders().items():
            t0 = time.perf_counter()
            for line in lines:
                loads(line)
            seconds = time.perf_counter() - t0
            rows.append({"step": f"decode:{name}", "statements_per_s": round(statements / seconds)})
        t0 = time.perf_counter()
        n = sum(len(item.statements) for item in WikidataJsonReader().read(dump) if isinstance(item, ParsedLine))
        rows.append({"step": "reader end to end", "statements_per_s": round(n / (time.perf_counter() - t0))})
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
