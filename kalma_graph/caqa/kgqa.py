"""Query collection (§4.1) from KGQA datasets: each adapter yields `CollectedQuery`s whose facts are
present in the loaded graph; questions whose fact is missing are counted, not guessed.

| format | file | query |
|---|---|---|
| `sq-wikidata` | SimpleQuestions-Wikidata `Q… P… (or R…) Q… question` | single triple (`R…`: see below) |
| `sq-freebase` | SimpleQuestions (Freebase) `www.freebase.com/m/… <…/dom/type/prop> <…/m/…> question` | single triple |
| `mintaka` | Mintaka JSON (`questionEntity`, `answer`, `complexityType`) | induced (see below) |

`R…` is the inverse of `P…`, so the answer is the statement's subject. The Freebase lines read
`www.freebase.com/m/… www.freebase.com/dom/type/prop www.freebase.com/m/… question`. Mintaka gives no
logical form, so the query is the graph connection between its question entities and its answer entity —
one triple (single), two question entities meeting at the answer (tree), or a 2-hop path — searched in
that order.

Mintaka questions are used only when the answer is an entity and the complexity type is one a
graph pattern expresses (`generic`, `multihop`, `intersection`); comparatives, counts, ordinals,
superlatives and yes/no questions need operators CAQA's queries do not have.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from kalma_graph.caqa.graph import GraphView, usable_pid
from kalma_graph.caqa.model import Branch, Fact, Grounding, Hop, Query

KGQA_FORMATS = ("sq-wikidata", "sq-freebase", "mintaka")
MINTAKA_TYPES = ("generic", "multihop", "intersection")


@dataclass
class CollectedQuery:
    key: str  # unique and stable: "<source>:<n>"
    source: str
    kb: str
    question: str | None  # None: a sampled query (the question is generated from its triples)
    grounding: Grounding
    provenance: dict = field(default_factory=dict)


@dataclass
class CollectionReport:
    read: Counter = field(default_factory=Counter)
    kept: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # "<source>: <reason>"

    def as_dict(self) -> dict:
        return {"read": dict(self.read), "kept": dict(self.kept), "dropped": dict(sorted(self.dropped.items()))}


def detect_kgqa_format(path: str | Path) -> str:
    name = Path(path).name.lower()
    if "mintaka" in name or name.endswith(".json"):
        return "mintaka"
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    if first.startswith("www.freebase.com/") or "/m/" in first.split("\t")[0]:
        return "sq-freebase"
    if re.match(r"^Q\d+\t[PR]\d+\tQ\d+", first):
        return "sq-wikidata"
    raise ValueError(f"cannot tell the KGQA format of {path}; pass it as FORMAT=PATH ({', '.join(KGQA_FORMATS)})")


def read_kgqa(view: GraphView, path: str | Path, fmt: str | None, report: CollectionReport) -> Iterator[CollectedQuery]:
    fmt = fmt or detect_kgqa_format(path)
    if fmt == "sq-wikidata":
        yield from _simplequestions(view, path, "sq-wikidata", report)
    elif fmt == "sq-freebase":
        yield from _simplequestions(view, path, "sq-freebase", report)
    elif fmt == "mintaka":
        yield from _mintaka(view, path, report)
    else:
        raise ValueError(f"unknown KGQA format {fmt!r}; expected one of {KGQA_FORMATS}")


def _freebase_id(text: str) -> str:
    """`www.freebase.com/m/090s_0` → `m.090s_0`; `www.freebase.com/film/film/story_by` → `film.film.story_by`."""
    text = text.strip()
    for prefix in ("https://", "http://"):
        text = text.removeprefix(prefix)
    text = text.removeprefix("www.freebase.com").removeprefix("rdf.freebase.com/ns")
    return text.strip("/").replace("/", ".")


def _simplequestions(view: GraphView, path, source: str, report: CollectionReport) -> Iterator[CollectedQuery]:
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4 or not parts[0].strip():
                if line.strip():
                    report.dropped[f"{source}: malformed line"] += 1
                continue
            report.read[source] += 1
            subj, rel, obj, question = parts[0], parts[1], parts[2], parts[3].strip()
            reverse = False
            if source == "sq-freebase":
                subj, rel, obj = _freebase_id(subj), _freebase_id(rel), _freebase_id(obj)
            elif rel.startswith("R"):
                reverse, rel = True, "P" + rel[1:]
            # The graph holds (subject, pid, object); a reverse question asks for the subject.
            fact = view.kgqa_fact(obj, rel, subj) if reverse else view.kgqa_fact(subj, rel, obj)
            if fact is None:
                report.dropped[f"{source}: fact not in the graph"] += 1
                continue
            anchor, anchor_name = (fact.object, fact.object_name) if reverse else (fact.subject, fact.subject_name)
            query = Query((Branch(anchor, anchor_name, (Hop(fact.pid, fact.label, reverse),)),))
            report.kept[source] += 1
            yield CollectedQuery(
                key=f"{source}:{line_no}", source=source, kb="freebase" if source == "sq-freebase" else "wikidata",
                question=question,
                grounding=Grounding(query, ((fact,),)),
                provenance={"file": Path(path).name, "line": line_no, "relation": parts[1].strip()},
            )


def _mintaka(view: GraphView, path, report: CollectionReport) -> Iterator[CollectedQuery]:
    source = "mintaka"
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    for index, item in enumerate(data):
        report.read[source] += 1
        answer = item.get("answer") or {}
        if answer.get("answerType") != "entity" or not answer.get("answer"):
            report.dropped[f"{source}: answer is not an entity"] += 1
            continue
        if item.get("complexityType") not in MINTAKA_TYPES:
            report.dropped[f"{source}: complexity type {item.get('complexityType')} needs operators CAQA lacks"] += 1
            continue
        q_entities = [e["name"] for e in item.get("questionEntity") or [] if e.get("entityType") == "entity"]
        answers = [a["name"] for a in answer["answer"] if str(a.get("name", "")).startswith("Q")]
        grounding = None
        for a in answers:
            grounding = induce_query(view, q_entities, a)
            if grounding is not None:
                break
        if grounding is None:
            report.dropped[f"{source}: no graph connection between question and answer entities"] += 1
            continue
        report.kept[source] += 1
        yield CollectedQuery(
            key=f"{source}:{item.get('id', index)}", source=source, kb="wikidata", question=item["question"],
            grounding=grounding,
            provenance={"file": Path(path).name, "id": item.get("id"), "complexityType": item.get("complexityType"),
                        "category": item.get("category"), "query": "induced from question and answer entities"},
        )


def _direct(view: GraphView, entity: str, answer: str) -> list[tuple[Fact, bool]]:
    """Facts linking `entity` to `answer` in one hop: (fact, reverse)."""
    found = [(f, False) for f in view.out_facts(entity) if f.object == answer and usable_pid(f.pid)]
    found += [(f, True) for f in view.in_facts(entity) if f.subject == answer and usable_pid(f.pid)]
    return found


def induce_query(view: GraphView, entities: list[str], answer: str) -> Grounding | None:
    """The simplest graph query from question entities to the answer: a tree when two entities
    each reach it in one hop, else one triple, else a 2-hop path (forward). Deterministic."""
    branches: list[tuple[Branch, tuple[Fact, ...]]] = []
    for e in dict.fromkeys(entities):
        if e == answer:
            continue
        links = _direct(view, e, answer)
        if links:
            fact, reverse = sorted(links, key=lambda x: (x[1], x[0].pid))[0]
            name = fact.object_name if reverse else fact.subject_name
            branches.append((Branch(e, name, (Hop(fact.pid, fact.label, reverse),)), (fact,)))
    if len(branches) >= 2:
        chosen = branches[:2]
        return Grounding(Query(tuple(b for b, _ in chosen)), tuple(c for _, c in chosen))
    if branches:
        return Grounding(Query((branches[0][0],)), (branches[0][1],))
    into_answer: dict[str, list[Fact]] = {}
    for f in view.in_facts(answer):
        if usable_pid(f.pid):
            into_answer.setdefault(f.subject, []).append(f)
    for e in dict.fromkeys(entities):
        for f1 in view.out_facts(e):
            if not usable_pid(f1.pid) or f1.object in (e, answer) or f1.object not in into_answer:
                continue
            f2 = into_answer[f1.object][0]
            branch = Branch(e, f1.subject_name, (Hop(f1.pid, f1.label), Hop(f2.pid, f2.label)))
            return Grounding(Query((branch,)), ((f1, f2),))
    return None
