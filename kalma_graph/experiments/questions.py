"""Question sets for the experiments, as the answer pipeline reads them
(`kalma_graph.pipeline.answer.load_questions`), so question ids — and the ids of gold sets — are the
ids `kalma-graph answer` writes: `<file stem>:<index>` for BioKaLMA files
(`complex_question_graph:907`), the `id` field for JSON lines.

For the general-vs-specific experiment, `merge_variants(general, specific)` pairs entry i of
BioKaLMA's `simple_…` (general) and `complex_…` (specific) files — they ask about the same people —
into one question holding both wordings, under the specific file's id; answering it with
`variant="general"` or `"specific"` picks the wording, and one gold set serves both.
"""

from __future__ import annotations

import os
from typing import Sequence

from kalma_graph.pipeline.answer import Question, default_variant, load_questions as _pipeline_load_questions

__all__ = ["Question", "default_variant", "load_questions", "merge_variants"]


def load_questions(path: str | os.PathLike[str], *, limit: int | None = None,
                   ids: set[str] | None = None) -> list[Question]:
    """The pipeline's questions from a BioKaLMA file or JSON lines; `ids` keeps only those, `limit`
    the first N of what is left."""
    questions = _pipeline_load_questions(path)
    if ids is not None:
        questions = [q for q in questions if q.id in ids]
    return questions[:limit] if limit is not None else questions


def merge_variants(general: Sequence[Question], specific: Sequence[Question]) -> list[Question]:
    """One question per entry with both wordings (see the module doc); the files must be aligned."""
    if len(general) != len(specific):
        raise ValueError(f"the general and specific files differ in length ({len(general)} vs {len(specific)})")
    merged = []
    for index, (g, s) in enumerate(zip(general, specific)):
        if set(g.reference_qids) != set(s.reference_qids):
            raise ValueError(f"entry {index}: the general and specific questions name different entities "
                             f"({list(g.reference_qids)} vs {list(s.reference_qids)}); are the files aligned?")
        merged.append(Question(id=s.id, text=s.text, variant_texts={"general": g.text, "specific": s.text},
                               reference_qids=s.reference_qids))
    return merged
