"""Hostile text (quotes, braces, backslashes, Cypher fragments) is data, never code, on both stores.

Every value reaches Cypher as a parameter, so text built to break out of a string literal must come
back byte for byte and leave the graph as it was. These tests fail on any statement that splices text
into a query.
"""

from __future__ import annotations

import json

import pytest

from kalma_graph.evaluation_result import EvaluationResult
from kalma_graph.ingest import ingest
from kalma_graph.retrieval.linking import link_question
from kalma_graph.store.results import read_run, write_run

# Built to close a string literal, a map or a list and run something else, in both dialects.
HOSTILE = [
    "Robert'); MATCH (n) DETACH DELETE n; //",
    '"}) MATCH (x) SET x.name = "pwned" RETURN x //',
    "O\\'Brien ` backtick `) DETACH DELETE n",
    "{name: 'x'} $key ${rows} [NA] [Q1, name: y]",
    "]}) CALL db.clear() UNION MATCH (m:Meta) DELETE m //",
    "Ünïcødé\u00a0with\ttab and \\n escaped newline",
]


def _entity_line(qid: str, name: str, alias: str, description: str, value: str, other: str) -> str:
    snak = lambda pid, dv: {"mainsnak": {"snaktype": "value", "property": pid, "datavalue": dv}, "rank": "normal"}  # noqa: E731
    return json.dumps({
        "type": "item", "id": qid,
        "labels": {"en": {"language": "en", "value": name}},
        "aliases": {"en": [{"language": "en", "value": alias}]},
        "descriptions": {"en": {"language": "en", "value": description}},
        "claims": {
            "P1449": [snak("P1449", {"type": "monolingualtext", "value": {"text": value, "language": "en"}})],
            "P26": [snak("P26", {"type": "wikibase-entityid", "value": {"entity-type": "item", "id": other}})],
        },
    })


@pytest.fixture
def hostile_graph(store, tmp_path):
    lines = [
        _entity_line(f"Q{900 + i}", text, HOSTILE[(i + 1) % len(HOSTILE)], HOSTILE[(i + 2) % len(HOSTILE)],
                     HOSTILE[(i + 3) % len(HOSTILE)], f"Q{900 + (i + 1) % len(HOSTILE)}")
        for i, text in enumerate(HOSTILE)
    ]
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = ingest(store, [path])
    assert summary["files"][0]["error_count"] == 0
    return store


def _snapshot(store) -> dict:
    ids = [f"Q{900 + i}" for i in range(len(HOSTILE))]
    return {
        "stats": store.stats().as_dict(),
        "entities": [(e.id, e.name, tuple(e.aliases), e.description) for e in store.get_entities(ids)],
        "triples": {i: [(t.pid, t.value, t.object_id) for t in store.one_hop(i)] for i in ids},
    }


def test_hostile_names_round_trip_byte_for_byte(hostile_graph):
    store = hostile_graph
    for i, text in enumerate(HOSTILE):
        entity = store.get_entity(f"Q{900 + i}")
        assert (entity.name, entity.aliases[0], entity.description) == (
            text, HOSTILE[(i + 1) % len(HOSTILE)], HOSTILE[(i + 2) % len(HOSTILE)])
        # its own name, and the alias of the entity before it
        assert {e.id for e in store.entities_by_name(text)} == {f"Q{900 + i}", f"Q{900 + (i - 1) % len(HOSTILE)}"}
        values = {t.value for t in store.one_hop(f"Q{900 + i}")}
        assert HOSTILE[(i + 3) % len(HOSTILE)] in values
    assert store.stats().entities == len(HOSTILE)


def test_hostile_questions_and_lookups_leave_the_graph_unchanged(hostile_graph):
    store = hostile_graph
    before = _snapshot(store)
    for text in HOSTILE:
        question = f"What did {text} and {HOSTILE[0]} have in common?"
        linking = link_question(store, question, None)
        assert isinstance(linking.reason, str)
        store.entities_by_names([text, question])
        store.get_entity(text)
        store.neighbour_labels(text)
        store.statements_between([text, "Q900"])
    assert _snapshot(store) == before


def test_a_run_with_hostile_text_is_stored_verbatim_and_touches_no_knowledge(hostile_graph):
    store = hostile_graph
    before = _snapshot(store)
    results = EvaluationResult.model_validate({
        "run_id": HOSTILE[0],
        "header": {"note": HOSTILE[1]},
        "summary": {"answers": 1, "citations": 1},
        "metrics": {"citation_quality": {}},
        "per_answer": [],
        "answers": [{
            "id": HOSTILE[2], "question": HOSTILE[3], "variant": HOSTILE[4], "answer": HOSTILE[5],
            "sentences": [{"position": 0, "text": HOSTILE[1], "clean_text": HOSTILE[0], "na": False,
                           "citations": [{"qid": "Q900", "prop": HOSTILE[4], "value": HOSTILE[3]}]}],
        }],
    })
    write_run(store, results)
    run = read_run(store, HOSTILE[0])
    assert run["id"] == HOSTILE[0] and json.loads(run["header_json"])["note"] == HOSTILE[1]
    (answer,) = run["answers"]
    assert (answer["question_id"], answer["question"], answer["variant"], answer["text"]) == tuple(HOSTILE[2:6])
    (sentence,) = answer["sentences_list"]
    assert (sentence["text"], sentence["clean_text"]) == (HOSTILE[1], HOSTILE[0])
    assert sentence["citations"] == [f"Q900 | {HOSTILE[4]} | {HOSTILE[3]}"]
    assert [(c["prop"], c["value"]) for c in sentence["cites"]] == [(HOSTILE[4], HOSTILE[3])]
    assert _snapshot(store) == before
