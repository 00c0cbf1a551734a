"""docs/results.md's page: each strategy's runs beside the paper's rows, alignment by the verifier and by NLI in
their own columns (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path

from kalma_graph.reporting.paper import results_markdown


def _experiment(folder: Path, part: str, rows: list[dict], cite: str | None = None) -> None:
    (folder / part).mkdir(parents=True)
    header = {"questions": 40, "seed": 0, "answer_variant": "specific"}
    if cite:
        header["rows_of"] = [{"model": "qwen", "cite": cite}]
    (folder / part / "experiment.json").write_text(json.dumps({"header": header, "rows": rows}), encoding="utf-8")


def test_a_second_strategy_s_runs_stand_beside_the_headline_s_with_both_alignment_judges(tmp_path):
    root = tmp_path / "paper"
    old = {"setting": 0, "answers": 40, "alignment_micro": 0.531, "f1_micro": 0.25, "correctness": 1.0}  # NLI only
    new = {"setting": 0, "answers": 40, "alignment_micro": 1.0, "alignment_method": "verifier",
           "alignment_nli_micro": 0.79, "fully_supported_share": 0.85, "f1_micro": 0.41, "correctness": 1.0}
    _experiment(root, "table5", [old])
    _experiment(tmp_path / "paper-grounded", "table5", [new], cite="grounded")
    page = results_markdown(root, tmp_path)
    section = page[page.index("## Table 5"):page.index("## Figure 5")]
    rows = [line for line in section.splitlines() if line.startswith("| attribute-first")
            or line.startswith("| grounded")]
    assert rows[0].startswith("| attribute-first | 0 | 40 | — | 53.1 | n/a |")  # scored before the verifier: NLI only
    assert rows[1].startswith("| grounded | 0 | 40 | 100.0 | 79.0 | 85.0 |")
    assert "`grounded`: N = 40 questions" in section
    assert "Pending: `figure5` has not been run yet." in page


def test_a_rerun_of_table3_heads_the_page_and_the_previous_dataset_s_tables_stand_in_marked(tmp_path):
    """Issue 33: Table 3 re-run on the rebuilt questions is the headline; the previous dataset's Table 3 follows
    (a held-out test set), and its Table 5 stands in for the part the re-run has not run, saying so."""
    rerun, previous = tmp_path / "table3_rebuilt", tmp_path / "paper"
    row = {"setting": "qwen__grounded", "answers": 40, "alignment_micro": 1.0, "alignment_method": "verifier",
           "alignment_nli_micro": 0.9, "fully_supported_share": 0.95, "f1_micro": 0.5, "correctness": 1.0}
    _experiment(rerun, "table3", [row])
    _experiment(previous, "table3", [{**row, "setting": "qwen__attribute-first", "f1_micro": 0.254}])
    _experiment(previous, "table5", [{"setting": 0, "answers": 40, "f1_micro": 0.259, "correctness": 1.0}])
    page = results_markdown(rerun, tmp_path, previous=previous)
    head, rest = page.split("### Table 3 on the previous dataset")
    assert "**ours** qwen__grounded" in head and "paper GPT-4 (0.5)" in head and "qwen__attribute-first" not in head
    assert "**ours** qwen__attribute-first" in rest.split("## Table 5")[0]
    assert "| attribute-first (on the previous dataset, paper) | 0 | 40 |" in page
    assert "Pending: `figure5` has not been run yet." in page
    assert results_markdown(rerun, tmp_path).count("### Table 3 on the previous dataset") == 0


def test_a_table5_run_is_labelled_by_the_strategy_its_answers_name(tmp_path):
    # Table 5's experiment.json names no strategy: a grounded run was once labelled attribute-first
    from kalma_graph.reporting.paper import _headline

    answers = tmp_path / "removed_0"
    (answers / "evaluation").mkdir(parents=True)
    (answers / "answers.jsonl.header.json").write_text(json.dumps({"cite": {"strategy": "grounded"}}))
    data = {"header": {"experiment": "conscious"}, "rows": [{"setting": 0, "out_dir": str(answers / "evaluation")}]}
    assert _headline(data) == "grounded"
    assert _headline({"header": {}, "rows": [{"setting": 0}]}) == "attribute-first"  # an older report
