"""KG-generated attribution pairs (kalma_graph.nli.kg_pairs) and the NLI data portions."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from kalma_graph.kg.hypothesis import prop_value
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.nli.data import detokenise, load_attribution, nli_portions, pair_key
from kalma_graph.nli.kg_pairs import (
    entity_split,
    format_date,
    generate_kg_pairs,
    kg_pairs_by_split,
    records_from_biokalma,
    records_from_store,
)

REPO = Path(__file__).resolve().parents[2]
BIOKALMA = REPO.parent / "shared" / "data" / "biokalma" / "dataset" / "simple_question_graph.json"


def _entity(qid: str, name: str, facts: dict[str, str], gender: str = "male") -> tuple[Entity, list[Triple]]:
    triples = [Triple(qid, label, label, value) for label, value in facts.items()]
    triples.append(Triple(qid, "sex or gender", "sex or gender", gender))
    return Entity(qid, "wikidata", name, types=("Q5",)), sorted(triples)


SMALL = [
    _entity("Q1", "Richard Hertwig", {"employer": "University of Jena", "place of birth": "Friedberg",
                                      "place of death": "Schlederloh", "occupation": "zoologist",
                                      "date of birth": "1850-09-23", "alma mater": "University of Jena"}),
    _entity("Q2", "Stephen Crane", {"place of birth": "Newark", "place of death": "Badenweiler",
                                    "occupation": "writer", "date of birth": "1871-11-01",
                                    "employer": "New-York Tribune", "alma mater": "Syracuse University"}),
    _entity("Q3", "Marie Curie", {"place of birth": "Warsaw", "place of death": "Passy", "occupation": "physicist",
                                  "employer": "University of Paris", "date of birth": "1867-11-07",
                                  "alma mater": "University of Paris"}, gender="female"),
    _entity("Q4", "Ernst Hanfstaengl", {"place of birth": "Munich", "place of death": "Munich",
                                        "employer": "Office of Strategic Services", "occupation": "writer",
                                        "alma mater": "Harvard University", "date of birth": "1887-02-11"}),
]


def test_citation_and_dates():
    assert prop_value("Q1", "employer", "University of Jena") == "employer: University of Jena"
    assert format_date("1871-11-01", 0) == "November 1, 1871"
    assert format_date("1871-11-01", 1) == "1 November 1871"
    assert format_date("-0384-06-01", 0) == "June 1, 384 BC"
    assert format_date("not a date", 0) is None


def test_pairs_are_labelled_by_construction():
    pairs = generate_kg_pairs(SMALL, per_entity=12, seed=0)
    assert pairs and {p["label"] for p in pairs} == {"entailment", "neutral", "contradiction"}
    facts = {(e.id, t.label): t.value for e, ts in SMALL for t in ts}
    for p in pairs:
        value = p["hypothesis"].split(": ", 1)[1] if ": " in p["hypothesis"] else None
        if p["kind"] == "states":
            assert p["label"] == "entailment"
        if p["kind"] == "substituted":
            assert p["label"] == "contradiction"
            true_value = facts[(p["entity"], p["property"])]
            year = true_value.split("-")[0]
            assert not re.search(rf"\b{re.escape(year)}\b", p["premise"])  # the true value is not stated
        if p["kind"] in ("other_facts", "swapped_property"):
            assert p["label"] == "neutral"
        if p["kind"] == "other_facts" and value:
            assert value not in p["premise"]  # neutral premises never mention the claimed value
        if p["hypothesis_style"] == "citation":
            assert p["hypothesis"] == prop_value(p["entity"], p["property"], value)
        assert p["source"] == "kg" and p["entity"] in {"Q1", "Q2", "Q3", "Q4"}


def test_swapped_property_example():
    # Hanfstaengl: born in Munich and died in Munich -> no swap for place of birth <-> death;
    # any swap must name a property the entity does not have with that value
    pairs = generate_kg_pairs(SMALL, per_entity=30, seed=3)
    swaps = [p for p in pairs if p["kind"] == "swapped_property"]
    assert swaps
    facts = {(e.id, t.label, t.value) for e, ts in SMALL for t in ts}
    for p in swaps:
        value = p["hypothesis"].rsplit(": ", 1)[1] if ": " in p["hypothesis"] else None
        if value:
            assert (p["entity"], p["property"], value) not in facts


def test_deterministic_and_order_independent():
    a = generate_kg_pairs(SMALL, seed=7)
    b = generate_kg_pairs(list(reversed(SMALL)), seed=7)
    assert a == b
    assert generate_kg_pairs(SMALL, seed=8) != a


def test_entity_split_is_stable_and_disjoint():
    ids = [f"Q{i}" for i in range(2000)]
    splits = [entity_split(i, seed=0) for i in ids]
    counts = Counter(splits)
    assert 0.07 < counts["test"] / 2000 < 0.13 and 0.07 < counts["dev"] / 2000 < 0.13
    assert splits == [entity_split(i, seed=0) for i in ids]
    assert splits != [entity_split(i, seed=1) for i in ids]


def test_store_adapter_uses_one_hop():
    class TinyStore:  # the two GraphStore methods the adapter calls
        backend, uri = "fake", "memory:"

        def get_entity(self, entity_id):
            return next((e for e, _ in SMALL if e.id == entity_id), None)

        def one_hop(self, entity_id):
            return next(t for e, t in SMALL if e.id == entity_id)

    records = list(records_from_store(TinyStore(), ["Q2", "Q404", "Q1"]))
    assert [e.id for e, _ in records] == ["Q2", "Q1"]
    assert generate_kg_pairs(records, seed=0) == generate_kg_pairs([SMALL[1], SMALL[0]], seed=0)


@pytest.mark.skipif(not BIOKALMA.exists(), reason="shared BioKaLMA data not found")
def test_biokalma_records_and_split():
    records = records_from_biokalma(BIOKALMA)
    assert len(records) == 1076
    crane = dict(records)[Entity("Q206534", "wikidata", "Stephen Crane", types=("Q5",))]
    assert Triple("Q206534", "place of birth", "place of birth", "Newark") in crane
    assert Triple("Q206534", "date of birth", "date of birth", "1871-11-01", datatype="time") in crane
    split = kg_pairs_by_split(records[:300], per_entity=6, seed=0)
    entities = {name: {p["entity"] for p in rows} for name, rows in split.items()}
    assert entities["train"] and entities["test"]
    assert not (entities["train"] & entities["test"]) and not (entities["train"] & entities["dev"])
    labels = Counter(p["label"] for p in split["train"])
    assert min(labels.values()) > 0.25 * sum(labels.values())


# --- public NLI portions and attribution rows -----------------------------------------------------


def test_detokenise():
    assert detokenise("Two women are embracing while holding to go packages .") == (
        "Two women are embracing while holding to go packages.")
    assert detokenise("It is n't ( really ) the man 's dog , is it ?") == "It isn't (really) the man's dog, is it?"


def test_nli_portions_never_overlap():
    rows = []
    for i in range(400):
        rows.append(
            {"source": "mnli(TaxiNLI)", "split": "dev", "premise": f"P{i} .", "hypothesis": f"H{i}",
             "label": "neutral"})
        rows.append(
            {"source": "anli", "split": "r1_dev", "premise": f"A{i}", "hypothesis": f"B{i}", "label": "entailment"})
        rows.append(
            {"source": "snli(e-SNLI)", "split": "dev", "premise": f"P{i}.", "hypothesis": f"H{i}", "label": "neutral"})
    rows.append({"source": "rte", "split": "train", "premise": "x", "hypothesis": "y", "label": "not_entailment"})
    rows.append({"source": "breaking_nli", "split": "test", "premise": "x", "hypothesis": "z", "label": "entailment"})
    parts = nli_portions(rows)
    assert 40 < len(parts["mnli_dev"]) < 120 and 80 < len(parts["anli_dev"]) < 160
    keys = {name: {pair_key(r["premise"], r["hypothesis"]) for r in rs} for name, rs in parts.items()}
    assert not keys["train"] & keys["mnli_dev"] and not keys["train"] & keys["anli_dev"]
    # the SNLI copy of an MNLI evaluation pair (same text after detokenising) is kept out of train
    assert len(parts["train"]) + len(parts["mnli_dev"]) + len(parts["anli_dev"]) + len(parts["excluded"]) == len(rows)
    assert {r["source"] for r in parts["excluded"]} >= {"rte", "breaking_nli"}
    assert nli_portions(rows) == parts


def test_load_attribution(tmp_path):
    path = tmp_path / "attr.jsonl"
    rows = [{"id": "a", "source": "X", "question": "who?", "claim": "Milira sings it.", "evidence": "Milira sings it.",
             "label": "attributable"},
            {"id": "b", "source": "X", "question": "who?", "claim": "Bob sings it.", "evidence": "Milira sings it.",
             "label": "not attributable"}]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    got = load_attribution(path)
    assert [(r["label"], r["hypothesis"]) for r in got] == [(1, "Milira sings it."), (0, "Bob sings it.")]
    assert load_attribution(path, with_question=True)[0]["hypothesis"] == "who? Milira sings it."
    rows[0]["label"] = "maybe"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(ValueError, match="unknown attribution label"):
        load_attribution(path)
