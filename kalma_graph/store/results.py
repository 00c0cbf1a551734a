"""Evaluation runs written back to the graph, so a run can be browsed next to the knowledge it cites:

    (:Run {id, answers_file, matching, …scores})-[:HAS_ANSWER]->(:Answer {question_id, text, …scores})
        -[:HAS_SENTENCE {position}]->(:Sentence {text, clean_text, na, citations, fully_supported, claims})
        -[:CITES {position, prop, value, correct, precise, entailment, entailed, sloppy, support, verdict,
                  reason}]->(:Entity)

`claims` holds the verifier's claims of the sentence as `status: text (evidence)` strings
(`contradicted: Jena (Q22670, place of birth: Marbach am Neckar)`); CITES carries its verdict.

Every statement is a named file in `cypher/` (`run_*.cypher`; the embedded store's tables are declared
in `run_schema.embedded.cypher`, Neo4j's constraints in `run_schema.neo4j.cypher`). The one exception is
derived, not written: a metric field the registry (`metric_fields.py`) stores and that file does not declare
gets its column by a generated `ALTER TABLE … ADD IF NOT EXISTS` (`run_schema_statements`). This module builds
the rows and reads them back, each engine writes them (`write_run_rows`, `delete_run_rows`,
`ensure_run_tables` of the GraphStore protocol). Writing a run is idempotent: the run's previous nodes
(found by `run_id`) are deleted first, then everything is written again — on Neo4j in one transaction, on the embedded
store with one COPY per table (Ladybug 0.22 must not COPY over an existing key, so the delete comes first). A citation
whose subject id is not an entity of the store (a hallucinated id) gets no CITES link; it stays in `Sentence.citations`.

The base graph is never changed: runs only add Run/Answer/Sentence nodes and their relationships.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping, Sequence

from kalma_graph import metric_fields
from kalma_graph.evaluation_result import EvaluationResult

from . import queries
from .base import GraphStore

# One-letter column kinds, for the tables below to stay one line a column (`I` is no `l`/`1` here).
S, I, F, B, L = "string", "int", "float", "bool", "list"  # noqa: E741
_CYPHER_KINDS = {"STRING": S, "INT64": I, "DOUBLE": F, "BOOLEAN": B, "STRING[]": L}
_CYPHER_TYPES = {kind: name for name, kind in _CYPHER_KINDS.items()}
_TABLE = re.compile(r"CREATE (?:NODE|REL) TABLE IF NOT EXISTS (\w+)\((.*)\)$", re.S)
_ADDED = re.compile(r"ALTER TABLE (\w+) ADD IF NOT EXISTS (\w+) (\S+)$")


def _declared_layout() -> dict[str, list[tuple[str, str]]]:
    """Table -> its (column, type) as `cypher/run_schema.embedded.cypher` creates them: the CREATE's
    columns, then those its ALTERs added. This order is the embedded tables' column order (what a COPY
    must match) in every store written so far, so it is read from that file and never re-ordered."""
    layout: dict[str, list[tuple[str, str]]] = {}
    for statement in queries.load_script("run_schema", "embedded"):
        if m := _TABLE.match(statement):
            columns = [c.strip().split(" ", 1) for c in m.group(2).split(",")]
            layout[m.group(1)] = [(name, _CYPHER_KINDS[kind]) for name, kind in columns
                                  if name not in ("FROM", "PRIMARY") and kind in _CYPHER_KINDS]
        elif (m := _ADDED.match(statement)) and m.group(2) not in dict(layout[m.group(1)]):
            layout[m.group(1)].append((m.group(2), _CYPHER_KINDS[m.group(3)]))
    return layout


def _with_metrics(table: list[tuple[str, str]], fields: tuple[metric_fields.Field, ...]) -> tuple[tuple[str, str], ...]:
    """A table's columns: its layout, then every stored metric field (metric_fields.py) it lacks, appended
    (a metric added to the registry gets its column with no Cypher edit: `run_schema_statements`)."""
    have = {name for name, _ in table}
    return (*table, *((name, kind) for name, kind in metric_fields.stored(fields) if name not in have))


_LAYOUT = _declared_layout()
#: Property name -> type, per table; the order is the column order of the embedded tables.
RUN_COLUMNS = _with_metrics(_LAYOUT["Run"], metric_fields.SUMMARY)
ANSWER_COLUMNS = _with_metrics(_LAYOUT["Answer"], metric_fields.PER_ANSWER)
SENTENCE_COLUMNS = tuple(_LAYOUT["Sentence"])
CITE_COLUMNS = tuple(_LAYOUT["CITES"])
RUN_FIELDS = tuple(n for n, _ in RUN_COLUMNS)
# Deleting a run, children first: one list for both engines.
RUN_DELETES = ("run_delete_sentences", "run_delete_answers", "run_delete")
ANSWER_FIELDS = tuple(n for n, _ in ANSWER_COLUMNS)
SENTENCE_FIELDS = tuple(n for n, _ in SENTENCE_COLUMNS)
CITE_FIELDS = tuple(n for n, _ in CITE_COLUMNS)




def run_schema_statements(backend: str) -> list[str]:
    """The run tables' schema for a backend: `cypher/run_schema.<backend>.cypher`, and on the embedded
    store a column for each stored metric field the file does not declare (ALTER … ADD IF NOT EXISTS:
    stores written before the field existed gain it; Neo4j needs no columns)."""
    statements = queries.load_script("run_schema", backend)
    if backend == "embedded":
        for table, columns in (("Run", RUN_COLUMNS), ("Answer", ANSWER_COLUMNS)):
            declared = {name for name, _ in _LAYOUT[table]}
            statements += [f"ALTER TABLE {table} ADD IF NOT EXISTS {name} {_CYPHER_TYPES[kind]}"
                           for name, kind in columns if name not in declared]
    return statements


# --- rows ------------------------------------------------------------------------------------------


def run_rows(results: EvaluationResult) -> dict[str, list[dict]]:
    """The rows a run writes: one Run, its Answers, Sentences and citation links (before the entity
    check). Pure: tests compare it without a store."""
    run_id = results.run_id
    if not run_id:
        raise ValueError("an evaluation result is written into the graph under its run_id: it has none")
    header = results.header
    # Score columns are matched by name: the summary's keys (G-Eval's per-aspect keys included).
    summary = results.summary.model_dump()
    choices = header.choices
    answers_info, gold = header.answers, header.gold
    nli, judge = header.nli or {}, header.judge or {}
    run = {
        "id": run_id,
        "created_at": header.evaluated_at,
        "answers_file": answers_info.path if answers_info else None,
        "answers_sha256": answers_info.sha256 if answers_info else None,
        "records": results.summary.answers,
        "variants": list(header.variants),
        "matching": choices.get("evaluation.matching"),
        "hypothesis_format": choices.get("evaluation.hypothesis_format"),
        "absent_set": choices.get("evaluation.absent_set"),
        "gold_file": gold.path if gold else None,
        "gold_sha256": gold.sha256 if gold else None,
        "nli_model": nli.get("name_or_path"),
        "nli_hash": nli.get("model_hash"),
        "judge_model": judge.get("model_file"),
        "judge_sha256": judge.get("model_sha256"),
        "header_json": json.dumps(header.model_dump(), sort_keys=True, default=str),
        **{k: summary.get(k) for k in RUN_FIELDS if k in summary and k not in ("id", "records")},
    }
    answers, sentences, cites = [], [], []
    per_answer = {row.id: row.model_dump() for row in results.per_answer}
    for detail in results.answers:
        row = per_answer.get(detail.id, {})
        answer_id = f"{run_id}/{detail.id}"
        answers.append({
            "id": answer_id, "run_id": run_id, "question_id": detail.id, "question": detail.question,
            "variant": detail.variant, "text": detail.answer,
            **{k: row.get(k) for k in ANSWER_FIELDS if k in row and k not in ("id", "question", "variant", "text")},
            "sentences": len(detail.sentences),
        })
        for s in detail.sentences:
            sentence_id = f"{answer_id}/{s.position}"
            extra = s.model_extra or {}
            claims = extra.get("claims")
            sentences.append({
                "fully_supported": extra.get("fully_supported"),
                "claims": None if claims is None else [_claim_text(c) for c in claims],
                "claims_absent": None if claims is None else sum(c.get("status") == "absent" for c in claims),
                "claims_contradicted": (None if claims is None
                                        else sum(c.get("status") == "contradicted" for c in claims)),
                "id": sentence_id, "run_id": run_id, "answer_id": answer_id, "position": s.position,
                "text": s.text, "clean_text": s.clean_text, "na": s.na,
                "na_entails_absent": s.na_entails_absent, "n_citations": len(s.citations),
                "citations": [f"{c.qid} | {c.prop} | {c.value}" for c in s.citations],
            })
            for position, c in enumerate(s.citations):
                cites.append({"from": sentence_id, "to": c.qid, "position": position,
                              **{k: getattr(c, k, None) for k in CITE_FIELDS if k != "position"}})
    return {"run": [_typed(run, RUN_COLUMNS)], "answers": [_typed(a, ANSWER_COLUMNS) for a in answers],
            "sentences": [_typed(s, SENTENCE_COLUMNS) for s in sentences],
            "cites": [{"from": c["from"], "to": c["to"], **_typed(c, CITE_COLUMNS)} for c in cites]}


def _claim_text(claim: Mapping[str, Any]) -> str:
    evidence = f" ({claim['evidence']})" if claim.get("evidence") else ""
    return f"{claim.get('status')}: {claim.get('text')}{evidence}"


def _typed(row: Mapping[str, Any], columns: Sequence[tuple[str, str]]) -> dict:
    """The row with exactly the table's columns, each value converted to the column's type."""
    convert: dict[str, Callable[[Any], Any]] = {I: int, F: float, B: bool, S: str, L: lambda v: [str(x) for x in v]}
    return {name: (None if row.get(name) is None else convert[kind](row[name])) for name, kind in columns}


# --- writing ---------------------------------------------------------------------------------------


def write_run(store: GraphStore, results: EvaluationResult) -> dict[str, Any]:
    """Write (or replace) the run of `results` in the store; returns what was written."""
    rows = run_rows(results)
    cited = sorted({c["to"] for c in rows["cites"]})
    known = {e.id for e in store.get_entities(cited)} if cited else set()
    linked = [c for c in rows["cites"] if c["to"] in known]
    assert results.run_id is not None  # run_rows refuses a result without one
    store.write_run_rows(results.run_id, rows, linked)  # each engine writes it its own way
    return {
        "run_id": results.run_id,
        "answers": len(rows["answers"]),
        "sentences": len(rows["sentences"]),
        "cites": len(linked),
        "citations_without_entity": len(rows["cites"]) - len(linked),
    }


def arrow_schema(columns: Sequence[tuple[str, str]], prefix: Sequence[str] = ()):
    """The Arrow schema of a COPY: `prefix` string columns (`from`, `to`) then the table's columns."""
    import pyarrow as pa

    arrow = {S: pa.string(), I: pa.int64(), F: pa.float64(), B: pa.bool_(), L: pa.list_(pa.string())}
    return pa.schema([(name, pa.string()) for name in prefix] + [(name, arrow[kind]) for name, kind in columns])


# --- reading ---------------------------------------------------------------------------------------


def list_runs(store: GraphStore) -> list[dict]:
    """Every run in the store, sorted by id."""
    store.ensure_run_tables()
    return sorted(store.query("run_list", {}), key=lambda r: r["id"])


def read_run(store: GraphStore, run_id: str) -> dict | None:
    """A run as written: the Run's properties, and its answers (sorted by question id), each with its
    sentences (by position) and their CITES links (by position). None when there is no such run."""
    store.ensure_run_tables()
    found = store.query("run_get", {"run_id": run_id})
    if not found:
        return None
    run = _properties(found[0]["run"], RUN_FIELDS)
    answers = sorted(
        (_properties(row["answer"], ANSWER_FIELDS) for row in store.query("run_answers", {"run_id": run_id})),
        key=lambda a: a["question_id"])
    sentences = store.query("run_sentences", {"run_id": run_id})
    cites = store.query("run_cites", {"run_id": run_id})
    by_sentence: dict[str, list[dict]] = {}
    for c in cites:
        by_sentence.setdefault(c["sentence_id"], []).append(dict(c))
    by_answer: dict[str, list[dict]] = {}
    for s in sentences:
        s = dict(s)
        s["cites"] = sorted(by_sentence.get(s["id"], []), key=lambda c: c["position"])
        s["citations"] = list(s.get("citations") or [])
        by_answer.setdefault(s.pop("question_id"), []).append(s)
    for a in answers:
        a["sentences_list"] = sorted(by_answer.get(a["question_id"], []), key=lambda s: s["position"])
    run["variants"] = list(run.get("variants") or [])
    run["answers"] = answers
    return run


def _properties(node: Mapping[str, Any], fields: Sequence[str]) -> dict:
    """A node's properties by its table's columns (Neo4j leaves out the unset ones; Ladybug adds _ID, _LABEL)."""
    return {name: node.get(name) for name in fields}


def delete_run(store: GraphStore, run_id: str) -> None:
    """Remove a run and everything under it (the knowledge graph is untouched)."""
    store.delete_run_rows(run_id)


__all__ = ["delete_run", "list_runs", "read_run", "run_rows", "write_run"]
