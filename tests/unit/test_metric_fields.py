"""The metric registry (kalma_graph/metric_fields.py) is where every metric field is named: the summary,
the per-answer rows, the typed records and the run graph's columns all follow it."""

from __future__ import annotations

import pytest

from kalma_graph import metric_fields
from kalma_graph.evaluation.evaluate import evaluate_records
from kalma_graph.evaluation_result import PerAnswerRow, ResultSummary
from kalma_graph.metric_fields import FLOAT, INT, PER_ANSWER, SUMMARY, Field, read_fields
from kalma_graph.store import results
from tests.unit.test_evaluate_fixtures import answer_records, gold_sets


def _names(fields) -> list[str]:
    return [f.name for f in metric_fields.declared(fields)]


def test_the_typed_records_declare_the_registry_fields_in_its_order():
    assert list(ResultSummary.model_fields) == _names(SUMMARY)
    assert list(PerAnswerRow.model_fields) == _names(PER_ANSWER)


def test_each_name_is_declared_once_per_table():
    for fields in (SUMMARY, PER_ANSWER):
        names = [n for f in fields for n in f.names()]
        assert len(names) == len(set(names))


def test_an_evaluation_writes_exactly_the_registry_fields():
    result = evaluate_records(answer_records(), gold=gold_sets())  # the verifier's alignment, no NLI, no judge
    summary = result.summary.model_dump()
    by_verifier = [f.name for f in SUMMARY if not f.each_aspect]  # every `when` holds for the verifier's alignment
    assert list(summary) == by_verifier
    row = result.per_answer[0].model_dump()
    assert list(row) == [f.name for f in PER_ANSWER if not f.each_aspect]
    # the values are the metric parts' own: the registry only says where they are
    quality = result.metrics.citation_quality
    assert (summary["f1_micro"] == quality["f1_micro"]
            and summary["claims_absent"] == result.metrics.alignment["claims"]["absent"])


def test_every_registry_path_is_a_key_of_its_metric_part(monkeypatch):
    # a renamed key in a metric's result would read None silently: the registry's paths are checked against the
    # parts a real evaluation (the verifier's alignment) reads its summary and every per-answer row from
    from kalma_graph.evaluation import evaluate

    seen: list[tuple[tuple, dict]] = []

    def capture(fields, parts, aspects=()):
        seen.append((fields, dict(parts)))
        return read_fields(fields, parts, aspects)

    monkeypatch.setattr(evaluate, "read_fields", capture)
    evaluate_records(answer_records(), gold=gold_sets())
    summaries = [parts for fields, parts in seen if fields is SUMMARY]
    rows = [parts for fields, parts in seen if fields is PER_ANSWER]
    assert len(summaries) == 1 and len(rows) == len(answer_records())
    assert {"citation_quality", "alignment", "answer_descriptives", "evaluation"} <= set(summaries[0])
    assert {"answer", "citation_quality", "alignment", "verifier"} <= set(rows[0])
    assert metric_fields.unknown_paths(SUMMARY, summaries[0]) == []
    assert all(metric_fields.unknown_paths(PER_ANSWER, parts) == [] for parts in rows)
    renamed = {**summaries[0], "alignment": {k: v for k, v in summaries[0]["alignment"].items() if k != "claims"}}
    assert metric_fields.unknown_paths(SUMMARY, renamed) == ["claims_absent: alignment.claims.absent",
                                                             "claims_contradicted: alignment.claims.contradicted"]


def test_an_evaluation_whose_metric_renamed_a_key_fails_loudly(monkeypatch):
    # not only the tests: every evaluation checks the registry's paths before it writes a figure
    import pytest

    from kalma_graph.errors import KalmaError
    from kalma_graph.evaluation import evaluate

    real = evaluate._read_checked

    def renamed(fields, parts, aspects=()):
        if fields is SUMMARY:
            parts = {**parts, "alignment": {k: v for k, v in parts["alignment"].items() if k != "claims"}}
        return real(fields, parts, aspects)

    monkeypatch.setattr(evaluate, "_read_checked", renamed)
    with pytest.raises(evaluate.MetricPathError, match="alignment.claims.absent") as caught:
        evaluate_records(answer_records(), gold=gold_sets())
    assert isinstance(caught.value, KalmaError) and caught.value.exit_code == 1


def test_read_fields_leaves_out_what_did_not_run_and_writes_none_for_what_found_nothing():
    fields = (Field("a", INT, "p"), Field("b", FLOAT, "q", "x.y"),
              Field("c", INT, "q", when=lambda parts: "r" in parts),
              Field("d", INT, "p", default=0), Field("g_{aspect}", FLOAT, "g", "{aspect}.score", each_aspect=True))
    assert read_fields(fields, {"p": {"a": 1, "d": None}, "q": {"x": {"y": 0.5}}}) == {"a": 1, "b": 0.5, "d": 0}
    assert read_fields(fields, {"r": {}}) == {"a": None, "b": None, "c": None, "d": 0}
    assert read_fields(fields, {"g": {"fluency": {"score": 4}}}, ("fluency", "coherence")) == {
        "a": None, "b": None, "d": 0, "g_fluency": 4, "g_coherence": None}


def test_the_run_graph_keeps_every_stored_field_with_its_type():
    kinds = {"int": results.I, "float": results.F, "bool": results.B, "string": results.S}
    for fields, columns in ((SUMMARY, results.RUN_COLUMNS), (PER_ANSWER, results.ANSWER_COLUMNS)):
        table = dict(columns)
        for name, kind in metric_fields.stored(fields):
            assert table.get(name) == kinds[kind], name


def test_a_metric_column_in_the_schema_file_is_a_stored_registry_field():
    # the schema file's metric columns (all but the run's own: its id, files, models and header) must not drift
    # from the registry: a field the registry no longer stores would be written as None forever
    own = {"Run": {"id", "created_at", "answers_file", "answers_sha256", "records", "variants", "matching",
                   "hypothesis_format", "absent_set", "gold_file", "gold_sha256", "nli_model", "nli_hash",
                   "judge_model", "judge_sha256", "header_json"},
           "Answer": {"id", "run_id", "question_id", "question", "variant", "text"}}
    for table, fields in (("Run", SUMMARY), ("Answer", PER_ANSWER)):
        stored = {name for name, _ in metric_fields.stored(fields)}
        assert {name for name, _ in results._LAYOUT[table]} - own[table] == stored


@pytest.mark.parametrize("backend", ["embedded", "neo4j"])
def test_a_new_stored_field_gets_its_column_with_no_cypher_edit(monkeypatch, backend):
    added = Field("demo_share", FLOAT, "citation_quality", stored=True)
    monkeypatch.setattr(results, "RUN_COLUMNS", results._with_metrics(results._LAYOUT["Run"], (*SUMMARY, added)))
    statements = results.run_schema_statements(backend)
    if backend == "embedded":  # Ladybug declares columns: stores made before the field gain it
        assert statements[-1] == "ALTER TABLE Run ADD IF NOT EXISTS demo_share DOUBLE"
    else:  # Neo4j has no columns to declare
        assert not any("demo_share" in s for s in statements)


def test_the_evaluate_command_prints_the_figures_written_only_for_the_verifier(capsys):
    from kalma_graph.cli.evaluate_cmd import print_summary

    result = evaluate_records(answer_records(), gold=gold_sets())
    result.run_id, result.files = "r", {"markdown": "summary.md"}
    print_summary(result)
    out = capsys.readouterr().out
    assert "micro / macro, verifier" in out and "cited sentences fully supported" in out
    assert "claims absent / contradicted" in out
