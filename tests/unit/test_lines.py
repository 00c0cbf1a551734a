"""kalma_graph.lines, the one reader of line-oriented inputs: plain or compressed, strict UTF-8,
`file:line` in every error. Small real files under tmp_path, no mocks."""

from __future__ import annotations

import bz2
import gzip
import json
import re

import pytest

from kalma_graph import lines
from kalma_graph.ingest import sources
from kalma_graph.lines import InputError, Undecodable, checked_lines, json_lines, numbered_lines, open_text

ROWS = [{"id": "a", "n": 1}, {"id": "b", "text": "naïve \u2028 line"}]
BODY = (json.dumps(ROWS[0]) + "\n\n   \n" + json.dumps(ROWS[1], ensure_ascii=False) + "\n").encode("utf-8")


class BadRow(ValueError):
    pass


@pytest.mark.parametrize("name,pack", [("rows.jsonl", bytes), ("rows.jsonl.gz", gzip.compress),
                                       ("rows.jsonl.bz2", bz2.compress)])
def test_json_lines_reads_plain_and_compressed_files_and_skips_blank_lines(tmp_path, name, pack):
    path = tmp_path / name
    path.write_bytes(pack(BODY))
    got = list(json_lines(path, what="rows file", error=BadRow))
    assert got == [(f"{path}:1", ROWS[0]), (f"{path}:4", ROWS[1])]  # blank lines 2-3 skipped, numbers kept


def test_a_line_that_is_not_json_is_the_callers_error_with_file_and_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(BadRow, match=rf"^{re.escape(str(path))}:2: not JSON \(.*\); fix it$"):
        list(json_lines(path, what="rows file", error=BadRow, hint="; fix it"))


def test_a_line_that_is_not_utf8_is_an_input_error_naming_the_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(json.dumps(ROWS[0]).encode() + b"\n" + b'{"id": "caf\xe9"}\n')
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:2: invalid UTF-8 at byte 12 of the line"):
        list(json_lines(path, what="rows file", error=BadRow))
    numbered = numbered_lines(path)
    assert next(numbered) == (1, json.dumps(ROWS[0]))
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:2:"):
        next(numbered)
    # the tolerant reader hands the bad line over instead, for its caller to count or report
    (_, first), (number, second) = checked_lines(path)
    assert first == json.dumps(ROWS[0]) and number == 2 and isinstance(second, Undecodable)


def test_a_missing_file_is_file_not_found_naming_what_was_expected(tmp_path):
    path = tmp_path / "absent.jsonl"
    with pytest.raises(FileNotFoundError, match=rf"^{re.escape(str(path))}: no such rows file$"):
        list(json_lines(path, what="rows file", error=BadRow))


def test_a_truncated_archive_is_an_input_error_naming_the_last_good_line(tmp_path):
    path = tmp_path / "rows.jsonl.gz"
    whole = gzip.compress(b"".join(json.dumps({"n": i}).encode() + b"\n" for i in range(2000)))
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError,
                       match=rf"^{re.escape(str(path))} ends before its compressed stream does .*last complete line "
                             r"read was line \d+$"):
        list(numbered_lines(path))


def test_open_text_reads_a_whole_compressed_document_strictly(tmp_path):
    path = tmp_path / "doc.json.gz"
    path.write_bytes(gzip.compress(json.dumps(ROWS, ensure_ascii=False).encode("utf-8")))
    with open_text(path) as handle:
        assert json.load(handle) == ROWS
    path.write_bytes(gzip.compress(b'["caf\xe9"]'))
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: invalid UTF-8"):
        with open_text(path) as handle:
            handle.read()


def test_ingest_sources_re_exports_the_same_objects():
    """`except InputError` in ingest code and `from kalma_graph.ingest.sources import …` keep working."""
    for name in ("InputError", "Undecodable", "open_binary", "open_text", "checked_lines", "numbered_lines",
                 "json_lines", "bytes_read", "track_position"):
        assert getattr(sources, name) is getattr(lines, name), name
