"""Which reader a file needs: by `--format`, else by extension and the first meaningful line."""

from __future__ import annotations

from pathlib import Path

from ..errors import BadInputError
from .readers.base import Reader
from .readers.biokalma import BioKaLMAReader
from .readers.ntriples import FreebaseNTriplesReader, WikidataNTriplesReader
from .readers.tsv import TsvReader, sniff_kb
from .readers.wikidata_json import WikidataJsonReader
from .sources import Undecodable, base_name, checked_lines

FORMATS = ("wikidata-json", "wikidata-nt", "freebase-nt", "tsv-wikidata", "tsv-freebase", "biokalma")


class FormatError(BadInputError, ValueError):
    pass


def make_reader(fmt: str) -> Reader:
    if fmt == "wikidata-json":
        return WikidataJsonReader()
    if fmt == "wikidata-nt":
        return WikidataNTriplesReader()
    if fmt == "freebase-nt":
        return FreebaseNTriplesReader()
    if fmt == "tsv-wikidata":
        return TsvReader("wikidata")
    if fmt == "tsv-freebase":
        return TsvReader("freebase")
    if fmt == "biokalma":
        return BioKaLMAReader()
    raise FormatError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def detect_format(path: Path) -> str:
    """Guess the format from the extension and the first non-empty line (decompressed)."""
    name = base_name(path).lower()
    first = _first_line(path)
    if first is None:
        raise FormatError(f"{path}: file is empty")
    if name.endswith(".nt") or name.endswith(".ttl") or first.startswith(("<", "_:")):
        if "wikidata.org" in first:
            return "wikidata-nt"
        if "freebase.com" in first:
            return "freebase-nt"
        raise FormatError(f"{path}:1: N-Triples of neither Wikidata nor Freebase; pass --format")
    if name.endswith((".json", ".jsonl", ".ndjson")) or first.startswith(("[", "{")):
        stripped = first.rstrip(",").strip()
        if stripped == "[" or '"claims"' in stripped or '"labels"' in stripped or '"type": "item"' in stripped:
            return "wikidata-json"
        if stripped.startswith("[[") or '"qid"' in stripped:
            return "biokalma"
        raise FormatError(f"{path}:1: JSON that is neither a Wikidata entity dump nor BioKaLMA records")
    kb = sniff_kb(first)
    if kb:
        return f"tsv-{kb}"
    raise FormatError(
        f"{path}: cannot tell the format from its name or first line; pass --format ({', '.join(FORMATS)})")


def _first_line(path: Path) -> str | None:
    for _, line in checked_lines(path):
        if isinstance(line, Undecodable):
            continue  # the reader reports it with its line number
        text = line.strip()
        if text and not text.startswith("#"):
            return text[:4096]
    return None
