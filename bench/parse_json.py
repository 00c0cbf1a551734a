"""Where a Wikidata JSON ingest spends its reading time: decoding with json / orjson / msgspec (to
dicts, and to the reader's typed structs), then building records, on the generated dump of
bench/ingest.py, in one run.

    python bench/parse_json.py [--statements 200000]

Prints statements per second for each decoder alone and for the reader end to end (gzip, decode,
records). The reader decodes with msgspec into typed structs (`readers/wikidata_json._entity_type`),
which skip what a statement does not need. The generated lines hold only English terms and no
qualifiers, references or sitelinks, so the typed decoder's gain here is a floor: on the official
dump those parts are most of each line.

Measured 2026-11-24 on the 2-core machine with a model run beside it (100k statements, before the
typed decoder): decoding alone json 391k, orjson 852k, msgspec 669k statements/s; the reader end to
end 101k statements/s.

It also prints what decoding in a second process would cost the ingesting process, which must still
receive the parsed lines. Measured 2026-11-24 (200k statements, a model run beside it): the reader
107k statements/s in process; receiving the same lines pickled 114k/s as records, 142k/s as plain
tuples rebuilt into records. Receiving costs three quarters of reading itself, so a second process
is not adopted.
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
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
        rows = []
        for name, loads in decoders().items():
            t0 = time.perf_counter()
            for line in lines:
                loads(line)
            seconds = time.perf_counter() - t0
            rows.append({"step": f"decode:{name}", "statements_per_s": round(statements / seconds)})
        t0 = time.perf_counter()
        parsed = [item for item in WikidataJsonReader().read(dump) if isinstance(item, ParsedLine)]
        n = sum(len(item.statements) for item in parsed)
        rows.append({"step": "reader end to end", "statements_per_s": round(n / (time.perf_counter() - t0))})
        rows.extend(transfer_steps(parsed, n))
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
