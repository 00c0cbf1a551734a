"""Answers files as the evaluation reads them: the records of `kalma-graph answer` (and their sidecar header), each
turned into what the metrics score (`ScoredAnswer`: the graph it was shown, its parsed citations, the names of
its subjects)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from pydantic import ValidationError

from kalma_graph.errors import BadInputError
from kalma_graph.files import file_sha256
from kalma_graph.kg.citations import ParsedAnswer, known_pairs, known_props, parse_answer
from kalma_graph.kg.knowledge import knowledge_block
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.records import AnswerRecord, TripleRecord, describe_error


class AnswersFileError(BadInputError, ValueError):
    """An answers file line that cannot be read; the message starts with `file:line:`."""


@dataclass
class AnswersFile:
    path: Path | None
    records: list[AnswerRecord]
    header: dict | None = None  # the sidecar `<answers>.header.json`, when present
    header_path: Path | None = None
    sha256: str | None = None


@dataclass
class ScoredAnswer:
    """One record as the evaluation sees it."""

    id: str
    question: str
    variant: str | None
    text: str
    retrieved: list[Triple]  # everything retrieval found
    removed: list[Triple]  # withheld from the prompt by a knowledge filter (the [NA] absent set)
    shown: list[Triple]  # the graph in the prompt: citations are checked against it
    parsed: ParsedAnswer
    subject_names: dict[str, str]
    record: AnswerRecord = field(repr=False)


# --- reading -------------------------------------------------------------------------------------


def header_path_for(path: Path) -> Path | None:
    """The sidecar header of an answers file: `<file>.header.json` or `<stem>.header.json`."""
    for candidate in (path.with_name(path.name + ".header.json"), path.with_suffix(".header.json")):
        if candidate.is_file() and candidate != path:
            return candidate
    return None


def read_answers(path: str | os.PathLike[str]) -> AnswersFile:
    """Read an answers JSONL file (plain or compressed) and its sidecar header, checking each line."""
    from kalma_graph.lines import json_lines

    path = Path(path)
    records: list[AnswerRecord] = []
    seen: set[str] = set()
    for where, raw in json_lines(path, what="answers file", error=AnswersFileError,
                                 hint="; a run cut off mid-line? re-run `kalma-graph answer` to finish the file"):
        record = answer_record(raw, where)
        if str(record.id) in seen:
            raise AnswersFileError(f"{where}: answer id {record.id!r} appears twice")
        seen.add(str(record.id))
        records.append(record)
    header_path = header_path_for(path)
    header = json.loads(header_path.read_text(encoding="utf-8")) if header_path else None
    return AnswersFile(path, records, header, header_path, file_sha256(path))


def answer_record(record: AnswerRecord | Mapping[str, Any], where: str = "record") -> AnswerRecord:
    """The record checked against the answers-file schema; `AnswersFileError` naming `where` and the field."""
    if isinstance(record, AnswerRecord):
        return record
    if not isinstance(record, Mapping):
        raise AnswersFileError(f"{where}: an answer record is a JSON object")
    try:
        return AnswerRecord.model_validate(record)
    except ValidationError as exc:
        raise AnswersFileError(f"{where}: {describe_error(exc)}") from None


def to_triple(row: TripleRecord) -> Triple:
    return Triple(subject=row.subject, pid=row.pid or "", label=row.label, value=row.value,
                  object_id=row.object_id, datatype=row.datatype)


def name_triples(triples: Sequence[Triple], names: Mapping[str, str]) -> list[Triple]:
    """`(id, name, <name>)` for each subject with a known name: the knowledge block's name line."""
    subjects = dict.fromkeys(t.subject for t in triples)
    return [Triple(subject=s, pid="", label="name", value=names[s]) for s in subjects if names.get(s)]


def scored_answer(record: AnswerRecord | Mapping[str, Any],
                  extra_names: Mapping[str, str] | None = None) -> ScoredAnswer:
    record = answer_record(record)
    retrieved = [to_triple(t) for t in record.retrieved]
    removed = [to_triple(t) for t in record.removed]
    shown = [to_triple(t) for t in record.shown_triples()]
    names = dict(extra_names or {}) | record.entity_names()
    # What the parser knows: everything the model saw or could have seen, as the pipeline passes it.
    everything = retrieved + removed + shown
    subjects = [Entity(s, name=names.get(s)) for s in dict.fromkeys(t.subject for t in everything)]
    known, pairs = known_props(subjects, everything), known_pairs(subjects, everything)
    return ScoredAnswer(
        id=str(record.id),
        question=str(record.question or ""),
        variant=record.variant,
        text=record.answer,
        retrieved=retrieved,
        removed=removed,
        shown=shown,
        parsed=parse_answer(record.answer, known or None, pairs or None),
        subject_names=names,
        record=record,
    )


def clean_answer(parsed: ParsedAnswer) -> str:
    """The answer without citation marks (what G-Eval judges)."""
    return " ".join(s.clean_text for s in parsed.sentences if s.clean_text)


def knowledge_text(triples: Sequence[Triple], names: Mapping[str, str]) -> str:
    """The graph shown to the model as KaLMA knowledge blocks, one per subject (seed 000, Table 13)."""
    by_subject: dict[str, list[Triple]] = {}
    for t in triples:
        by_subject.setdefault(t.subject, []).append(t)
    return "\n".join(knowledge_block(Entity(id=s, name=names.get(s)), ts) for s, ts in by_subject.items())
