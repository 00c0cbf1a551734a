"""What the SCK LLM judges write, as pydantic models: the KG-AttrScore judge's JSON
(`prompts/sck/kg_attr.json`) and the intent classifier's (`prompts/sck/intent_llm.json`).

The models are the output contract; decoding is constrained by the prompt files' hand-written GBNF
grammars, whose language these models accept (tests/unit/test_sck_judge_outputs.py samples it). A
schema-generated grammar (`LlamaGrammar.from_json_schema`, llama-cpp-python 0.3.36) is not used:
that converter ignores `minimum`/`maximum` (the triplet numbers would need an `enum` per call) and
its string rule admits raw control characters, which no JSON parser reads back; the hand grammar
excludes newlines.

Reading an output: `AttrJudgeOutput.read(text, n_triplets)` / `IntentOutput.read(text)` raise
`pydantic.ValidationError` for anything else (not JSON, a word outside the labels, a triplet number
not listed in the call, a rationale over 400 characters); the judges then fall back to their lenient
reading of unconstrained output, and failing that record the judgement as missing.
"""

from __future__ import annotations

import json
import re
from typing import Iterator, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from kalma_graph.sck.base import INTENTS

# The bounds of the kg_attr grammar: `number ( "," ws number ){0,4}` and `{0,400}` string characters.
MAX_RELEVANT = 5
MAX_RATIONALE = 400

Decision = Literal["Attributable", "Contradictory", "Extrapolatory"]
Intent = Literal[INTENTS]  # type: ignore[valid-type]  # the seven intents of sck.base, in order


class AttrJudgeOutput(BaseModel):
    """One KG-AttrScore judgement: `{"decision": …, "relevant_triplets": [1-based numbers], "rationale": …}`."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    relevant_triplets: list[int] = Field(max_length=MAX_RELEVANT)
    rationale: str = Field(max_length=MAX_RATIONALE)

    @field_validator("relevant_triplets")
    @classmethod
    def _listed(cls, numbers: list[int], info: ValidationInfo) -> list[int]:
        # The call lists triplets 1..n (`n_triplets` in the validation context); any other number
        # names nothing the judge was shown.
        n = (info.context or {}).get("n_triplets")
        unlisted = [k for k in numbers if k < 1 or (n is not None and k > n)]
        if unlisted:
            raise ValueError(f"triplet number(s) {unlisted} not among the {n} listed" if n is not None
                             else f"triplet number(s) {unlisted} below 1")
        return numbers

    @classmethod
    def read(cls, text: str, n_triplets: int) -> "AttrJudgeOutput":
        """The output as the grammar writes it (surrounding whitespace aside); ValidationError otherwise."""
        return cls.model_validate_json(text.strip(), context={"n_triplets": n_triplets})


class IntentOutput(BaseModel):
    """One intent classification: `{"intent": "<one of the seven intents>"}`."""

    model_config = ConfigDict(extra="forbid")

    intent: Intent

    @classmethod
    def read(cls, text: str) -> "IntentOutput":
        return cls.model_validate_json(text.strip())


__all__ = ["MAX_RATIONALE", "MAX_RELEVANT", "AttrJudgeOutput", "IntentOutput"]


def json_objects(text: str) -> Iterator[dict]:
    """Every JSON object embedded in free text, in order: how unconstrained decoding's output is
    read when it is not the grammar's (prose around the object, a cut-off tail)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            yield obj
