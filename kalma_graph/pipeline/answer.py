"""The KaLMA baseline end to end (seed 000, §3): retrieval → re-ranking → attributed generation.

`answer_questions(store, llm, ner, questions, ...)` answers each question with the one-shot prompt of
Table 13 over the question's retrieved knowledge, parses the answer's citations with the shared
parser and writes one JSON record per question (schema in docs/answer.md). It is what the CLI
`kalma-graph answer` runs and what the experiments call with a `knowledge_filter` (knowledge removal,
retrieval ablation): the filter gets the question and its retrieved triples and returns
`(shown, removed)`; only `shown` reaches the prompt (and the citation grammar), `removed` is recorded.

Runs are resumable: records are appended, flushed and fsync'ed one by one; a re-run with the same
`out_path` skips the ids already written (and refuses to mix in records made with other settings).
A line cut by an interruption is trimmed and that question answered again; a corrupt line inside the
file stops the run with its `file:line` rather than dropping the records after it.
A sidecar `<out>.header.json` holds the run-level facts (store, model, NER pipeline, prompt name and
sha256, parameters, library versions).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.files import JsonlAppender, atomic_write_json, read_jsonl, refuse_other_settings
from kalma_graph.generation.grammar import GRAMMAR_MODES
from kalma_graph.generation.prompt import VARIANTS, build_messages, load_answer_prompt, messages_sha256
from kalma_graph.kg.citations import known_pairs, known_props, parse_answer
from kalma_graph.kg.knowledge import knowledge_blocks, unlabelled
from kalma_graph.kg.triples import Triple
from kalma_graph.lines import json_lines, open_text
from kalma_graph.models.calls import in_order
from kalma_graph.models.llm import Completion, GenerationParams, LLMError
from kalma_graph.models.protocols import Entailer, Generator, MentionDetector
from kalma_graph.pipeline.cite import MAX_CITED, POSTHOC_THRESHOLD
from kalma_graph.pipeline.grounded import GroundedResult
from kalma_graph.pipeline.strategies import FOLLOW_OPTION, Cited, Generated, Prompted, strategy as cite_strategy
from kalma_graph.provenance import library_versions
from kalma_graph.records import AnswerRecord, CitationRecord, SentenceRecord, TripleRecord
from kalma_graph.retrieval.linking import DEFAULT_TYPE_POLICY, TypeMap, load_type_map
from kalma_graph.retrieval.retrieve import linked_dict, retrieve
from kalma_graph.store.base import GraphStore, StoreError

EMPTY_QUESTION = "empty question: nothing to answer (no model call)"

__all__ = [
    "AnswerError",
    "AnswerInterrupted",
    "KnowledgeFilter",
    "Question",
    "answer_questions",
    "header_path",
    "load_biokalma_questions",
    "load_jsonl_questions",
    "load_questions",
    "open_answers",
    "pending_questions",
    "question_from_text",
    "read_records",
]

KnowledgeFilter = Callable[["Question", list[Triple]], tuple[list[Triple], list[Triple]]]
Progress = Callable[[int, int, dict], None]

DEFAULT_MAX_TOKENS = 512
# Tokens kept free after the prompt: a prompt that leaves less than this is not generated.
_MIN_GENERATION_ROOM = 16


class AnswerInterrupted(KeyboardInterrupt):
    """Ctrl-C during `answer_questions`: every finished answer was written; `summary` says how many.
    A KeyboardInterrupt still (callers that stop on Ctrl-C keep stopping), with its summary typed."""

    def __init__(self, summary: dict) -> None:
        super().__init__(f"interrupted after {summary.get('written', 0)} answers")
        self.summary = summary


class AnswerError(BadInputError, RuntimeError):
    """A run cannot go on as asked (mismatched resume, unreadable questions); the message says why."""


# --- questions -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """A question to answer. `variant_texts` maps a variant (`general`, `specific`) to its wording
    when a source holds several; `reference_qids` are the entities a dataset lists for it (BioKaLMA's
    records), kept for comparisons and experiments, never used by retrieval."""

    id: str
    text: str
    variant_texts: Mapping[str, str] | None = None
    reference_qids: tuple[str, ...] = ()

    def text_for(self, variant: str) -> str:
        if self.variant_texts and variant in self.variant_texts:
            return self.variant_texts[variant]
        return self.text


def _strip_question_label(text: str) -> str:
    """The BioKaLMA release starts some questions with "question: " (a generation artefact)."""
    text = text.strip()
    return text[len("question:"):].strip() if text[:9].casefold() == "question:" else text


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".bz2", ".json", ".jsonl"):
        name = name.removesuffix(suffix)
    return name


def load_biokalma_questions(path: str | os.PathLike) -> list[Question]:
    """A BioKaLMA question file (`[[question, [records]], ...]`, optionally gzipped). Ids are
    `<file stem>:<index>` (`simple_question_graph:0`); the leading "question: " some released
    questions carry is removed; each record's qid goes to `reference_qids`."""
    path = Path(path)
    with open_text(path) as handle:
        data = json.load(handle)
    if not isinstance(data, list) or (data and not (isinstance(data[0], list) and len(data[0]) == 2)):
        raise AnswerError(f"{path}: not a BioKaLMA question file (expected [[question, [records]], ...])")
    stem = _stem(path)
    out = []
    for index, (question, records) in enumerate(data):
        qids = tuple(r["qid"] for r in records if isinstance(r, dict) and r.get("qid"))
        out.append(Question(id=f"{stem}:{index}", text=_strip_question_label(question), reference_qids=qids))
    return out


def load_jsonl_questions(path: str | os.PathLike) -> list[Question]:
    """JSON lines `{"id": ..., "question": ...}` (optional `"variants": {"general": ..., "specific":
    ...}` and `"reference_qids"`), plain or compressed; a line without an id gets `<file stem>:<line number>`."""
    path = Path(path)
    out = []
    seen: set[str] = set()
    for where, row in json_lines(path, what="question file", error=AnswerError):
        try:
            text = row["question"]
        except (KeyError, TypeError) as exc:
            raise AnswerError(f"{where}: not a question record ({exc})") from exc
        qid = str(row.get("id") or f"{_stem(path)}:{where.rpartition(':')[2]}")
        if qid in seen:
            raise AnswerError(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        out.append(
            Question(
                id=qid,
                text=text,
                variant_texts=row.get("variants") or None,
                reference_qids=tuple(row.get("reference_qids") or ()),
            )
        )
    return out


def load_questions(path: str | os.PathLike) -> list[Question]:
    """BioKaLMA JSON (`.json[.gz]` holding a list) or our JSON lines (`.jsonl[.gz]`)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no question file {path}")
    if ".jsonl" in path.suffixes:
        return load_jsonl_questions(path)
    return load_biokalma_questions(path)


def question_from_text(text: str) -> Question:
    """A one-off question; its id is derived from the text so that a re-run resumes."""
    return Question(id="q:" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:12], text=text.strip())


def default_variant(path: str | os.PathLike | None) -> str:
    """BioKaLMA's `simple_…` files hold general questions, `complex_…` specific ones."""
    return "specific" if path is not None and Path(path).name.startswith("complex") else "general"


# --- output --------------------------------------------------------------------------------------


def header_path(out_path: str | os.PathLike) -> Path:
    return Path(f"{out_path}.header.json")


def read_records(path: str | os.PathLike) -> list[dict]:
    """The finished records of an answers file (none when it does not exist). Read-only: a torn last
    line is left out, not trimmed; a corrupt line inside raises `CorruptJsonlError` (`file:line`)."""
    return read_jsonl(path).records


def pending_questions(questions: Sequence[Question], out_path: str | os.PathLike) -> list[Question]:
    """The questions whose ids are not yet in `out_path` (all of them when it does not exist)."""
    done = {r.get("id") for r in read_records(out_path)}
    return [q for q in questions if q.id not in done]


def open_answers(path: str | os.PathLike, *, resume: bool = True) -> tuple[JsonlAppender, set[str | None]]:
    """The answers file opened for appending (each record fsynced), and the ids it already holds.

    `resume=False` empties it. On resume a torn last line left by an interrupted run is trimmed, so
    that question is answered again and its record starts on a line of its own; a corrupt line inside
    raises `CorruptJsonlError` naming `file:line`, and the file is left as it is."""
    writer = JsonlAppender(path, resume=resume)
    return writer, {r.get("id") for r in writer.records}


def _versions() -> dict[str, str | None]:
    from kalma_graph import __version__

    return {"kalma_graph": __version__, "python": platform.python_version(),
            **library_versions(("llama_cpp_python", "spacy", "ladybug", "neo4j"), missing="not installed")}


def _filter_name(knowledge_filter: KnowledgeFilter | None) -> str | None:
    if knowledge_filter is None:
        return None
    return (getattr(knowledge_filter, "name", None)
            or getattr(knowledge_filter, "__qualname__", type(knowledge_filter).__name__))


# --- answering -----------------------------------------------------------------------------------


@dataclass
class _Run:
    """Run-level settings that every record of one output file shares."""

    variant: str
    prompt: dict[str, Any]
    params: GenerationParams
    grammar_mode: str | None  # None (unconstrained) | "marks" | "every_sentence"
    type_map: TypeMap
    type_policy: str
    partial: bool
    filter_name: str | None
    model: dict[str, Any] = field(default_factory=dict)
    ner: dict[str, Any] = field(default_factory=dict)
    cite: str = "model"
    nli: Entailer | None = None  # the NLI model that places post-hoc citations

    def record_params(self) -> dict[str, Any]:
        return {
            **dataclasses.asdict(self.params),
            "stop": list(self.params.stop),
            "constrain_citations": self.grammar_mode is not None,
            "citation_grammar": self.grammar_mode,
            "prompt": self.prompt["name"],
            "prompt_version": self.prompt.get("version"),
            "type_policy": self.type_policy,
            "partial_names": self.partial,
            "knowledge_filter": self.filter_name,
            "cite": self.cite,
            "cite_nli_sha256": self.nli.model_hash if self.nli is not None else None,
            # a strategy that filters its citations with the verifier (`filters_citations`): its alignment is then
            # self-scored, and the evaluation scores the answer before the filter beside it
            "cite_verifier": _verifier_id() if cite_strategy(self.cite).traits.filters_citations else None,
        }

    def key(self) -> dict[str, Any]:
        """What must be equal for records to share one output file."""
        return {
            "model_sha256": self.model.get("model_sha256"),
            "prompt_sha256": self.prompt["sha256"],
            "variant": self.variant,
            "params": self.record_params(),
            "ner": {k: self.ner.get(k) for k in ("ner_pipeline", "ner_pipeline_version")},
            "type_map_sha256": self.type_map.sha256,
        }


def answer_questions(
    store: GraphStore,
    llm: Generator,
    ner: MentionDetector,
    questions: Iterable[Question],
    *,
    variant: str = "general",
    params: GenerationParams | None = None,
    constrain: bool | str = False,
    knowledge_filter: KnowledgeFilter | None = None,
    out_path: str | os.PathLike | None = None,
    resume: bool = True,
    progress: Progress | None = None,
    prompt_name: str | None = None,
    type_map: TypeMap | None = None,
    type_policy: str = DEFAULT_TYPE_POLICY,
    partial: bool = True,
    source: str | None = None,
    cite: str = "model",
    nli: Entailer | None = None,
    model_choice: Mapping[str, Any] | None = None,
    concurrency: int = 1,
    cite_why: str | None = None,
) -> dict[str, Any]:
    """Answer `questions`; returns a summary dict (with the records themselves when `out_path` is None).

    `llm` is a loaded `LocalLLM` (load it once per run), `ner` a loaded `NER`; `params` defaults to
    `GenerationParams(max_tokens=512)` (temperature 0, seed 0). `variant` picks the
    question wording (`Question.variant_texts`) and the prompt file `kalma/answer_<variant>`
    (`prompt_name` overrides the file). `constrain` adds the per-question citation grammar: True or
    "marks" constrains what is inside brackets, "every_sentence" also requires a mark in every
    sentence (`kalma_graph.generation.grammar`). `cite` picks how citations are made: a
    strategy of `kalma_graph.pipeline.strategies.STRATEGIES`, whose traits say which grammar it answers under
    and whether it needs the NLI model `nli`; the header records them (`cite.traits`). `model_choice` (name,
    why) goes into the header.
    `concurrency` keeps that many model calls in flight (a model server answers them in parallel; an in-process
    model takes them one at a time); the output is the same file as a sequential run's.
    """
    if concurrency < 1:
        raise AnswerError("concurrency must be at least 1")
    questions = list(questions)
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise AnswerError("question ids are not unique")
    run = _run_settings(llm, ner, variant=variant, params=params, constrain=constrain,
                        knowledge_filter=knowledge_filter,
                        prompt_name=prompt_name, type_map=type_map, type_policy=type_policy, partial=partial, cite=cite,
                        nli=nli)
    header = _header(run, store, source=source, model_choice=model_choice, cite_why=cite_why)
    writer, done_ids = _open_output(out_path, header, resume)
    todo = [q for q in questions if q.id not in done_ids]
    tally = _Tally(run, out_path, len(questions), todo, writer, progress)

    def generate(pair: tuple[Question, Any]) -> AnswerRecord:
        if isinstance(pair[1], BaseException):
            raise pair[1]
        return generate_one(llm, pair[1], run, knowledge_filter)

    started = time.perf_counter()
    interrupted = False
    calls = in_order(generate, _retrieved(store, ner, todo, run, knowledge_filter), concurrency)
    try:
        for (question, _), result in calls:
            tally.settle(question, result)
    except KeyboardInterrupt:
        interrupted = True  # answers in flight are not written: a re-run answers them
    finally:
        calls.close()
        if writer is not None:
            writer.close()
    summary = tally.finish(time.perf_counter() - started, interrupted)
    if out_path is not None:
        header["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        header["last_run"] = {k: v for k, v in summary.items() if k != "out"}
        atomic_write_json(header_path(Path(out_path)), header)
    if interrupted:
        raise AnswerInterrupted(summary)
    return summary


def _retrieved(store: GraphStore, ner: MentionDetector, todo: Sequence[Question], run: _Run,
               knowledge_filter: KnowledgeFilter | None) -> Iterator[tuple[Question, Any]]:
    """Each question with what retrieval found for it (or the error). Retrieval stays in the caller's thread (store
    and NER are not shared): `in_order` draws the next question only when a model-call slot frees up, and gives
    the answers back in question order (the sequential file)."""
    for question in todo:
        try:
            yield question, retrieve_one(store, ner, question, run, knowledge_filter)
        except StoreError:
            raise
        except (LLMError, ValueError, RuntimeError) as exc:
            yield question, exc


def _run_settings(llm: Generator, ner: MentionDetector, *, variant: str, params: GenerationParams | None,
                  constrain: bool | str, knowledge_filter: KnowledgeFilter | None, prompt_name: str | None,
                  type_map: TypeMap | None, type_policy: str, partial: bool, cite: str, nli: Entailer | None) -> _Run:
    """The settings every record of the run shares, after the cite strategy chose its grammar and prompt."""
    if variant not in VARIANTS:
        raise AnswerError(f"variant must be one of {VARIANTS}, not {variant!r}")
    try:
        strategy = cite_strategy(cite)
    except ValueError as exc:
        raise AnswerError(str(exc)) from None
    traits = strategy.traits
    if traits.needs_nli and nli is None:
        raise AnswerError(f"--cite {cite} places citations with an NLI model: give --nli PATH (or KALMA_NLI_MODEL)")
    if traits.grammar != FOLLOW_OPTION:  # it brings its own grammar (None: the model answers freely)
        constrain = traits.grammar or False
    return _Run(
        variant=variant,
        prompt=load_answer_prompt(variant, prompt_name or strategy.prompt_name(variant)),
        params=params or GenerationParams(max_tokens=DEFAULT_MAX_TOKENS),
        grammar_mode=_grammar_mode(constrain),
        type_map=type_map or load_type_map(),
        type_policy=type_policy,
        partial=partial,
        filter_name=_filter_name(knowledge_filter),
        model=llm.header(),
        ner=ner.header(),
        cite=cite,
        nli=nli if traits.needs_nli else None,
    )


def _header(run: _Run, store: GraphStore, *, source: str | None, model_choice: Mapping[str, Any] | None,
            cite_why: str | None = None) -> dict:
    """The answers file's header (`<out>.header.json`): what made every record, and the run key a resume compares."""
    nli = run.nli
    return {
        "kind": "kalma-graph answers",
        "store": store.uri,
        "questions_source": source,
        "variant": run.variant,
        "model": run.model,
        "model_choice": dict(model_choice) if model_choice else None,
        "cite": {"strategy": run.cite, **({"why": cite_why} if cite_why else {}),
                 "traits": cite_strategy(run.cite).traits.as_dict(),
                 **({"nli": nli.name_or_path, "nli_sha256": nli.model_hash, "threshold": POSTHOC_THRESHOLD,
                     "max_cited": MAX_CITED} if nli is not None else {})},
        "ner": run.ner,
        "type_map": run.type_map.header(),
        "prompt": {"name": run.prompt["name"], "version": run.prompt.get("version"), "sha256": run.prompt["sha256"],
                   "source": run.prompt.get("source")},
        "params": run.record_params(),
        "run_key": run.key(),
        "versions": _versions(),
    }


def _open_output(out_path: str | os.PathLike | None, header: dict,
                 resume: bool) -> tuple[JsonlAppender | None, set[str | None]]:
    """The answers file opened for appending and the ids it already holds (none without `out_path`); refuses a
    file answered with other settings; writes the header, keeping the first run's `created`."""
    if out_path is None:
        return None, set()
    out = Path(out_path)
    hpath = header_path(out)
    if resume and out.exists() and out.stat().st_size and hpath.exists():
        previous = json.loads(hpath.read_text(encoding="utf-8"))
        refuse_other_settings(out, previous.get("run_key") or {}, header["run_key"], what="answers",
                              hint="write to another --out, or start over with --no-resume", error=AnswerError)
        header["created"] = previous.get("created")
    writer, done_ids = open_answers(out, resume=resume)
    header["created"] = header.get("created") or time.strftime("%Y-%m-%dT%H:%M:%S%z")
    atomic_write_json(hpath, header)
    return writer, done_ids


class _Tally:
    """Writes each finished answer in question order (or keeps it, without an output file) and counts the run."""

    def __init__(self, run: _Run, out_path: str | os.PathLike | None, n_questions: int, todo: Sequence[Question],
                 writer: JsonlAppender | None, progress: Progress | None) -> None:
        self.writer, self.progress, self.total = writer, progress, len(todo)
        self.records: list[dict] = []
        self.handled = 0
        self.summary: dict[str, Any] = {
            "out": str(out_path) if out_path is not None else None,
            "questions": n_questions,
            "skipped_done": n_questions - len(todo),
            "written": 0,
            "failed": [],
            "with_citation": 0,
            "truncated": 0,
            "n_sloppy": 0,
            "retrieval_s": 0.0,
            "generation_s": 0.0,
            "device": run.model.get("device"),
            "n_gpu_layers": run.model.get("n_gpu_layers"),
        }

    def settle(self, question: Question, outcome: Callable[[], AnswerRecord]) -> None:
        """Write one finished answer (or count its failure)."""
        self.handled += 1
        summary = self.summary
        try:
            record = outcome()
        except StoreError:
            raise  # the store is gone: every further question would fail the same way
        except (LLMError, ValueError, RuntimeError) as exc:
            summary["failed"].append({"id": question.id, "error": f"{type(exc).__name__}: {exc}"})
            if self.progress:
                self.progress(self.handled, self.total, {"id": question.id, "failed": True})
            return
        if self.writer is not None:
            self.writer.append(record.to_json_dict())
        else:
            self.records.append(record.to_json_dict())
        summary["written"] += 1
        summary["with_citation"] += any(s.citations for s in record.sentences or [])
        summary["truncated"] += bool(record.truncated)
        summary["n_sloppy"] += record.n_sloppy or 0
        assert record.timings is not None  # every record this pipeline writes is timed (generate_one)
        summary["retrieval_s"] += record.timings["retrieval_s"]
        summary["generation_s"] += record.timings["generation_s"]
        if self.progress:
            self.progress(self.handled, self.total, {"id": question.id, "failed": False})

    def finish(self, elapsed: float, interrupted: bool) -> dict[str, Any]:
        summary = self.summary
        summary["interrupted"] = interrupted
        summary["seconds"] = round(elapsed, 3)
        summary["questions_per_s"] = (round(summary["written"] / elapsed, 4)
                                      if elapsed > 0 and summary["written"] else 0.0)
        summary["retrieval_s"] = round(summary["retrieval_s"], 3)
        summary["generation_s"] = round(summary["generation_s"], 3)
        if self.writer is None:
            summary["records"] = self.records
        return summary


def _grammar_mode(constrain: bool | str) -> str | None:
    if constrain is False or constrain is None:
        return None
    if constrain is True:
        return "marks"
    if constrain in GRAMMAR_MODES:
        return str(constrain)
    raise AnswerError(f"constrain must be a bool or one of {GRAMMAR_MODES}, not {constrain!r}")


@dataclass
class _Retrieved:
    """What retrieval made of one question: everything the model call and the record need."""

    question: Question
    text: str
    found: Any
    retrieved: list[Triple]
    shown: list[Triple]
    removed: list[Triple]
    shown_entities: list[Any]
    messages: list[dict[str, str]]
    retrieval_s: float


def retrieve_one(store: GraphStore, ner: MentionDetector, question: Question, run: _Run,
                 knowledge_filter: KnowledgeFilter | None) -> _Retrieved:
    """Entity linking, retrieval, knowledge removal and the prompt: the part of an answer that reads the store
    and the NER model (neither is shared across threads: `answer_questions` runs it in the caller's thread)."""
    text = question.text_for(run.variant)
    t0 = time.perf_counter()
    found = retrieve(store, text, ner, type_map=run.type_map, type_policy=run.type_policy, partial=run.partial)
    retrieved = list(found.triples)
    if knowledge_filter is not None:
        shown, removed = knowledge_filter(question, retrieved)
        shown, removed = list(shown), list(removed)
        shown_entities = found.shown_entities(store, shown)
    else:
        shown, removed = retrieved, []
        shown_entities = found.entities
    messages = build_messages(run.prompt, knowledge_blocks(shown_entities, shown), text)
    return _Retrieved(question, text, found, retrieved, shown, removed, list(shown_entities), messages,
                      time.perf_counter() - t0)


def _optional_fields(item: _Retrieved, placements: Sequence[Any] | None, grounding: GroundedResult | None, *,
                     filtered: bool) -> dict[str, Any]:
    """The record's fields that only some answers have: post-hoc placements, the grounded loop's trace, the shown
    triples a knowledge filter chose, and the names of the entities shown."""
    shown, shown_entities = item.shown, item.shown_entities
    optional: dict[str, Any] = {}
    if placements is not None:
        optional["placements"] = [p.as_dict() for p in placements]
    if grounding is not None:
        optional["grounding"] = grounding.stats()
    if unlabelled(shown):
        optional["unlabelled_left_out"] = unlabelled(shown)
    if filtered:
        # What the prompt showed; evaluation checks citations against it (it may hold other entities).
        optional["shown"] = [_triple_record(t) for t in shown]
    selected = {lm.selected.id for lm in item.found.linked if lm.selected is not None}
    if filtered or any(e.id not in selected for e in shown_entities):
        # the names of the entities shown that no linked mention selected (a person brought in as the holder of a
        # relative's name: "Ian Khama" brings Seretse Khama), so that an evaluation reads them as the loop did
        optional["shown_names"] = {e.id: e.name for e in shown_entities if e.name}
    return optional


def generate_one(llm: Generator, item: _Retrieved, run: _Run, knowledge_filter: KnowledgeFilter | None) -> AnswerRecord:
    """The model call, citations and the record: what may run in several threads at once against a model server
    (`concurrency`); it touches neither the store nor the NER model."""
    question, text, found, retrieved = item.question, item.text, item.found, item.retrieved
    shown, removed, shown_entities, messages = item.shown, item.removed, item.shown_entities, item.messages
    retrieval_s = item.retrieval_s
    t1 = time.perf_counter()
    try:
        rendered = llm.chat_prompt(messages)
    except LLMError:
        rendered = None
    prompt_sha = (hashlib.sha256(rendered.encode("utf-8")).hexdigest() if rendered is not None
                  else messages_sha256(messages))
    n_prompt = None
    if rendered is not None:
        n_prompt = llm.count_tokens(rendered)
        if n_prompt + _MIN_GENERATION_ROOM > llm.n_ctx:
            raise LLMError(f"the prompt has {n_prompt} tokens, n_ctx is {llm.n_ctx}: raise --n-ctx")
    # Property names of everything the model saw or could have seen, so that values holding commas
    # or colons split right whichever graph was shown.
    everything = ([*found.entities, *shown_entities], [*retrieved, *shown])
    props, pairs = known_props(*everything), known_pairs(*everything)
    strategy = cite_strategy(run.cite)
    prompted = Prompted(llm=llm, messages=messages, rendered=rendered, n_prompt=n_prompt, params=run.params,
                        grammar_mode=run.grammar_mode, question=text, shown=shown, shown_entities=shown_entities,
                        entities=[*found.entities, *shown_entities], props=props, pairs=pairs, nli=run.nli)
    reason = found.reason
    if text.strip():
        generated = strategy.generate(prompted)
    else:  # nothing asked: no model call, an empty answer and why (the model would answer the demonstration)
        generated = Generated(
            Completion(text="", finish_reason="stop", prompt_tokens=n_prompt or 0, completion_tokens=0))
        reason = EMPTY_QUESTION
    completion, grounding = generated.completion, generated.grounding
    generation_s = time.perf_counter() - t1
    cited = strategy.finish(generated, prompted) if text.strip() else Cited("")
    answer, placements = cited.answer, cited.placements
    citing_s = time.perf_counter() - t1 - generation_s

    parsed = parse_answer(answer, props, pairs)
    optional = _optional_fields(item, placements, grounding, filtered=knowledge_filter is not None)
    return AnswerRecord(
        id=question.id,
        question=text,
        variant=run.variant,
        entities=[linked_dict(lm) for lm in found.linked],
        retrieval_reason=reason,
        retrieved=[_triple_record(t) for t in retrieved],
        removed=[_triple_record(t) for t in removed],
        prompt_sha256=prompt_sha,
        cite=run.cite,
        answer=answer,
        raw_answer=completion.text,
        sentences=[
            SentenceRecord(
                text=s.text, clean_text=s.clean_text, na=s.na,
                citations=[CitationRecord(qid=c.qid, prop=c.prop, value=c.value, sloppy=c.sloppy) for c in s.citations],
            )
            for s in parsed.sentences
        ],
        n_sloppy=parsed.n_sloppy,
        finish_reason=completion.finish_reason,
        truncated=completion.truncated,
        model=run.model,
        params=run.record_params(),
        timings={"retrieval_s": round(retrieval_s, 4), "generation_s": round(generation_s, 4),
                 "citing_s": round(citing_s, 4),
                 # grounded shows an answer sentence by sentence: the wait for its first (linking included)
                 **({"first_sentence_s": round(retrieval_s + grounding.first_sentence_at - t1, 4)}
                    if grounding is not None and grounding.first_sentence_at is not None else {})},
        **optional,
    )


def _triple_record(t: Triple) -> TripleRecord:
    return TripleRecord.model_validate(t, from_attributes=True)


def _verifier_id() -> str:
    """The verifier that filters a `filters_citations` strategy's citations (`Verifier.id`)."""
    from kalma_graph.verification import Verifier

    return Verifier().id()
