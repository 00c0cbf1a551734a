"""`kalma-graph answer`: answer a question file or one question citing the graph, by default with the grounded
strategy (thin wrapper over `kalma_graph.pipeline.answer.answer_questions`)."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from kalma_graph.pipeline.strategies import (
    CITE_STRATEGIES,
    DEFAULT_CITE,
    DEFAULT_CITE_WHY,
    FALLBACK_CITE,
    FOLLOW_OPTION,
    cite_help,
    paper_baseline,
    strategy,
)

from .common import console, err_console, fail, json_option, print_json
from .options import option

QUESTION_OUT = "runs/answers.jsonl"  # where `--question` answers go unless --out says otherwise


@click.command("answer")
@click.option("--questions", "questions_file", type=click.Path(exists=True, dir_okay=False),
              help="BioKaLMA *_question_graph.json[.gz] or JSON lines {\"id\", \"question\"}.")
@click.option("--question", "question_text", help="Answer this one question instead of a file.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="Answers, one JSON record a line; re-running with the same file resumes (required with "
                   f"--questions; with --question default {QUESTION_OUT}).")
@click.option("--variant", type=click.Choice(["general", "specific"]), default=None,
              help="Question variant and prompt (default: specific for BioKaLMA complex_* files, else general).")
@click.option("--prompt", "prompt_name", default=None, metavar="NAME",
              help="Prompt file instead of kalma/answer_<variant> (e.g. kalma/answer_paper, Table 13's own question).")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N questions.")
@option("store")
@option("model",
        help="Registry name (`kalma-graph models list`), GGUF file or model server (http://HOST:PORT/v1#MODEL, "
             "docs/scaling.md) [env KALMA_LLM] (default: the best pulled registry model, else the packaged "
             "SmolLM2-135M-Instruct; the header says which and why).")
@click.option("--model-sha256", "model_sha256", default=None, metavar="HEX",
              help="Refuse the model file unless its sha256 is HEX (for a GGUF given by path; registry models are "
                   "always checked against their pinned sha256). Hashed once, then cached by size and mtime.")
@option("n-gpu-layers")
@option("n-ctx")
@option("threads")
@click.option("--seed", type=int, default=0, show_default=True)
@option("temperature")
@click.option("--top-p", type=click.FloatRange(min=0.0, max=1.0), default=1.0, show_default=True)
@option("max-tokens")
@click.option("--constrain-citations/--no-constrain-citations", default=False, show_default=True,
              help="Constrain decoding with a per-question grammar: every citation is [NA] or cites retrieved triples.")
@click.option("--cite-every-sentence", is_flag=True,
              help="With the grammar, also require a citation mark ([NA] or a retrieved triple) in every sentence.")
@click.option("--cite", "cite", type=click.Choice(list(CITE_STRATEGIES)), default=None,
              help=cite_help(f"How citations are made (default: {DEFAULT_CITE}, the best measured; the header says "
                             "why, and records the strategy's traits):"))
@option("nli", help="NLI model (hub id or path) that places citations for a --cite strategy that needs one "
                    "[env KALMA_NLI_MODEL].")
@option("ner")
@click.option("--type-policy", type=click.Choice(["graph", "strict", "prefer"]), default="graph", show_default=True,
              help="graph: names found in the graph join the NER mentions, and the graph's types (an exact human "
                   "match) are evidence beside the NER label; strict: the paper's NER-type filter, which may leave a "
                   "mention unlinked; prefer: strict, but keep all matches when none fits.")
@click.option("--partial-names/--no-partial-names", default=True, show_default=True,
              help="Link unmatched person mentions that are part of a name linked in the question.")
@click.option("--resume/--no-resume", default=True, show_default=True,
              help="Skip ids already in --out (--no-resume starts the file over).")
@option("concurrency")
@option("shard",
        help="Answer only shard I of N (questions by a stable hash of their id; after --limit); "
                   "`kalma-graph merge` joins the shards' files into one.")
@click.option("--no-progress", is_flag=True, help="No progress bar (also off when stderr is not a terminal).")
@click.option("--show/--no-show", default=None,
              help="Print each answer with how it was planned (default: on for --question, off for a file).")
@json_option
def answer(questions_file, question_text, out_path, variant, prompt_name, limit, store_uri, model, model_sha256,
           n_gpu_layers, n_ctx, threads, seed, temperature, top_p, max_tokens, constrain_citations,
           cite_every_sentence, cite, nli_model, ner, type_policy, partial_names, resume, concurrency, shard,
           no_progress, show, as_json):
    """Answer questions with knowledge-graph citations (KaLMA: NER, linking, re-ranking, one-hop knowledge,
    local GGUF model; by default the grounded strategy, `--cite model` for the paper's baseline)."""
    from kalma_graph.models.llm import GenerationParams
    from kalma_graph.pipeline.answer import (
        AnswerInterrupted,
        answer_questions,
        default_variant,
        header_path,
        pending_questions,
    )

    chosen = cite is not None
    cite_why = "chosen with --cite" if chosen else DEFAULT_CITE_WHY
    cite = cite or DEFAULT_CITE
    try:
        questions = _questions(questions_file, question_text, limit, shard)
        if out_path is None and question_text is None:
            raise click.UsageError("--out is required with --questions")
        out_path = out_path or QUESTION_OUT
        variant = variant or default_variant(questions_file)
        params = GenerationParams(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed)
        if resume and not pending_questions(questions, out_path):
            # Everything is already answered: nothing can be mixed in, so no model is loaded.
            summary = {"out": out_path, "questions": len(questions), "skipped_done": len(questions), "written": 0,
                       "failed": [], "header": str(header_path(out_path))}
            if as_json:
                print_json(summary)
                return
            if question_text is not None and show is not False:  # asked again: show the answer already given
                _print_answers(out_path, [q.id for q in questions])
                console.print(f"[dim]already answered in {escape(out_path)} (--no-resume answers it again)[/]")
            else:
                console.print(f"nothing to do: all {len(questions)} answers are already in {escape(out_path)}")
            return
        choice, nli, store, ner_pipeline, llm, fallback, startup = _load(
            cite, chosen, model, model_sha256, nli_model, store_uri, ner, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers,
            threads=threads, seed=seed)
        if fallback:
            cite, cite_why = FALLBACK_CITE, fallback
    except (ValueError, OSError) as exc:  # a library's too (pydantic, the OS); the project's own: main_errors
        fail(exc)
    grammar = "every_sentence" if cite_every_sentence else ("marks" if constrain_citations else None)
    err_console.print(
        f"[dim]model:[/] {escape(choice.name)}: {escape(llm.device_line())}  [dim]({escape(choice.why)})[/]")
    err_console.print(
        f"[dim]ner:[/] {ner_pipeline.name} {ner_pipeline.version}  [dim]store:[/] {escape(store.uri)}  "
        f"[dim]variant:[/] {variant}  [dim]cite:[/] {cite} [dim]({escape(cite_why)})[/]  [dim]citation grammar:[/] "
        f"{_grammar_shown(strategy(cite).traits.grammar, grammar)}"
    )
    err_console.print("[dim]loaded in " + ", ".join(f"{k} {v:.1f} s" for k, v in startup.items()) + "[/]")

    bar, on_progress = _progress_bar(not no_progress and sys.stderr.isatty())
    try:
        with bar:
            summary = answer_questions(
                store, llm, ner_pipeline, questions, variant=variant, params=params, constrain=grammar or False,
                out_path=out_path, resume=resume, progress=on_progress, prompt_name=prompt_name,
                type_policy=type_policy, partial=partial_names, source=questions_file or "--question",
                cite=cite, nli=nli, model_choice={"name": choice.name, "path": str(choice.path), "why": choice.why},
                concurrency=concurrency, cite_why=cite_why,
            )
    except AnswerInterrupted as exc:
        summary = exc.summary
        err_console.print(f"[yellow]interrupted[/]: {summary.get('written', 0)} answers written to {escape(out_path)}; "
                          "run the same command again to resume")
        sys.exit(130)
    finally:
        llm.close()
        store.close()

    summary["header"] = str(header_path(out_path))
    summary["startup_s"] = startup
    if (show if show is not None else question_text is not None) and not as_json:
        _print_answers(out_path, [q.id for q in questions])
    _print_summary(summary, out_path, as_json)


def _questions(questions_file: str | None, question_text: str | None, limit: int | None, shard: str | None) -> list:
    """The questions asked: a file's or the one `--question` (refused when empty), limited and sharded."""
    from kalma_graph.pipeline.answer import load_questions, question_from_text
    from kalma_graph.shards import Shard

    if bool(questions_file) == (question_text is not None):
        raise click.UsageError("give exactly one of --questions FILE or --question TEXT")
    if question_text is not None and not question_text.strip():
        raise click.UsageError("--question is empty: nothing to answer")
    questions = load_questions(questions_file) if questions_file else [question_from_text(question_text or "")]
    if limit:
        questions = questions[:limit]
    return Shard.parse(shard).select(questions) if shard else questions


def _grammar_shown(own: str | None, asked: str | None) -> str:
    """The citation grammar a strategy answers under: its own, none (it answers freely), or what was asked."""
    return (asked if own == FOLLOW_OPTION else own) or "none"


def _progress_bar(show: bool) -> tuple[Progress, Callable[[int, int, dict], None]]:
    """A progress bar (questions done, rate, ETA) and the callback that moves it."""
    bar = Progress(
        TextColumn("[bold]answer"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=err_console, disable=not show,
    )
    task = None

    def on_progress(done: int, total: int, info: dict) -> None:
        nonlocal task
        if task is None:
            task = bar.add_task("answer", total=total, rate="")
        elapsed = bar.tasks[0].elapsed or 0.0
        bar.update(task, completed=done, rate=f"{done / elapsed:.2f} q/s" if elapsed > 0 else "")

    return bar, on_progress


def _print_answers(out_path: str, ids: list[str]) -> None:
    """Each answer as a reader meets it: the question, the answer with its marks, and what the plan asked,
    what the graph could not answer and why the answer stopped."""
    from kalma_graph.pipeline.answer import read_records

    wanted = set(ids)
    for record in read_records(out_path):
        if record.get("id") not in wanted:
            continue
        console.print(f"\n[bold]{escape(record['question'])}[/]")
        console.print(escape(record["answer"])
                      or f"[dim](no answer: {escape(record.get('retrieval_reason') or '')})[/]")
        if record.get("retrieval_reason"):
            console.print(f"[dim]graph: {escape(record['retrieval_reason'])}[/]")
        grounding = record.get("grounding") or {}
        if grounding:
            console.print(f"[dim]{grounding.get('sentences', 0)} sentences; asked and held: "
                          f"{escape(', '.join(grounding.get('asked') or []) or 'nothing named')}; "
                          f"not in the graph: {escape(', '.join(grounding.get('unanswered') or []) or 'nothing')}; "
                          f"stopped: {escape(grounding.get('stop_reason') or '')}"
                          f"{'; ' + escape(grounding['note']) if grounding.get('note') else ''}[/]")


def _print_summary(summary: dict, out_path: str, as_json: bool) -> None:
    """What the run did, as JSON or one line (and the first failures); exit 1 when a question failed."""
    if as_json:
        print_json(summary)
        return
    console.print(
        f"{summary['written']} answered, {summary['skipped_done']} already done, {len(summary['failed'])} failed "
        f"-> {escape(out_path)}  ({summary['questions_per_s']:.2f} questions/s on {summary['device']}; "
        f"{summary['with_citation']} with a citation, {summary['truncated']} truncated at --max-tokens)"
    )
    for failure in summary["failed"][:10]:
        err_console.print(f"[red]failed[/] {escape(failure['id'])}: {escape(failure['error'])}")
    if summary["failed"]:
        sys.exit(1)


def _load(cite: str, chosen: bool, model: str | None, model_sha256: str | None, nli_model: str | None,
          store_uri: str | None, ner: str | None, *, n_ctx: int, n_gpu_layers: int | None, threads: int | None,
          seed: int) -> tuple:
    """The model choice, the NLI model a strategy needs (else None), the store, the NER pipeline, the model,
    why the default strategy gave way (None when it did not), and the seconds each load took (what a cold
    `answer --question` waits before its first question: docs/scaling.md). A strategy that `needs_chat_template`
    (`grounded`) continues the rendered chat prompt, so a model without one (a model server) answers with
    `FALLBACK_CITE` unless that strategy was asked for by name."""
    from kalma_graph.models.llm import LLMError, load_llm
    from kalma_graph.models.ner import load_ner
    from kalma_graph.models.registry import choose_model
    from kalma_graph.pipeline.answer import AnswerError
    from kalma_graph.store import open_store

    startup: dict[str, float] = {}

    def timed(name: str, load: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return load()
        finally:
            startup[name] = round(time.perf_counter() - t0, 3)

    choice = timed("model check", lambda: choose_model(model, sha256=model_sha256))
    nli = None
    traits = strategy(cite).traits
    if traits.needs_nli:
        if not nli_model:
            raise AnswerError(f"--cite {cite} places citations with an NLI model: give --nli MODEL "
                              "(or set KALMA_NLI_MODEL)")
        from kalma_graph.models.nli import load_nli

        nli = timed("NLI", lambda: load_nli(nli_model))
    store = timed("store", lambda: open_store(store_uri))
    ner_pipeline = timed("NER", lambda: load_ner(ner))
    llm = timed("model", lambda: load_llm(choice.path, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=threads,
                                          seed=seed))
    fallback = None
    if traits.needs_chat_template:  # it continues the rendered chat prompt: refuse a model without one up front
        try:
            llm.chat_prompt([{"role": "user", "content": "?"}])
        except LLMError as exc:
            if chosen:
                raise
            fallback = (f"default {cite} needs a model whose chat prompt it can continue ({exc}): "
                        f"{FALLBACK_CITE} instead; --cite {paper_baseline()} is the paper's baseline")
    return choice, nli, store, ner_pipeline, llm, fallback, startup

