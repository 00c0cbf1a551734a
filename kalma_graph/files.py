"""Crash-safe files, one implementation of each: atomic replacement, file hashes, resumable JSON lines.

Long runs (answering, building datasets, scoring, judging) are killed, run out of memory or lose power;
what they leave behind must either be whole or be recognisably cut, never silently half-written.

- `atomic_write_text` / `atomic_write_json` / `atomic_path`: a file appears under its name only when
  complete — written to a unique temporary file in the same directory, fsynced, `os.replace`d onto
  the name, and the directory fsynced; the temporary file is removed when anything fails.
- `file_sha256`: the sha256 of one file, read in 1 MiB blocks (models are gigabytes); `json_sha256` of a JSON value.
- `pid_alive`: whether the process named in a lock or pid file still exists, so what a killed run
  left behind can be taken over.
- `read_jsonl` / `JsonlAppender`: the append-only JSON-lines logs of resumable runs. Appending writes
  whole lines and fsyncs them, so a crash can only cut the *last* line. Reading returns the finished
  records; a cut last line (no trailing newline, or not JSON) is a *torn line*, which the appender
  trims off the file before appending (so a new record is never glued onto it) and reports. A bad
  line with records after it cannot come from a crash: it raises `CorruptJsonlError` naming
  `file:line` and the file is left untouched, since dropping it would lose every later record.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from kalma_graph.errors import BadInputError

__all__ = [
    "CorruptJsonlError",
    "JsonlAppender",
    "JsonlContent",
    "TornLine",
    "TornLineWarning",
    "atomic_path",
    "atomic_write_json",
    "atomic_write_text",
    "KeyedCache",
    "file_sha256",
    "refuse_other_settings",
    "settings_differ",
    "json_sha256",
    "append_jsonl",
    "fsync_dir",
    "pid_alive",
    "read_jsonl",
]

PathLike = str | os.PathLike[str]
_BLOCK = 1 << 20


# --- hashes ----------------------------------------------------------------------------------------


_SHA256_MEMO: dict[tuple[str, int, int], str] = {}
_SHA256_LOCK = threading.Lock()


def file_sha256(path: PathLike) -> str:
    """Hex sha256 of one file's bytes, read in blocks so a multi-gigabyte model never sits in memory, and
    computed once per (path, size, mtime) in a process: a run names its model in every header it writes.
    (`models.registry.cached_sha256` keeps model files' digests across processes.)"""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    with _SHA256_LOCK:
        if key in _SHA256_MEMO:
            return _SHA256_MEMO[key]
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_BLOCK), b""):
            digest.update(block)
    with _SHA256_LOCK:
        _SHA256_MEMO[key] = digest.hexdigest()
    return digest.hexdigest()


def json_sha256(value: Any, *, ensure_ascii: bool = True, default: Callable[[Any], Any] | None = None) -> str:
    """Hex sha256 of `value` as JSON with sorted keys: the identity of a settings dict or a prompt in a header.
    The arguments are `json.dumps`'s; each caller keeps the ones its stored digests were made with.

    >>> json_sha256({"b": 1, "a": [1, 2]}) == hashlib.sha256(b'{"a": [1, 2], "b": 1}').hexdigest()
    True
    """
    text = json.dumps(value, sort_keys=True, ensure_ascii=ensure_ascii, default=default)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- a keyed cache of model outputs ----------------------------------------------------------------


class KeyedCache:
    """A SQLite table `key TEXT PRIMARY KEY -> value TEXT` (JSON) that model calls are cached in, safe to share
    between threads, committed at each write (a crash loses at most the calls in hand). Subclasses name the table
    and the value column (the names existing cache files have) and say how a key is made.

    >>> import tempfile
    >>> cache = KeyedCache(Path(tempfile.mkdtemp()) / "c.sqlite", table="t", column="v")
    >>> cache.put_many([("a", [0.5, 0.5])]); cache.get("a"), cache.get("b"), len(cache), (cache.hits, cache.misses)
    ([0.5, 0.5], None, 1, (1, 1))
    >>> cache.close()
    """

    def __init__(self, path: PathLike, *, table: str, column: str):
        if not (table.isidentifier() and column.isidentifier()):
            raise ValueError(f"not a table and column name: {table!r}, {column!r}")
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._table, self._column = table, column
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, {column} TEXT NOT NULL)")
            self._conn.commit()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Any:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), 500):  # SQLite's bound on parameters per statement
                chunk = unique[start : start + 500]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, {self._column} FROM {self._table} WHERE key IN ({marks})"
                for key, value in self._conn.execute(query, chunk):
                    found[key] = json.loads(value)
        self.hits += sum(1 for k in keys if k in found)
        self.misses += sum(1 for k in keys if k not in found)
        return found

    def put_many(self, items: Iterable[tuple[str, Any]]) -> None:
        rows = [(key, json.dumps(value)) for key, value in items]
        with self._lock:
            self._conn.executemany(f"INSERT OR REPLACE INTO {self._table} (key, {self._column}) VALUES (?, ?)", rows)
            self._conn.commit()

    def put(self, key: str, value: Any) -> None:
        self.put_many([(key, value)])

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute(f"SELECT COUNT(*) FROM {self._table}").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


# --- atomic replacement ----------------------------------------------------------------------------


def fsync_dir(path: PathLike) -> None:
    """Make a rename or a new file in `path` durable. Best effort: some platforms and filesystems
    cannot open or fsync a directory, and the data itself is already on disk by then."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _temp_beside(path: Path, mode: int) -> tuple[int, Path]:
    """A new, exclusively created file next to `path` (same filesystem, so `os.replace` is atomic)
    with a unique name, so two writers of one file never share a temporary file.

    Like `tempfile.mkstemp`, but created with `mode` filtered by the umask — as a plain `open()`
    would — rather than mkstemp's fixed 0600, so replacing a report does not change who can read it."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name next to {path}")


def _publish(tmp: Path, path: Path) -> None:
    os.replace(tmp, path)
    fsync_dir(path.parent)


@contextlib.contextmanager
def atomic_path(path: PathLike, *, mode: int = 0o666) -> Iterator[Path]:
    """Yield a temporary path next to `path` for a writer that wants a file name (`torch.save`);
    when the block ends normally the file is fsynced and moved onto `path`, otherwise removed."""
    path = Path(path)
    fd, tmp = _temp_beside(path, mode)
    os.close(fd)
    try:
        yield tmp
        _fsync_file(tmp)
        _publish(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_text(path: PathLike, text: str, *, mode: int = 0o666) -> None:
    """Replace `path` with `text` (UTF-8) so that readers see the old or the new file, never a part.
    `mode` is for secrets (0o600): the file never exists with wider permissions, not even briefly."""
    path = Path(path)
    fd, tmp = _temp_beside(path, mode)
    try:
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        _publish(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_json(path: PathLike, data: Any, *, indent: int | None = 2, sort_keys: bool = False,
                      default: Callable[[Any], Any] | None = str) -> None:
    """`atomic_write_text` of `data` as JSON (UTF-8 kept as is, a final newline): how run headers,
    summaries and reports are written."""
    text = json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=False, default=default)
    atomic_write_text(path, text + "\n")


# --- resuming: the same settings or a refusal -------------------------------------------------------


def settings_differ(previous: Mapping[str, Any], current: Mapping[str, Any], *,
                    ignore: Iterable[str] = ()) -> list[str]:
    """The settings of `current` whose value differs in `previous`, sorted. A key `previous` lacks counts as
    None (a setting added since it was written), so a new setting at its default does not strand old output.

    >>> settings_differ({"seed": 0}, {"seed": 0, "writer_endpoint": None, "kalma_graph": "0.2"}, ignore=["kalma_graph"])
    []
    >>> settings_differ({"seed": 0}, {"seed": 1, "writer_endpoint": "http://gpu:8000/v1"})
    ['seed', 'writer_endpoint']
    """
    skip = set(ignore)
    return sorted(k for k in current if k not in skip and previous.get(k) != current.get(k))


def refuse_other_settings(where: PathLike, previous: Mapping[str, Any], current: Mapping[str, Any], *, what: str,
                          hint: str, error: type[Exception], ignore: Iterable[str] = ()) -> None:
    """The one resume policy of every command that appends to its output: output made with other settings is
    never mixed with this run's; `error` says where, what, which settings differ and what to do instead.

    >>> refuse_other_settings("out.jsonl", {"seed": 0}, {"seed": 1}, what="answers", hint="use another --out",
    ...                       error=ValueError)
    Traceback (most recent call last):
    ValueError: out.jsonl holds answers made with other settings (seed); use another --out
    """
    differ = settings_differ(previous, current, ignore=ignore)
    if differ:
        raise error(f"{where} holds {what} made with other settings ({', '.join(differ)}); {hint}")


# --- resumable JSON lines --------------------------------------------------------------------------


class CorruptJsonlError(BadInputError, ValueError):
    """A bad line with records after it: not what a crash leaves, so nothing is dropped or rewritten.
    A ValueError so that command-line error handling reports it as bad input."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}, and records follow it — this is not a line cut by a "
                         "crash, so the file was left unchanged; fix or delete that line, then run again")


class TornLineWarning(UserWarning):
    """A torn last line was trimmed off a JSON-lines log (the record it held is redone)."""


@dataclass(frozen=True)
class TornLine:
    """The cut last line of a JSON-lines file: where it starts and why it is not a record."""

    path: Path
    line: int  # 1-based line number
    offset: int  # byte offset where it starts: the file's length once trimmed
    size: int  # bytes from `offset` to the end of the file
    reason: str

    def __str__(self) -> str:
        return (f"{self.path}:{self.line}: dropped a torn last line ({self.reason}, {self.size} bytes) "
                "left by an interrupted run; its record is done again")


@dataclass(frozen=True)
class JsonlContent:
    """The finished records of a JSON-lines file and its torn last line, if any."""

    records: list[dict]
    torn: TornLine | None
    size: int  # bytes up to the end of the last finished line


def _parse_line(raw: bytes) -> tuple[dict | None, str | None]:
    """(record, None) for a finished line holding a JSON object, else (None, why not)."""
    if not raw.endswith(b"\n"):
        return None, "no trailing newline"
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except UnicodeDecodeError:
        return None, "not UTF-8"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    return value, None


def read_jsonl(path: PathLike, *, trim: bool = False) -> JsonlContent:
    """The finished records of `path` (none when it does not exist), and its torn last line.

    Blank lines are skipped. `trim=True` cuts a torn last line off the file and says so with a
    `TornLineWarning` — only the process that appends to the file may ask for that; a reader of a
    file still being written must not. A bad line followed by anything but blank lines raises
    `CorruptJsonlError` and changes nothing."""
    path = Path(path)
    records: list[dict] = []
    good = offset = 0
    bad: tuple[int, str] | None = None  # (line number, reason) of the first bad line
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return JsonlContent(records, None, 0)
    with handle:
        for number, raw in enumerate(handle, 1):
            offset += len(raw)
            if bad is not None:
                if raw.strip():
                    raise CorruptJsonlError(path, *bad)
                continue
            if raw.endswith(b"\n") and not raw.strip():
                good = offset
                continue
            record, why = _parse_line(raw)
            if record is None:
                bad = (number, str(why))
                continue
            records.append(record)
            good = offset
    torn = TornLine(path, bad[0], good, offset - good, bad[1]) if bad is not None else None
    if torn is not None and trim:
        _truncate(path, good)
        warnings.warn(str(torn), TornLineWarning, stacklevel=2)
    return JsonlContent(records, torn, good)


def _truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(size)
        handle.flush()
        os.fsync(handle.fileno())


class JsonlAppender:
    """The append-only log of a resumable run: one JSON object per line, each record fsynced before
    the call returns, so a crash loses at most the record being written.

    `resume=True` keeps what the file holds: `records` are its finished records (what the run need
    not redo) and a torn last line is trimmed off first — reported in `torn` and as a
    `TornLineWarning` — so the next record starts on a line of its own. `resume=False` empties the
    file. A corrupt line in the middle raises `CorruptJsonlError` before anything is written."""

    def __init__(self, path: PathLike, *, resume: bool = True, ensure_ascii: bool = False,
                 default: Callable[[Any], Any] | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._dumps: dict[str, Any] = {"ensure_ascii": ensure_ascii, "default": default}  # json.dumps' keywords
        self.records: list[dict] = []
        self.torn: TornLine | None = None
        if resume:
            content = read_jsonl(self.path, trim=True)
            self.records, self.torn = content.records, content.torn
        existed = self.path.exists()
        self._handle = open(self.path, "a" if resume else "w", encoding="utf-8")
        if not existed:
            fsync_dir(self.path.parent)

    def append(self, record: dict) -> None:
        """Write one record as one line and fsync it."""
        self._write(json.dumps(record, **self._dumps) + "\n")

    def append_many(self, records: Iterable[dict]) -> None:
        """Write several records with one fsync (a batch, or the samples of one query); a crash may
        still cut the batch after any of its lines, which the reader then sees as finished records."""
        text = "".join(json.dumps(r, **self._dumps) + "\n" for r in records)
        if text:
            self._write(text)

    def _write(self, text: str) -> None:
        self._handle.write(text)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def append_jsonl(path: PathLike, records: Iterable[dict]) -> Path:
    """Append records to a JSON-lines log (a benchmark's results file, one row per run), fsynced;
    a torn last line left by a killed run is trimmed first. Values JSON cannot hold are written as
    `str(value)`. Returns the path."""
    with JsonlAppender(path, default=str) as log:
        log.append_many(records)
    return log.path


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (another user's counts: signal 0 is
    refused with EPERM only when the process exists). Not a pid (<= 0, too large): False."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError):
        return False
    return True
