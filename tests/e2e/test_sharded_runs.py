"""Sharded evaluation and experiments (issue 34), as a user on two machines runs them: each shard with
`--shard I/N`, `kalma-graph merge` of their directories, then the unsharded command on the merged directory —
which must report what the unsharded run reports while asking the models nothing the shards asked. Real NLI
model (../shared/models), real packaged SmolLM2 GGUF as judge and answerer, real embedded store."""

from __future__ import annotations

import json

import pytest

from tests.conftest import NLI_MODEL, needs_nli
from tests.e2e.test_cli import kg

pytestmark = [pytest.mark.slow, needs_nli]


def _shards_of(ids, wanted=2):
    """A shard count that puts the ids in at least two shards (a hash: a small set can fall in one)."""
    from kalma_graph.shards import shard_number

    return next(n for n in range(wanted, 9) if len({shard_number(i, n) for i in ids}) > 1)


def _without(value, keys=("from_cache", "cached")):
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _comparable(results: dict) -> dict:
    """A report without what differs between any two runs (times, paths, dates) or says where a result came
    from (a cache)."""
    return _without({k: results[k] for k in ("summary", "metrics", "per_answer", "skipped", "notes")})


def test_an_evaluation_in_shards_merged_is_the_unsharded_evaluation(tmp_path):
    from tests.unit.test_evaluate_fixtures import answer_records, gold_sets, write_answers

    answers = write_answers(tmp_path / "answers.jsonl")
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": k, "gold": [list(t) for t in v]}) + "\n" for k, v in gold_sets().items()))
    ids = [r["id"] for r in answer_records()]
    count = _shards_of(ids)
    common = ["evaluate", "--answers", str(answers), "--gold", str(gold), "--nli", str(NLI_MODEL), "--judge",
              "smollm2-135m", "--judge-ctx", "2048", "--geval-aspects", "fluency", "--geval-sample", "3",
              "--no-plots", "--no-progress", "--json"]

    def report(out):
        return json.loads((out / "results.json").read_text(encoding="utf-8"))

    kg(*common, "--out", str(tmp_path / "whole"))
    judged = 0
    for i in range(1, count + 1):
        part = json.loads(kg(*common, "--out", str(tmp_path / f"part{i}"), "--shard", f"{i}/{count}").stdout)
        assert part["header"]["choices"]["evaluation.shard"] == f"{i}/{count}"
        assert part["summary"]["answers"] == sum(1 for x in ids if _shard(x, count) == i)
        judged += part["metrics"]["geval"]["answers_judged"]
    merged = json.loads(kg("merge", "--out", str(tmp_path / "merged"),
                           *[str(tmp_path / f"part{i}") for i in range(1, count + 1)], "--json").stdout)
    assert merged["kind"] == "directory" and {c["cache"] for c in merged["caches"]} == {"cache/nli.sqlite",
                                                                                       "cache/geval.sqlite"}
    kg(*common, "--out", str(tmp_path / "merged"))
    whole, final = report(tmp_path / "whole"), report(tmp_path / "merged")
    assert _comparable(final) == _comparable(whole)
    # G-Eval's sample is drawn from the whole file in every shard: the shards judged its 3 answers between them,
    # and the merged run took all 3 from their caches
    geval = final["metrics"]["geval"]
    assert judged == geval["answers_judged"] == geval["aspects"]["fluency"]["from_cache"] == 3


def _shard(item_id, count):
    from kalma_graph.shards import shard_number

    return shard_number(item_id, count)
