"""The attribution interface: a statement and the triples it rests on in, a verdict out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Sequence, runtime_checkable

from kalma_graph.verification import Claim, GraphEntity, GraphTriple
from kalma_graph.verification.records import FACT_KINDS

Label = Literal["supported", "partial", "contradicted", "unsupported"]
#: every verdict's label: the triples hold everything the statement states, some of it, contradict it, or none of it
LABELS: tuple[Label, ...] = ("supported", "partial", "contradicted", "unsupported")


@dataclass(frozen=True)
class StatementCase:
    """One statement to judge: the question it answers, its text (citation marks stripped), the triples it
    rests on (the citation, or the graph around its entities) and the names of those triples' entities."""

    question: str
    statement: str
    triples: tuple[GraphTriple, ...]
    entities: tuple[GraphEntity, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """An evaluator's verdict on one statement: its label and the claims behind it (a model-based evaluator
    may give a `score` and no claims)."""

    label: Label
    claims: tuple[Claim, ...] = ()  # every claim of the statement, with its status against the triples
    score: float | None = None  # the evaluator's confidence that the statement is supported, when it has one
    detail: dict[str, Any] = field(default_factory=dict)

    def facts(self, status: str | None = None) -> list[Claim]:
        """The claims that state a fact (a value, name, date, number), those of one `status` if given;
        `held` for the supported ones, cited or not."""
        facts = [c for c in self.claims if c.kind in FACT_KINDS]
        if status == "held":
            return [c for c in facts if c.held]
        return facts if status is None else [c for c in facts if c.status == status]

    def claims_detail(self) -> dict[str, Any]:
        """What a report keeps of the claims: each one as the verifier wrote it."""
        return {"claims": [c.model_dump(exclude_none=True) for c in self.claims]}


@runtime_checkable
class AttributionEvaluator(Protocol):
    name: str

    def describe(self) -> dict[str, Any]:
        """What a report header records of it: model files and hashes, versions, parameters."""

    def attribute(self, cases: Sequence[StatementCase]) -> list[Verdict]:
        """One verdict per case, in order."""
