"""Alignment and [NA] quality with the real local NLI model (shared/models/nli-minilm-l6-v1, offline),
on answers built from real BioKaLMA records; the NLI cache makes a re-run skip finished work."""

from __future__ import annotations

from pathlib import Path

import pytest

from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_file, evaluate_records
from tests.conftest import NLI_MODEL as SHARED_MODEL
from tests.unit.test_evaluate_fixtures import answer_records, gold_sets, record, retrieved_triples, write_answers

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SHARED_MODEL / "config.json").exists(), reason=f"no NLI model at {SHARED_MODEL}"),
]


@pytest.fixture(scope="module")
def nli(tmp_path_factory):
    from kalma_graph.models.nli import load_nli

    model = load_nli(SHARED_MODEL, device="cpu", cache=tmp_path_factory.mktemp("nli") / "cache.sqlite")
    yield model
    model.close()


def test_alignment_orders_clear_cases(nli):
    """A citation the sentence states outranks one it does not mention; both counted per pair."""
    crane = retrieved_triples("Q206534")
    answer = ("Crane attended Syracuse University and played for the Syracuse Orange baseball team [Q206534, alma "
              "mater: Syracuse University, member of sports team: Syracuse Orange baseball, mother: Mary Helen Peck "
              "Crane]. He died in Badenweiler [Q206534, place of death: Badenweiler].")
    results = evaluate_records(
        [record("clear", "Who was Stephen Crane?", answer, crane, name="Stephen Crane")], nli=nli)
    cites = {c.prop: c.entailment for s in results.answers[0].sentences for c in s.citations}
    assert cites["member of sports team"] > cites["mother"] and cites["alma mater"] > cites["mother"]
    assert cites["place of death"] >= 0.5 and cites["mother"] < 0.5
    al = results.metrics.alignment
    assert al["pairs"] == 4 and al["entailed"] == sum(p >= 0.5 for p in cites.values())
    assert results.header.nli["model_hash"] and results.header.nli["device"] == "cpu"
    assert results.throughput.nli_pairs == 4


def test_na_quality_on_withheld_knowledge(nli, tmp_path):
    """crane-removed withholds religion and place of burial; its one [NA] sentence states the religion:
    precision 1/1, recall 1/2. The other answers withheld nothing and are outside the setting."""
    results = evaluate_file(write_answers(tmp_path / "a.jsonl"), out_dir=tmp_path / "out", gold=gold_sets(), nli=nli)
    na = results.metrics.na_quality
    assert (na["na_sentences"], na["na_correct"], na["absent_triples"], na["absent_hit"]) == (1, 1, 2, 1)
    assert na["precision"] == 1.0 and na["recall"] == 0.5
    assert na["choices"]["absent_set"] == "removed" and na["answers_eligible"] == 1
    detail = {a.id: a for a in results.answers}["crane-removed"]
    assert [s.na_entails_absent for s in detail.sentences if s.na] == [True]
    assert 0.5 < results.summary.alignment_micro < 1.0
    assert (tmp_path / "out" / "plots" / "na_quality.png").is_file()


def test_original_code_absent_set_is_an_option(nli):
    results = evaluate_records(answer_records(), gold=gold_sets(), nli=nli,
                               options=EvaluateOptions(absent_set="gold_not_cited"))
    na = results.metrics.na_quality
    assert na["choices"]["absent_set"] == "gold_not_cited" and na["answers_eligible"] == 5
    assert results.header.choices["na_quality.absent_set"] == "gold_not_cited"
    # gold triples no citation matches: 1 + 1 + 3 + 5 + 5 (crane-removed cites none of its gold)
    assert na["absent_triples"] == 15


def test_rerun_with_the_same_cache_skips_the_model(nli, tmp_path):
    path = write_answers(tmp_path / "a.jsonl")
    first = evaluate_file(path, out_dir=tmp_path / "out", nli=nli, plots=False)
    hits_before = nli.cache.hits
    second = evaluate_file(path, out_dir=tmp_path / "out", nli=nli, plots=False)
    assert nli.cache.hits - hits_before == second.throughput.nli_pairs  # every pair from the cache
    assert second.summary == first.summary and second.run_id == first.run_id


def test_every_registry_path_is_a_key_of_the_nli_parts(nli, monkeypatch):
    """The registry's paths (`metric_fields.unknown_paths`) against the parts an evaluation with the NLI model
    reads: [NA] quality, and the NLI alignment beside the verifier's (the unit test covers the verifier alone)."""
    from kalma_graph import metric_fields
    from kalma_graph.evaluation import evaluate

    seen: list[tuple[tuple, dict]] = []

    def capture(fields, parts, aspects=()):
        seen.append((fields, dict(parts)))
        return metric_fields.read_fields(fields, parts, aspects)

    monkeypatch.setattr(evaluate, "read_fields", capture)
    evaluate_records(answer_records(), gold=gold_sets(), nli=nli)
    summary = next(parts for fields, parts in seen if fields is metric_fields.SUMMARY)
    assert {"na_quality", "alignment_nli"} <= set(summary)
    assert metric_fields.unknown_paths(metric_fields.SUMMARY, summary) == []
    rows = [parts for fields, parts in seen if fields is metric_fields.PER_ANSWER]
    assert any("na_quality" in parts for parts in rows)
    assert all(metric_fields.unknown_paths(metric_fields.PER_ANSWER, parts) == [] for parts in rows)
