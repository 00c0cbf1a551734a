"""Opening input files (plain, .gz, .bz2) and fingerprinting them for resumable ingest."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
from pathlib import Path
from contextlib import contextmanager
from typing import IO, Iterator


# Bytes of each open file consumed so far (compressed bytes for .gz/.bz2): progress bars read it.
_positions: dict[Path, "_Counting"] = {}


class _Counting(io.RawIOBase):
    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self.position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._handle.readinto(buffer)
        self.position += n or 0
        return n

    def close(self) -> None:
        self._handle.close()
        super().close()


@contextmanager
def open_text(path: Path) -> Iterator[IO[str]]:
    """Text stream of a possibly compressed file; undecodable bytes are replaced, not fatal."""
    path = Path(path)
    counting = _Counting(open(path, "rb"))
    _positions[path] = counting
    buffered = io.BufferedReader(counting, buffer_size=1 << 20)
    suffix = path.suffix.lower()
    if suffix == ".gz":
        raw: IO[bytes] = gzip.GzipFile(fileobj=buffered, mode="rb")
    elif suffix == ".bz2":
        raw = bz2.BZ2File(buffered, "rb")
    else:
        raw = buffered
    text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
    try:
        yield text
    finally:
        text.close()
        buffered.close()  # the decompressors do not close a file object they were handed


def bytes_read(path: Path) -> int:
    counting = _positions.get(Path(path))
    return counting.position if counting else 0


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its newline)."""
    with open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            yield number, line.rstrip("\r\n")


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
