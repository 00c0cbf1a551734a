"""`--shard I/N` and `merge` (issue 34): every question in exactly one shard, by a hash that does not depend on
the file's order; a merge refuses what cannot be one run's shards and reports what is still missing."""

from __future__ import annotations

import doctest
import json

import pytest

from kalma_graph.pipeline import shards
from kalma_graph.pipeline.shards import Shard, ShardError, merge_answers


def test_docstring_examples():
    assert doctest.testmod(shards).failed == 0


def test_every_id_is_in_exactly_one_shard_whatever_the_order():
    ids = [f"biokalma:{i}" for i in range(200)]
    parts = [Shard(i, 4).select(ids, id_of=str) for i in range(1, 5)]
    assert sorted(x for p in parts for x in p) == sorted(ids)
    assert all(20 < len(p) < 80 for p in parts)  # a hash, not a block of the file
    assert Shard(2, 4).select(list(reversed(ids)), id_of=str) == list(reversed(parts[1]))


@pytest.mark.parametrize("text", ["1", "0/2", "3/2", "a/b", "1/0"])
def test_a_malformed_shard_is_refused(text):
    with pytest.raises(ShardError, match="--shard"):
        Shard.parse(text)


def _write(path, ids):
    path.write_text("".join(json.dumps({"id": i, "answer": i.upper()}) + "\n" for i in ids))
    return path


def test_merge_orders_by_the_questions_and_reports_the_missing(tmp_path):
    a, b = _write(tmp_path / "a.jsonl", ["q3", "q1"]), _write(tmp_path / "b.jsonl", ["q0"])
    summary = merge_answers(["q0", "q1", "q2", "q3"], [a, b], tmp_path / "m.jsonl")
    assert [json.loads(line)["id"] for line in (tmp_path / "m.jsonl").read_text().splitlines()] == ["q0", "q1", "q3"]
    assert (summary["merged"], summary["missing"], summary["missing_ids"]) == (3, 1, ["q2"])


def test_merge_refuses_overlaps_and_strangers(tmp_path):
    a, b = _write(tmp_path / "a.jsonl", ["q1"]), _write(tmp_path / "b.jsonl", ["q1"])
    with pytest.raises(ShardError, match="both answer 'q1'"):
        merge_answers(["q1"], [a, b], tmp_path / "m.jsonl")
    with pytest.raises(ShardError, match="not one of the questions"):
        merge_answers(["q2"], [a], tmp_path / "m.jsonl")
    assert not (tmp_path / "m.jsonl").exists()
