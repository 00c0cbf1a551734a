"""The main job as scripts/quickstart.sh runs it, in real processes: ingest the bundled sample →
answer questions of the bundled built BioKaLMA dataset with the packaged GGUF model → evaluate
against the dataset's minimum knowledge sets with the offline NLI model. Then the two experiments
that change the graph shown to the model (knowledge withheld, graph replaced) on the same data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.conftest import BIOKALMA_RECORDS, DUMPS, NLI_MODEL as NLI, WIKIDATA_JSON
from tests.e2e.test_cli import kg

BUILT = DUMPS / "biokalma_built" / "biokalma_built"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    uri = f"embedded:{tmp_path_factory.mktemp('main-job')}/graph.lbdb"
    kg("ingest", str(WIKIDATA_JSON), str(BIOKALMA_RECORDS), "--store", uri, "--no-progress")
    return uri


def _gold() -> dict[str, set[tuple[str, str, str]]]:
    lines = Path(f"{BUILT}.gold.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: {tuple(t) for t in r["gold"]} for r in map(json.loads, lines)}


def test_the_committed_dataset_is_complete_and_its_gold_is_in_the_graph(store):
    """dumps/biokalma_built: at least 100 entries, one seed/α/model for all, the side files agree with
    the entries, and every minimum-set triple is a statement of the bundled graph."""
    from kalma_graph.store import open_store

    entries = [json.loads(line) for line in Path(f"{BUILT}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(entries) >= 100 and len({e["id"] for e in entries}) == len(entries)
    assert len({(e["provenance"]["seed"], e["provenance"]["alpha"], e["provenance"]["model_sha256"],
                 e["provenance"]["dataset_size"]) for e in entries}) == 1
    gold = _gold()
    assert list(gold) == [e["id"] for e in entries]
    for e in entries:
        assert gold[e["id"]] == {(g["qid"], g["property"], g["value"]) for g in e["minimum_knowledge_set"]}
        assert e["general_question"].strip() and e["specific_question"].strip()
        assert ([g["round"] for g in e["minimum_knowledge_set"]]
                == sorted(g["round"] for g in e["minimum_knowledge_set"]))
    with open_store(store, read_only=True) as graph:
        subjects = sorted({t[0] for triples in gold.values() for t in triples})
        statements = {(t.subject, t.label, t.value) for hop in graph.one_hop_many(subjects).values() for t in hop}
    missing = [t for triples in gold.values() for t in triples if t not in statements]
    assert not missing, missing[:5]


def test_ingest_answer_evaluate_on_the_built_dataset(store, tmp_path):
    if not NLI.is_dir():
        pytest.skip(f"offline NLI model not found at {NLI}")
    answers = tmp_path / "answers.jsonl"
    kg("answer", "--questions", f"{BUILT}.questions.jsonl", "--variant", "specific", "--limit", "2",
       "--max-tokens", "160", "--out", str(answers), "--store", store, "--no-progress")
    records = [json.loads(line) for line in answers.read_text().splitlines()]
    gold = _gold()
    assert [r["id"] for r in records] == list(gold)[:2]
    for r in records:
        # Retrieval finds the dataset's persons that the question names (a small model's question
        # may name only one), and their graphs hold their part of the gold set.
        found = {e["selected"] for e in r["entities"]} & set(r["id"].split("-")[1::2])
        assert found
        shown = {(t["subject"], t["label"], t["value"]) for t in r["retrieved"]}
        assert {g for g in gold[r["id"]] if g[0] in found} <= shown

    out = tmp_path / "report"
    proc = kg("evaluate", "--answers", str(answers), "--gold", f"{BUILT}.gold.jsonl", "--nli", str(NLI),
              "--out", str(out), "--no-progress")
    assert "citation" in proc.stdout.lower()
    results = json.loads((out / "results.json").read_text())
    with (out / "per_answer.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [row["id"] for row in rows] == [r["id"] for r in records]
    # The headline figures are those of the per-answer rows, recomputed here from the answers.
    quality = results["metrics"]["citation_quality"]
    cited = [(c["qid"], c["prop"], c["value"]) for r in records for s in r["sentences"] for c in s["citations"]
             if c["qid"] and c["prop"] and c["value"]]
    assert sum(int(row["citations"]) for row in rows) == quality["citations"]
    precise = sum(1 for r in records for s in r["sentences"] for c in s["citations"]
                  if (c["qid"], c["prop"], c["value"]) in gold[r["id"]])
    hit = sum(len(gold[r["id"]] & {(c["qid"], c["prop"], c["value"]) for s in r["sentences"] for c in s["citations"]})
              for r in records)
    assert quality["gold_triples"] == sum(len(gold[r["id"]]) for r in records)
    assert (quality["precise"], quality["gold_hit"]) == (precise, hit)
    assert quality["recall_micro"] == pytest.approx(hit / quality["gold_triples"])
    if quality["citations"]:
        assert quality["precision_micro"] == pytest.approx(precise / quality["citations"])
    assert len(cited) <= quality["citations"]
    assert results["header"]["gold"]["questions"] == len(gold)


def test_retrieval_ablation_shows_the_stand_in_graph(store, tmp_path):
    """A replaced question's prompt holds another person's block, not the retrieved ones; the answer
    record says what was shown, and its citations are judged against that."""
    out = tmp_path / "retrieval"
    kg("experiment", "retrieval", "--questions", f"{BUILT}.questions.jsonl", "--variant", "specific",
       "--accuracies", "100,0", "--limit", "1", "--max-tokens", "96", "--store", store, "--no-nli", "--no-plots",
       "--out", str(out))
    replaced = [json.loads(line) for line in (out / "accuracy_0" / "answers.jsonl").read_text().splitlines()]
    kept = [json.loads(line) for line in (out / "accuracy_100" / "answers.jsonl").read_text().splitlines()]
    assert len(replaced) == len(kept) == 1
    r = replaced[0]
    retrieved_subjects = {t["subject"] for t in r["retrieved"]}
    shown_subjects = {t["subject"] for t in r["shown"]}
    assert r["shown"] and not shown_subjects & retrieved_subjects
    assert r["removed"] == r["retrieved"]
    assert "shown" not in kept[0] or kept[0]["shown"] == kept[0]["retrieved"]


def test_an_experiment_in_shards_merged_is_the_unsharded_experiment(store, tmp_path):
    """Issue 34: `experiment conscious --shard I/N` per machine, `kalma-graph merge` of their directories, and the
    experiment run on the merged directory: it answers nothing (every answer is a shard's) and reports the rows of
    the unsharded experiment; each setting's answers file is the unsharded one, timings aside."""
    from kalma_graph.shards import shard_number

    if not NLI.is_dir():
        pytest.skip(f"offline NLI model not found at {NLI}")
    questions = Path(f"{BUILT}.questions.jsonl")
    ids = [json.loads(line)["id"] for line in questions.read_text(encoding="utf-8").splitlines()[:3]]
    count = next(n for n in range(2, 9) if len({shard_number(i, n) for i in ids}) > 1)
    common = ["experiment", "conscious", "--questions", str(questions), "--gold", f"{BUILT}.gold.jsonl", "--variant",
              "specific", "--removed", "0,1", "--limit", "3", "--max-tokens", "48", "--store", store, "--nli", str(NLI),
              "--no-plots", "--json"]
    whole = json.loads(kg(*common, "--out", str(tmp_path / "whole")).stdout)
    parts = [tmp_path / f"part{i}" for i in range(1, count + 1)]
    for i, part in enumerate(parts, 1):
        shard = json.loads(kg(*common, "--out", str(part), "--shard", f"{i}/{count}").stdout)
        assert shard["header"]["shard"] == f"{i}/{count}"
        assert sum(r["answers"] for r in shard["rows"][:1]) == sum(1 for x in ids if shard_number(x, count) == i)
    merged = json.loads(kg("merge", "--questions", str(questions), "--limit", "3", "--out", str(tmp_path / "merged"),
                           *map(str, parts), "--json").stdout)
    assert merged["missing"] == 0 and {a["answers"] for a in merged["answers"]} == {"removed_0/answers.jsonl",
                                                                                   "removed_1/answers.jsonl"}
    final = json.loads(kg(*common, "--out", str(tmp_path / "merged")).stdout)

    def rows(result):
        return [{k: v for k, v in r.items() if k not in ("run_id", "out_dir")} for r in result["rows"]]

    def answers(root, setting):
        lines = (root / setting / "answers.jsonl").read_text(encoding="utf-8").splitlines()
        return [{k: v for k, v in json.loads(x).items() if k != "timings"} for x in lines]

    assert rows(final) == rows(whole) and final["header"]["shard"] is None
    for setting in ("removed_0", "removed_1"):
        assert answers(tmp_path / "merged", setting) == answers(tmp_path / "whole", setting)
