"""Reading a dump in a second process (`ingest/read_ahead.py`): the real reader in a real child
process, on the sample dumps. Whatever the child sends must be what the reader yields in process —
records, statement ids, line errors in line order, the error that ends a damaged file — and an
ingest that reads ahead must build the same graph."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from kalma_graph.ingest import IngestError, InputError, ingest
from kalma_graph.ingest.formats import make_reader
from kalma_graph.ingest.read_ahead import FRAME_LINES, read_ahead
from kalma_graph.ingest.readers.base import LineError, ParsedLine
from kalma_graph.ingest.sources import bytes_read
from kalma_graph.store.embedded import EmbeddedStore
from tests.conftest import BIOKALMA_RECORDS, FREEBASE_NT, WIKIDATA_JSON, WIKIDATA_NT


def _in_process(fmt: str, path: Path) -> tuple[list, BaseException | None]:
    items: list = []
    try:
        for item in make_reader(fmt).read(path):
            items.append(item)
    except Exception as exc:  # noqa: BLE001
        return items, exc
    return items, None


def _ahead(fmt: str, path: Path) -> tuple[list, BaseException | None]:
    items: list = []
    try:
        for item in read_ahead(fmt, path):
            items.append(item)
    except Exception as exc:  # noqa: BLE001
        return items, exc
    return items, None


def _ids(items: list) -> list[tuple[str, str]]:
    return [(st.sid, st.object_key) for item in items if isinstance(item, ParsedLine) for st in item.statements]


def _children_reading(path: Path) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"from kalma_graph.ingest.read_ahead import _child; _child()" in cmdline and str(path).encode() in cmdline:
            found.append(int(pid))
    return found


@pytest.mark.parametrize(("fmt", "path"), [("wikidata-json", WIKIDATA_JSON), ("wikidata-nt", WIKIDATA_NT),
                                           ("freebase-nt", FREEBASE_NT), ("biokalma", BIOKALMA_RECORDS)],
                         ids=["wikidata-json", "wikidata-nt", "freebase-nt", "biokalma"])
def test_the_child_sends_what_the_reader_yields(fmt, path):
    expected, failure = _in_process(fmt, path)
    got, got_failure = _ahead(fmt, path)
    assert failure is None and got_failure is None
    assert len(expected) > FRAME_LINES  # several frames
    assert got == expected
    assert _ids(got) == _ids(expected) and len(_ids(got)) > 1000  # ids digested over there are the same
    assert bytes_read(path) == path.stat().st_size  # the progress bar reached the end


def test_line_errors_come_in_line_order_across_frames(tmp_path):
    with gzip.open(WIKIDATA_JSON, "rb") as handle:
        lines = handle.read().splitlines()[:1200]
    bad = {2: b"not json at all", 600: b'{"type": "item", "id": "Q1", "claims": ',
           1001: lines[1001].replace(b'"en"', b'"\xff\xfe"', 1)}  # lines 3, 601, 1002
    assert lines[1001] != bad[1001]
    for index, line in bad.items():
        lines[index] = line
    sample = tmp_path / "broken.jsonl"
    sample.write_bytes(b"\n".join(lines) + b"\n")
    expected, _ = _in_process("wikidata-json", sample)
    got, failure = _ahead("wikidata-json", sample)
    assert failure is None and got == expected
    errors = [item for item in got if isinstance(item, LineError)]
    assert [e.line for e in errors] == [3, 601, 1002]
    assert errors[2].reason.startswith("invalid UTF-8 at byte")
    assert [item.line for item in got] == sorted(item.line for item in got)


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_a_damaged_file_ends_with_the_same_error_after_the_same_lines(tmp_path, suffix):
    import bz2

    opener = gzip.open if suffix == ".gz" else bz2.open
    whole = tmp_path / f"wd.jsonl{suffix}"
    with gzip.open(WIKIDATA_JSON, "rb") as source, opener(whole, "wb") as out:
        out.write(source.read())
    cut = tmp_path / f"cut.jsonl{suffix}"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    expected, failure = _in_process("wikidata-json", cut)
    got, got_failure = _ahead("wikidata-json", cut)
    assert isinstance(failure, InputError) and type(got_failure) is InputError
    assert str(got_failure) == str(failure) and "truncated download" in str(failure)
    assert got == expected and len(got) > FRAME_LINES


def test_stopping_early_ends_the_child():
    items = read_ahead("wikidata-json", WIKIDATA_JSON)
    assert isinstance(next(items), ParsedLine)
    assert len(_children_reading(WIKIDATA_JSON)) == 1
    items.close()
    assert _children_reading(WIKIDATA_JSON) == []


def test_an_ingest_that_reads_ahead_builds_the_same_graph(tmp_path):
    ahead, here = EmbeddedStore(tmp_path / "ahead.lbdb"), EmbeddedStore(tmp_path / "here.lbdb")
    files = [WIKIDATA_JSON, WIKIDATA_NT, FREEBASE_NT]
    try:
        a = ingest(ahead, files, batch_size=2000, read_ahead=True)
        b = ingest(here, files, batch_size=2000, read_ahead=False)
        assert a["stats"] == b["stats"] and a["totals"] == b["totals"] and a["stats"]["statements"] > 10_000
        ids = [json.loads(line)["id"] for line in gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8")][-300:]
        assert ahead.one_hop_many(ids) == here.one_hop_many(ids)
        assert ahead.get_entities(ids) == here.get_entities(ids)
    finally:
        ahead.close()
        here.close()


def test_a_failed_line_stops_an_ingest_that_reads_ahead_at_that_line(tmp_path):
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()[:900]
    lines[700] = "not json at all"
    sample = tmp_path / "broken.jsonl"
    sample.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = EmbeddedStore(tmp_path / "s.lbdb")
    try:
        with pytest.raises(IngestError, match=r"broken\.jsonl:701: invalid JSON"):
            ingest(store, [sample], on_error="fail", read_ahead=True)
    finally:
        store.close()
    assert _children_reading(sample) == []


def test_the_cli_reads_ahead_when_asked(tmp_path):
    import subprocess
    import sys

    stats = []
    for mode in ("on", "off"):
        done = subprocess.run([sys.executable, "-m", "kalma_graph", "ingest", str(WIKIDATA_NT), "--store",
                               f"embedded:{tmp_path / mode}.lbdb", "--read-ahead", mode, "--json"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        stats.append(json.loads(done.stdout)["stats"])
    assert stats[0] == stats[1] and stats[0]["statements"] > 1000


def test_files_of_4_mb_and_more_are_read_ahead_by_default(tmp_path, monkeypatch):
    from kalma_graph.ingest.read_ahead import MIN_BYTES, worth_reading_ahead

    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_bytes(b"x" * (MIN_BYTES - 1))
    large.write_bytes(b"x" * MIN_BYTES)
    assert MIN_BYTES == 4 << 20 and not worth_reading_ahead(small) and worth_reading_ahead(large)
    monkeypatch.setattr("sys.executable", "")  # an embedded interpreter that cannot start a child
    assert not worth_reading_ahead(large)
