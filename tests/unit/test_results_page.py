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
    rows = [line for line in section.splitlines() if line.startswith("| attribute-first") or line.startswith("| grounded")]
    assert rows[0].startswith("| attribute-first | 0 | 40 | — | 53.1 | n/a |")  # scored before the verifier: NLI only
    assert rows[1].startswith("| grounded | 0 | 40 | 100.0 | 79.0 | 85.0 |")
    assert "`grounded`: N = 40 questions" in section
    assert "Pending: `figure5` has not been run yet." in page
