"""`caqa build` on the bundled Wikidata + Freebase graphs (real embedded store, real dumps), the
edits checked sample by sample, determinism and resume, and the CLI end to end (build, bench with
the local NLI model, train)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kalma_graph.caqa import graph_queries as caqa_ops
from kalma_graph.caqa.build import BuildConfig, BuildError, build, read_samples
from kalma_graph.caqa.graph import GraphView
from kalma_graph.caqa.model import (
    CATEGORIES,
    COMPLEXITIES,
    CONTRADICTORY,
    IRRELEVANT,
    PARTIAL,
    SUPPORTIVE,
    Fact,
    Query,
    entities_of,
    evaluate,
    pids_of,
)
from kalma_graph.files import CorruptJsonlError, TornLineWarning
from kalma_graph.store.embedded import EmbeddedStore
from tests.conftest import DUMPS, FREEBASE_NT, NLI_MODEL, WIKIDATA_JSON

KGQA = DUMPS / "kgqa"


@pytest.fixture(scope="module")
def graph_path(tmp_path_factory) -> Path:
    """Both bundled graphs in one embedded store (closed again: tests open it as they need it)."""
    from kalma_graph.ingest import ingest

    path = tmp_path_factory.mktemp("caqa") / "graph.lbdb"
    store = EmbeddedStore(path)
    ingest(store, [WIKIDATA_JSON, FREEBASE_NT])
    store.close()
    return path


@pytest.fixture
def graph(graph_path):
    store = EmbeddedStore(graph_path)
    yield store
    store.close()


@pytest.fixture(scope="module")
def kgqa_files(tmp_path_factory) -> list[str]:
    """The first rows of each bundled KGQA sample (all three formats), to keep the build short."""
    root = tmp_path_factory.mktemp("kgqa")
    sqwd, sqfb = root / "sq_wikidata.txt", root / "sq_freebase.txt"
    sqwd.write_text("".join((KGQA / "simplequestions_wikidata_test_answerable.sample.txt").open().readlines()[:25]))
    sqfb.write_text("".join((KGQA / "simplequestions_freebase_valid.sample.txt").open().readlines()[:25]))
    mintaka = root / "mintaka_dev.json"
    mintaka.write_text(json.dumps(json.loads((KGQA / "mintaka_dev.sample.json").read_text())[:80]))
    return [str(sqwd), str(sqfb), f"mintaka={mintaka}"]


@pytest.fixture(scope="module")
def built(graph_path, kgqa_files, tmp_path_factory) -> dict:
    store = EmbeddedStore(graph_path)
    before = store.stats()
    out = tmp_path_factory.mktemp("build")
    config = BuildConfig(out=str(out), kgqa=kgqa_files, paths=5, trees=5, singles=12, seed=0)
    summary = build(store, config)
    after = store.stats()
    store.close()
    return {"summary": summary, "samples": read_samples(out), "out": out, "config": config,
            "stats_before": before, "stats_after": after}


def test_every_category_and_complexity_on_both_graphs(built):
    samples = built["samples"]
    for kb in ("wikidata", "freebase"):
        seen = Counter((s["category"], s["complexity"]) for s in samples if s["kb"] == kb)
        wanted = {(c, x) for c in CATEGORIES for x in COMPLEXITIES if not (c == PARTIAL and x == "single")}
        assert wanted <= set(seen), f"{kb}: missing {sorted(wanted - set(seen))}"
        assert (PARTIAL, "single") not in seen  # §4.3: no deletion for single-triple queries
    sources = {s["provenance"]["source"] for s in samples}
    assert {"sq-wikidata", "sq-freebase", "mintaka", "sampler-path", "sampler-tree", "sampler-single"} <= sources
    table = built["summary"]["table4"]
    assert table["total"]["total"] == len(samples) == table["total"]["train"] + table["total"]["test"]
    assert (built["out"] / "stats.md").read_text().startswith("| Classes |")


def test_the_base_graph_is_never_written(built):
    assert built["stats_before"] == built["stats_after"]


def _facts(rows) -> list[Fact]:
    return [Fact.from_dict(f) for f in rows or []]


def _branch_facts(query: Query, facts: list[Fact]) -> list[set[Fact]]:
    """The facts of each branch: walked from its anchor along its hops."""
    out = []
    for branch in query.branches:
        nodes, used = {branch.anchor}, set()
        for hop in branch.hops:
            step = {f for f in facts if f.pid == hop.pid and (f.object if hop.reverse else f.subject) in nodes}
            used |= step
            nodes = {f.subject if hop.reverse else f.object for f in step}
        out.append(used)
    return out


def test_each_edit_does_what_section_4_3_says(built, graph):
    view = GraphView(graph)
    groups: dict[str, dict[str, dict]] = {}
    for s in built["samples"]:
        groups.setdefault(s["query_key"], {})[s["category"]] = s
    checked = Counter()
    for key, by_cat in groups.items():
        sup = by_cat[SUPPORTIVE]
        query = Query.from_dict(sup["query"])
        g = _facts(sup["facts"])
        answers = set(sup["answer_ids"])
        # supportive: read back from the graph unchanged, and the query over it yields the answer
        assert set(caqa_ops.ground(graph, g)) == set(g), key
        got = evaluate(query, g)
        assert got == answers if query.op == "or" else answers <= got, key
        for s in by_cat.values():
            assert s["group_size"] == len(by_cat) and s["citation"] and s["answer_statement"], key
            text = s["citation"].lower()
            for f in _facts(s["facts"]):  # the template citation names every entity of its subgraph
                assert f.subject_name.lower() in text and f.object_name.lower() in text, key
        if PARTIAL in by_cat:
            p = by_cat[PARTIAL]
            kept, deleted = _facts(p["facts"]), _facts(p["deleted_facts"])
            assert set(kept) | set(deleted) == set(g) and not set(kept) & set(deleted), key
            assert set(_facts(p["supportive_facts"])) == set(g)
            if query.structure == "path":
                assert len(deleted) == 1, key  # exactly one triple of the path
                assert not evaluate(query, kept), key
            else:  # exactly one subject-to-answer path of a tree / union
                assert set(deleted) in _branch_facts(query, g), key
                if query.op == "or":  # the deleted namesake's answer is no longer entailed
                    assert evaluate(query, kept) < answers, key
                else:
                    assert not evaluate(query, kept), key
                k = _branch_facts(query, g).index(set(deleted))
                lone = Query((query.branches[k],))
                assert not evaluate(lone, kept), key
            checked[PARTIAL] += 1
        if CONTRADICTORY in by_cat:
            c = by_cat[CONTRADICTORY]
            edit = c["provenance"]["edit"]
            a, b = edit["replaced"], edit["replacement"]
            cf = _facts(c["facts"])
            assert b not in view.answers(query) and b not in entities_of(g) and a not in entities_of(cf), key
            got = evaluate(query, cf)
            assert b in got and (query.op == "or" or got == {b}), key
            # same type: b fills the same slot of the same relation in the graph ...
            hop = [h for br, fs in zip(query.branches, _branch_facts(query, g)) for h in br.hops[-1:]
                   if a in entities_of(fs)][0]
            slot = "subject" if hop.reverse else "object"
            assert b in {x[0] for x in caqa_ops.same_type_candidates(graph, hop.pid, slot)}, key
            # ... and shares an `instance of` class when the answer has one
            if edit["type_basis"].startswith("instance of"):
                assert set(view.entity_types(a)) & set(view.entity_types(b)), key
            # everything else is G: undoing the substitution gives G back
            undone = {Fact(a if f.subject == b else f.subject, f.pid, a if f.object == b else f.object) for f in cf}
            assert undone == {Fact(f.subject, f.pid, f.object) for f in g}, key
            checked[CONTRADICTORY] += 1
        if IRRELEVANT in by_cat:
            i = _facts(by_cat[IRRELEVANT]["facts"])
            subject = query.branches[0].anchor
            assert entities_of(i) & entities_of(g) == {subject}, key  # shares only the subject
            assert not pids_of(i) & pids_of(g), key  # with other relations
            assert set(caqa_ops.ground(graph, i)) == set(i) and not evaluate(query, i), key
            checked[IRRELEVANT] += 1
    assert checked[PARTIAL] >= 20 and checked[CONTRADICTORY] >= 50 and checked[IRRELEVANT] >= 40


def test_split_by_entity_keeps_held_out_entities_out_of_training(built):
    from kalma_graph.caqa.model import Sample
    from kalma_graph.caqa.train import drop_test_anchor_overlap, entity_leakage

    samples = [Sample.from_dict(s) for s in built["samples"]]
    train = [s for s in samples if s.split == "train"]
    test = [s for s in samples if s.split == "test"]
    assert train and test
    assert {s.query_key for s in train}.isdisjoint({s.query_key for s in test})
    leak = entity_leakage(train, test, built["config"].seed, built["config"].test_entity_rate)
    assert leak["held_out_entities_in_test"] > 0 and leak["held_out_in_train"] == 0
    strict = drop_test_anchor_overlap(train, test)  # caqa train --strict-entities
    assert 0 < len(strict) <= len(train)
    leak = entity_leakage(strict, test, built["config"].seed, built["config"].test_entity_rate)
    assert leak["test_anchors_seen_in_train"] == 0


def test_deterministic_and_resumable(graph, kgqa_files, tmp_path):
    small = dict(kgqa=kgqa_files[:1], kbs=("wikidata",), paths=2, trees=2, seed=3)
    full = tmp_path / "full"
    build(graph, BuildConfig(out=str(full), **small))
    part = tmp_path / "part"
    first = build(graph, BuildConfig(out=str(part), limit=6, **small))
    assert first["run"]["queries_remaining"] > 0
    with open(part / "samples.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"id": "cut off by a cra')  # a crash in the middle of a write
    with pytest.warns(TornLineWarning, match="samples.jsonl"):
        resumed = build(graph, BuildConfig(out=str(part), **small))
    assert resumed["run"]["queries_remaining"] == 0
    assert (part / "samples.jsonl").read_bytes() == (full / "samples.jsonl").read_bytes()
    with pytest.raises(BuildError):
        build(graph, BuildConfig(out=str(part), **{**small, "seed": 4}))


def _crash_copy(built: dict, tmp_path: Path) -> tuple[Path, bytes]:
    """A copy of the module's build directory, and the bytes of its samples log."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(built["out"], copy)
    return copy, (copy / "samples.jsonl").read_bytes()


def test_resume_redoes_a_sample_group_cut_by_a_torn_line(built, graph, tmp_path):
    copy, full = _crash_copy(built, tmp_path)
    samples = full.decode().splitlines(keepends=True)
    size = json.loads(samples[-1])["group_size"]
    assert size >= 2
    # Killed while writing the last group: one line of it finished, the next torn.
    kept = samples[:-size]
    (copy / "samples.jsonl").write_text("".join(kept) + samples[-size] + samples[-size + 1][:30], encoding="utf-8")
    with pytest.warns(TornLineWarning, match=f"samples.jsonl:{len(kept) + 2}: dropped a torn last line"):
        summary = build(graph, dataclasses.replace(built["config"], out=str(copy)))
    assert summary["run"]["queries_processed_this_run"] == 1  # the cut group's query, whole again
    assert summary["run"]["samples_written_this_run"] == size and summary["run"]["queries_remaining"] == 0
    assert summary["samples"] == built["summary"]["samples"]
    assert (copy / "samples.jsonl").read_bytes() == full  # the same file as without the crash


def test_resume_redoes_a_torn_skipped_line(graph, kgqa_files, tmp_path):
    config = BuildConfig(out=str(tmp_path / "run"), kgqa=kgqa_files[:1], kbs=("wikidata",), paths=2, trees=2, seed=3,
                         limit=3)
    build(graph, config)
    # The same build resumed on a graph that lacks the facts: its next queries are skipped.
    empty = EmbeddedStore(tmp_path / "empty.lbdb")
    empty.bootstrap()
    try:
        first = build(empty, dataclasses.replace(config, limit=2))
        skipped = tmp_path / "run" / "skipped.jsonl"
        lines = skipped.read_text(encoding="utf-8").splitlines(keepends=True)
        assert len(lines) == 2 and sum(first["skipped"].values()) == 2
        skipped.write_text(lines[0] + lines[1][:15], encoding="utf-8")  # killed while writing the second
        with pytest.warns(TornLineWarning, match="skipped.jsonl:2: dropped a torn last line"):
            again = build(empty, dataclasses.replace(config, limit=1))
        assert again["run"]["queries_processed_this_run"] == 1 and again["skipped"] == first["skipped"]
        assert skipped.read_text(encoding="utf-8") == "".join(lines)
    finally:
        empty.close()


@pytest.mark.parametrize("log", ["samples.jsonl", "skipped.jsonl"])
def test_resume_refuses_a_corrupt_line_inside_a_log(built, graph, tmp_path, log):
    copy, _ = _crash_copy(built, tmp_path)
    path = copy / log
    if log == "skipped.jsonl":  # this build skipped nothing: two skipped queries, the first one damaged
        path.write_text('{"key": "sq-wikidata:1", "rea\n{"key": "sq-wikidata:2", "reason": "why"}\n')
    else:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text(lines[0][:25] + "\n" + "".join(lines[1:]), encoding="utf-8")
    damaged = {name: (copy / name).read_bytes() for name in ("samples.jsonl", "skipped.jsonl")}
    with pytest.raises(CorruptJsonlError, match=rf"{log}:1: not valid JSON"):
        build(graph, dataclasses.replace(built["config"], out=str(copy)))
    assert {name: (copy / name).read_bytes() for name in damaged} == damaged
    if log == "samples.jsonl":
        with pytest.raises(CorruptJsonlError, match="samples.jsonl:1"):
            read_samples(copy)  # what bench and train read


# --- the CLI, end to end ------------------------------------------------------------------------


def kg(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "kalma_graph.cli.main", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_cli_build(graph_path, kgqa_files, tmp_path):
    out = tmp_path / "cli"
    summary = json.loads(kg("caqa", "build", "--store", f"embedded:{graph_path}", "--out", str(out), "--kb", "wikidata",
                            "--kgqa", kgqa_files[0], "--paths", "2", "--json").stdout)
    assert summary["samples"] == len(read_samples(out)) > 0 and summary["run"]["samples_per_minute"]
    table = kg("caqa", "build", "--store", f"embedded:{graph_path}", "--out", str(out), "--kb", "wikidata",
               "--kgqa", kgqa_files[0], "--paths", "2").stdout
    assert "| Category | Sup. |" in table and "0 queries left" in table  # the re-run resumes: nothing to do


@pytest.mark.slow
def test_cli_bench_with_the_local_nli_model(built, tmp_path):
    out = tmp_path / "bench"
    kg("caqa", "bench", str(built["out"]), "--out", str(out), "--nli", str(NLI_MODEL), "--split", "all",
       "--limit", "48", "--factscore-limit", "10", "--evaluator", "nli-2way", "--evaluator", "nli-3way",
       "--evaluator", "cot-nli", "--device", "cpu", env={"KALMA_NLI_CACHE": str(tmp_path / "nli.sqlite")})
    report = json.loads((out / "report.json").read_text())
    assert report["header"]["samples"] == 48 and set(report["evaluators"]) == {"nli-2way", "nli-3way", "cot-nli"}
    md = (out / "report.md").read_text()
    assert "| Evaluator | Sup. | Par. | Con. | Irr. | Overall | Single | Concatenation | Intersection | Union |" in md
    three = report["evaluators"]["nli-3way"]["scores"]
    assert three["category"][PARTIAL] is None and 0 <= three["overall"] <= 1
    assert report["evaluators"]["nli-2way"]["scores"]["overall"] is None
    assert report["evaluators"]["cot-nli"]["scores"]["category"][PARTIAL] is not None
    for name in ("nli-2way", "nli-3way", "cot-nli"):
        assert (out / f"confusion_{name}.png").stat().st_size > 1000
    fs = report["factscore"]
    partial = report["header"]["by_category"].get(PARTIAL, 0)
    assert fs["n"] == min(10, partial) > 0 and 0 < fs["caqa"] < 1
    assert set(fs["evaluators"]) == {"nli-2way", "nli-3way", "cot-nli"}


def counting_nli_evaluator():
    """The real 3-way NLI evaluator, counting the samples it is asked to judge."""
    from kalma_graph.caqa.evaluators.nli import NLIEvaluator
    from kalma_graph.models.nli import load_nli

    class Counting(NLIEvaluator):
        judged = 0

        def judge(self, samples):
            self.judged += len(samples)
            return super().judge(samples)

    return Counting(load_nli(str(NLI_MODEL), device="cpu", cache=None), "3way")


@pytest.mark.slow
def test_bench_reuses_stored_judgements(built, tmp_path):
    from kalma_graph.caqa.bench import load_samples, run_bench

    samples = load_samples(built["out"], split="all", limit=12, seed=1)
    evaluator = counting_nli_evaluator()
    first = run_bench(samples[:8], [evaluator], tmp_path, factscore_limit=0)
    again = run_bench(samples, [evaluator], tmp_path, factscore_limit=0)
    assert evaluator.judged == 12  # the second run judged only the 4 new samples
    assert again["evaluators"]["nli-3way"]["scores"]["n"] == 12 and first["evaluators"]["nli-3way"]["scores"]["n"] == 8


@pytest.mark.slow
def test_bench_judges_a_torn_judgement_again_and_refuses_a_corrupt_one(built, tmp_path):
    from kalma_graph.caqa.bench import load_samples, run_bench

    samples = load_samples(built["out"], split="all", limit=6, seed=2)
    evaluator = counting_nli_evaluator()
    first = run_bench(samples, [evaluator], tmp_path, factscore_limit=0)
    predictions = tmp_path / "predictions" / "nli-3way.jsonl"
    lines = predictions.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 1 + 6  # the evaluator's description, then one judgement per sample
    predictions.write_text("".join(lines[:-1]) + lines[-1][:20], encoding="utf-8")  # killed mid-line
    with pytest.warns(TornLineWarning, match=f"nli-3way.jsonl:{len(lines)}: dropped a torn last line"):
        again = run_bench(samples, [evaluator], tmp_path, factscore_limit=0)
    assert evaluator.judged == 6 + 1  # only the torn sample is judged again
    assert again["evaluators"]["nli-3way"]["scores"] == first["evaluators"]["nli-3way"]["scores"]
    assert predictions.read_text(encoding="utf-8") == "".join(lines)
    predictions.write_text(lines[0] + lines[1][:20] + "\n" + "".join(lines[2:]), encoding="utf-8")
    damaged = predictions.read_bytes()
    with pytest.raises(CorruptJsonlError, match="nli-3way.jsonl:2: not valid JSON"):
        run_bench(samples, [evaluator], tmp_path, factscore_limit=0)
    assert predictions.read_bytes() == damaged and evaluator.judged == 7


@pytest.mark.slow
def test_train_resumes_from_a_weights_only_checkpoint(built, tmp_path):
    """Stopped after its first step, `train_caqa` leaves a checkpoint that loads with
    torch.load(weights_only=True); the re-run resumes from it and ends with the very model of an
    uninterrupted run."""
    import torch
    from safetensors.torch import load_file

    from kalma_graph.caqa.train import CAQATrainConfig, train_caqa
    from kalma_graph.models.finetune import DifferentRunError

    common = dict(samples=str(built["out"]), init=str(NLI_MODEL), max_steps=3, max_train=24, batch_size=8,
                  max_length=64, device="cpu", lr=1e-3)
    straight = train_caqa(CAQATrainConfig(output_dir=str(tmp_path / "a"), **common))
    first = train_caqa(CAQATrainConfig(output_dir=str(tmp_path / "b"), time_limit_s=1e-9, **common))
    assert first["status"] == "interrupted" and first["step"] == 1
    checkpoint = torch.load(first["checkpoint"], weights_only=True)
    assert checkpoint["step"] == 1 and isinstance(checkpoint["rng"]["torch"], torch.Tensor)
    # another run's settings in the same directory are refused, and its checkpoint is kept
    with pytest.raises(DifferentRunError, match="different run"):
        train_caqa(CAQATrainConfig(output_dir=str(tmp_path / "b"), **{**common, "lr": 2e-3}))
    assert torch.load(first["checkpoint"], weights_only=True)["step"] == 1
    second = train_caqa(CAQATrainConfig(output_dir=str(tmp_path / "b"), **common))
    assert straight["status"] == second["status"] == "done" and not Path(first["checkpoint"]).exists()
    a, b = load_file(tmp_path / "a" / "model.safetensors"), load_file(tmp_path / "b" / "model.safetensors")
    assert a.keys() == b.keys()
    for key in a:
        torch.testing.assert_close(a[key], b[key], atol=1e-6, rtol=0)
    assert straight["test"] == second["test"]


@pytest.mark.slow
def test_cli_train_then_bench_the_finetuned_model(built, tmp_path):
    from kalma_graph.caqa.bench import load_samples, run_bench
    from kalma_graph.caqa.evaluators import make_evaluator

    model = tmp_path / "clf"
    result = json.loads(kg("caqa", "train", str(built["out"]), "--out", str(model), "--init", str(NLI_MODEL),
                           "--max-steps", "3", "--max-train", "48", "--batch-size", "8", "--max-length", "96",
                           "--device", "cpu", "--json").stdout)
    assert result["status"] == "done" and result["data"]["leakage"]["held_out_in_train"] == 0
    assert result["test"]["n"] == result["data"]["test"] > 0
    config = json.loads((model / "config.json").read_text())
    assert sorted(config["id2label"].values()) == sorted(CATEGORIES)
    evaluator = make_evaluator(f"finetuned:{model}", device="cpu")
    samples = load_samples(built["out"], split="test", limit=16)
    report = run_bench(samples, [evaluator], tmp_path / "bench", factscore_limit=3)
    assert report["evaluators"][f"finetuned:{model.name}"]["scores"]["n"] == len(samples)
