"""A metric added to the registry (kalma_graph/metric_fields.py) reaches the run graph with no Cypher edit,
on both stores, including a store whose run tables were made before the metric existed."""

from __future__ import annotations

from kalma_graph.evaluation_result import EvaluationResult
from kalma_graph.metric_fields import FLOAT, PER_ANSWER, SUMMARY, Field
from kalma_graph.store import results


def _run(run_id: str, **summary_extra) -> EvaluationResult:
    return EvaluationResult.model_validate({
        "run_id": run_id, "header": {},
        "summary": {"answers": 1, "citations": 1, "f1_micro": 0.5, **summary_extra},
        "metrics": {"citation_quality": {}},
        "per_answer": [{"id": "q1", "precision": 0.75, "demo_score": 0.125}],
        "answers": [{"id": "q1", "question": "Who?", "answer": "Ann [NA].",
                     "sentences": [{"position": 0, "text": "Ann [NA].", "na": True}]}],
    })


def test_a_new_stored_metric_is_written_and_read_back(store, monkeypatch):
    results.write_run(store, _run("before"))  # the run tables exist, without the new columns
    run_field = Field("demo_share", FLOAT, "citation_quality", stored=True)
    answer_field = Field("demo_score", FLOAT, "citation_quality", stored=True)
    run_columns = results._with_metrics(results._LAYOUT["Run"], (*SUMMARY, run_field))
    answer_columns = results._with_metrics(results._LAYOUT["Answer"], (*PER_ANSWER, answer_field))
    for name, columns in (("RUN", run_columns), ("ANSWER", answer_columns)):
        monkeypatch.setattr(results, f"{name}_COLUMNS", columns)
        monkeypatch.setattr(results, f"{name}_FIELDS", tuple(n for n, _ in columns))

    results.write_run(store, _run("after", demo_share=0.25))
    after = results.read_run(store, "after")
    assert (after["demo_share"], after["f1_micro"]) == (0.25, 0.5)
    assert after["answers"][0]["demo_score"] == 0.125 and after["answers"][0]["precision"] == 0.75
    earlier = results.read_run(store, "before")  # written before the column existed: None, not an error
    assert earlier["demo_share"] is None and earlier["f1_micro"] == 0.5


def test_a_run_reads_back_every_column_it_wrote(store):
    results.write_run(store, _run("r1"))
    run = results.read_run(store, "r1")
    assert set(results.RUN_FIELDS) <= set(run) and run["records"] == 1
    (answer,) = run["answers"]
    assert set(results.ANSWER_FIELDS) <= set(answer) and answer["run_id"] == "r1"
    assert not any(k.startswith("_") for k in run) and not any(k.startswith("_") for k in answer)
