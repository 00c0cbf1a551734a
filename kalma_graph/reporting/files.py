"""The report files of one evaluation run (see the package docstring)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from kalma_graph.evaluation_result import EvaluationResult, ScoredAnswerDetail
from kalma_graph.files import atomic_write_json, atomic_write_text
from kalma_graph.reporting.markdown import summary_markdown

CSV_NAME = "per_answer.csv"
CITATIONS_CSV_NAME = "per_citation.csv"
SENTENCES_CSV_NAME = "per_sentence.csv"
JSON_NAME = "results.json"
DETAILS_NAME = "answers_scored.jsonl"
MARKDOWN_NAME = "summary.md"


def write_report(results: EvaluationResult, out_dir: str | os.PathLike[str], *, plots: bool = True) -> dict[str, Path]:
    """Write every report file into `out_dir` (created) and return their paths by kind.

    Files are written to a temporary name and renamed, so an interrupted run never leaves a
    half-written report that a re-run would mistake for a finished one."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {
        "json": out / JSON_NAME,
        "csv": out / CSV_NAME,
        "citations_csv": out / CITATIONS_CSV_NAME,
        "sentences_csv": out / SENTENCES_CSV_NAME,
        "details": out / DETAILS_NAME,
        "markdown": out / MARKDOWN_NAME,
    }
    if plots:
        from kalma_graph.reporting.plots import evaluation_plots

        for name, path in evaluation_plots(results, out / "plots").items():
            files[f"plot_{name}"] = path
    view = results.model_copy(update={"files": {k: str(v) for k, v in files.items()}})
    # Python-mode dumps, written with json's default=str: a model's describe() may hold a value JSON
    # does not know (a version object), written as its text as it always was.
    atomic_write_json(files["json"], view.model_dump())
    atomic_write_text(files["csv"], per_answer_csv([row.model_dump() for row in results.per_answer]))
    atomic_write_text(files["citations_csv"], per_answer_csv(per_citation_rows(results.answers)))
    atomic_write_text(files["sentences_csv"], per_answer_csv(per_sentence_rows(results.answers)))
    atomic_write_text(files["details"], "".join(json.dumps(a.model_dump(), ensure_ascii=False, default=str) + "\n"
                                                for a in results.answers))
    atomic_write_text(files["markdown"], summary_markdown(view))
    return files


def per_citation_rows(answers: Sequence[ScoredAnswerDetail]) -> list[dict[str, Any]]:
    """One row per citation of every scored answer: where it stands (answer, sentence), what it
    cites, and each verdict the run computed (`correct`, `precise`, `entailment`, `entailed`, …)."""
    rows: list[dict[str, Any]] = []
    for answer in answers:
        for sentence in answer.sentences:
            for k, citation in enumerate(sentence.citations):
                rows.append({"answer_id": answer.id, "sentence": sentence.position, "citation": k,
                             "sentence_text": sentence.clean_text, **citation.model_dump()})
    return rows


def per_sentence_rows(answers: Sequence[ScoredAnswerDetail]) -> list[dict[str, Any]]:
    """One row per sentence: whether its own citations support every claim it makes (the verifier's
    `fully_supported`; empty when the verifier did not run), its claims with their status, and counts."""
    rows: list[dict[str, Any]] = []
    for answer in answers:
        for sentence in answer.sentences:
            extra = sentence.model_extra or {}
            claims = extra.get("claims") or []
            rows.append({"answer_id": answer.id, "sentence": sentence.position, "sentence_text": sentence.clean_text,
                         "citations": len(sentence.citations), "na": sentence.na,
                         "fully_supported": extra.get("fully_supported"),
                         "claims_supported": sum(1 for c in claims if c.get("status") == "supported"),
                         "claims_supported_uncited": sum(1 for c in claims if c.get("status") == "supported_uncited"),
                         "claims_absent": sum(1 for c in claims if c.get("status") == "absent"),
                         "claims_contradicted": sum(1 for c in claims if c.get("status") == "contradicted"),
                         "claims": "; ".join(f"{c.get('text')} [{c.get('status')}]" for c in claims)})
    return rows


def per_answer_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """CSV text with a header of every column any row has (first-seen order); None is empty."""
    import io

    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns or ["id"], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in columns})
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value
