"""Rebuild kalma_graph/data/wikidata_properties.tsv.gz (PID, English label, datatype, aliases) from
the Wikidata property list in ../shared/data/kg/wvanderp+wikidata-properties (MIT, 2022-01-16).

Usage: python scripts/build_property_table.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "kalma_graph" / "data" / "wikidata_properties.tsv.gz"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    args = parser.parse_args()
    src = Path(args.shared) / "data/kg/wvanderp+wikidata-properties/data/properties.json"
    props = json.loads(src.read_text(encoding="utf-8"))
    rows = sorted(props, key=lambda p: int(p["id"][1:]))
    clean = lambda s: " ".join(str(s).replace("\t", " ").split())  # noqa: E731
    # mtime=0 keeps the gzip byte-identical across rebuilds.
    with gzip.GzipFile(OUT, "wb", mtime=0) as raw:
        raw.write(b"pid\tlabel\tdatatype\taliases\n")
        for p in rows:
            aliases = " | ".join(clean(a) for a in p.get("aliases") or [])
            raw.write(f"{p['id']}\t{clean(p.get('label') or p['id'])}\t{p.get('dataType', '')}\t{aliases}\n".encode())
    print(f"wrote {len(rows)} properties to {OUT}")


if __name__ == "__main__":
    main()
