"""Reading a dump in a second process, so that reading and loading use the machine's two cores.

A load does two things per batch, one after the other in one process: *reading* (decompressing,
decoding each line, building the records, digesting each statement's id) and *loading* (planning
the batch, handing it to the store). `read_ahead` runs the reading in a child process while this
process loads: the child sends the records in msgpack frames of 500 lines, which msgspec turns back
into the same records here in C (about 1 µs a statement, against about 3 µs to read one and digest
its ids; those ids travel with the records).

Nothing else changes: items come in file order, a bad line is the same `LineError`, a truncated or
damaged file the same `InputError` after the lines read before it (raised here, as the child met
it), and the child's position in the file feeds the progress bar. The child runs in a session of
its own, so Ctrl-C reaches only this process, which decides what an interrupt means; when this
side stops reading early, the child is killed (it only reads). Measured in docs/ingest.md.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Iterator

import msgspec

from ..store.base import object_key_of, statement_id
from .readers.base import LineError, ParsedLine
from .sources import bytes_read, track_position

try:
    import fcntl
except ImportError:  # not on Windows: pipes keep their default size there
    fcntl = None  # type: ignore[assignment]

#: Lines per frame (about 0.6 MB of a generated dump): a frame costs little per line and fits the pipe.
FRAME_LINES = 500
#: The pipe's size (Linux allows up to 1 MB unprivileged). Each read of a pipe waits for the GIL,
#: which the loading thread hands over only every 5 ms: a frame read in 64 kB pieces (the default)
#: kept the child waiting on a full pipe, and the two processes took turns instead of overlapping.
PIPE_BYTES = 1 << 20
#: Frames received and not yet loaded: how far ahead the child may run (a batch is 200k records, about
#: 20k lines, so the child keeps reading while this process plans and writes one).
QUEUE_FRAMES = 64
#: `--read-ahead` (CLI and bench) → `ingest(read_ahead=…)`.
MODES = {"auto": None, "on": True, "off": False}
#: Files below this size are read in process: starting the child costs about 0.2 s.
MIN_BYTES = 4 << 20


class _Frame(msgspec.Struct, array_like=True):
    lines: list[ParsedLine]
    errors: list[LineError]  # merged with `lines` by line number
    sids: list[str]  # StatementRecord.sid of every statement of `lines`, in order
    keys: list[str]  # and its object_key
    position: int  # bytes of the file consumed (compressed bytes for .gz/.bz2)


_DONE, _FAILED = b"D", b"E"  # the last message: the end of the file, or the child's exception
_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Frame)


def worth_reading_ahead(path: Path) -> bool:
    """Whether `read_ahead` pays for `path` (4 MB and more) and can start a child (an embedded
    interpreter may not know its own executable)."""
    return bool(sys.executable) and Path(path).stat().st_size >= MIN_BYTES


def read_ahead(file_format: str, path: Path) -> Iterator[ParsedLine | LineError]:
    """What `make_reader(file_format).read(path)` yields, read in a child process."""
    # A plain child running this module's `_child`, not multiprocessing's: its spawn re-imports the
    # caller's main module (a script without a __main__ guard would start again), and a fork would
    # copy the store's threads and locks. PYTHONPATH makes it import this very kalma_graph.
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p))
    child = subprocess.Popen(
        [sys.executable, "-c", f"from {__name__} import _child; _child()", file_format, str(path)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env, start_new_session=True,
    )
    assert child.stdout is not None
    if fcntl is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
        try:
            fcntl.fcntl(child.stdout.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass  # a lower system limit: slower, still correct
    frames: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUE_FRAMES)
    drain = threading.Thread(target=_drain, args=(child.stdout, frames), daemon=True, name="read-ahead")
    drain.start()
    position = track_position(path)
    finished = False
    try:
        while (data := frames.get()) is not None:
            if data == _DONE:
                finished = True
                return
            if data[:1] == _FAILED:
                finished = True
                raise pickle.loads(data[1:])
            frame = _decoder.decode(data)
            statements = [st for parsed in frame.lines for st in parsed.statements]
            for st, sid, key in zip(statements, frame.sids, frame.keys):  # computed once, over there
                st.__dict__.update(sid=sid, object_key=key)
            position.position = frame.position
            yield from _in_line_order(frame.lines, frame.errors)
        raise RuntimeError(f"the process reading {path} ended before the file did (exit code {child.wait()})")
    finally:
        if not finished:
            child.kill()  # stopped early (an error, an interrupt, a failed line): the rest is not wanted
        while drain.is_alive():  # make room for its last put, so it sees the end of the pipe
            try:
                frames.get(timeout=0.05)
            except queue.Empty:
                pass
        child.wait()
        child.stdout.close()


def _drain(stream: IO[bytes], frames: "queue.Queue[bytes | None]") -> None:
    """Move the child's messages from the pipe into `frames`, then None at the end of the pipe."""
    try:
        while (data := _receive(stream)) is not None:
            frames.put(data)
    except (OSError, ValueError):
        pass
    finally:
        frames.put(None)


def _receive(stream: IO[bytes]) -> bytes | None:
    header = stream.read(4)
    if len(header) < 4:
        return None
    (size,) = struct.unpack("<I", header)
    data = stream.read(size)
    return data if len(data) == size else None


def _send(stream: IO[bytes], data: bytes) -> None:
    stream.write(struct.pack("<I", len(data)))
    stream.write(data)


def _in_line_order(lines: list[ParsedLine], errors: list[LineError]) -> Iterator[ParsedLine | LineError]:
    if not errors:
        return iter(lines)
    both: list[ParsedLine | LineError] = [*lines, *errors]
    return iter(sorted(both, key=lambda item: item.line))


def read_into(out: IO[bytes], file_format: str, path: Path) -> None:
    """The child's work: read `path`, write frames to `out`, then `D`, or `E` and the exception
    pickled after the lines read before it."""
    from .formats import make_reader

    lines: list[ParsedLine] = []
    errors: list[LineError] = []
    sids: list[str] = []
    keys: list[str] = []

    def send() -> None:
        if lines or errors:
            _send(out, _encoder.encode(_Frame(lines, errors, sids, keys, bytes_read(path))))
            for sent in (lines, errors, sids, keys):
                sent.clear()

    try:
        for item in make_reader(file_format).read(path):
            if isinstance(item, LineError):
                errors.append(item)
                continue
            lines.append(item)
            for st in item.statements:
                key = object_key_of(st.object_id, st.value, st.datatype)
                sids.append(statement_id(st.subject, st.pid, key))
                keys.append(key)
            if len(lines) >= FRAME_LINES:
                send()
        send()
    except Exception as exc:  # noqa: BLE001  (raised in the parent, after the lines before it)
        send()
        try:
            failure = pickle.dumps(exc)
        except Exception:  # noqa: BLE001  (an exception that cannot travel: its text does)
            failure = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
        _send(out, _FAILED + failure)
    else:
        _send(out, _DONE)
    out.flush()


def _child() -> None:
    import gc

    gc.disable()  # records hold no reference cycles (as in the ingest itself)
    # The frames get the pipe to themselves: anything else printed here (by Python or C code) goes
    # to stderr instead of into the middle of a frame.
    frames = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=1 << 20)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        read_into(frames, sys.argv[1], Path(sys.argv[2]))
        frames.close()
    except BrokenPipeError:
        pass  # the parent stopped reading
