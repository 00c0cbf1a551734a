"""`kalma-graph experiment conscious|retrieval|variants`: the KaLMA experiments (§5.2, §5.3, §5.5).

Each answers its settings with the answer pipeline (`kalma-graph answer`, issue #4) and a knowledge
filter, evaluates every setting like `kalma-graph evaluate`, and writes OUT/experiment.{json,csv,md}
with the paper's tables and plots. `--reuse-answers` evaluates OUT/<setting>/answers.jsonl as found
(no generation model, NER or pipeline needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from kalma_graph.pipeline.strategies import CITE_STRATEGIES

from .common import KalmaGroup, console, err_console, failing_on, figure, json_option, print_json
from .evaluate_cmd import build_options, load_models, nli_options
from .options import option, renamed


def _ints(text: str, name: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {text!r}", param_hint=name) from None


def pipeline_options(func):
    for decorator in reversed([
        option("store", help="Graph store to retrieve from (embedded[:PATH] or bolt://…) [env KALMA_STORE]."),
        option("model", help="Answering model (`--setting MODEL:STRATEGY` names it per row), a registry name, a GGUF "
                             "path or a model server [env KALMA_LLM]."),
        option("n-ctx"),
        option("n-gpu-layers", help="Answering-model layers on the GPU (default: all when possible; --gpu-layers is "
                                    "an alias)."),
        option("ner"),
        option("max-tokens"),
        option("temperature"),
        click.option("--constrain", is_flag=True, help="Grammar-constrained citation format (passed to the pipeline)."),
        click.option("--limit", type=int, default=None, help="Only the first N questions."),
        option("shard",
               help="Answer only shard I of N of the questions (a stable hash of their id) in every setting; "
                          "`kalma-graph merge --questions Q --out DIR OUT1 OUT2 …` joins the shards' directories and "
                          "the same command with --out DIR scores the whole run (docs/scaling.md)."),
        click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
                     help="Experiment directory; re-running with the same one resumes."),
        click.option("--reuse-answers", is_flag=True,
                     help="Evaluate OUT/<setting>/answers.jsonl as found; answer nothing."),
        click.option("--write-store", is_flag=True, help="Write every setting's evaluation run into the store."),
        click.option("--no-plots", is_flag=True),
        json_option,
    ]):
        func = decorator(func)
    return func


class _Context:
    """Models and store loaded once for an experiment; closed at the end."""

    def __init__(self, kw: dict[str, Any], *, needs_store: bool, load_answerer: bool = True) -> None:
        """`load_answerer=False`: the command loads its answering models itself (experiment paper)."""
        from kalma_graph.experiments import Components, ExperimentSettings

        self.kw = kw
        out = Path(kw["out_dir"])
        self.options = build_options(kw["matching"], kw["hypothesis_format"], kw["absent_set"], kw["threshold"],
                                     kw["alignment_first"], kw["nli_batch_size"], kw["geval_sample"], kw["seed"],
                                     kw.get("alignment_method", "verifier"))
        self.nli, self.judge = load_models(
            out, nli_model=kw["nli_model"], no_nli=kw["no_nli"], nli_batch_size=kw["nli_batch_size"],
            nli_cache=kw["nli_cache"], device=kw["device"], judge=kw["judge"], judge_ctx=kw["judge_ctx"],
            judge_gpu_layers=kw["judge_gpu_layers"], geval_aspects=kw["geval_aspects"],
            geval_min_mass=kw["geval_min_mass"], seed=kw["seed"], judge_threads=kw["judge_threads"],
            judge_concurrency=kw["judge_concurrency"])
        self.store = None
        if needs_store or kw["write_store"] or not kw["reuse_answers"]:
            from kalma_graph.store import open_store

            self.store = open_store(kw["store_uri"])
        llm = ner = params = None
        if load_answerer and not kw["reuse_answers"]:
            from kalma_graph.models.llm import GenerationParams, load_llm

            llm = load_llm(kw["model"], n_ctx=kw["n_ctx"], n_gpu_layers=kw["n_gpu_layers"], seed=kw["seed"])
            ner = load_ner(kw["ner"])
            params = GenerationParams(max_tokens=kw["max_tokens"], temperature=kw["temperature"], seed=kw["seed"])
        self.components = Components(store=self.store, llm=llm, ner=ner)
        from kalma_graph.shards import Shard

        self.settings = ExperimentSettings(out_dir=out, params=params, constrain=kw["constrain"], options=self.options,
                                           seed=kw["seed"], reuse_answers=kw["reuse_answers"],
                                           write_store=kw["write_store"], plots=not kw["no_plots"],
                                           shard=Shard.parse(kw["shard"]) if kw["shard"] else None)

    def close(self) -> None:
        for thing in (self.nli, self.judge, self.store):
            if thing is not None:
                thing.close()
        if self.components.llm is not None:
            self.components.llm.close()


def load_ner(name: str | None) -> Any:
    from kalma_graph.models.ner import load_ner as _load_ner

    return _load_ner(name)


def _progress(enabled: bool):
    if not enabled:
        return None

    def report(setting: str, stage: str, done: int, total: int) -> None:
        if done == total:
            err_console.print(f"  {setting} · {stage}: {done}/{total}", highlight=False)

    return report


def _gold(path: str | None):
    from kalma_graph.evaluation.gold import load_gold

    return load_gold(path) if path else None


def _finish(result: dict, as_json: bool) -> None:
    if as_json:
        print_json(result)
        return
    rows = result["rows"]
    table = Table(title=f"experiment {result['kind']}")
    columns = ["setting", "answers", "alignment_micro", "correctness", "precision_micro", "recall_micro", "f1_micro"]
    if result["kind"] == "conscious":
        columns += ["na_precision", "na_recall", "na_f1"]
    for c in columns:
        table.add_column(c.replace("_micro", "").replace("_", " "), justify="right")
    for r in rows:
        table.add_row(*[str(r.get(c)) if c in ("setting", "answers") else
                        figure(r.get(c), 1, scale=100) for c in columns])
    console.print(table)
    console.print(f"report: {escape(result['files']['markdown'])}")


@click.group("experiment", cls=KalmaGroup)
def experiment() -> None:
    """The KaLMA experiments: knowledge removal, retrieval accuracy, general vs specific questions."""


@experiment.command("conscious")
@click.option("--questions", required=True, type=click.Path(exists=True, dir_okay=False),
              help="BioKaLMA question file (complex_… = specific) or JSONL {id, question}.")
@click.option("--gold", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold minimum knowledge sets (the triples that are removed).")
@click.option("--variant", type=click.Choice(["general", "specific"]), default=None,
              help="Answer prompt variant [default: from the file name, else specific].")
@click.option("--removed", "rounds", default="0,1,2,3", show_default=True,
              help="Minimum-set triples withheld, one setting each (Table 5's rows).")
@renamed("--rounds", "--removed", "--rounds counts the BioKaLMA build's evolution rounds")
@click.option("--removal-seed", type=int, default=None,
              help="Shuffle the removal order per question (default: gold order).")
@pipeline_options
@nli_options
def conscious_cmd(questions, gold, variant, rounds, removal_seed, **kw):
    """Conscious incompetence (KaLMA §5.2): withhold 0..3 minimum-set triples, report citation
    quality (Table 5) and [NA] precision/recall/F1 (Figure 4)."""
    from kalma_graph.experiments import conscious, load_questions
    from kalma_graph.experiments.questions import default_variant

    with failing_on(ValueError):
        qs = load_questions(questions, limit=kw["limit"])
        gold_sets = _gold(gold)
        ctx = _Context(kw, needs_store=False)
        try:
            ctx.settings.variant = variant or default_variant(questions)
            result = conscious(qs, gold_sets, components=ctx.components, settings=ctx.settings, nli=ctx.nli,
                               judge=ctx.judge, rounds=_ints(rounds, "--removed"), removal_seed=removal_seed,
                               progress=_progress(True))
        finally:
            ctx.close()
    _finish(result, kw["as_json"])


@experiment.command("retrieval")
@click.option("--questions", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--gold", type=click.Path(exists=True, dir_okay=False), default=None)
@click.option("--variant", type=click.Choice(["general", "specific"]), default=None)
@click.option("--accuracies", default="100,80,60,40,20", show_default=True,
              help="Retrieval accuracy levels: at a, (100-a)% of the questions get irrelevant graphs.")
@click.option("--pool-type", default="Q5", show_default=True,
              help="Irrelevant graphs are one-hop graphs of random entities of this type.")
@pipeline_options
@nli_options
def retrieval_cmd(questions, gold, variant, accuracies, pool_type, **kw):
    """Retrieval accuracy ablation (KaLMA §5.3, Figure 5): replace 0/20/40/60/80% of the questions'
    graphs with other entities' one-hop graphs (seeded) and report citation quality per level."""
    from kalma_graph.experiments import load_questions, retrieval
    from kalma_graph.experiments.questions import default_variant

    with failing_on(ValueError):
        qs = load_questions(questions, limit=kw["limit"])
        ctx = _Context(kw, needs_store=not kw["reuse_answers"])
        try:
            ctx.settings.variant = variant or default_variant(questions)
            result = retrieval(qs, components=ctx.components, settings=ctx.settings, nli=ctx.nli, judge=ctx.judge,
                               gold=_gold(gold), accuracies=_ints(accuracies, "--accuracies"), pool_type=pool_type,
                               progress=_progress(True))
        finally:
            ctx.close()
    _finish(result, kw["as_json"])


@experiment.command("variants")
@click.option("--general", "general_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="General questions (BioKaLMA simple_question_graph.json); with --specific.")
@click.option("--specific", "specific_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Specific questions (BioKaLMA complex_question_graph.json), aligned with --general.")
@click.option("--questions", "questions_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help='Instead of the pair: JSON lines {"id", "question", "variants": {"general": ..., "specific": ...}}.')
@click.option("--gold", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Gold sets keyed by the specific file's ids (one set serves both wordings).")
@pipeline_options
@nli_options
def variants_cmd(general_file, specific_file, questions_file, gold, **kw):
    """General vs specific questions (KaLMA §5.5, Table 7): the same entries answered in both
    wordings, each with its prompt variant, evaluated against the same gold sets."""
    from kalma_graph.experiments import load_questions, merge_variants, variants

    if bool(questions_file) == bool(general_file and specific_file) or bool(general_file) != bool(specific_file):
        raise click.UsageError(
            "give --general and --specific (a BioKaLMA pair), or --questions (JSON lines with variants)")
    with failing_on(ValueError):
        if questions_file:
            qs = load_questions(questions_file, limit=kw["limit"])
        else:
            qs = merge_variants(load_questions(general_file), load_questions(specific_file))[: kw["limit"]]
        ctx = _Context(kw, needs_store=False)
        try:
            result = variants(qs, components=ctx.components, settings=ctx.settings, nli=ctx.nli, judge=ctx.judge,
                              gold=_gold(gold), progress=_progress(True))
        finally:
            ctx.close()
    _finish(result, kw["as_json"])


# Table 3's rows by default; the first is the headline setting of Tables 5 and 7 and Figure 5.
DEFAULT_STRATEGIES = ("attribute-first", "model", "posthoc", "verified")


@experiment.command("paper")
@click.option("--questions", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Questions with both wordings (the built dataset's *.questions.jsonl).")
@click.option("--gold", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold minimum knowledge sets.")
@click.option("--setting", "settings_", multiple=True, metavar="MODEL:STRATEGY",
              help="A Table 3 row, e.g. qwen2.5-coder-1.5b-q4km:attribute-first (repeatable; the first is the "
                   "headline setting the other parts use); STRATEGY: " + ", ".join(CITE_STRATEGIES) + " (`answer "
                   "--help` says what each does). Default: the 1.5B model with "
                   + ", ".join(DEFAULT_STRATEGIES) + " (attribute-first is the headline).")
@click.option("--parts", default="table3,table5,figure5,table7", show_default=True,
              help="Which tables: table3 (and Table 4 with --judge), table5 (+ Figure 4), figure5, table7.")
@click.option("--placing-nli", default=None, metavar="MODEL",
              help="NLI model that places post-hoc citations "
                   "(default: the --nli model; alignment is then flagged self-scored).")
@option("threads")
@click.option("--results-md", type=click.Path(dir_okay=False), default="docs/results.md", show_default=True,
              help="Where the tables beside the paper's rows go.")
@pipeline_options
@nli_options
def paper_cmd(questions, gold, settings_, parts, placing_nli, threads, results_md, **kw):
    """KaLMA's result tables (Tables 3, 4, 5, 7; Figures 4, 5) on a local model, resumable, with the
    paper's rows beside ours in --results-md."""
    from kalma_graph.experiments import load_questions
    from kalma_graph.experiments.paper import StrategySetting, paper
    from kalma_graph.models.llm import load_llm
    from kalma_graph.models.registry import choose_model

    rows_of = [StrategySetting.parse(s) for s in settings_] or [
        StrategySetting("qwen2.5-coder-1.5b-q4km", cite) for cite in DEFAULT_STRATEGIES]
    with failing_on(ValueError):
        qs = load_questions(questions, limit=kw["limit"])
        # answering models: per setting, below; a re-evaluation (--reuse-answers) opens no store, so it runs
        # beside a run that holds the embedded store's lock
        ctx = _Context(kw, needs_store=not kw["reuse_answers"], load_answerer=False)
        try:
            from kalma_graph.models.llm import GenerationParams

            ctx.settings.params = GenerationParams(max_tokens=kw["max_tokens"], temperature=kw["temperature"],
                                                   seed=kw["seed"])
            ctx.settings.constrain = "marks"
            ctx.settings.variant = "specific"
            placing = ctx.nli
            if placing_nli:
                from kalma_graph.models.nli import load_nli

                placing = load_nli(placing_nli)
            ner = None if kw["reuse_answers"] else load_ner(kw["ner"])

            def loader(model: str):
                return load_llm(choose_model(model).path, n_ctx=kw["n_ctx"], n_gpu_layers=kw["n_gpu_layers"],
                                n_threads=threads, seed=kw["seed"])

            result = paper(qs, _gold(gold), store=ctx.store, ner=ner, load_llm=loader, settings=ctx.settings,
                           rows_of=rows_of, nli=ctx.nli, judge=ctx.judge, placing_nli=placing,
                           parts=[p.strip() for p in parts.split(",") if p.strip()],
                           # a shard's figures are of its questions only: they never go beside the paper's rows
                           results_md=None if kw["shard"] else results_md,
                           progress=_progress(True))
        finally:
            ctx.close()
    if kw["as_json"]:
        print_json(result)
        return
    for found in result["parts"].values():
        _finish(found, False)
    console.print(f"results: {escape(result.get('results_md') or '')}")
