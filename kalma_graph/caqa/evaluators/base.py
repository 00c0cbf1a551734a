"""The one evaluator interface and the label parser every LLM-based evaluator shares.

An evaluator maps (question, answer statement, citation) to one of the four categories — or, for a
2-way (AutoAIS-style) evaluator, to `supportive` / `not_supportive` — with a rationale where it has
one. A judge output that names no category, or several, is `label=None` (counted as unparsed in the
report), never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence, runtime_checkable

from kalma_graph.caqa.model import CATEGORIES, CONTRADICTORY, IRRELEVANT, PARTIAL, SUPPORTIVE, Sample


@dataclass
class Judgement:
    label: str | None  # a category, "not_supportive" (2-way), or None = unparseable output
    rationale: str | None = None
    raw: str | None = None  # the model's text, for LLM judges
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "rationale": self.rationale, "raw": self.raw, "detail": self.detail}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Judgement":
        return cls(d.get("label"), d.get("rationale"), d.get("raw"), d.get("detail") or {})


@runtime_checkable
class Evaluator(Protocol):
    name: str

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels it can output (read-only: each evaluator narrows it)."""

    def describe(self) -> dict[str, Any]:
        """What a report header records: model file/hash, prompt versions, parameters."""

    def judge(self, samples: Sequence[Sample]) -> list[Judgement]:
        """One judgement per sample, in order."""

    def supported(self, facts: Sequence[str], citations: Sequence[str]) -> list[bool | None]:
        """FActScore (§6.3): is each sub-fact supported by its citation? None = unparseable."""


# --- label parsing ------------------------------------------------------------------------------

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (PARTIAL,
     re.compile(r"\bpartial(?:ly)?[\s_-]*(?:support\w*|attribut\w*)?|\binsufficient\b|\bincomplete\b|\bmissing\b")),
    (CONTRADICTORY, re.compile(r"\bcontradict\w*|\bconflict\w*|\boppos\w*")),
    (IRRELEVANT, re.compile(r"\birrelevan\w*|\bextrapolatory\b|\bunrelated\b|\bnot relevant\b")),
    (SUPPORTIVE, re.compile(r"\b(?:supportive|attributable|fully support\w*|supports?|supported)\b")),
)
_NEGATION = re.compile(r"(?:\bnot|n't|\bno|\bnor|\bwithout)\s+(?:\w+\s+){0,2}$")
_NUMBERED = {"1": SUPPORTIVE, "2": PARTIAL, "3": CONTRADICTORY, "4": IRRELEVANT}
_LIST_ITEM = re.compile(r"^\W*(?:\d+\s*[.):-]\s*)?")
#: bumped whenever parse_label changes, so stored judgements are not mixed across versions
PARSER_VERSION = 2


def _mentions(text: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for label, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if label == SUPPORTIVE and _NEGATION.search(text[: m.start()]):
                continue  # "does not support", "not supportive"
            found.append((m.start(), label))
    # a partial mention ("partially supportive") also matches "supportive" inside it: drop those
    partial_spans = [(m.start(), m.end()) for m in _PATTERNS[0][1].finditer(text)]
    return sorted((p, lab) for p, lab in found if not (lab == SUPPORTIVE and any(a <= p < b for a, b in partial_spans)))


def parse_label(text: str | None, allowed: Sequence[str] = CATEGORIES) -> str | None:
    r"""The category a judge's output names, or None.

    Looks at the first non-empty line (where Table 12/13 prompts put the category); when that names
    none, at the whole text. A bare option number (`2`, `2.`) maps by the prompts' numbering. An
    output that lists three or more categories — in one line, or as the heads of list items (the
    model echoing the options) — is ambiguous: None.

    >>> parse_label("Insufficient. The reference does not mention the film.")
    'partially_supportive'
    >>> parse_label("Relationship Category: 3. Contradictory")
    'contradictory'
    >>> parse_label("The citation does not support the answer; it is irrelevant.")
    'irrelevant'
    >>> parse_label("Supportive, Insufficient, Contradictory or Irrelevant") is None
    True
    >>> parse_label("1. Supportive: yes.\n2. Insufficient: no.\n3. Contradictory: no.") is None
    True
    >>> parse_label("I cannot tell.") is None
    True
    """
    if not text or not text.strip():
        return None
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    heads = set()
    for line in lines:
        low = line.lower()
        item = _LIST_ITEM.match(low)
        assert item is not None  # every part of the pattern is optional: it matches any line
        leading = [lab for pos, lab in _mentions(low) if pos == item.end() and lab in allowed]
        heads.update(leading[:1])
    if len(heads) >= 3:
        return None
    for scope in (lines[0], " ".join(lines)):
        low = scope.lower()
        numbered = re.match(r"^\W*(?:relationship category:\s*|response:\s*)?([1-4])\s*(?:[.):]|$)", low)
        mentions = _mentions(low)
        distinct = list(dict.fromkeys(lab for _, lab in mentions if lab in allowed))
        if len(distinct) >= 3:
            return None
        if mentions:
            for _, lab in mentions:
                if lab in allowed:
                    return lab
        if numbered and _NUMBERED[numbered.group(1)] in allowed:
            return _NUMBERED[numbered.group(1)]
    return None


def parse_true_false(text: str | None) -> bool | None:
    """FActScore's `True or False?` answer; None when it says neither or both.

    >>> parse_true_false("True"), parse_true_false("false."), parse_true_false("True or False") is None
    (True, False, True)
    """
    if not text:
        return None
    first = text.strip().splitlines()[0].lower() if text.strip() else ""
    words = set(re.findall(r"\b(true|false|yes|no)\b", first))
    yes, no = bool(words & {"true", "yes"}), bool(words & {"false", "no"})
    if yes == no:
        return None
    return yes


def final_label(fact_labels: Sequence[str | None]) -> str | None:
    """Appendix E.3, step 3: the overall category from the atomic facts' categories.

    Contradictory if any fact is contradicted; supportive if all are supported; partially
    supportive if at least one is supported (and none contradicted); irrelevant if none is. Any
    unparsed fact label, or no facts, makes the result None.

    >>> final_label(["supportive", "irrelevant"]), final_label(["supportive", "contradictory"])
    ('partially_supportive', 'contradictory')
    """
    if not fact_labels or any(lab is None for lab in fact_labels):
        return None
    if CONTRADICTORY in fact_labels:
        return CONTRADICTORY
    if all(lab == SUPPORTIVE for lab in fact_labels):
        return SUPPORTIVE
    if SUPPORTIVE in fact_labels:
        return PARTIAL
    return IRRELEVANT


def claim_text(sample: Sample) -> str:
    """AutoAIS's claim: the question and the answer statement."""
    return f"{sample.claim_question} {sample.answer_statement}".strip()
