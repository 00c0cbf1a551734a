"""Score a file of (question, answer[, reference]) pairs and write the report: `kalma-graph score`.

Input (`read_records`): JSON lines (`.jsonl`, `.json` with one object per line or a JSON array) or
CSV with a header. Fields: `question`, `answer`, optional `reference`, optional `id` — the answer
pipeline's records (`id`, `question`, `answer`, ...) are read as they are; an `answer` given as an
object is read from its `text` field. A record without `id` gets `sha1(question + answer)[:12]`, so
re-runs find it again. Records lacking a question or an answer are skipped and reported.

Output (`score_file`, into `out_dir`):

- `header.json` — models with versions and hashes, prompts with hashes, every option, the Table 3
  weights and their hash, the store, the input file's sha256;
- `answers.jsonl` — one JSON object per answer with every sub-score and its evidence (the run's
  log: written and fsynced answer by answer);
- `sentences.jsonl` — one object per answer sentence (Table 1 columns and the judge's details);
- `answers.csv`, `sentences.csv` — the same, flat;
- `summary.json`, `summary.md` — averages per intent in the layout of Table 5 (plus S, C, K and the
  K parts), attribution label counts, missing judgements, throughput.

Resuming: answers already in `answers.jsonl` are skipped, so an interrupted run continues where it
stopped; a line cut by the interruption is trimmed and that answer scored again, while a corrupt line
inside a log stops the run with its `file:line` (nothing is dropped). A run directory whose
`header.json` was written with other settings is refused (pass `fresh=True` to start over), so one
report never mixes two configurations.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.files import (
    JsonlAppender,
    atomic_write_json,
    atomic_write_text,
    file_sha256,
    json_sha256,
    read_jsonl,
    refuse_other_settings,
)
from kalma_graph.lines import numbered_lines
from kalma_graph.sck.base import INTENTS
from kalma_graph.sck.scorer import QARecord, SCKScorer, ScoreOptions

if TYPE_CHECKING:
    from kalma_graph.models.nli import NLICache
    from kalma_graph.store.base import GraphStore

SCORE_COLUMNS = ("sck", "s", "c", "k", "ve", "er", "kg_attr")
OUTPUT_FILES = ("header.json", "answers.jsonl", "sentences.jsonl", "answers.csv", "sentences.csv",
                "summary.json", "summary.md")


class InputError(BadInputError, ValueError):
    """The input file cannot be read as records; the message names the file and line."""


class RunConflict(BadInputError, RuntimeError):
    """The output directory holds a run made with other settings."""


# --- input ----------------------------------------------------------------------------------------


def _record_id(question: str, answer: str) -> str:
    return hashlib.sha1(f"{question}\x1f{answer}".encode("utf-8")).hexdigest()[:12]


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        value = value.get("text", value.get("answer"))
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def read_records(path: str | os.PathLike[str]) -> tuple[list[QARecord], list[str]]:
    """(records, problems): problems are `file:line: reason` strings for skipped rows. Duplicate ids
    are an error (resuming keys on the id)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    rows: list[tuple[int, Mapping[str, Any]]] = []
    problems: list[tuple[int, str]] = []
    if path.suffix.lower() in (".csv", ".tsv"):
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
            for line, csv_row in enumerate(reader, start=2):
                rows.append((line, csv_row))
    else:
        # split on newlines only (str.splitlines would also cut a line at a U+2028 inside a JSON string)
        lines = list(numbered_lines(path))
        if next((raw for _, raw in lines if raw.strip()), "").lstrip().startswith("["):
            try:
                data = json.loads("\n".join(raw for _, raw in lines))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: not valid JSON: {exc}") from exc
            rows = [(i, r) for i, r in enumerate(data, start=1)]
        else:
            for line, raw in lines:
                if not raw.strip():
                    continue
                try:
                    rows.append((line, json.loads(raw)))
                except json.JSONDecodeError as exc:
                    problems.append((line, f"{path}:{line}: not JSON ({exc.msg})"))
    records: list[QARecord] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        if not isinstance(row, Mapping):
            problems.append((line, f"{path}:{line}: not an object"))
            continue
        question, answer = _text(row.get("question")), _text(row.get("answer"))
        if question is None or answer is None:
            problems.append((line, f"{path}:{line}: missing {'question' if question is None else 'answer'}"))
            continue
        rid = str(row.get("id")) if row.get("id") not in (None, "") else _record_id(question, answer)
        if rid in seen:
            raise InputError(f"{path}:{line}: duplicate id {rid!r} (first on line {seen[rid]}); ids must be unique")
        seen[rid] = line
        records.append(QARecord(rid, question, answer, _text(row.get("reference"))))
    return records, [message for _, message in sorted(problems)]


# --- building the scorer from options -------------------------------------------------------------


def build_scorer(
    store: GraphStore,
    *,
    judge: str = "nli",
    intent: str = "nli",
    nli: str | None = None,
    model: str | None = None,
    embedder: str | None = None,
    ner: str | None = None,
    device: str | None = None,
    nli_threshold: float = 0.5,
    nli_premise: str = "question+sentence",
    options: ScoreOptions | None = None,
    nli_cache: NLICache | str | os.PathLike[str] | bool | None = "default",
    llm_n_ctx: int = 4096,
    max_triplets: int = 40,
    concurrency: int = 1,
) -> SCKScorer:
    """Load the models the options ask for (each once) and build an `SCKScorer`. `concurrency`: the LLM judge's
    calls in flight (a model server)."""
    from kalma_graph.models.embeddings import load_embedder
    from kalma_graph.models.ner import load_ner
    from kalma_graph.sck.entities import GraphLinker
    from kalma_graph.sck.intent import LLMIntentClassifier, NLIIntentClassifier, RuleIntentClassifier
    from kalma_graph.sck.judges import JUDGES
    from kalma_graph.sck.structure import load_structure_nlp

    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {', '.join(repr(j) for j in JUDGES)}, not {judge!r}")
    if intent not in ("nli", "llm", "rules"):
        raise ValueError(f"intent must be 'nli', 'llm' or 'rules', not {intent!r}")
    nli_model = llm = None
    if "nli" in (JUDGES[judge].needs, intent):
        from kalma_graph.models.nli import load_nli

        nli_model = load_nli(nli, device=device, cache=nli_cache)
    if "llm" in (JUDGES[judge].needs, intent):
        from kalma_graph.models.llm import load_llm

        llm = load_llm(model, n_ctx=llm_n_ctx)
    the_judge = JUDGES[judge].build(nli_model, llm, nli_threshold=nli_threshold, nli_premise=nli_premise,
                                    max_triplets=max_triplets, concurrency=concurrency)
    classifier = {"nli": lambda: NLIIntentClassifier(nli_model), "llm": lambda: LLMIntentClassifier(llm),
                  "rules": RuleIntentClassifier}[intent]()
    ner_model = load_ner(ner)
    return SCKScorer(store, GraphLinker(store, ner_model), load_embedder(embedder, device=device), the_judge,
                     classifier, load_structure_nlp(ner), options)


# --- running ----------------------------------------------------------------------------------------


def _comparable(value: object) -> Any:
    """What makes scores comparable: options, models, prompts, weights (not paths or times)."""
    if isinstance(value, Mapping):
        return {k: _comparable(v) for k, v in sorted(value.items())
                if k not in ("cache", "path", "embedder_path", "name_or_path", "store", "input")}
    if isinstance(value, (list, tuple)):
        return [_comparable(v) for v in value]
    return value


def _fingerprint(header: Mapping[str, Any]) -> str:
    return json_sha256(_comparable(header), default=str)


def open_run_logs(out: Path) -> tuple[JsonlAppender, JsonlAppender, set[str]]:
    """`answers.jsonl` and `sentences.jsonl` opened for appending, and the ids already scored.

    An answer's sentence rows are written before its answer line, so an id counts as scored once its
    answer line is finished; a crash in between only leaves sentence rows that the redone answer
    writes again (the report keeps the last row of each sentence). A torn last line in either log is
    trimmed first, so no record is glued onto it; a corrupt line inside raises `CorruptJsonlError`."""
    answers = JsonlAppender(out / "answers.jsonl", default=str)
    try:
        sentences = JsonlAppender(out / "sentences.jsonl", default=str)
    except BaseException:
        answers.close()
        raise
    return answers, sentences, {row["id"] for row in answers.records}


def score_file(
    scorer: SCKScorer,
    in_path: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    fresh: bool = False,
    limit: int | None = None,
    batch_size: int = 8,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Score every record of `in_path` not yet in `out_dir`, then (re)write the reports. Returns the
    summary dict."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    records, problems = read_records(in_path)
    if limit is not None:
        records = records[:limit]
    import platform

    from kalma_graph import __version__

    header = {"kind": "kalma-graph.sck", "software": {"kalma_graph": __version__, "python": platform.python_version()},
              **scorer.header(),
              "input": {"path": str(in_path), "sha256": file_sha256(in_path), "records": len(records),
                        "skipped": problems}}
    header["fingerprint"] = _fingerprint({k: v for k, v in header.items() if k != "input"})
    header_path = out / "header.json"
    if fresh:
        for name in OUTPUT_FILES:
            (out / name).unlink(missing_ok=True)
    elif header_path.is_file():
        previous = json.loads(header_path.read_text(encoding="utf-8"))
        if previous.get("fingerprint") != header["fingerprint"]:
            # name the settings that differ; a setting only the earlier run had still refuses
            settings = [{k: v for k, v in h.items() if k != "fingerprint"} for h in (previous, header)]
            refuse_other_settings(out, *(_comparable(h) for h in settings), what="a run",
                                  hint="use another --out or --fresh", error=RunConflict)
            raise RunConflict(
                f"{out} holds a run made with other settings ({', '.join(sorted(set(previous) - set(header)))}); "
                "use another --out or --fresh")
    atomic_write_json(header_path, header)

    answers, sentences, done = open_run_logs(out)
    todo = [r for r in records if r.id not in done]
    started = time.perf_counter()
    if progress:
        progress(len(records) - len(todo), len(records))
    with answers, sentences:
        for start in range(0, len(todo), batch_size):
            for result in scorer.score_many(todo[start:start + batch_size]):
                sentences.append_many(result.sentence_rows())
                answers.append({**result.as_json(), "row": result.answer_row()})
                done.add(result.record.id)
                if progress:
                    progress(len(records) - len(todo) + min(start + batch_size, len(todo)), len(records))
    seconds = time.perf_counter() - started
    return write_reports(out, header, scored_now=len(todo), seconds=seconds, ids=[r.id for r in records])


# --- reports ----------------------------------------------------------------------------------------


def _mean(values: Iterable[float | None]) -> tuple[float | None, int]:
    defined = [float(v) for v in values if v is not None]
    return (sum(defined) / len(defined) if defined else None), len(defined)


def summarise(rows: Sequence[Mapping[str, Any]], sentence_rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Averages per intent (Table 5) and overall, over the defined values of each column."""
    def block(subset: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(subset)}
        for column in SCORE_COLUMNS:
            mean, n = _mean(r.get(column) for r in subset)
            out[column] = mean
            out[f"{column}_n"] = n
        return out

    per_intent = {intent: block([r for r in rows if r.get("intent") == intent]) for intent in INTENTS}
    labels = {name: sum(1 for s in sentence_rows if s.get("prediction") == name)
              for name in ("Attributable", "Extrapolatory", "Contradictory", "missing")}
    return {
        "answers": len(rows),
        "no_intent": sum(1 for r in rows if r.get("intent") is None),
        "overall": block(rows),
        "per_intent": {k: v for k, v in per_intent.items() if v["n"]},
        "sentences": len(sentence_rows),
        "sentence_labels": labels,
        "missing_reasons": sorted({s["missing_reason"] for s in sentence_rows if s.get("missing_reason")}),
    }


def write_reports(out: Path, header: Mapping[str, Any], *, scored_now: int = 0, seconds: float = 0.0,
                  ids: list[str] | None = None) -> dict[str, Any]:
    answers = {row["id"]: row for row in read_jsonl(out / "answers.jsonl").records}
    order = [i for i in (ids or list(answers)) if i in answers]
    rows = [answers[i]["row"] for i in order]
    sentences: dict[tuple[str, int], dict] = {}
    for row in read_jsonl(out / "sentences.jsonl").records:
        if row.get("id") in answers:
            sentences[(row["id"], row["sentence_index"])] = row  # the last write of a sentence wins
    position = {i: k for k, i in enumerate(order)}
    sentence_rows = sorted(sentences.values(), key=lambda r: (position.get(r["id"], 1 << 30), r["sentence_index"]))
    summary = summarise(rows, sentence_rows)
    summary["throughput"] = {"scored_now": scored_now, "seconds": round(seconds, 2),
                             "answers_per_second": (round(scored_now / seconds, 3) if seconds > 0 and scored_now
                                                    else None)}
    atomic_write_text(out / "answers.csv", _csv(rows))
    flat_sentences = [{k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v)
                       for k, v in r.items() if k not in ("details", "judge_raw")} for r in sentence_rows]
    atomic_write_text(out / "sentences.csv", _csv(flat_sentences))
    atomic_write_json(out / "summary.json", summary, default=None)
    atomic_write_text(out / "summary.md", summary_markdown(summary, header))
    return summary


def _csv(rows: Sequence[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    if not rows:
        return ""
    columns = list(dict.fromkeys(k for r in rows for k in r))
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in columns})
    return buffer.getvalue()


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _md_table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def summary_markdown(summary: Mapping[str, Any], header: Mapping[str, Any]) -> str:
    opts = header.get("options", {})
    judge = header.get("judge", {})
    lines = ["# SCK answer scores", ""]
    inp = header.get("input", {})
    lines.append(f"Input: `{inp.get('path')}` — {inp.get('records')} records "
                 f"(sha256 `{str(inp.get('sha256'))[:16]}…`), {len(inp.get('skipped') or [])} skipped. "
                 f"Store: `{(header.get('store') or {}).get('uri')}`.")
    lines += ["", "## Choices", ""]
    choices = [
        ["KG-AttrScore judge", judge.get("judge")],
        ["NLI threshold", judge.get("nli_threshold", "n/a")],
        ["evidence", f"{opts.get('evidence')} (between: the paper's SoT only; context: + one-hop statements)"],
        ["question entities added to sentences", opts.get("question_entities")],
        ["KG-AttrScore aggregation", f"max(0, ({opts.get('attr_reward')}·n_A − {opts.get('attr_penalty')}·n_C) / "
                                     f"({opts.get('attr_reward')}·n_judged)); missing judgements left out"],
        ["K weights (VE, ER, KG-Attr)", ", ".join(f"{v:.3f}" for v in (opts.get("k_weights") or {}).values())],
        ["ER normalisation", "mean over the question's described entities of (Jaccard + max(0, cos)) / 2"],
        ["S", "mean of the defined Table 2 features for the predicted intent"],
        ["intent classifier", (header.get("intent_classifier") or {}).get("intent_classifier")],
        ["SCK weights", f"Table 3, sha256 `{str((header.get('intent_weights') or {}).get('sha256'))[:16]}…`"],
        ["undefined parts", "left out of K and SCK, remaining weights rescaled"],
    ]
    lines += _md_table(["choice", "value"], choices)
    lines += ["", "## Average scores per intent (Table 5 layout, plus the parts)", ""]
    cols = ["sck", "s", "c", "k", "ve", "er", "kg_attr"]
    rows = []
    for intent, block in summary.get("per_intent", {}).items():
        rows.append([intent, block["n"], *(_num(block[c]) for c in cols)])
    overall = summary.get("overall", {})
    if overall.get("n"):
        rows.append(["**all**", overall["n"], *(_num(overall[c]) for c in cols)])
    lines += _md_table(["Intent", "n", "Avg. SCK", "S", "C", "K", "VE", "ER", "KG-Attr"], rows)
    lines += ["", "Averages are over the answers where the score is defined (`summary.json` gives each count).", ""]
    labels = summary.get("sentence_labels", {})
    lines += ["## Sentence attribution (KG-AttrScore)", ""]
    lines += _md_table(["Attributable", "Extrapolatory", "Contradictory", "missing"],
                       [[labels.get("Attributable", 0), labels.get("Extrapolatory", 0),
                         labels.get("Contradictory", 0), labels.get("missing", 0)]])
    if summary.get("missing_reasons"):
        lines += ["", "Missing judgements: " + "; ".join(summary["missing_reasons"])]
    if summary.get("no_intent"):
        lines += ["", f"{summary['no_intent']} answers have no intent (classifier output unreadable): no S, no SCK."]
    lines += ["", "## Models", ""]
    models = [
        ["NLI", (judge.get("nli") or {}).get("name_or_path"), str((judge.get("nli") or {}).get("model_hash"))[:16]],
        ["LLM", (judge.get("llm") or {}).get("model_file"), str((judge.get("llm") or {}).get("model_sha256"))[:16]],
        ["embedder", (header.get("embedder") or {}).get("embedder_name"),
         str((header.get("embedder") or {}).get("embedder_hash"))[:16]],
        ["NER", (header.get("linker") or {}).get("ner_pipeline"),
         (header.get("linker") or {}).get("ner_pipeline_version")],
    ]
    lines += _md_table(["model", "name", "hash / version"], [m for m in models if m[1]])
    tp = summary.get("throughput", {})
    if tp.get("scored_now"):
        lines += ["", f"Scored {tp['scored_now']} answers in {tp['seconds']} s "
                      f"({tp['answers_per_second']} answers/s) in this invocation."]
    return "\n".join(lines) + "\n"
