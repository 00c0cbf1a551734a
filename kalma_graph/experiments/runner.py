"""The experiment drivers: answer each setting through the answer pipeline with a knowledge filter,
evaluate it, and report the settings side by side.

    conscious(...)  rounds 0..3: withhold 0..3 minimum-set triples per question  (Table 5, Figure 4)
    retrieval(...)  accuracy 100..20: show other entities' graphs for 0..80% of questions (Figure 5)
    variants(...)   general vs specific questions on the same entities             (Table 7)

Layout under `out_dir`: `<setting>/answers.jsonl` (+ its header) from the answer pipeline,
`<setting>/evaluation/` (the evaluation report), and `experiment.{json,csv,md}` + `plots/`.
Questions are the pipeline's `Question`s (`kalma_graph.experiments.questions`); dicts with `id` work
for the filters too.
Everything resumes: the pipeline skips answered questions (`resume=True`), the evaluation hits
its NLI and judge caches, and `reuse_answers=True` evaluates answers already on disk without
calling the pipeline at all.

The pipeline is `kalma_graph.pipeline.answer.answer_questions(store, llm, ner, questions, *, variant,
params, constrain, knowledge_filter, out_path, resume, progress)` (issue #4); another function with
that signature can be passed as `answer_fn`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_file
from kalma_graph.evaluation_result import EvaluationResult
from kalma_graph.experiments.filters import (
    IrrelevantGraphFilter,
    KnowledgeFilter,
    RemovalFilter,
    choose_replaced,
    irrelevant_pool,
    question_key,
)
from kalma_graph.files import read_jsonl
from kalma_graph.reporting.experiments import write_experiment_report

if TYPE_CHECKING:
    from kalma_graph.evaluation.geval import GEvalJudge
    from kalma_graph.models.protocols import Entailer, Generator, MentionDetector
    from kalma_graph.store.base import GraphStore

AnswerFn = Callable[..., Any]
Progress = Callable[[str, str, int, int], None]  # (setting, stage, done, total)
CONSCIOUS_ROUNDS = (0, 1, 2, 3)
RETRIEVAL_ACCURACIES = (100, 80, 60, 40, 20)


class ExperimentError(BadInputError, RuntimeError):
    """An experiment cannot run as asked; the message says what is missing."""


@dataclass
class Components:
    """What the answer pipeline needs, loaded once by the caller."""

    store: GraphStore | None  # None: answers are reused and no run is written into a graph
    llm: Generator | None = None
    ner: MentionDetector | None = None

    def graph(self) -> GraphStore:
        """The store, for a stage that reads the graph."""
        if self.store is None:
            raise ExperimentError("this experiment reads the graph: give a store")
        return self.store


@dataclass
class ExperimentSettings:
    out_dir: Path
    variant: str = "specific"  # the answer prompt variant (BioKaLMA: general | specific)
    params: Any = None  # generation parameters, passed to the pipeline as they are
    constrain: bool = False
    options: EvaluateOptions = field(default_factory=EvaluateOptions)
    seed: int = 0
    reuse_answers: bool = False  # evaluate `<setting>/answers.jsonl` as found; never call the pipeline
    write_store: bool = False  # write each setting's evaluation run into the store
    plots: bool = True
    # The paper's retrieval (NER + strict type filter) for reproduction tables; the answer command's
    # default is the graph-aware policy (kalma_graph.retrieval.linking.DEFAULT_TYPE_POLICY).
    type_policy: str = "strict"
    # a `kalma_graph.shards.Shard`: answer only its questions in every setting (the knowledge filters still draw over
    # all questions, so a question is shown what the unsharded run shows it); its reports are of those answers
    shard: Any = None


def default_answer_fn() -> AnswerFn:
    try:
        from kalma_graph.pipeline.answer import answer_questions
    except ImportError as exc:
        raise ExperimentError(
            "the answer pipeline (kalma_graph.pipeline.answer.answer_questions, `kalma-graph answer`) is not "
            "available in this checkout; answer the settings with it, or re-run with --reuse-answers to "
            "evaluate answers files already under the output directory"
        ) from exc
    return answer_questions


def answer_setting(name: str, questions: Sequence[Any], knowledge_filter: KnowledgeFilter | None,
                   components: Components, settings: ExperimentSettings, *, answer_fn: AnswerFn | None = None,
                   variant: str | None = None, progress: Progress | None = None) -> Path:
    """`<out_dir>/<name>/answers.jsonl`, produced by the pipeline (resumed) or found (`reuse_answers`)."""
    path = Path(settings.out_dir) / name / "answers.jsonl"
    if settings.reuse_answers:
        if not path.is_file():
            raise ExperimentError(f"reuse_answers: {path} does not exist (answer the setting first)")
        return path
    if getattr(knowledge_filter, "withholds_nothing", False):
        # A filter that withholds nothing is the unfiltered setting: it shares the run key (and the
        # answers on disk) of a plain run with the same model, prompt and parameters.
        knowledge_filter = None
    fn = answer_fn or default_answer_fn()
    if settings.shard is not None:
        questions = settings.shard.select(questions, id_of=question_key)
    path.parent.mkdir(parents=True, exist_ok=True)
    fn(components.store, components.llm, components.ner, list(questions), variant=variant or settings.variant,
       params=settings.params, constrain=settings.constrain, knowledge_filter=knowledge_filter, out_path=path,
       type_policy=settings.type_policy, resume=True,
       progress=(lambda done, total, info: progress(name, "answer", done, total)) if progress else None)
    return path


def evaluate_setting(name: str, answers: Path, settings: ExperimentSettings, components: Components | None, *,
                     gold: Mapping[str, Any] | None, nli: Entailer | None, judge: GEvalJudge | None,
                     progress: Progress | None = None) -> EvaluationResult:
    return evaluate_file(
        answers, out_dir=Path(settings.out_dir) / name / "evaluation", gold=dict(gold) if gold is not None else None,
        nli=nli, judge=judge, options=settings.options,
        store=components.store if (components is not None and settings.write_store) else None,
        plots=settings.plots, progress=(lambda stage, d, t: progress(name, stage, d, t)) if progress else None,
        reuse=True,  # a re-run resumes: a setting already scored on the same inputs is read back
    )


def setting_row(setting: Any, results: EvaluationResult, **extra: Any) -> dict:
    """One row of an experiment table: the setting, its summary scores, where its report is."""
    na = results.metrics.na_quality or {}
    return {
        "setting": setting,
        **results.summary.model_dump(),
        "absent_triples": na.get("absent_triples"),
        "na_sentences": na.get("na_sentences"),
        "run_id": results.run_id,
        "out_dir": str(Path(results.files.get("json", "")).parent) if results.files else None,
        **extra,
    }


def _by_text(questions: Sequence[Any]) -> dict[str, str]:
    """Question text -> id, for callers that pass the filter bare texts (the pipeline passes objects)."""
    out: dict[str, str] = {}
    for q in questions:
        texts = [q.get("question")] if isinstance(q, Mapping) else [getattr(q, "text", None)] + list(
            (getattr(q, "variant_texts", None) or {}).values())
        for text in texts:
            if isinstance(text, str):
                out[text] = question_key(q)
    return out


def _header(kind: str, questions: Sequence[Any], settings: ExperimentSettings,
            gold: Mapping[str, Any] | None, first: EvaluationResult | None, **extra: Any) -> dict:
    header = first.header if first is not None else None  # None: no setting was evaluated
    nli = (header.nli if header else None) or {}
    judge = (header.judge if header else None) or {}
    return {
        "experiment": kind,
        "questions": len(questions),
        "question_ids_sha256": hashlib.sha256(
            "\n".join(sorted(question_key(q) for q in questions)).encode()).hexdigest(),
        "gold_sets": len(gold) if gold is not None else None,
        "seed": settings.seed,
        "answer_variant": settings.variant,
        "constrain": settings.constrain,
        "answers_reused": settings.reuse_answers,
        "shard": str(settings.shard) if settings.shard is not None else None,
        "choices": header.choices if header else None,
        "answer_models": header.answer_models if header else None,
        "nli": nli.get("name_or_path"),
        "nli_hash": nli.get("model_hash"),
        "judge": judge.get("model_file"),
        "libraries": header.libraries if header else None,
        **extra,
    }


def conscious(questions: Sequence[Any], gold: Mapping[str, Any], *, components: Components,
              settings: ExperimentSettings, nli: Entailer | None, judge: GEvalJudge | None = None,
              rounds: Sequence[int] = CONSCIOUS_ROUNDS,
              removal_seed: int | None = None, answer_fn: AnswerFn | None = None,
              progress: Progress | None = None) -> dict:
    """Knowledge removal (KaLMA §5.2): round n withholds n minimum-set triples per question."""
    if not gold:
        raise ExperimentError("the conscious-incompetence experiment removes minimum-set triples: it needs --gold")
    rows, first = [], None
    for n in rounds:
        name = f"removed_{n}"
        flt = RemovalFilter(gold, n, matching=settings.options.matching, seed=removal_seed, by_text=_by_text(questions))
        path = answer_setting(name, questions, flt, components, settings, answer_fn=answer_fn, progress=progress)
        results = evaluate_setting(name, path, settings, components, gold=gold, nli=nli, judge=judge, progress=progress)
        first = first or results
        removal = None if settings.reuse_answers else (
            _nothing_removed(questions, gold) if flt.withholds_nothing else flt.summary(_records_of(path, questions)))
        rows.append(setting_row(n, results, removal=removal))
    header = _header("conscious", questions, settings, gold, first, rounds=list(rounds),
                     removal_order="gold set order" if removal_seed is None else f"shuffled (seed {removal_seed})")
    files = write_experiment_report("conscious", rows, settings.out_dir, header=header, plots=settings.plots)
    return {"kind": "conscious", "header": header, "rows": rows, "files": {k: str(v) for k, v in files.items()}}


def _records_of(path: Path, questions: Sequence[Any]) -> list[dict]:
    """The answers file's records of these questions (a file may hold more, answered with a larger --limit)."""
    wanted = {question_key(q) for q in questions}
    return [r for r in read_jsonl(path).records if str(r.get("id")) in wanted]


def _nothing_removed(questions: Sequence[Any], gold: Mapping[str, Any]) -> dict:
    """The removal summary of round 0, which runs without a filter (`answer_setting`)."""
    by_text = _by_text(questions)
    missing = sum(1 for q in questions if question_key(q, by_text) not in gold)
    return {"n_remove": 0, "questions": len(questions), "questions_without_gold": missing,
            "questions_short": 0, "gold_removed": 0, "order": "nothing withheld (unfiltered run)"}


def retrieval(questions: Sequence[Any], *, components: Components, settings: ExperimentSettings,
              nli: Entailer | None = None, judge: GEvalJudge | None = None, gold: Mapping[str, Any] | None = None,
              accuracies: Sequence[int] = RETRIEVAL_ACCURACIES, pool: Sequence[str] | None = None,
              pool_type: str = "Q5", answer_fn: AnswerFn | None = None, progress: Progress | None = None) -> dict:
    """Retrieval ablation (KaLMA §5.3): at accuracy a, (100 - a)% of the questions are shown other
    entities' one-hop graphs (seeded; nested across levels)."""
    ids = [question_key(q) for q in questions]
    if not settings.reuse_answers and pool is None:
        pool = irrelevant_pool(components.graph(), pool_type)
        if not pool:
            raise ExperimentError(
                f"no entities of type {pool_type} in {components.graph().uri} to draw irrelevant graphs from")
    rows, first = [], None
    for accuracy in accuracies:
        if not 0 <= accuracy <= 100:
            raise ExperimentError(f"retrieval accuracy must be in 0..100, got {accuracy}")
        name = f"accuracy_{accuracy}"
        replaced = choose_replaced(ids, (100 - accuracy) / 100, settings.seed)
        flt = None if settings.reuse_answers else IrrelevantGraphFilter(
            components.graph(), replaced, pool or [], seed=settings.seed, by_text=_by_text(questions))
        path = answer_setting(name, questions, flt, components, settings, answer_fn=answer_fn, progress=progress)
        results = evaluate_setting(name, path, settings, components, gold=gold, nli=nli, judge=judge, progress=progress)
        first = first or results
        rows.append(setting_row(accuracy, results, replaced_questions=len(replaced)))
    pool_note = None if settings.reuse_answers else f"{len(pool or [])} entities" + (
        f" of type {pool_type}" if pool_type else "")
    header = _header("retrieval", questions, settings, gold, first, accuracies=list(accuracies), pool=pool_note)
    files = write_experiment_report("retrieval", rows, settings.out_dir, header=header, plots=settings.plots)
    return {"kind": "retrieval", "header": header, "rows": rows, "files": {k: str(v) for k, v in files.items()}}


def variants(questions: Sequence[Any], *, components: Components, settings: ExperimentSettings,
             nli: Entailer | None = None,
             judge: GEvalJudge | None = None, gold: Mapping[str, Any] | None = None, answer_fn: AnswerFn | None = None,
             progress: Progress | None = None) -> dict:
    """General vs specific questions (KaLMA §5.5): the same questions (each holding both wordings,
    `kalma_graph.experiments.questions.merge_variants`) answered once per variant, with that
    variant's wording and prompt; one gold set per question serves both."""
    rows, first = [], None
    for variant in ("general", "specific"):
        path = answer_setting(variant, questions, None, components, settings, answer_fn=answer_fn,
                              variant=variant, progress=progress)
        results = evaluate_setting(variant, path, settings, components, gold=gold, nli=nli, judge=judge,
                                   progress=progress)
        first = first or results
        rows.append(setting_row(variant, results))
    header = _header("variants", questions, settings, gold, first)
    files = write_experiment_report("variants", rows, settings.out_dir, header=header, plots=settings.plots)
    return {"kind": "variants", "header": header, "rows": rows, "files": {k: str(v) for k, v in files.items()}}

