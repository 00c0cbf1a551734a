"""Reading input files line by line: plain, .gz or .bz2, strict UTF-8, every error naming `file:line`.

The one reader of JSON-lines and other line-oriented inputs (user files, committed data, dumps). Our own
crash-safe outputs, whose last line may be torn by a crash, are read by `kalma_graph.files.read_jsonl`.
A base-layer module: it imports nothing of kalma_graph."""

from __future__ import annotations

import bz2
import io
import json
import os
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator, cast

# Intel's ISA-L decompresses gzip at 2.4x zlib's speed (an official-shaped dump of 1M statements:
# 1.4 s against 3.4 s), with the stdlib's GzipFile interface and errors (BadGzipFile, EOFError).
from isal import igzip, isal_zlib

from kalma_graph.errors import BadInputError

# Bytes of each open file consumed so far (compressed bytes for .gz/.bz2): progress bars read it.
_positions: dict[Path, "_Counting | _Position"] = {}


class _Counting(io.RawIOBase):
    def __init__(self, handle: io.BufferedReader) -> None:
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


class InputError(BadInputError, ValueError):
    """An input file that cannot be read as a whole: a compressed stream cut short or corrupt."""


@dataclass(frozen=True)
class Undecodable:
    """A line whose bytes are not UTF-8: the readers report it as `file:line`, never as U+FFFD."""

    reason: str


@contextmanager
def open_binary(path: Path) -> Iterator[IO[bytes]]:
    """Byte stream of a possibly compressed file (its position feeds the progress bar)."""
    path = Path(path)
    counting = _Counting(open(path, "rb"))
    _positions[path] = counting
    buffered = io.BufferedReader(counting, buffer_size=1 << 20)
    suffix = path.suffix.lower()
    if suffix == ".gz":
        # a binary file object, though typeshed declares gzip.GzipFile no IO[bytes] (bz2.BZ2File it does)
        raw = cast(IO[bytes], igzip.GzipFile(fileobj=buffered, mode="rb"))
    elif suffix == ".bz2":
        raw = bz2.BZ2File(buffered, "rb")
    else:
        raw = buffered
    try:
        yield raw
    finally:
        raw.close()
        buffered.close()  # the decompressors do not close a file object they were handed


# What the decompressors raise for a file cut short (EOFError) or damaged (BadGzipFile is an OSError;
# invalid deflate data is ISA-L's own error, a class that isal's stub declares as an instance).
IsalError = cast("type[Exception]", isal_zlib.error)
_STREAM_ERRORS = (EOFError, OSError, zlib.error, IsalError)


def _stream_error(path: Path, last_line: int | None, exc: BaseException) -> InputError:
    what = "ends before its compressed stream does (a truncated download?)" if isinstance(exc, EOFError) \
        else f"is damaged ({type(exc).__name__}: {exc})"
    where = f"; the last complete line read was line {last_line}" if last_line is not None else ""
    return InputError(f"{path} {what}{where}")


@contextmanager
def open_text(path: Path) -> Iterator[IO[str]]:
    """Strict UTF-8 text of a possibly compressed file, for readers of whole documents: a bad byte
    or a cut stream is an `InputError` naming the file."""
    with open_binary(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="")
        try:
            yield text
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: invalid UTF-8 ({exc.reason}); kalma-graph reads UTF-8 only") from exc
        except _STREAM_ERRORS as exc:
            raise _stream_error(Path(path), None, exc) from exc  # a whole document: no line to name
        finally:
            text.detach()


@dataclass
class _Position:
    position: int = 0


def track_position(path: Path) -> _Position:
    """The position of a file read elsewhere (`read_ahead`), for `bytes_read`: set `.position`."""
    tracked = _positions[Path(path)] = _Position()  # type: ignore[assignment]
    return tracked


def bytes_read(path: Path) -> int:
    counting = _positions.get(Path(path))
    return counting.position if counting else 0


def checked_lines(path: Path) -> Iterator[tuple[int, str | Undecodable]]:
    """(1-based line number, line without its newline, or `Undecodable` for a line that is not
    UTF-8). A compressed stream cut short or damaged is an `InputError` naming the last good line."""
    number = 0
    with open_binary(path) as raw:
        lines = iter(raw)
        while True:
            try:
                data = next(lines)
            except StopIteration:
                return
            except _STREAM_ERRORS as exc:
                raise _stream_error(Path(path), number, exc) from exc
            number += 1
            try:
                yield number, data.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                yield number, Undecodable(f"invalid UTF-8 at byte {exc.start + 1} of the line ({exc.reason})")


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its newline); a line that is not UTF-8 is an
    `InputError` naming `file:line` (for inputs where one bad line spoils the whole: gold, runs)."""
    for number, line in checked_lines(path):
        if isinstance(line, Undecodable):
            raise InputError(f"{path}:{number}: {line.reason}")
        yield number, line


def json_lines(path: str | os.PathLike[str], *, what: str, error: type[Exception],
               hint: str = "") -> Iterator[tuple[str, Any]]:
    """(`file:line`, decoded value) for each non-blank line of a JSON-lines input (plain or
    compressed). A missing file is `FileNotFoundError` naming `what`; a line that is not JSON is
    `error("file:line: not JSON (…)" + hint)`; one that is not UTF-8 an `InputError` naming the line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such {what}")
    for number, line in numbered_lines(path):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}: not JSON ({exc.msg}){hint}") from None
