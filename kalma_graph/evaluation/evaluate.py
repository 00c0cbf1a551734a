"""Evaluate an answers file (the JSON lines `kalma-graph answer` writes) into one `EvaluationResult`.

    results = evaluate_records(read_answers(path).records, gold=load_gold(gold_path), nli=load_nli(...))
    results = evaluate_file(path, out_dir=..., gold=..., nli=..., judge=..., store=...)  # + report + graph

What is computed (docs/evaluate.md; the metric definitions are docs/metrics.md):

- citation correctness, precision, recall, F1, micro and macro (`citation_quality`); without a gold
  file only correctness, and the result says so;
- text–citation alignment (`alignment`): by default the graph-grounded verifier's share of citations judged
  supported (`kalma_graph.verification`; no model needed), with each citation's score, verdict and reason and
  each sentence's claims; the paper's NLI alignment with `alignment="nli"` and a model, and beside the
  verifier's as `alignment_nli` whenever an NLI model is given;
- `[NA]` precision / recall / F1 (`na_quality`) when the answers were produced with knowledge withheld
  (records whose `removed` list is non-empty), or with `absent_set="gold_not_cited"` and a gold file;
- G-Eval coherence / consistency / fluency / relevance (`geval`), when a judge is given;
- answer descriptives: answers without citation, citations and `[NA]` per answer, sloppy share,
  truncations.

Each part that does not run is listed under `skipped` with the reason; nothing is silently zero.
The answer text is parsed again here (`parse_answer` with the retrieved property labels and `name`,
as the pipeline parses), so the evaluation does not depend on the parser version the pipeline ran;
records whose stored citations differ from the re-parse are counted in `notes`.

The graph a citation is checked against is the graph *shown* to the model: the record's `shown`
triples when it has them, else `retrieved` minus `removed` (the pipeline records the whole retrieval
and what a knowledge filter withheld). The prompt's knowledge blocks also show each entity's name
(`{qid: Q206534, name: Stephen Crane, …}`), so a citation `name: <that name>` counts as correct; both
choices are named in the report header.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from kalma_graph import provenance
from kalma_graph.errors import KalmaError
from kalma_graph.evaluation.answers_file import (
    ScoredAnswer,
    answer_record,
    clean_answer,
    knowledge_text,
    name_triples,
    read_answers,
    scored_answer,
)
from kalma_graph.evaluation.gold import GoldSets, load_gold
from kalma_graph.evaluation.matching import MATCH_MODES, MatchMode
from kalma_graph.evaluation.metrics import (
    CitationCase,
    NACase,
    alignment,
    alignment_pairs,
    answer_descriptives,
    citation_quality,
    header_choices,
    na_quality,
)
from kalma_graph.evaluation.metrics.alignment import answers_evaluated
from kalma_graph.evaluation.metrics.conscious_incompetence import ABSENT_SETS, AbsentSet
from kalma_graph.evaluation.metrics.entailment import HYPOTHESIS_FORMATS, EntailFn, HypothesisFormat
from kalma_graph.evaluation.metrics.verified_alignment import verified_alignment
from kalma_graph.evaluation.reuse import carry_geval, default_run_id, judged_earlier, stored_result
from kalma_graph.evaluation_result import (
    RESULTS_KIND,
    RESULTS_VERSION,
    AnswersSource,
    CitationVerdicts,
    EvaluationResult,
    GoldSource,
    PerAnswerRow,
    ResultHeader,
    ResultMetrics,
    ResultSummary,
    RunWritten,
    ScoredAnswerDetail,
    SentenceVerdicts,
    Throughput,
)
from kalma_graph.files import file_sha256, json_sha256
from kalma_graph.kg.citations import ParsedAnswer
from kalma_graph.metric_fields import PER_ANSWER, SUMMARY, Field, read_fields, unknown_paths
from kalma_graph.models.protocols import Entailer
from kalma_graph.records import AnswerRecord
from kalma_graph.store.base import GraphStore

if TYPE_CHECKING:
    from kalma_graph.evaluation.geval import GEvalJudge
    from kalma_graph.verification import Verifier

Progress = Callable[[str, int, int], None]
ALIGNMENT_METHODS = ("verifier", "nli")
_LIBRARIES = ("kalma-graph", "torch", "transformers", "llama-cpp-python", "numpy", "matplotlib", "ladybug",
              "neo4j", "spacy")


@dataclass(frozen=True)
class EvaluateOptions:
    """Every evaluation choice; all of them are named in the report header."""

    matching: MatchMode = "strict"
    alignment: str = "verifier"  # who judges alignment: the graph-grounded verifier, or the paper's NLI model
    hypothesis_format: HypothesisFormat = "prop_value"
    absent_set: AbsentSet = "removed"
    threshold: float = 0.5  # NLI entailment probability counted as entailed
    alignment_first_n: int | None = None  # the original code: 400
    nli_batch_size: int | None = None
    geval_sample: int | None = None  # judge a seeded sample of answers (the paper: 100)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.alignment not in ALIGNMENT_METHODS:
            raise ValueError(f"unknown alignment method {self.alignment!r}; expected one of {ALIGNMENT_METHODS}")
        if self.matching not in MATCH_MODES:
            raise ValueError(f"unknown matching mode {self.matching!r}; expected one of {MATCH_MODES}")
        if self.hypothesis_format not in HYPOTHESIS_FORMATS:
            raise ValueError(
                f"unknown hypothesis format {self.hypothesis_format!r}; expected one of {HYPOTHESIS_FORMATS}")
        if self.absent_set not in ABSENT_SETS:
            raise ValueError(f"unknown absent set {self.absent_set!r}; expected one of {ABSENT_SETS}")


# --- evaluation ----------------------------------------------------------------------------------


class _Timings:
    """Seconds per part of an evaluation: `timed(part, run)` runs `run` and records how long it took."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, part: str, run: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        out = run()
        self.seconds[part] = time.perf_counter() - t0
        return out


class _TimedEntail:
    """The NLI call the metrics make, timed and counted for the throughput figures."""

    def __init__(self, nli: Entailer, batch_size: int | None) -> None:
        self.nli = nli
        self.batch_size = batch_size
        self.pairs = 0
        self.seconds = 0.0

    def __call__(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        started = time.perf_counter()
        kwargs = {"batch_size": self.batch_size} if self.batch_size else {}
        probs = [float(p) for p in self.nli.entailment_prob(list(premises), list(hypotheses), **kwargs)]
        self.seconds += time.perf_counter() - started
        self.pairs += len(probs)
        return probs


def evaluate_records(
    records: Sequence[AnswerRecord | Mapping[str, Any]],
    *,
    gold: GoldSets | None = None,
    nli: Entailer | None = None,
    judge: GEvalJudge | None = None,
    options: EvaluateOptions = EvaluateOptions(),
    subject_names: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    verifier: Verifier | None = None,
    population: Sequence[str] | None = None,
) -> EvaluationResult:
    """Score answer records (`AnswerRecord`s, or dicts in the answers-file schema). `nli` is a loaded
    `kalma_graph.models.nli.NLIModel` (or anything with `entailment_prob(premises, hypotheses)` and
    `describe()`), `judge` a `kalma_graph.evaluation.geval.GEvalJudge`; either may be None. `verifier` is a
    `kalma_graph.verification.Verifier` (default: one without a store) for `options.alignment == "verifier"`.
    `population`: the ids of the whole answers file when `records` are one shard of it (G-Eval's seeded sample is
    drawn from the whole file, so that a shard judges what the unsharded run judges of its answers)."""
    started = time.perf_counter()
    timed = _Timings()
    answers = timed("parse", lambda: [scored_answer(answer_record(r, f"record {i}"), subject_names)
                                      for i, r in enumerate(records)])
    skipped: dict[str, str] = {}
    notes: list[str] = []
    metrics: dict[str, dict] = {}
    gold_for = [gold.get(a.id) if gold is not None else None for a in answers]
    metrics["citation_quality"] = timed("citation_quality", lambda: citation_part(answers, gold_for, options))
    notes += gold_notes(answers, gold, gold_for)

    entail = _TimedEntail(nli, options.nli_batch_size) if nli is not None else None
    if options.alignment == "verifier":
        from kalma_graph.verification import Verifier

        verifier = verifier or Verifier()
    checks = _alignment_parts(answers, entail, verifier, options, progress, timed, metrics, skipped)

    na_reason = _na_skip_reason(answers, gold, options, entail)
    eligible = _na_eligible(answers, gold_for, options)
    if na_reason:
        skipped["na_quality"] = na_reason
    else:
        assert entail is not None  # _na_skip_reason gives a reason when there is no NLI model
        metrics["na_quality"] = timed("na_quality", lambda: na_part(answers, gold_for, eligible, entail, options))
        notes += na_notes(len(eligible), len(answers), options)

    if judge is None:
        skipped["geval"] = "no judge model given (--judge)"
    else:
        metrics["geval"] = timed("geval", lambda: geval_part(answers, judge, options, progress, population))

    metrics["answer_descriptives"] = descriptives_part(answers)
    notes += parse_notes(answers)

    verdicts = AnswerVerdicts.collect(answers, metrics, eligible, checks)
    aspects = tuple(judge.aspects) if judge is not None else ()
    rows = [per_answer_row(a, v, aspects) for a, v in zip(answers, verdicts)]
    details = [answer_detail(a, v, options.threshold) for a, v in zip(answers, verdicts)]

    self_scored = _self_scored(answers, nli) if options.alignment == "nli" else _verifier_self_scored(answers, verifier)
    if (self_scored and options.alignment == "verifier" and verifier is not None
            and any(filtered_by_verifier(a.record) for a in answers)):
        notes += _before_filter(answers, verifier, subject_names, timed, metrics["alignment"])
    summary = _summary(metrics, answers, self_scored if "alignment" in metrics else None)
    if self_scored:
        notes.append(_self_scored_note(options, nli))
    timings = timed.seconds
    timings["total"] = time.perf_counter() - started
    return EvaluationResult(
        kind=RESULTS_KIND,
        version=RESULTS_VERSION,
        header=results_header(answers, metrics, options, nli=nli, judge=judge, self_scored=self_scored),
        summary=summary,
        metrics=ResultMetrics(**{name: _without_rows(m) for name, m in metrics.items()}),
        skipped=skipped,
        notes=notes,
        timings={k: round(v, 4) for k, v in timings.items()},
        throughput=_throughput(len(answers), timings["total"], entail, checks, timings.get("verification")),
        per_answer=rows,
        answers=details,
    )


# --- the parts of an evaluation: each a pure function of the scored answers ---------------------


def _alignment_parts(answers: Sequence[ScoredAnswer], entail: _TimedEntail | None, verifier: Verifier | None,
                     options: EvaluateOptions, progress: Progress | None,
                     timed: Callable[[str, Callable[[], Any]], Any],
                     metrics: dict[str, dict], skipped: dict[str, str]) -> list | None:
    """Alignment by the verifier (and by NLI beside it, with a model) or by NLI alone, into `metrics` (or why not,
    into `skipped`); the verifier's checks of every answer, when it ran."""
    if options.alignment == "verifier":
        assert verifier is not None
        checks = timed("verification", lambda: verify_part(answers, verifier, progress))
        metrics["alignment"] = verified_alignment(checks, first_n_answers=options.alignment_first_n,
                                                  describe=verifier.describe())
        if entail is not None:
            metrics["alignment_nli"] = timed("alignment_nli",
                                             lambda: alignment_part(answers, entail, options, progress))
        return checks
    if entail is None:
        skipped["alignment"] = "--alignment nli needs an NLI model (--nli)"
    else:
        metrics["alignment"] = timed("alignment", lambda: alignment_part(answers, entail, options, progress))
    return None


def _before_filter(answers: Sequence[ScoredAnswer], verifier: Verifier, subject_names: Mapping[str, str] | None,
                   timed: Callable[[str, Callable[[], Any]], Any], alignment: dict) -> list[str]:
    """The alignment before the verifier's filter into `alignment["before_filter"]` (when an answer holds it);
    the notes that count the filtered answers that do not."""
    before = timed("alignment_before_filter", lambda: before_filter_part(answers, verifier, subject_names))
    if before["answers"]:
        alignment["before_filter"] = before
    if not before["left_out"]:
        return []
    return ["alignment before the verifier's filter leaves out " + ", ".join(
        f"{n} answers ({why})" for why, n in before["left_out"].items())]


def _self_scored_note(options: EvaluateOptions, nli: Entailer | None) -> str:
    """Why a self-scored alignment figure says nothing about the answers' support, and what does."""
    if options.alignment == "nli":
        return ("alignment is scored by the NLI model that placed the post-hoc citations (same weights "
                f"sha256 {nli.model_hash[:12] if nli is not None else '?'}…): it agrees with its own placements by "
                "construction; score with another NLI model for an independent figure")
    return ("alignment is scored by the verifier that kept these citations (a strategy that filters its citations "
            "with it: `--cite verified` / `grounded`): it agrees "
            "with its own choices by construction; the NLI column (--nli) or a hand check is the independent "
            "figure. Claims and fully-supported sentences are still informative.")


def citation_part(answers: Sequence[ScoredAnswer], gold_for: Sequence[Any], options: EvaluateOptions) -> dict:
    """Citation correctness (against the shown graph and its name lines), precision, recall, F1."""
    cases = [CitationCase(a.parsed.citations, a.shown + name_triples(a.shown, a.subject_names), g)
             for a, g in zip(answers, gold_for)]
    return citation_quality(cases, matching=options.matching)


def verify_part(answers: Sequence[ScoredAnswer], verifier: Verifier, progress: Progress | None = None) -> list:
    """The verifier's check of every answer (`AnswerCheck`s, in answer order)."""
    from .verify import from_scored

    out = []
    for i, a in enumerate(answers):
        out.append(verifier.verify(from_scored(a)))
        if progress and (i + 1 == len(answers) or (i + 1) % 50 == 0):
            progress("verification", i + 1, len(answers))
    return out


def filtered_by_verifier(record: AnswerRecord) -> bool:
    """Whether the verifier filtered the record's citations: its strategy `filters_citations`
    (`pipeline/strategies.py`), which the record says by naming the verifier (`params.cite_verifier`)."""
    return bool((record.params or {}).get("cite_verifier"))


# Where a filtering strategy's answer before the filter is recorded, and what it then is.
BEFORE_FILTER_SOURCES = {
    "raw_answer": "the model's completion as written (`raw_answer`, e.g. `--cite verified`): every sentence with the "
                  "citations the model chose, before the verifier dropped the ones it does not judge supported",
    "grounding.trace": "each sentence the loop kept, as first written (`grounding.trace`, e.g. `--cite grounded`): "
                       "with the marks it was written under (the plan's for a planned sentence, the model's own "
                       "otherwise) and its words before a clause was trimmed, before the verifier dropped unsupported "
                       "citations, added the shown triples it found and marked [NA]; the candidates the loop rejected "
                       "are not in it, so it is not an answer the model would have written unfiltered",
}


def unfiltered_answer(record: AnswerRecord) -> tuple[str | None, str]:
    """The answer of a record whose citations the verifier filtered, as it stood before the filter (with canonical
    marks), and where it was read (a `BEFORE_FILTER_SOURCES` key); None and why not when the record does not hold it.

    - A loop that wrote the answer sentence by sentence (`grounding`) keeps, in `grounding.trace`, every candidate
      as written and whether it was kept: the kept ones, in order, are the answer before the filter. Its
      `raw_answer` is the kept units after the filter, so it is never used. A first sentence kept as the last
      resort is not marked kept in the trace: such an answer (and one written before the trace existed) is left
      out, never guessed.
    - Otherwise `raw_answer` is the model's completion (attribute-first units when its citation grammar was an
      attribute-first one, rewritten to canonical marks)."""
    from kalma_graph.kg.citations import from_attribute_first

    grounding = record.grounding
    if grounding is not None:
        trace = grounding.get("trace")
        if trace is None:
            return None, "no grounding.trace (written before the loop recorded one)"
        kept = [e.get("written") or "" for e in trace if e.get("kept")]
        if len(kept) != grounding.get("sentences"):
            return None, "the trace does not mark every kept sentence (a first sentence kept as the last resort)"
        return from_attribute_first(" ".join(kept)), "grounding.trace"
    if not record.raw_answer:
        return None, "no raw_answer"
    grammar = (record.params or {}).get("citation_grammar") or ""
    return (from_attribute_first(record.raw_answer) if grammar.startswith("attribute_first")
            else record.raw_answer), "raw_answer"


def before_filter_part(answers: Sequence[ScoredAnswer], verifier: Verifier,
                       extra_names: Mapping[str, str] | None) -> dict:
    """For answers whose citations the verifier filtered (a strategy that `filters_citations`: `verified`,
    `grounded`), whose alignment by that verifier is 100 % by construction: the verifier's alignment of each
    answer as it stood before the filter (`unfiltered_answer`; `what` says what that is for each source, and
    `left_out` counts the filtered answers that do not hold it, by reason), the figure that says how well the
    citations were written before the verifier chose."""
    from .verify import from_scored

    raw: list[AnswerRecord] = []
    sources: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    for a in answers:
        if not filtered_by_verifier(a.record):
            continue
        text, source = unfiltered_answer(a.record)
        if text is None:
            left_out[source] += 1
            continue
        sources[source] += 1
        raw.append(a.record.model_copy(update={"answer": text}))
    checks = [verifier.verify(from_scored(scored_answer(r, extra_names))) for r in raw]
    part = verified_alignment(checks)
    return {k: part[k]
            for k in ("pairs", "supported", "partial", "unsupported", "alignment_micro", "alignment_macro")} | {
        "answers": len(raw), "what": "; ".join(f"{n} answers: {BEFORE_FILTER_SOURCES[s]}" for s, n in sources.items()),
        "sources": dict(sources), "left_out": dict(left_out)}


def gold_notes(answers: Sequence[ScoredAnswer], gold: GoldSets | None, gold_for: Sequence[Any]) -> list[str]:
    if gold is None:
        return ["no gold file: citation precision, recall and F1 need minimum knowledge sets; "
                "only correctness and alignment are reported"]
    notes = []
    without = sum(1 for g in gold_for if g is None)
    if without:
        notes.append(f"{without} of {len(answers)} answers have no gold set (scored for correctness only)")
    unused = len(set(gold) - {a.id for a in answers})
    if unused:
        notes.append(f"{unused} gold sets name questions that are not in the answers file")
    return notes


def alignment_part(answers: Sequence[ScoredAnswer], entail: EntailFn, options: EvaluateOptions,
                   progress: Progress | None = None) -> dict:
    """Text–citation alignment; its per-answer rows carry each pair's entailment probability."""
    pairs = [alignment_pairs(a.parsed) for a in answers]
    if progress:
        progress("alignment", 0, sum(len(p) for p in pairs))
    result = alignment(
        pairs, entail, hypothesis_format=options.hypothesis_format, subject_names=_merged_names(answers),
        threshold=options.threshold, first_n_answers=options.alignment_first_n,
    )
    if progress:
        progress("alignment", result["pairs"], result["pairs"])
    return result


def na_part(answers: Sequence[ScoredAnswer], gold_for: Sequence[Any], eligible: Sequence[int], entail: EntailFn,
            options: EvaluateOptions) -> dict:
    """[NA] quality over the eligible answers; per-answer rows say which [NA] sentences were right."""
    cases = [NACase.from_parsed(answers[i].parsed, absent=answers[i].removed, gold=gold_for[i]) for i in eligible]
    result = na_quality(
        cases, entail, absent_set=options.absent_set, matching=options.matching,
        hypothesis_format=options.hypothesis_format, subject_names=_merged_names(answers),
        threshold=options.threshold,
    )
    result["answers_eligible"] = len(eligible)
    result["choices"]["answers"] = "with withheld knowledge" if options.absent_set == "removed" else "with a gold set"
    return result


def na_notes(eligible: int, answers: int, options: EvaluateOptions) -> list[str]:
    if eligible >= answers:
        return []
    return [f"[NA] quality covers the {eligible} of {answers} answers "
            + ("whose graph had knowledge withheld ('removed')" if options.absent_set == "removed"
               else "that have a gold set")]


def geval_part(answers: Sequence[ScoredAnswer], judge: GEvalJudge, options: EvaluateOptions,
               progress: Progress | None = None, population: Sequence[str] | None = None) -> dict:
    """G-Eval on all answers or a seeded sample (drawn from `population`, default the answers' ids), judging the
    answer without its citation marks."""
    from kalma_graph.evaluation.geval import GEvalInput, geval, sample_ids

    ids = list(population) if population is not None else [a.id for a in answers]
    chosen = set(sample_ids(ids, options.geval_sample, options.seed))
    items = [GEvalInput(a.id, a.question, clean_answer(a.parsed), knowledge_text(a.shown, a.subject_names))
             for a in answers if a.id in chosen]
    return geval(items, judge, answers_total=len(answers), sample=geval_sample_choice(options, len(ids)),
                 progress=(lambda d, t: progress("geval", d, t)) if progress else None)


def geval_sample_choice(options: EvaluateOptions, answers: int) -> str:
    """The `geval.answers_judged` choice for `answers` answers: `all`, or the seeded sample's size."""
    if options.geval_sample is None or options.geval_sample >= answers:
        return "all"
    return f"seeded sample of {options.geval_sample} (seed {options.seed})"


def descriptives_part(answers: Sequence[ScoredAnswer]) -> dict:
    """Citations and [NA] per answer, sloppy share, truncations, finish reasons."""
    finish = Counter(str(a.record.finish_reason or "unknown") for a in answers)
    return answer_descriptives([a.parsed for a in answers]) | {
        "truncated": sum(1 for a in answers if a.record.was_truncated),
        "finish_reasons": dict(sorted(finish.items())),
        "empty_answers": sum(1 for a in answers if not a.text.strip()),
        "answers_with_removed_knowledge": sum(1 for a in answers if a.removed),
    }


def parse_notes(answers: Sequence[ScoredAnswer]) -> list[str]:
    mismatched = sum(1 for a in answers if a.record.stored_citations() not in (None, _citation_list(a.parsed)))
    if not mismatched:
        return []
    return [f"{mismatched} records' stored citations differ from this evaluation's parse of the answer "
            "text; the evaluation uses its own parse"]


@dataclass(frozen=True)
class AnswerVerdicts:
    """Every metric's verdicts on one answer: the rows the metrics returned for it, or None."""

    quality: Mapping[str, Any]
    alignment: Mapping[str, Any] | None = None
    na: Mapping[str, Any] | None = None
    geval: Mapping[str, Any] | None = None
    check: Any | None = None  # the verifier's AnswerCheck
    nli: Mapping[str, Any] | None = None  # the NLI alignment row, whichever method the alignment used

    @classmethod
    def collect(cls, answers: Sequence[ScoredAnswer], metrics: Mapping[str, dict],
                na_eligible: Sequence[int], checks: Sequence[Any] | None = None) -> list["AnswerVerdicts"]:
        align_rows = metrics["alignment"]["per_answer"] if "alignment" in metrics else []
        nli_part = metrics.get("alignment_nli") or (metrics.get("alignment") if checks is None else None)
        nli_rows = nli_part["per_answer"] if nli_part else []
        na_rows = dict(zip(na_eligible, metrics["na_quality"]["per_answer"])) if "na_quality" in metrics else {}
        geval_rows = {row["id"]: row for row in metrics["geval"]["per_answer"]} if "geval" in metrics else {}
        return [cls(quality=q, alignment=align_rows[i] if i < len(align_rows) else None, na=na_rows.get(i),
                    geval=geval_rows.get(a.id), check=checks[i] if checks is not None else None,
                    nli=nli_rows[i] if i < len(nli_rows) else None)
                for i, (a, q) in enumerate(zip(answers, metrics["citation_quality"]["per_answer"]))]


class MetricPathError(KalmaError, RuntimeError):
    """A registry field (`metric_fields`) names a key its metric part does not write: a metric renamed a key
    without its field. Raised by every evaluation, so the figure is never written as None without a word."""


def _read_checked(fields: tuple[Field, ...], parts: Mapping[str, Any], aspects: tuple[str, ...]) -> dict[str, Any]:
    """`read_fields`, after `unknown_paths` found every field's key in its part."""
    missing = unknown_paths(fields, parts, aspects)
    if missing:
        raise MetricPathError(f"metric fields read keys their part does not write: {', '.join(missing)} "
                              "(kalma_graph/metric_fields.py)")
    return read_fields(fields, parts, aspects)


def per_answer_row(a: ScoredAnswer, v: AnswerVerdicts, geval_aspects: Sequence[str]) -> PerAnswerRow:
    """One row of per_answer.csv: the registry's per-answer fields (metric_fields.PER_ANSWER), each read
    from this answer's row of its metric part."""
    parts: dict[str, Any] = {"answer": answer_columns(a), "citation_quality": v.quality}
    parts |= {name: row for name, row in (("alignment", v.alignment), ("na_quality", v.na)) if row is not None}
    if v.check is not None:
        parts["verifier"] = v.check.counts()
    if geval_aspects:
        parts["geval"] = v.geval
    return PerAnswerRow(**_read_checked(PER_ANSWER, parts, tuple(geval_aspects)))


def answer_columns(a: ScoredAnswer) -> dict[str, Any]:
    """The per-answer fields of the answer itself (the `answer` part): what it says, how it was parsed."""
    return {"id": a.id, "variant": a.variant, "question": a.question, "sentences": len(a.parsed.sentences),
            "citations": a.parsed.n_citations, "na_marks": a.parsed.n_na, "na_sentences": len(a.parsed.na_sentences),
            "removed": len(a.removed), "sloppy": a.parsed.n_sloppy, "entity_only": a.parsed.n_entity_only,
            "parse_issues": len(a.parsed.errors), "truncated": a.record.was_truncated,
            "finish_reason": a.record.finish_reason}


def answer_detail(a: ScoredAnswer, v: AnswerVerdicts, threshold: float) -> ScoredAnswerDetail:
    """One line of answers_scored.jsonl: each sentence and citation with its verdicts."""
    correct = list(v.quality.get("correct_flags") or [])
    precise = list(v.quality.get("precise_flags") or [])
    probs = v.nli["probabilities"] if v.nli else []
    checked = v.check.sentences if v.check is not None else []
    na_flags = v.na["sentence_correct"] if v.na else []
    sentences, k, na_index = [], 0, 0
    for position, s in enumerate(a.parsed.sentences):
        citations: list[CitationVerdicts] = []
        for c in s.citations:
            p = probs[k] if k < len(probs) else None
            judged = checked[position].citations[len(citations)] if position < len(checked) else None
            citations.append(CitationVerdicts(
                qid=c.qid, prop=c.prop, value=c.value, sloppy=c.sloppy,
                correct=correct[k] if k < len(correct) else None,
                precise=precise[k] if k < len(precise) else None,
                entailment=p, entailed=(p >= threshold) if p is not None else None,
                **({"support": judged.score, "verdict": judged.verdict, "reason": judged.reason} if judged else {}),
            ))
            k += 1
        na_ok = None
        if s.na:
            na_ok = na_flags[na_index] if na_index < len(na_flags) else None
            na_index += 1
        extra = {}
        if position < len(checked):
            extra = {"fully_supported": checked[position].fully_supported,
                     "claims": [c.model_dump(exclude_none=True) for c in checked[position].claims]}
        sentences.append(SentenceVerdicts(position=position, text=s.text, clean_text=s.clean_text, na=s.na,
                                          na_entails_absent=na_ok, entity_only=list(s.entity_only),
                                          citations=citations, **extra))
    return ScoredAnswerDetail(id=a.id, question=a.question, variant=a.variant, answer=a.text, sentences=sentences,
                              geval=dict(v.geval) if v.geval else None)


def evaluation_choices(options: EvaluateOptions) -> dict[str, Any]:
    """The evaluation's own choices (the metrics add theirs): the `evaluation.*` keys of the header."""
    return {
        **{f"evaluation.{name}": getattr(options, name)
           for name in ("alignment", "matching", "hypothesis_format", "absent_set", "threshold")},
        "evaluation.shown_graph": "record 'shown', else 'retrieved' minus 'removed'",
        "evaluation.name_citations": "'name: <entity name>' matches the knowledge block's name",
        "evaluation.seed": options.seed,
    }


def results_header(answers: Sequence[ScoredAnswer], metrics: Mapping[str, dict], options: EvaluateOptions, *,
                   nli: Entailer | None, judge: GEvalJudge | None, self_scored: bool) -> ResultHeader:
    """Every choice, model and library the figures depend on."""
    choices = {**evaluation_choices(options), **header_choices(m for m in metrics.values() if "choices" in m)}
    return ResultHeader(
        choices=choices,
        variants=sorted({str(a.variant) for a in answers if a.variant is not None}),
        answer_models=_distinct(a.record.model for a in answers),
        answer_params=_distinct(a.record.params for a in answers),
        prompt_sha256=sorted({a.record.prompt_sha256 for a in answers if a.record.prompt_sha256})[:20],
        nli=nli.describe() if nli is not None and hasattr(nli, "describe") else None,
        alignment_nli_placed_citations=self_scored,
        judge=judge.describe() if judge is not None else None,
        libraries=library_versions(),
    )


def evaluate_file(
    answers: str | os.PathLike[str],
    *,
    out_dir: str | os.PathLike[str],
    gold: str | os.PathLike[str] | GoldSets | None = None,
    nli: Entailer | None = None,
    judge: GEvalJudge | None = None,
    options: EvaluateOptions = EvaluateOptions(),
    store: GraphStore | None = None,
    run_id: str | None = None,
    plots: bool = True,
    progress: Progress | None = None,
    reuse: bool = False,
    verifier: Verifier | None = None,
    shard: Any | None = None,
) -> EvaluationResult:
    """Evaluate an answers file, write the report into `out_dir` (results.json, per_answer.csv,
    answers_scored.jsonl, summary.md, plots) and, when a store is given, write the run into the graph.
    Returns the result (with `run_id` and `files`). With `reuse` (and no store), a report already in
    `out_dir` that scored these very inputs is read back instead (`reusable_result`).

    `shard` (a `kalma_graph.shards.Shard`): score only the answers it holds, filling `out_dir`'s model caches with
    what the unsharded run asks of them; `kalma-graph merge` unites the shards' caches, and the unsharded
    evaluation on the merged directory then asks the models nothing the shards asked (docs/scaling.md)."""
    from kalma_graph.reporting import write_report

    file = read_answers(answers)
    population = None
    if shard is not None:
        if store is not None:
            raise ValueError("--shard scores part of the answers: write the run into the store (--store) from the "
                             "evaluation of the merged directory, not from a shard")
        if options.alignment_first_n is not None:
            raise ValueError("--alignment-first counts answers from the file's start: not with --shard")
        population = [str(r.id) for r in file.records]  # as the answers' ids: a number read from the file too
        file = replace(file, records=shard.select(file.records))
    gold_sets, gold_info = _gold_source(gold)
    earlier = None
    if reuse and store is None:
        stored = stored_result(Path(out_dir) / "results.json")
        if stored is not None and reusable_result(stored, answers_sha256=file.sha256, answers=len(file.records),
                                                  gold_sha256=gold_info.sha256 if gold_info else None,
                                                  options=options, nli=nli, judge=judge):
            return stored
        if stored is not None and judge is None and judged_earlier(stored, answers_sha256=file.sha256):
            earlier = stored
    names = _store_names(store, file.records) if store is not None else None
    if verifier is None and store is not None and options.alignment == "verifier":
        from kalma_graph.verification import Verifier

        verifier = Verifier(store)  # the store's aliases and statements widen what a claim can rest on
    results = evaluate_records(file.records, gold=gold_sets, nli=nli, judge=judge, options=options,
                               subject_names=names, progress=progress, verifier=verifier, population=population)
    if shard is not None:
        results.header = results.header.model_copy(update={"choices": {**results.header.choices,
                                                                         "evaluation.shard": str(shard)}})
        results.notes.append(f"shard {shard}: the {len(file.records)} of {len(population or [])} answers whose id "
                             "hashes to it; `kalma-graph merge` joins the shards' caches for the whole evaluation")
    results.header = results.header.model_copy(update={
        "evaluated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "answers": AnswersSource(
            path=str(file.path),
            sha256=file.sha256,
            records=len(file.records),
            header_path=str(file.header_path) if file.header_path else None,
            header=file.header,
        ),
        "gold": gold_info,
    })
    if earlier is not None:
        carry_geval(results, earlier)
    results.run_id = run_id or default_run_id(results)
    if store is not None:
        from kalma_graph.store.results import write_run

        results.store = RunWritten(uri=store.uri, **write_run(store, results))
    results.files = {k: str(v) for k, v in write_report(results, Path(out_dir), plots=plots).items()}
    return results


def _gold_source(gold: str | os.PathLike[str] | GoldSets | None) -> tuple[GoldSets | None, GoldSource | None]:
    """The gold sets (read from a file, or given) and what the header says of them (path, sha256, questions)."""
    if isinstance(gold, (str, os.PathLike)):
        path = Path(gold)
        gold_sets = load_gold(path)
        return gold_sets, GoldSource(path=str(path), sha256=file_sha256(path), questions=len(gold_sets))
    if gold is None:
        return None, None
    return gold, GoldSource(path=None, sha256=json_sha256(gold, default=str), questions=len(gold))


def reusable_result(stored: EvaluationResult, *, answers_sha256: str | None, answers: int, gold_sha256: str | None,
                    options: EvaluateOptions, nli: Entailer | None, judge: GEvalJudge | None) -> bool:
    """Whether a stored report scored the same answers file (sha256) against the same gold with the same
    evaluation choices and NLI weights, and with the judge asked for (a stored judgement also serves a run
    that asks for none). Experiments resume with it: the G-Eval cache is not committed, so re-scoring a
    finished setting would judge every answer again."""
    header = stored.header
    stored_judge = (header.judge or {}).get("model_sha256")
    return (
        header.answers is not None and header.answers.sha256 == answers_sha256
        and (header.gold.sha256 if header.gold else None) == gold_sha256
        and all(header.choices.get(k) == v for k, v in evaluation_choices(options).items())
        and header.choices.get("alignment.answers_evaluated", "-") in ("-",
                                                                       answers_evaluated(options.alignment_first_n))
        and header.choices.get("geval.answers_judged", "-") in ("-", geval_sample_choice(options, answers))
        and (header.nli or {}).get("model_hash") == getattr(nli, "model_hash", None)
        and (judge is None or stored_judge == judge.describe().get("model_sha256"))
        and (options.alignment != "verifier" or _same_verifier(header.choices.get("alignment.verifier")))
    )


def _same_verifier(stored: Any) -> bool:
    """Whether a stored evaluation's verifier (its version and cue tables) is this checkout's: another one
    judges otherwise, so its report is not read back."""
    from kalma_graph.verification import Verifier

    now = Verifier().describe()
    return isinstance(stored, dict) and all(stored.get(k) == now.get(k) for k in ("version", "cues_sha256", "stage"))


def library_versions() -> dict[str, str | None]:
    return {"python": platform.python_version(), "platform": sys.platform, **provenance.library_versions(_LIBRARIES)}


def _na_skip_reason(answers: Sequence[ScoredAnswer], gold: GoldSets | None, options: EvaluateOptions,
                    entail: Any) -> str | None:
    if entail is None:
        return "no NLI model given (--nli)"
    if options.absent_set == "removed":
        if not any(a.removed for a in answers):
            return ("no record withheld knowledge ('removed' is empty everywhere): not a conscious-incompetence "
                    "run; use `kalma-graph experiment conscious`, or --na-absent gold_not_cited with --gold")
        return None
    if gold is None:
        return "--na-absent gold_not_cited needs --gold"
    return None


def _na_eligible(answers: Sequence[ScoredAnswer], gold_for: Sequence[Any], options: EvaluateOptions) -> list[int]:
    """The answers [NA] quality covers: those whose graph had knowledge withheld (the paper's setting),
    or, for the original code's absent set, those with a gold set."""
    if options.absent_set == "removed":
        return [i for i, a in enumerate(answers) if a.removed]
    return [i for i, g in enumerate(gold_for) if g is not None]


def _merged_names(answers: Sequence[ScoredAnswer]) -> dict[str, str]:
    names: dict[str, str] = {}
    for a in answers:
        for k, v in a.subject_names.items():
            names.setdefault(k, v)
    return names


def _citation_list(parsed: ParsedAnswer) -> list[list[str]]:
    return [list(c.triple) for c in parsed.citations]


def _self_scored(answers: Sequence[ScoredAnswer], nli: Entailer | None) -> bool:
    """Post-hoc citations placed by this very NLI model agree with its alignment verdicts by
    construction: say so wherever the figure is shown, never silently."""
    placed_by = {(a.record.params or {}).get("cite_nli_sha256") for a in answers} - {None}
    return nli is not None and getattr(nli, "model_hash", None) in placed_by


def _verifier_self_scored(answers: Sequence[ScoredAnswer], verifier: Verifier | None) -> bool:
    """Answers of a strategy that `filters_citations` (`--cite verified` / `grounded`) kept only the citations a
    kalma-graph verifier judged supported:
    scored by the same verifier, their alignment is 100 % by construction; by another version of it (other
    cue tables), nearly so. Either way say so, never silently."""
    return verifier is not None and any((a.record.params or {}).get("cite_verifier") for a in answers)


def _throughput(answers: int, seconds: float, entail: _TimedEntail | None, checks: Sequence[Any] | None = None,
                verify_seconds: float | None = None) -> Throughput:
    extra = {}
    if checks is not None and verify_seconds:
        cites = sum(len(c.citations) for c in checks)
        extra = {"verified_citations": cites, "verifier_seconds": round(verify_seconds, 4),
                 "verified_citations_per_second": round(cites / verify_seconds, 1) if verify_seconds > 0 else None}
    return Throughput(**extra,
        answers_per_second=answers / seconds if seconds > 0 else None,
        nli_pairs=entail.pairs if entail else 0,
        nli_seconds=entail.seconds if entail else 0.0,
        nli_pairs_per_second=(entail.pairs / entail.seconds) if entail and entail.seconds > 0 else None,
    )


def _summary(metrics: Mapping[str, dict], answers: Sequence[ScoredAnswer], self_scored: bool | None) -> ResultSummary:
    """The registry's summary fields (metric_fields.SUMMARY), each read from its metric part."""
    parts = {**metrics, "evaluation": {"answers": len(answers), "alignment_self_scored": self_scored}}
    aspects = tuple((metrics.get("geval") or {}).get("aspects") or ())
    return ResultSummary(**_read_checked(SUMMARY, parts, aspects))  # the geval_<aspect> keys are extras


def _without_rows(metric: Mapping[str, Any]) -> dict:
    return {k: v for k, v in metric.items() if k != "per_answer"}


def _distinct(values: Any) -> list:
    seen, out = set(), []
    for v in values:
        if v is None:
            continue
        key = json.dumps(v, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _store_names(store: GraphStore, records: Sequence[AnswerRecord]) -> dict[str, str]:
    ids = {t.subject for r in records for t in [*r.retrieved, *r.removed, *(r.shown or [])]}
    return {e.id: e.name for e in store.get_entities(ids) if e.name}


__all__ = [
    "EvaluateOptions",
    "evaluate_file",
    "evaluate_records",
]
