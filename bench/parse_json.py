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

Reading in a second process (`ingest/read_ahead.py`) is measured end to end by
`bench/ingest.py --read-ahead on|off` (docs/ingest.md, "Throughput").
"""

from __future__ import annotations

import argparse
import gc
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
    import msgspec

    from kalma_graph.ingest.readers.wikidata_json import _entity_type

    found["msgspec"] = msgspec.json.Decoder().decode
    found["msgspec typed (the reader's)"] = msgspec.json.Decoder(_entity_type("en")).decode
    return found


def _lines(dump: Path) -> list[str]:
    with gzip.open(dump, "rt", encoding="utf-8") as handle:
        return [line.rstrip(",\n") for line in handle if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kalma-parse-") as tmp:
        dump = Path(tmp) / "wikidata_generated.json.gz"
        statements = generate(dump, args.statements)
        shaped_dump = Path(tmp) / "wikidata_official_shaped.json.gz"
        generate(shaped_dump, args.statements, official=True)
        lines, shaped = _lines(dump), _lines(shaped_dump)
        gc.disable()  # as during an ingest (pipeline.no_cycle_collection)
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
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
