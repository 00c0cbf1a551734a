"""KaLMA's result tables, reproduced locally (`kalma-graph experiment paper`).

    strategies(...)   Table 3 (and Table 4 with a judge): each model × citation strategy answers the
                      same questions of a BioKaLMA dataset with gold minimum knowledge sets
    paper(...)        strategies, then — with the first setting (the headline model and strategy) —
                      conscious incompetence (Table 5, Figure 4), retrieval accuracy (Figure 5) and
                      general vs specific questions (Table 7); then `docs/results.md` beside the
                      paper's own rows (`kalma_graph.reporting.paper.paper_rows`)

Layout under `out_dir`: `table3/<model>__<strategy>/…`, `table5/…`, `figure5/…`, `table7/…`, each the
runner's layout (`answers.jsonl`, `evaluation/`, `experiment.{json,csv,md}`, `plots/`). Every part
resumes: answered questions are skipped, evaluations hit their caches, so a run interrupted after
hours goes on where it stopped, across sessions.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from kalma_graph.experiments.runner import (
    Components,
    ExperimentError,
    ExperimentSettings,
    Progress,
    _header,
    answer_setting,
    conscious,
    evaluate_setting,
    retrieval,
    setting_row,
    variants,
)
from kalma_graph.reporting.experiments import write_experiment_report

if TYPE_CHECKING:
    from kalma_graph.evaluation.geval import GEvalJudge
    from kalma_graph.models.protocols import Entailer, MentionDetector
    from kalma_graph.store.base import GraphStore

PARTS = ("table3", "table5", "figure5", "table7")
LLMLoader = Callable[[str], Any]  # registry name or path -> loaded LocalLLM


@dataclass(frozen=True)
class StrategySetting:
    """One row of Table 3: a model (registry name or GGUF path) and a citation strategy."""

    model: str
    cite: str = "model"

    @property
    def name(self) -> str:
        return f"{Path(self.model).stem if '/' in self.model else self.model}__{self.cite}"

    @classmethod
    def parse(cls, text: str) -> "StrategySetting":
        """`MODEL:STRATEGY` (`qwen2.5-coder-1.5b-q4km:attribute-first`); the strategy defaults to `model`."""
        from kalma_graph.pipeline.strategies import CITE_STRATEGIES

        model, _, cite = text.rpartition(":") if ":" in text else (text, "", "model")
        if cite not in CITE_STRATEGIES:
            raise ExperimentError(f"{text!r}: the strategy after ':' must be one of {', '.join(CITE_STRATEGIES)}")
        return cls(model=model, cite=cite)


@contextmanager
def _loaded(load_llm: LLMLoader, model: str, settings: ExperimentSettings) -> Iterator[Any]:
    """The model for answering, closed afterwards; none when the answers on disk are only evaluated
    (`reuse_answers`), so a re-evaluation does not load a 1 GB model it never calls."""
    llm = None if settings.reuse_answers else load_llm(model)
    try:
        yield llm
    finally:
        if llm is not None:
            llm.close()


def _answer_fn(cite: str, placing_nli: Entailer | None) -> Any:
    from kalma_graph.pipeline.answer import answer_questions

    # answer_questions keeps the NLI model only for a strategy that places citations with one
    return functools.partial(answer_questions, cite=cite, nli=placing_nli)


def strategies(questions: Sequence[Any], gold: Mapping[str, Any], *, store: GraphStore, ner: MentionDetector,
               load_llm: LLMLoader, settings: ExperimentSettings, rows_of: Sequence[StrategySetting],
               nli: Entailer | None, judge: GEvalJudge | None = None, placing_nli: Entailer | None = None,
               progress: Progress | None = None) -> dict:
    """Table 3: every (model, strategy) setting answers `questions` and is evaluated against `gold`.
    The model strategy runs under the citation grammar (`settings.constrain`, default "marks")."""
    out_dir = Path(settings.out_dir)
    rows, first = [], None
    for setting in rows_of:
        with _loaded(load_llm, setting.model, settings) as llm:
            components = Components(store=store, llm=llm, ner=ner)
            path = answer_setting(setting.name, questions, None, components, settings,
                                  answer_fn=_answer_fn(setting.cite, placing_nli), progress=progress)
        results = evaluate_setting(setting.name, path, settings, None, gold=gold, nli=nli, judge=judge,
                                   progress=progress)
        first = first or results
        model = (results.header.answer_models or [{}])[0]
        rows.append(setting_row(setting.name, results, model=setting.model, cite=setting.cite,
                                model_sha256=model.get("model_sha256")))
    header = _header("strategies", questions, settings, gold, first,
                     rows_of=[{"model": s.model, "cite": s.cite} for s in rows_of])
    files = write_experiment_report("strategies", rows, out_dir, header=header, plots=settings.plots)
    return {"kind": "strategies", "header": header, "rows": rows, "files": {k: str(v) for k, v in files.items()}}


def paper(questions: Sequence[Any], gold: Mapping[str, Any], *, store: GraphStore, ner: MentionDetector,
          load_llm: LLMLoader, settings: ExperimentSettings, rows_of: Sequence[StrategySetting], nli: Entailer | None,
          judge: GEvalJudge | None = None, placing_nli: Entailer | None = None, parts: Sequence[str] = PARTS,
          results_md: str | Path | None = None, progress: Progress | None = None) -> dict:
    """Every part in `parts`, each under `settings.out_dir/<part>`; then `results_md` when given."""
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise ExperimentError(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    if not rows_of:
        raise ExperimentError("give at least one MODEL:STRATEGY setting")
    root = Path(settings.out_dir)
    done: dict[str, Any] = {}
    if "table3" in parts:
        done["table3"] = strategies(questions, gold, store=store, ner=ner, load_llm=load_llm,
                                    settings=replace(settings, out_dir=root / "table3"), rows_of=rows_of, nli=nli,
                                    judge=judge, placing_nli=placing_nli, progress=progress)
    headline = rows_of[0]
    later = [p for p in parts if p != "table3"]
    if later:
        with _loaded(load_llm, headline.model, settings) as llm:
            components = Components(store=store, llm=llm, ner=ner)
            answer_fn = _answer_fn(headline.cite, placing_nli)
            if "table5" in parts:
                done["table5"] = conscious(questions, gold, components=components,
                                           settings=replace(settings, out_dir=root / "table5"), nli=nli,
                                           judge=judge, answer_fn=answer_fn, progress=progress)
            if "figure5" in parts:
                done["figure5"] = retrieval(questions, components=components,
                                            settings=replace(settings, out_dir=root / "figure5"), nli=nli,
                                            judge=judge, gold=gold, answer_fn=answer_fn, progress=progress)
            if "table7" in parts:
                done["table7"] = variants(questions, components=components,
                                          settings=replace(settings, out_dir=root / "table7"), nli=nli,
                                          judge=judge, gold=gold, answer_fn=answer_fn, progress=progress)
    result = {"kind": "paper", "parts": done, "headline": {"model": headline.model, "cite": headline.cite}}
    if results_md is not None:
        from kalma_graph.pipeline.strategies import strategy_traits
        from kalma_graph.reporting.paper import write_results_markdown

        result["results_md"] = str(write_results_markdown(root, Path(results_md), traits=strategy_traits()))
    return result
