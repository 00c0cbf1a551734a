"""The verifier's typed records: what goes in (an answer and the graph it may rest on) and what comes out
(a verdict per cited triple, a status per claim, a summary per sentence and answer).

These cross package boundaries (evaluate, verify, cite strategies, SCK, CAQA, the results graph), so they
are pydantic models with stable field names; `model_dump()` is the JSON `kalma-graph verify` writes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["supported", "partial", "unsupported"]
VERDICTS: tuple[Verdict, ...] = ("supported", "partial", "unsupported")
# A claim's status against the graph: held by one of the sentence's citations; held by a triple the model
# was shown (or the store holds) but did not cite; not held at all; or contradicted by another value the
# graph holds for a single-valued relation (place of birth, father, ...).
ClaimStatus = Literal["supported", "supported_uncited", "absent", "contradicted"]
CLAIM_STATUSES: tuple[ClaimStatus, ...] = ("supported", "supported_uncited", "absent", "contradicted")
# Claims that state a fact (beside evaluations and left-over words): what SCK and CAQA judge on.
FACT_KINDS = ("value", "name", "date", "number", "relation")


def evidence_text(subject: str, label: str, value: str) -> str:
    """How a claim names the triple that holds or contradicts it: `Q22670, place of birth: Marbach am Neckar`."""
    return f"{subject}, {label}: {value}"


def evidence_triple(text: str | None) -> tuple[str, str, str] | None:
    """The triple of an `evidence_text` (labels may hold commas, subject ids do not)."""
    if not text or ", " not in text:
        return None
    subject, rest = text.split(", ", 1)
    label, sep, value = rest.partition(": ")
    return (subject, label, value) if sep else None


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GraphTriple(_Model):
    """A statement as the verifier reads it: the subject id, the property label (and pid when known), the
    value as shown and, for an entity value, its id."""

    subject: str
    label: str
    value: str
    pid: str = ""
    object_id: str | None = None
    datatype: str | None = None


class GraphEntity(_Model):
    """An entity the answer may speak of: its id, name and aliases."""

    id: str
    name: str | None = None
    aliases: tuple[str, ...] = ()


class CitedTriple(_Model):
    subject: str
    relation: str
    value: str


class AnswerInput(_Model):
    """One answer to verify. `sentences` are (text without marks, cited triples) in order; `shown` is the
    graph the model was shown (citations are checked against it); `entities` name its subjects and values.
    An answer from another LLM has no citations: every claim is then checked against `shown` alone."""

    id: str = "answer"
    question: str = ""
    sentences: list[tuple[str, list[CitedTriple]]]
    shown: list[GraphTriple] = []
    entities: list[GraphEntity] = []
    # `shown` is already each subject's whole one-hop in the verifier's store (`text_input` fetched it there): the
    # verifier does not fetch it again
    shown_is_store: bool = False


class CitationCheck(_Model):
    """One cited triple judged against its sentence (rules: alignment-labels.md)."""

    subject: str
    relation: str
    value: str
    verdict: Verdict
    score: float = Field(ge=0.0, le=1.0)  # calibrated support: ≥ 0.5 means supported
    reason: str
    in_graph: bool  # the triple is one the model was shown
    stage: Literal["structure", "model"] = "structure"
    outcome: str = ""  # the structural outcome (`supported_cue`, `unsupported_bystander`, ...): stage two's feature


class Claim(_Model):
    """A piece of a sentence that states something: a value (entity, literal, date), an unlinked name, a
    relation with its value, or an evaluation ("prestigious")."""

    text: str
    kind: Literal["value", "name", "date", "number", "relation", "evaluation", "words"]
    about: str | None = None  # entity id the claim is about, when known
    relation: str | None = None
    status: ClaimStatus
    evidence: str | None = None  # the triple that holds it, or the one that contradicts it
    reason: str = ""

    @property
    def held(self) -> bool:
        """The graph holds it, cited or not."""
        return self.status in ("supported", "supported_uncited")


class SentenceCheck(_Model):
    position: int
    text: str
    citations: list[CitationCheck]
    claims: list[Claim]
    fully_supported: bool  # every claim is held by the sentence's own supported citations
    about: list[str] = []  # the entity ids the sentence speaks of (pronouns resolved)

    def facts(self) -> list[Claim]:
        """The claims that state a fact (`FACT_KINDS`)."""
        return [c for c in self.claims if c.kind in FACT_KINDS]


class AnswerCheck(_Model):
    id: str
    question: str = ""
    sentences: list[SentenceCheck]
    verifier: dict = {}

    @property
    def citations(self) -> list[CitationCheck]:
        return [c for s in self.sentences for c in s.citations]

    def counts(self) -> dict[str, int]:
        """Citations by verdict and claims by status, for reports."""
        out = {v: 0 for v in VERDICTS} | {f"claims_{s}": 0 for s in CLAIM_STATUSES}
        for s in self.sentences:
            for c in s.citations:
                out[c.verdict] += 1
            for claim in s.claims:
                out[f"claims_{claim.status}"] += 1
        out["sentences"] = len(self.sentences)
        out["fully_supported"] = sum(1 for s in self.sentences if s.fully_supported)
        return out
