"""Report files: CSV cells, the Markdown summary (choices first, undefined shown as n/a), plots, and the
experiment reports — on results computed by the real evaluation from the fixture answers."""

from __future__ import annotations

import csv
import io
import json

import pytest

from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_records
from kalma_graph.evaluation.geval import GEvalInput, GEvalScore, summarise
from kalma_graph.evaluation_result import EvaluationResult
from kalma_graph.reporting import write_experiment_report, write_report
from kalma_graph.reporting.files import per_answer_csv
from kalma_graph.reporting.markdown import num, pct, summary_markdown
from tests.unit.test_evaluate_fixtures import answer_records, gold_sets

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def results() -> EvaluationResult:
    # the paper's NLI alignment without a model: the report must say n/a, never 0
    out = evaluate_records(answer_records(), gold=gold_sets(), options=EvaluateOptions(alignment="nli"))
    out.run_id = "fixture-run"
    return out


def test_csv_cells():
    text = per_answer_csv([{"id": "a", "x": None, "f": 1 / 3}, {"id": "b", "extra": {"k": [1]}, "flag": True}])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["id", "x", "f", "extra", "flag"]
    assert rows[0]["x"] == "" and rows[0]["f"] == "0.333333" and json.loads(rows[1]["extra"]) == {"k": [1]}
    assert per_answer_csv([]).strip() == "id"


def test_number_formats():
    assert ((pct(None), pct(0.5), pct(1 / 3), num(None), num(4.1049), num(3))
            == ("n/a", "50.0", "33.3", "n/a", "4.10", "3"))


def test_markdown_names_choices_before_numbers_and_never_invents_zeros(results):
    md = summary_markdown(results)
    assert md.index("## Choices") < md.index("## Citation quality")
    assert "| evaluation.matching | strict |" in md and "| citation_quality.duplicates | counted |" in md
    assert "| n/a | 96.8 | 32.3 | 40.0 |" in md  # alignment undefined (no NLI), not 0
    assert "Not computed: no NLI model given (--nli)" in md and "Not computed: no judge model given (--judge)" in md
    assert "| sloppy citations (share) | 1 (3.2%) |" in md


def test_write_report_with_geval_plot(results, tmp_path):
    items = [GEvalInput(r.id, r.question, "text") for r in results.per_answer]
    scores = [GEvalScore(i.id, "fluency", 4.2 if k else None, None if k else "low_mass", 0.5 if k else 0.01)
              for k, i in enumerate(items)]
    geval = summarise(scores, items, ["fluency"], choices={"aspects": "fluency"}, answers_total=len(items))
    with_geval = results.model_copy(update={"metrics": results.metrics.model_copy(update={"geval": geval})})
    files = write_report(with_geval, tmp_path)
    assert files["plot_geval"].read_bytes()[:8] == PNG
    saved = json.loads(files["json"].read_text())
    assert saved["metrics"]["geval"]["aspects"]["fluency"] == {
        "mean": pytest.approx(4.2), "scored": 4, "missing": 1,
        "missing_reasons": {"low_mass": 1, "context_overflow": 0, "empty_answer": 0},
        "mean_mass": pytest.approx((0.01 + 4 * 0.5) / 5), "from_cache": 0}
    md = files["markdown"].read_text()
    assert "| fluency | 4.20 | 4 | 1 | low_mass: 1 |" in md and "never defaulted" in md


@pytest.mark.parametrize("kind, settings", [
    ("conscious", [0, 1, 2, 3]), ("retrieval", [100, 80, 60, 40, 20]), ("variants", ["general", "specific"])])
def test_experiment_reports(kind, settings, tmp_path):
    rows = [{"setting": s, "answers": 10, "alignment_micro": None if i == 0 else 0.8, "correctness": 0.95 - 0.01 * i,
             "precision_micro": 0.3, "recall_micro": 0.5 - 0.1 * i, "f1_micro": 0.37, "na_precision": 0.1 * i,
             "na_recall": 0.15, "na_f1": None, "geval_fluency": 4.1} for i, s in enumerate(settings)]
    files = write_experiment_report(kind, rows, tmp_path, header={"seed": 0, "choices": {"m": "strict"}})
    assert json.loads(files["json"].read_text())["rows"] == rows
    assert len(list(csv.DictReader(files["csv"].open()))) == len(settings)
    md = files["markdown"].read_text()
    assert "- seed: 0" in md and "| n/a |" in md and f"| {settings[-1]} | 10 |" in md
    assert ("## [NA] quality" in md) == (kind == "conscious")
    plots = [p for k, p in files.items() if k.startswith("plot")]
    assert plots and all(p.read_bytes()[:8] == PNG for p in plots)
    with pytest.raises(ValueError):
        write_experiment_report("unknown", rows, tmp_path)
