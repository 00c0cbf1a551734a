"""A re-evaluation that asks no model again: the stored `results.json` of an output directory is reused when
it scored the same answers with the same choices and models (`evaluate.reusable_result`), and G-Eval's
judgements carry over to answers judged earlier; and the id a run is written under in the store."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from kalma_graph.evaluation_result import AnswersSource, EvaluationResult
from kalma_graph.files import json_sha256


def stored_result(path: Path) -> EvaluationResult | None:
    """The results.json at `path`, or None when there is none or it cannot be read (another version:
    evaluate again)."""
    if not path.is_file():
        return None
    try:
        return EvaluationResult.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError, OSError):
        return None


def judged_earlier(stored: EvaluationResult, *, answers_sha256: str | None) -> bool:
    """Whether a stored report holds G-Eval judgements of this very answers file (sha256): a re-evaluation
    without `--judge` (a new alignment judge, say) keeps them instead of dropping Table 4."""
    same = (answers_sha256 is not None and stored.header.answers is not None
            and stored.header.answers.sha256 == answers_sha256)
    return same and stored.metrics.geval is not None and bool(stored.header.judge)


def carry_geval(results: EvaluationResult, earlier: EvaluationResult) -> None:
    """Copy an earlier evaluation's G-Eval judgements of the same answers into `results` (summary, metric
    part, judge, choices, per-answer scores) and say so in its notes: G-Eval reads only the answers, so
    its judgements stand whatever else the evaluation changed."""
    results.metrics.geval = earlier.metrics.geval
    results.skipped.pop("geval", None)
    for key, value in (earlier.summary.model_extra or {}).items():
        if key.startswith("geval_"):
            setattr(results.summary, key, value)
    choices = {k: v for k, v in earlier.header.choices.items() if k.startswith("geval.")}
    results.header = results.header.model_copy(update={"judge": earlier.header.judge,
                                                       "choices": {**results.header.choices, **choices}})
    scores = {row.id: {k: v for k, v in (row.model_extra or {}).items() if k.startswith("geval_")}
              for row in earlier.per_answer}
    for row in results.per_answer:
        for key, value in scores.get(row.id, {}).items():
            setattr(row, key, value)
    results.notes.append(f"G-Eval judgements carried over from the evaluation of {earlier.header.evaluated_at} "
                         "(same answers file, sha256; no --judge given this time).")


def default_run_id(results: EvaluationResult) -> str:
    """`<answers file stem>-<12 hex>` (the folder's name for a file called `answers.*`): the same answers,
    gold, choices and models give the same id, so evaluating again replaces the run in the graph instead of adding a
    second one."""
    header = results.header
    answers = header.answers or AnswersSource()
    basis = {
        "answers": answers.sha256,
        "gold": header.gold.sha256 if header.gold else None,
        "choices": header.choices,
        "nli": (header.nli or {}).get("model_hash"),
        "judge": (header.judge or {}).get("model_sha256"),
    }
    path = Path(answers.path or "answers")
    stem = path.name.split(".")[0] or "answers"
    if stem == "answers" and path.parent.name:  # experiments: <out>/<setting>/answers.jsonl
        stem = path.parent.name
    return f"{stem}-{json_sha256(basis, default=str)[:12]}"
