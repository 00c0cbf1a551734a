"""The evaluation result: what `kalma-graph evaluate` computes and writes as `results.json`, typed.

    result = evaluate_records(records, gold=..., nli=...)        # an EvaluationResult
    result.summary.f1_micro, result.per_answer[0].alignment, result.metrics.citation_quality["correct"]
    EvaluationResult.model_validate_json(Path("…/evaluation/results.json").read_text())

Consumers (the graph writer `store/results.py`, `experiments`, `reporting`, the CLI) read attributes
instead of string keys. Like `records.py` it imports nothing of kalma_graph but the metric registry
(`metric_fields.py`, which names the summary's and the rows' fields), so every layer may use it
(docs/architecture.md).

The file format is the contract: `model_dump(mode="json")` is exactly the `results.json` shape,
key order included (docs/evaluate.md, "results.json"), so every results file on disk loads and
dumps back unchanged (a test checks the committed ones). Three rules keep it so:

- keys that only exist in some results (the header's answers-file fields, `run_id`, `store`,
  `files`, the optional metric parts) are written only when set (`_ONLY_WHEN_SET`);
- the scored answers (`answers`) are never written into results.json: they are answers_scored.jsonl;
- numbers keep their type (`Number`): a float field would turn an int 1 into 1.0 in the file.

The metric parts under `metrics` stay loose dicts: they are the metric functions' own return values
(kalma_graph/evaluation/metrics, documented by their cards), not re-declared here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, create_model, model_serializer

from kalma_graph import metric_fields
from kalma_graph.metric_fields import BOOL, FLOAT, INT, PER_ANSWER, STRING, SUMMARY, declared

RESULTS_KIND = "kalma-graph.evaluation"
RESULTS_VERSION = 1

Number = int | float  # smart union: an int stays an int, a float a float (the file keeps its numbers)
MetricPart = dict[str, Any]


class _Result(BaseModel):
    # Extra keys (an older or newer writer's) travel along and are written back after the known ones.
    model_config = ConfigDict(extra="allow")

    _ONLY_WHEN_SET: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _written_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if not self._ONLY_WHEN_SET:
            return out
        return {k: v for k, v in out.items() if k not in self._ONLY_WHEN_SET or k in self.model_fields_set}


# --- header ------------------------------------------------------------------------------------------


class AnswersSource(_Result):
    """The answers file evaluated, and its sidecar header."""

    path: str | None = None
    sha256: str | None = None
    records: int | None = None
    header_path: str | None = None
    header: dict[str, Any] | None = None


class GoldSource(_Result):
    """The gold minimum-knowledge sets: a file (path and sha256) or sets given in memory (path None)."""

    path: str | None = None
    sha256: str | None = None
    questions: int | None = None


class ResultHeader(_Result):
    """Every choice, model and library the figures depend on. The first three keys exist only when a
    file was evaluated (`evaluate_file`), not for records scored in memory (`evaluate_records`)."""

    _ONLY_WHEN_SET = frozenset({"evaluated_at", "answers", "gold"})

    evaluated_at: str | None = None
    answers: AnswersSource | None = None
    gold: GoldSource | None = None
    choices: dict[str, Any] = {}  # "evaluation.matching": "strict", "citation_quality.gold": "full", …
    variants: list[str] = []
    answer_models: list[dict[str, Any]] = []
    answer_params: list[dict[str, Any]] = []
    prompt_sha256: list[str] = []
    nli: dict[str, Any] | None = None  # NLIModel.describe(): name_or_path, model_hash, device, …
    alignment_nli_placed_citations: bool = False
    judge: dict[str, Any] | None = None  # GEvalJudge.describe(): model_file, model_sha256, prompts, …
    libraries: dict[str, str | None] = {}


# --- summary and rows --------------------------------------------------------------------------------


class GEvalSummary(BaseModel):
    """One G-Eval aspect's figures in the summary."""

    mean: Number | None
    missing: int | None
    mass: Number | None


def _record_fields(fields: tuple[metric_fields.Field, ...], required: frozenset[str]) -> dict[str, Any]:
    """pydantic field definitions for the registry's fields (metric_fields.py), in its order."""
    python: dict[str, Any] = {INT: int, FLOAT: Number, BOOL: bool, STRING: str}  # kind -> a type or a union
    return {f.name: (python[f.kind], ...) if f.name in required else (python[f.kind] | None, f.default)
            for f in declared(fields)}


def _only_when_set(fields: tuple[metric_fields.Field, ...]) -> frozenset[str]:
    return frozenset(f.name for f in declared(fields) if f.when is not None)


def _first_after_aspects(fields: tuple[metric_fields.Field, ...]) -> str:
    """The first declared field after G-Eval's per-aspect ones: where the records write their extra keys."""
    first_aspect = next(i for i, f in enumerate(fields) if f.each_aspect)
    return next(f.name for f in fields[first_aspect:] if not f.each_aspect)


class _SummaryFields(_Result):
    _ONLY_WHEN_SET = _only_when_set(SUMMARY)
    # G-Eval's per-aspect keys (extras) are written where the registry lists them: before this field.
    _EXTRAS_BEFORE: ClassVar[str] = _first_after_aspects(SUMMARY)

    @model_serializer(mode="wrap")
    def _written_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = _Result._written_keys(self, handler)
        extra = set(self.model_extra or {})
        known = [k for k in out if k not in extra]
        cut = known.index(self._EXTRAS_BEFORE) if self._EXTRAS_BEFORE in known else len(known)
        order = known[:cut] + [k for k in out if k in extra] + known[cut:]
        return {k: out[k] for k in order}

    def geval(self) -> dict[str, GEvalSummary]:
        """Aspect -> its mean score, missing count and mean probability mass on 1-5, in run order."""
        extra = self.model_extra or {}
        aspects = [k[len("geval_"):] for k in extra if k.startswith("geval_") and not k.endswith(("_missing", "_mass"))]
        return {a: GEvalSummary(mean=extra[f"geval_{a}"], missing=extra.get(f"geval_{a}_missing"),
                                mass=extra.get(f"geval_{a}_mass")) for a in aspects}


class _PerAnswerFields(_Result):
    _ONLY_WHEN_SET = _only_when_set(PER_ANSWER)


if TYPE_CHECKING:
    # The fields are the registry's (metric_fields.py), made at import time: for mypy each is an attribute of
    # any type, and the pydantic API (model_dump, model_extra, ...) comes from the base class.
    class ResultSummary(_SummaryFields):
        def __getattr__(self, name: str) -> Any: ...

    class PerAnswerRow(_PerAnswerFields):
        def __getattr__(self, name: str) -> Any: ...
else:
    ResultSummary = create_model(
        "ResultSummary", __base__=_SummaryFields, __module__=__name__,
        __doc__="""The headline figures: the fields of `metric_fields.SUMMARY`, in its order (None where a part
        did not run: never a silent zero). G-Eval adds `geval_<aspect>`, `geval_<aspect>_missing` and
        `geval_<aspect>_mass` per judged aspect (a run's choice, so extra keys, read with `geval()`).""",
        **_record_fields(SUMMARY, frozenset({"answers", "citations"})),
    )

    PerAnswerRow = create_model(
        "PerAnswerRow", __base__=_PerAnswerFields, __module__=__name__,
        __doc__="""One row of per_answer.csv: the fields of `metric_fields.PER_ANSWER`, in its order; G-Eval
        adds `geval_<aspect>` (the aspect's score) at the end.""",
        **_record_fields(PER_ANSWER, frozenset({"id"})),
    )


class CitationVerdicts(_Result):
    """One citation of a scored answer and each verdict the run computed (None: not computed)."""

    qid: str
    prop: str
    value: str
    sloppy: bool = False
    correct: bool | None = None
    precise: bool | None = None
    entailment: Number | None = None
    entailed: bool | None = None


class SentenceVerdicts(_Result):
    """One sentence of a scored answer: its text, its [NA] verdict, its citations."""

    position: int
    text: str = ""
    clean_text: str = ""
    na: bool = False
    na_entails_absent: bool | None = None
    entity_only: list[Any] = []
    citations: list[CitationVerdicts] = []


class ScoredAnswerDetail(_Result):
    """One line of answers_scored.jsonl."""

    id: str
    question: str | None = None
    variant: str | None = None
    answer: str | None = None
    sentences: list[SentenceVerdicts] = []
    geval: dict[str, Any] | None = None


# --- the rest of the result --------------------------------------------------------------------------


class ResultMetrics(_Result):
    """Each metric part's own result (citation_quality, alignment, … as the metric functions return
    them, without their per-answer rows); a part that did not run is absent (see `skipped`)."""

    _ONLY_WHEN_SET = frozenset({"alignment", "na_quality", "geval"})

    citation_quality: MetricPart
    alignment: MetricPart | None = None
    na_quality: MetricPart | None = None
    geval: MetricPart | None = None
    answer_descriptives: MetricPart = {}


class Throughput(_Result):
    answers_per_second: Number | None = None
    nli_pairs: int = 0
    nli_seconds: Number = 0.0
    nli_pairs_per_second: Number | None = None


class RunWritten(_Result):
    """What writing the run into a graph store wrote (`store.results.write_run`)."""

    uri: str | None = None
    run_id: str
    answers: int
    sentences: int
    cites: int
    citations_without_entity: int


class EvaluationResult(_Result):
    """An evaluation run: results.json, plus the scored answers (answers_scored.jsonl) in memory."""

    _ONLY_WHEN_SET = frozenset({"run_id", "store", "files"})

    kind: str = RESULTS_KIND
    version: int = RESULTS_VERSION
    header: ResultHeader
    summary: ResultSummary
    metrics: ResultMetrics
    skipped: dict[str, str] = {}  # part -> why it did not run
    notes: list[str] = []
    timings: dict[str, Number] = {}  # seconds per part, and "total"
    throughput: Throughput = Throughput()
    per_answer: list[PerAnswerRow] = []
    # Not in results.json (its own file, answers_scored.jsonl): empty when read back from results.json.
    answers: list[ScoredAnswerDetail] = Field(default=[], exclude=True)
    run_id: str | None = None  # set by evaluate_file
    store: RunWritten | None = None  # set when the run was written into a graph store
    files: dict[str, str] | None = None  # report file kind -> path, set when the report was written


__all__ = [
    "RESULTS_KIND",
    "RESULTS_VERSION",
    "AnswersSource",
    "CitationVerdicts",
    "EvaluationResult",
    "GEvalSummary",
    "GoldSource",
    "PerAnswerRow",
    "ResultHeader",
    "ResultMetrics",
    "ResultSummary",
    "RunWritten",
    "ScoredAnswerDetail",
    "SentenceVerdicts",
    "Throughput",
]
