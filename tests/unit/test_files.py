"""`kalma_graph.files`: atomic replacement, file hashes and resumable JSON lines, on real files."""

from __future__ import annotations

import hashlib
import json
import os
import stat

import pytest

from kalma_graph.files import (
    CorruptJsonlError,
    JsonlAppender,
    TornLineWarning,
    atomic_path,
    atomic_write_json,
    atomic_write_text,
    file_sha256,
    fsync_dir,
    read_jsonl,
)


def _lines(*records: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- hashes ----------------------------------------------------------------------------------------


def test_file_sha256_over_several_blocks_and_of_an_empty_file(tmp_path):
    big = tmp_path / "big.bin"
    data = os.urandom((1 << 20) * 2 + 123)  # three blocks, the last one short
    big.write_bytes(data)
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert file_sha256(big) == hashlib.sha256(data).hexdigest()
    assert file_sha256(str(empty)) == hashlib.sha256(b"").hexdigest()


# --- atomic replacement ----------------------------------------------------------------------------


def test_atomic_write_text_replaces_whole_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "report.md"
    atomic_write_text(path, "old\n")
    atomic_write_text(path, "new ünïcode\n")
    assert path.read_text(encoding="utf-8") == "new ünïcode\n"
    assert _leftovers(tmp_path) == []


def test_atomic_write_text_gets_the_permissions_of_a_plain_write(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    atomic = tmp_path / "atomic.txt"
    atomic_write_text(atomic, "x")
    assert stat.S_IMODE(atomic.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    secret = tmp_path / "secret.json"
    atomic_write_text(secret, "{}\n", mode=0o600)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_a_failed_atomic_write_keeps_the_old_file_and_removes_its_temporary_file(tmp_path):
    path = tmp_path / "results.json"
    atomic_write_text(path, "old\n")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "half \ud800 written")  # a lone surrogate cannot be encoded: fails mid-write
    assert path.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_atomic_write_json_is_indented_utf8_with_a_final_newline(tmp_path):
    path = tmp_path / "header.json"
    atomic_write_json(path, {"name": "Jürgen", "when": tmp_path})
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '\n  "name": "Jürgen"' in text
    assert json.loads(text)["when"] == str(tmp_path)  # default=str, as the run headers need
    with pytest.raises(TypeError):
        atomic_write_json(path, {"when": tmp_path}, default=None)
    assert json.loads(path.read_text(encoding="utf-8"))["name"] == "Jürgen"


def test_atomic_path_publishes_only_a_finished_file(tmp_path):
    path = tmp_path / "checkpoint.pt"
    with atomic_path(path) as tmp:
        assert tmp.parent == tmp_path and tmp.name != path.name and not path.exists()
        tmp.write_bytes(b"state 1")
    assert path.read_bytes() == b"state 1"
    with pytest.raises(RuntimeError):
        with atomic_path(path) as tmp:
            tmp.write_bytes(b"half of state 2")
            raise RuntimeError("killed while saving")
    assert path.read_bytes() == b"state 1" and _leftovers(tmp_path) == []


def test_fsync_dir_is_best_effort(tmp_path):
    fsync_dir(tmp_path)
    fsync_dir(tmp_path / "missing")  # nothing to sync: no error


# --- reading JSON lines ----------------------------------------------------------------------------


def test_read_jsonl_of_a_missing_an_empty_and_a_finished_file(tmp_path):
    assert read_jsonl(tmp_path / "none.jsonl").records == []
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert read_jsonl(empty).records == [] and read_jsonl(empty).torn is None
    done = tmp_path / "done.jsonl"
    done.write_text(_lines({"id": 1}) + "\n" + _lines({"id": 2}))  # a blank line is skipped
    content = read_jsonl(done)
    assert [r["id"] for r in content.records] == [1, 2] and content.torn is None
    assert content.size == done.stat().st_size


@pytest.mark.parametrize("tail, reason", [
    ('{"id": 3, "ans', "no trailing newline"),
    ('{"id": 3}', "no trailing newline"),  # whole JSON but the newline never made it: not finished
    ('{"id": 3, "ans\n', "not valid JSON"),
    ("\x00\x00\x00\n", "not valid JSON"),  # a block of zeros after a power loss
    ('{"id": 3, "ans\n\n  \n', "not valid JSON"),  # only blank lines after it
    ("[3]\n", "not a JSON object"),
])
def test_a_torn_last_line_is_reported_and_trimmed_only_when_asked(tmp_path, tail, reason):
    path = tmp_path / "log.jsonl"
    good = _lines({"id": 1}, {"id": 2})
    path.write_text(good + tail)
    before = path.read_bytes()
    content = read_jsonl(path)  # a reader beside a running writer: sees the records, changes nothing
    assert [r["id"] for r in content.records] == [1, 2]
    assert content.torn is not None and content.torn.line == 3 and reason in content.torn.reason
    assert content.torn.offset == len(good.encode()) and content.torn.size == len(before) - len(good.encode())
    assert path.read_bytes() == before
    with pytest.warns(TornLineWarning, match=r"log.jsonl:3: dropped a torn last line"):
        trimmed = read_jsonl(path, trim=True)
    assert trimmed.records == content.records and path.read_text() == good
    assert read_jsonl(path).torn is None


@pytest.mark.parametrize("middle, reason", [
    ('{"id": 2, "ans\n', "not valid JSON"),
    ("[2]\n", "not a JSON object"),
    (b"\xff\xfe{}\n", "not"),
])
def test_a_corrupt_middle_line_raises_with_file_and_line_and_changes_nothing(tmp_path, middle, reason):
    path = tmp_path / "log.jsonl"
    middle = middle if isinstance(middle, bytes) else middle.encode()
    path.write_bytes(_lines({"id": 1}).encode() + middle + _lines({"id": 3}).encode() + b'{"id": 4, "torn')
    before = path.read_bytes()
    for trim in (False, True):
        with pytest.raises(CorruptJsonlError, match=rf"log.jsonl:2: {reason}") as caught:
            read_jsonl(path, trim=trim)
        assert caught.value.line == 2 and caught.value.path == path
        assert path.read_bytes() == before  # not even the torn last line is trimmed


def test_two_bad_lines_at_the_end_are_not_one_torn_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(_lines({"id": 1}) + "garbage\n" + '{"id": 3, "to')
    before = path.read_bytes()
    with pytest.raises(CorruptJsonlError, match="log.jsonl:2:"):
        JsonlAppender(path)
    assert path.read_bytes() == before


# --- appending -------------------------------------------------------------------------------------


def test_appender_resumes_after_trimming_and_never_glues_onto_a_torn_line(tmp_path):
    path = tmp_path / "runs" / "log.jsonl"
    with JsonlAppender(path) as log:  # creates the folder and the file
        assert log.records == [] and log.torn is None
        log.append({"id": 1, "text": "Jürgen"})
        log.append_many([{"id": 2}, {"id": 3}])
        log.append_many([])
    assert path.read_text(encoding="utf-8").splitlines()[0] == '{"id": 1, "text": "Jürgen"}'
    with open(path, "a", encoding="utf-8") as crash:
        crash.write('{"id": 4, "te')  # killed while writing record 4
    with pytest.warns(TornLineWarning):
        log = JsonlAppender(path)
    with log:
        assert [r["id"] for r in log.records] == [1, 2, 3] and log.torn.line == 4
        log.append({"id": 4})  # record 4 is done again
    content = read_jsonl(path)
    assert [r["id"] for r in content.records] == [1, 2, 3, 4] and content.torn is None


def test_appender_without_resume_starts_afresh_and_ascii_option(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(_lines({"id": 1}) + "not json at all\n" + _lines({"id": 3}))
    with JsonlAppender(path, resume=False, ensure_ascii=True, default=str) as log:
        assert log.records == []
        log.append({"id": "é", "where": tmp_path})
    assert path.read_text() == json.dumps({"id": "é", "where": str(tmp_path)}) + "\n"
    assert "\\u00e9" in path.read_text()
