"""The typed evaluation result: results.json files load into it and dump back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kalma_graph.evaluation.evaluate import evaluate_records
from kalma_graph.evaluation_result import EvaluationResult, ResultSummary, RunWritten
from tests.unit.test_evaluate_fixtures import answer_records, gold_sets

REPO = Path(__file__).resolve().parents[2]
COMMITTED = sorted((REPO / "bench" / "results").rglob("evaluation/results.json"))


def _file_text(result: EvaluationResult) -> str:
    # as reporting.files writes results.json (atomic_write_json)
    return json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def test_there_are_committed_results():
    assert COMMITTED, "bench/results holds evaluation runs"


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(REPO / "bench" / "results")))
def test_every_committed_results_json_loads_and_dumps_back_byte_for_byte(path):
    text = path.read_text(encoding="utf-8")
    result = EvaluationResult.model_validate_json(text)
    assert _file_text(result) == text  # same keys, same order, same numbers (an int stays an int)
    assert result.summary.answers == len(result.per_answer) and result.run_id and result.files
    assert result.answers == []  # the scored answers are answers_scored.jsonl, never results.json


def test_an_evaluation_round_trips_and_writes_only_the_keys_it_has():
    result = evaluate_records(answer_records(), gold=gold_sets())
    dumped = result.model_dump(mode="json")
    # scored in memory: no file fields, no run id, no store, no report files, no scored answers
    assert list(dumped) == ["kind", "version", "header", "summary", "metrics", "skipped", "notes", "timings",
                            "throughput", "per_answer"]
    assert "evaluated_at" not in dumped["header"] and "gold" not in dumped["header"]
    # the parts that ran (the verifier needs no model)
    assert list(dumped["metrics"]) == ["citation_quality", "alignment", "answer_descriptives"]
    again = EvaluationResult.model_validate(dumped)
    assert again.model_dump(mode="json") == dumped and again.summary == result.summary
    assert again.per_answer == result.per_answer

    result.run_id = "r"
    result.header = result.header.model_copy(update={"evaluated_at": "now", "answers": None, "gold": None})
    result.store = RunWritten(uri="embedded:x", run_id="r", answers=5, sentences=9, cites=31,
                              citations_without_entity=0)
    dumped = result.model_dump(mode="json")
    assert list(dumped)[-2:] == ["run_id", "store"] and "files" not in dumped
    assert list(dumped["header"])[:3] == ["evaluated_at", "answers", "gold"] and dumped["header"]["gold"] is None


def test_geval_summary_keys_are_read_by_aspect_and_written_after_na_f1():
    summary = ResultSummary.model_validate({
        "answers": 2, "citations": 3, "na_f1": None, "geval_fluency": 4.5, "geval_fluency_missing": 0,
        "geval_fluency_mass": 0.9, "answers_without_citation": 1, "truncated": 0, "alignment_self_scored": None})
    keys = list(summary.model_dump())
    assert keys[keys.index("na_f1") + 1:keys.index("na_f1") + 4] == [
        "geval_fluency", "geval_fluency_missing", "geval_fluency_mass"]
    assert keys[-1] == "alignment_self_scored"
    (aspect, scores), = summary.geval().items()
    assert (aspect, scores.mean, scores.missing, scores.mass) == ("fluency", 4.5, 0, 0.9)


def test_numbers_keep_their_type():
    summary = ResultSummary(answers=1, citations=1, correctness=1, precision_micro=0.5)
    dumped = summary.model_dump(mode="json")
    assert dumped["correctness"] == 1 and isinstance(dumped["correctness"], int)
    assert isinstance(dumped["precision_micro"], float)
