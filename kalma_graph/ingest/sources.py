"""Opening input files (plain, .gz, .bz2) and fingerprinting them for resumable ingest.

The line reader itself lives in `kalma_graph.lines` (the base layer, shared by every stage); its names
are re-exported here for the ingest readers."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from kalma_graph.lines import (
    InputError,
    Undecodable,
    bytes_read,
    checked_lines,
    json_lines,
    numbered_lines,
    open_binary,
    open_text,
    track_position,
)

__all__ = ["InputError", "Undecodable", "base_name", "bytes_read", "checked_lines", "fingerprint", "json_lines",
           "numbered_lines", "open_binary", "open_text", "track_position"]


def fingerprint(path: Path) -> str:
    """Identity of a file's content for checkpoints: size + digest of its first and last MiB.
    Cheap on multi-GB dumps and changes when the file is replaced or appended to."""
    size = path.stat().st_size
    digest = hashlib.blake2b(digest_size=12)
    digest.update(str(size).encode())
    with open(path, "rb") as handle:
        digest.update(handle.read(1 << 20))
        if size > 2 << 20:
            handle.seek(-(1 << 20), io.SEEK_END)
            digest.update(handle.read())
    return digest.hexdigest()


def base_name(path: Path) -> str:
    """File name without compression suffix: `dump.nt.gz` → `dump.nt`."""
    name = path.name
    for suffix in (".gz", ".bz2"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name
