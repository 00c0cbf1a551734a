"""`kalma-graph experiment paper`: Table 3 settings through the real pipeline (packaged GGUF, real
sample graph, offline NLI), resumed, and docs/results.md beside the paper's rows."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalma_graph.experiments.paper import StrategySetting
from kalma_graph.experiments.runner import ExperimentError
from kalma_graph.reporting.paper import paper_rows, results_markdown
from tests.conftest import DUMPS, NLI_MODEL as NLI
from tests.e2e.test_retrieval_linking import release_sample_store, sample_store_path  # noqa: F401

BUILT = DUMPS / "biokalma_built" / "biokalma_built"


def test_setting_names_parse():
    assert StrategySetting.parse("qwen2.5-coder-1.5b-q4km:attribute-first") == StrategySetting(
        "qwen2.5-coder-1.5b-q4km", "attribute-first")
    assert StrategySetting.parse("smollm2-135m").cite == "model"
    assert StrategySetting("/models/x.gguf", "posthoc").name == "x__posthoc"
    with pytest.raises(ExperimentError, match="strategy"):
        StrategySetting.parse("smollm2-135m:sometimes")


def test_paper_rows_are_the_papers():
    rows = paper_rows()
    assert rows["table3"]["rows"]["LLaMA-7B"][:5] == [47.8, 70.2, 7.7, 41.1, 13.0]
    assert rows["table3"]["rows"]["Alpaca-7B"][4] == 16.8
    assert rows["table5"]["rows"]["3"] == [93.9, 16.3, 20.4, 18.1]
    assert len(rows["table4"]["rows"]) == len(rows["table3"]["rows"]) == 8


def test_results_page_says_what_is_pending(tmp_path):
    text = results_markdown(tmp_path, tmp_path)
    assert text.count("Pending") == 4
    assert "Table 3" in text and "Figure 5" in text


@pytest.mark.slow
def test_table3_through_the_pipeline_and_resume(tmp_path, tmp_path_factory):
    from kalma_graph.cli.main import cli

    store = sample_store_path(tmp_path_factory)
    release_sample_store()
    out, md = tmp_path / "paper", tmp_path / "results.md"
    args = ["experiment", "paper", "--questions", f"{BUILT}.questions.jsonl", "--gold", f"{BUILT}.gold.jsonl",
            "--setting", "smollm2-135m:model", "--setting", "smollm2-135m:attribute-first", "--parts", "table3",
            "--limit", "2", "--max-tokens", "40", "--nli", str(NLI), "--store", f"embedded:{store}",
            "--out", str(out), "--results-md", str(md), "--no-plots", "--json"]
    first = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    table3 = json.loads((out / "table3" / "experiment.json").read_text())
    assert [r["setting"] for r in table3["rows"]] == ["smollm2-135m__model", "smollm2-135m__attribute-first"]
    assert all(r["answers"] == 2 and len(r["model_sha256"]) == 64 for r in table3["rows"])
    answers = (out / "table3" / "smollm2-135m__attribute-first" / "answers.jsonl").read_text().splitlines()
    assert [json.loads(line)["cite"] for line in answers] == ["attribute-first"] * 2
    page = md.read_text()
    assert "**ours** smollm2-135m__attribute-first" in page and "paper LLaMA-7B" in page
    assert page.count("Pending") == 4  # Table 4 (no judge), Table 5, Figure 5, Table 7
    # Resumed: nothing is answered again, the same rows come back.
    before = (out / "table3" / "smollm2-135m__model" / "answers.jsonl").read_bytes()
    again = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert (out / "table3" / "smollm2-135m__model" / "answers.jsonl").read_bytes() == before
    # Re-evaluating the answers on disk loads no answering model at all.
    from kalma_graph.evaluation.gold import load_gold
    from kalma_graph.experiments import ExperimentSettings, load_questions
    from kalma_graph.experiments.paper import strategies

    def refuse(model):
        raise AssertionError(f"reuse_answers must not load {model}")

    again = strategies(load_questions(f"{BUILT}.questions.jsonl", limit=2), load_gold(f"{BUILT}.gold.jsonl"),
                       store=None, ner=None, load_llm=refuse,
                       settings=ExperimentSettings(out_dir=out / "table3", reuse_answers=True, plots=False),
                       rows_of=[StrategySetting("smollm2-135m", "model"),
                                StrategySetting("smollm2-135m", "attribute-first")],
                       nli=None)
    assert [r["answers"] for r in again["rows"]] == [2, 2]


def test_results_page_carries_the_paper_questions_section(tmp_path):
    natural = tmp_path / "natural"
    natural.mkdir()
    (natural / "README.md").write_text(
        "| strategy | asked recall |\n|---|---|\n| grounded | 70.0 |\n", encoding="utf-8")
    text = results_markdown(tmp_path, tmp_path, natural=natural)
    assert "## The paper's own questions" in text and "| grounded | 70.0 |" in text
    assert "The paper's own questions" not in results_markdown(tmp_path, tmp_path)
