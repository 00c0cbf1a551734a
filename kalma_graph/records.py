"""The answer record: one line of an answers file, as `kalma-graph answer` writes it and
`kalma-graph evaluate` (and the experiments that run both) read it back.

One pydantic model per shape that crosses a package boundary, instead of a dict each side checks by
hand. The module imports nothing of kalma_graph, so every layer may use it (docs/architecture.md).

Compatibility: every model allows extra keys (an older or newer writer's additions travel along
unchanged), and `to_json_dict` dumps only the keys a record was built or read with, in the order
the pipeline writes them, so a record read from a file is written back as it was.
The documented schema (docs/answer.md) is `AnswerRecord.model_json_schema()`; a test compares them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow")

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object this record is written as: the keys it was built or read with."""
        return self.model_dump(mode="json", exclude_unset=True)


class TripleRecord(_Record):
    """A statement of the graph: `subject` (an entity id), property `label` (and id `pid`), `value`."""

    subject: str
    pid: str | None = None  # hand-written files may leave the property id out
    label: str
    value: str
    object_id: str | None = None  # the value's entity id when the value is an entity
    datatype: str | None = None


class CandidateRecord(_Record):
    """An entity a mention could link to (older files name the fields `qid` / `label`: kept as extras)."""

    id: str | None = None
    name: str | None = None
    score: int | float | None = None
    types: list[str] | None = None
    matched_labels: list[str] | None = None

    def entity_name(self) -> tuple[str, str] | None:
        """(id, name) when both are known, under either spelling."""
        eid = self.id or (self.model_extra or {}).get("qid")
        name = self.name or (self.model_extra or {}).get("label")
        return (eid, name) if isinstance(eid, str) and isinstance(name, str) and name else None


class LinkedEntity(_Record):
    """One NER (or graph) mention and the entity it was linked to, with every candidate considered."""

    mention: str | None = None
    ner_label: str | None = None
    source: str | None = None
    selected: str | CandidateRecord | None = None  # the entity id (older files: the candidate itself)
    reason: str | None = None
    candidates: list[CandidateRecord | str] = []


class CitationRecord(_Record):
    """A citation mark `[qid, prop: value]` as the parser read it."""

    qid: str
    prop: str
    value: str
    sloppy: bool = False  # written in a form the parser had to repair


class SentenceRecord(_Record):
    """One sentence of the answer, its text without marks, its `[NA]` flag and its citations."""

    text: str
    clean_text: str = ""
    na: bool = False
    citations: list[CitationRecord] = []


class PlacementRecord(_Record):
    """Where a post-hoc citer placed citations: the candidates tried for a sentence, with their
    entailment probability, and those cited."""

    sentence: str
    candidates: list[tuple[str, str, str, float]] = []  # (subject, label, value, probability)
    cited: list[tuple[str, str, str]] = []  # (subject, label, value)


class AnswerRecord(_Record):
    """One answered question (docs/answer.md, "Output schema")."""

    id: str | int  # the pipeline writes strings; hand-written files may number their questions
    question: str | None = None
    variant: str | None = None
    entities: list[LinkedEntity] = []
    retrieval_reason: str | None = None
    retrieved: list[TripleRecord] = []  # everything retrieval found
    removed: list[TripleRecord] = []  # withheld from the prompt by a knowledge filter
    prompt_sha256: str | None = None
    cite: str | None = None
    answer: str  # with canonical citation marks
    raw_answer: str | None = None  # what the model wrote
    sentences: list[SentenceRecord] | None = None
    n_sloppy: int | None = None
    finish_reason: str | None = None
    truncated: bool | None = None
    model: dict[str, Any] | None = None  # the answering model: file, sha256, device, ...
    params: dict[str, Any] | None = None  # every setting of the run
    timings: dict[str, float] | None = None
    placements: list[PlacementRecord] | None = None  # post-hoc citing only
    shown: list[TripleRecord] | None = None  # with a knowledge filter only: the triples the prompt showed
    # With a knowledge filter only: id -> name of each entity whose knowledge block the prompt showed
    # (a retrieval ablation shows other people than the linked ones; `name: <name>` cites that line).
    shown_names: dict[str, str] | None = None
    # `--cite grounded` only: how the sentence-by-sentence loop went (candidates, re-samples, [NA], stop reason)
    grounding: dict[str, Any] | None = None
    # shown statements left out of the knowledge block because their object has no label (`Q6625963`)
    unlabelled_left_out: int = 0

    @field_validator("retrieved", "removed", "entities", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value  # older files wrote null for "none"

    @property
    def was_truncated(self) -> bool:
        """Generation stopped at the token cap (older files only say so by the finish reason)."""
        return bool(self.truncated or self.finish_reason == "length")

    def shown_triples(self) -> list[TripleRecord]:
        """The graph shown to the model: `shown` when recorded, else `retrieved` minus `removed`."""
        if self.shown is not None:
            return list(self.shown)
        withheld = {_triple_key(t) for t in self.removed}
        return [t for t in self.retrieved if _triple_key(t) not in withheld]

    def entity_names(self) -> dict[str, str]:
        """Entity id -> name from the knowledge blocks shown (`shown_names`) and the entity-linking
        output (selected entity and candidates)."""
        names: dict[str, str] = dict(self.shown_names or {})
        for entity in self.entities:
            selected = entity.selected
            if isinstance(selected, CandidateRecord):
                found = selected.entity_name()
                if found:
                    names.setdefault(*found)
            for candidate in entity.candidates:
                found = candidate.entity_name() if isinstance(candidate, CandidateRecord) else None
                if found:
                    names.setdefault(*found)
            # the mention only where no candidate gives the graph's name: "General Tipu Sultan" links Tipu
            # Sultan (the honorific stripped), whose name the answer writes, not the question's words
            if isinstance(selected, str) and entity.mention:
                names.setdefault(selected, entity.mention)
        return names

    def stored_citations(self) -> list[list[str]] | None:
        """Every citation the writer parsed, in order, as [qid, prop, value]; None when not recorded."""
        if self.sentences is None:
            return None
        return [[c.qid, c.prop, c.value] for s in self.sentences for c in s.citations]


def _triple_key(t: TripleRecord) -> tuple:
    # what makes two triples the same statement (the store's Triple equality)
    return (t.subject, t.pid or "", t.label, t.value, t.object_id, t.datatype)


def describe_error(error: ValidationError) -> str:
    """The first problem of a validation error, naming the field: `retrieved[0].label: Field required`."""
    first = error.errors()[0]
    where = ""
    for part in first["loc"]:
        where += f"[{part}]" if isinstance(part, int) else (f".{part}" if where else str(part))
    given = "" if first["type"] == "missing" else f" (got {first['input']!r:.80})"
    more = error.error_count() - 1
    return f"{where or 'record'}: {first['msg']}{given}" + (f"; and {more} more problem(s)" if more else "")


__all__ = [
    "AnswerRecord",
    "CandidateRecord",
    "CitationRecord",
    "LinkedEntity",
    "PlacementRecord",
    "SentenceRecord",
    "TripleRecord",
    "describe_error",
]
