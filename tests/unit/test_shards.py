"""`--shard I/N` and `merge` (issue 34): every question in exactly one shard, by a hash that does not depend on
the file's order; a merge refuses what cannot be one run's shards and reports what is still missing."""

from __future__ import annotations

import doctest
import json

import pytest

from kalma_graph import shards
from kalma_graph.biokalma.build import merge_builds
from kalma_graph.shards import Shard, ShardError, merge_answers


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


def _cache(path, table, rows):
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?, ?)", rows)
    return path


def test_directories_join_their_answers_and_unite_their_caches(tmp_path):
    """Two experiment shards: each setting's answers file joined in question order, each cache united."""
    import sqlite3

    one, two = tmp_path / "one", tmp_path / "two"
    for root, ids in ((one, ["q2", "q0"]), (two, ["q1"])):
        (root / "removed_0").mkdir(parents=True)
        _write(root / "removed_0" / "answers.jsonl", ids)
    (one / "removed_1").mkdir()
    _write(one / "removed_1" / "answers.jsonl", ["q0"])
    _cache(one / "removed_0" / "evaluation" / "cache" / "geval.sqlite", "geval", [("k1", "a"), ("k2", "b")])
    _cache(two / "removed_0" / "evaluation" / "cache" / "geval.sqlite", "geval", [("k2", "b"), ("k3", "c")])
    summary = shards.merge_directories(["q0", "q1", "q2"], [one, two], tmp_path / "merged")
    merged = tmp_path / "merged"
    assert ([json.loads(x)["id"] for x in (merged / "removed_0" / "answers.jsonl").read_text().splitlines()]
            == ["q0", "q1", "q2"])
    assert {r["answers"]: r["missing"] for r in summary["answers"]} == {"removed_0/answers.jsonl": 0,
                                                                         "removed_1/answers.jsonl": 2}
    with sqlite3.connect(merged / "removed_0" / "evaluation" / "cache" / "geval.sqlite") as conn:
        assert sorted(conn.execute("SELECT key, value FROM geval")) == [("k1", "a"), ("k2", "b"), ("k3", "c")]
    assert summary["caches"] == [{"cache": "removed_0/evaluation/cache/geval.sqlite", "rows": 3}]
    with pytest.raises(ShardError, match="give --questions"):
        shards.merge_directories(None, [one, two], tmp_path / "again")
    with pytest.raises(ShardError, match="is one of the shards"):
        shards.merge_directories(["q0"], [one, two], one)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ShardError, match="no answers.jsonl and no"):
        shards.merge_directories(["q0"], [tmp_path / "empty"], tmp_path / "m2")


def _build_shard(tmp_path, name, plan, entries, dropped=()):
    out = tmp_path / f"{name}.jsonl"
    out.write_text("".join(json.dumps({"id": i, "specific_question": f"about {i}?"}) + "\n" for i in entries))
    (tmp_path / f"{name}.dropped.jsonl").write_text(
        "".join(json.dumps({"id": i, "dropped": "x"}) + "\n" for i in dropped))
    (tmp_path / f"{name}.plan.json").write_text(json.dumps(plan))
    return out


def test_builds_keep_the_first_limit_kept_entries_in_plan_order(tmp_path):
    """The unsharded build walks its plan and stops at `limit` kept entries, a dropped one's place taken by
    the next; the merge cuts the shards' entries at the same place, and waits for a pair no shard built yet."""
    plan = {"order": ["e0", "e1", "e2", "e3", "e4", "e5"], "limit": 4, "settings_sha256": "s", "shard": "1/2"}
    a = _build_shard(tmp_path, "a", plan, ["e0", "e3", "e5"], dropped=["e2"])
    b = _build_shard(tmp_path, "b", plan | {"shard": "2/2"}, ["e4"])
    waiting = merge_builds([a, b], tmp_path / "m.jsonl")
    assert not waiting["complete"] and waiting["waiting_for"] == ["e1"] and not (tmp_path / "m.jsonl").exists()
    b = _build_shard(tmp_path, "b", plan | {"shard": "2/2"}, ["e1", "e4"])
    done = merge_builds([a, b], tmp_path / "m.jsonl")
    assert done["complete"] and done["dropped"] == 1 and done["built_beyond_the_cut"] == 1  # e5
    assert [json.loads(x)["id"] for x in (tmp_path / "m.jsonl").read_text().splitlines()] == ["e0", "e1", "e3", "e4"]
    assert [json.loads(x)["id"] for x in (tmp_path / "m.dropped.jsonl").read_text().splitlines()] == ["e2"]
    other = _build_shard(tmp_path, "c", plan | {"settings_sha256": "t"}, ["e1"])
    with pytest.raises(ShardError, match="different builds"):
        merge_builds([a, other], tmp_path / "m2.jsonl")
    with pytest.raises(ShardError, match="not the output of `build biokalma --shard`"):
        merge_builds([_write(tmp_path / "plain.jsonl", ["e0"])], tmp_path / "m3.jsonl")
