"""Linking and retrieval give the same answers on both stores (embedded and a real Neo4j server),
under the paper's `strict` policy and the default `graph` policy (graph-aware mentions: the batched
name lookup `cypher/name_matches.*.cypher` with its statement counts, type evidence, the prior).

Each store gets a slice of the committed dumps, cut with the dumps' own lines: the items of a few
entities the questions name, every item they point to and every item pointing at them, so their
one-hop neighbourhoods in both directions (what re-ranking counts) are the full ones.
"""

from __future__ import annotations

import gzip
import json

import pytest

from kalma_graph.ingest import ingest
from kalma_graph.retrieval.linking import link_entities
from kalma_graph.retrieval.retrieve import retrieve
from tests.conftest import BIOKALMA_RECORDS, WIKIDATA_JSON
from tests.e2e.test_retrieval_linking import ner  # noqa: F401 (fixture)

SEEDS = {"Q350", "Q49111", "Q35794", "Q882", "Q2960839", "Q8646", "Q47120382", "Q84292", "Q84233", "Q206534",
         "Q229379", "Q204077", "Q8253555"}

# (policy, question, mention, selected, [(candidate, score)], source)
CASES = [
    ("graph", "Did Stephen Wolfram study in Cambridge?", "Cambridge", "Q49111",
     [("Q49111", 1.0), ("Q350", 0.0)], "ner+graph"),
    ("graph", "What happened at Cambridge?", "Cambridge", "Q350", [("Q350", 0.0), ("Q49111", 0.0)], "ner+graph"),
    ("graph", "Which reggae songs did Charlie Chaplin record for Trojan Records in Jamaica?",
     "Charlie Chaplin", "Q2960839", [("Q2960839", 3.0), ("Q882", 0.0)], "ner+graph"),
    ("strict", "Who was born in Hong Kong?", "Hong Kong", "Q8646", [("Q8646", 0.0)], "ner"),
    ("graph", "Who was born in Hong Kong?", "Hong Kong", "Q8646", [("Q8646", 0.0), ("Q47120382", 0.0)], "ner+graph"),
    ("graph", "Who were the notable figures mentored by Ludwig and Richard von Mises?", "Ludwig", "Q84233",
     [("Q84233", 2.0)], "ner"),
    ("graph", "What is known about the lives of Miley Cyrus and Lil' Kim: record label?", "Lil' Kim", "Q229379",
     [("Q229379", 1.0)], "graph"),
    ("graph",
     "What is known about the lives of Lady Liu and Cao Cao: ancestral home, military rank, conflict, relative?",
     "Cao Cao", "Q204077", [("Q204077", 1.0)], "graph"),
    ("graph", "Who was Lady Liu and what is her relationship with Cao Cao?", "Cao Cao", "Q204077",
     [("Q204077", 1.0)], "ner+graph"),
]


def _item_refs(item: dict) -> set[str]:
    refs = set()
    for claims in item.get("claims", {}).values():
        for claim in claims:
            value = claim.get("mainsnak", {}).get("datavalue", {}).get("value")
            if isinstance(value, dict) and value.get("id", "").startswith("Q"):
                refs.add(value["id"])
    return refs


@pytest.fixture(scope="module")
def slice_files(tmp_path_factory):
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    items = {}
    for line in lines:
        obj = json.loads(line)
        if obj.get("type") == "item":
            items[obj["id"]] = (obj, line)
    keep = set(SEEDS)
    for qid, (obj, _) in items.items():
        refs = _item_refs(obj)
        if qid in SEEDS:
            keep |= refs
        if refs & SEEDS:
            keep.add(qid)
    folder = tmp_path_factory.mktemp("dump-slice")
    wikidata = folder / "wikidata_slice.jsonl"
    properties = [line for line in lines if '"type":"property"' in line.replace(" ", "")]
    wikidata.write_text("\n".join(properties + [items[q][1] for q in sorted(keep) if q in items])
                        + "\n", encoding="utf-8")
    records = folder / "biokalma_slice.jsonl"
    with gzip.open(BIOKALMA_RECORDS, "rt", encoding="utf-8") as handle:
        kept = [line for line in handle if line.strip() and json.loads(line).get("qid") in keep]
    records.write_text("".join(kept), encoding="utf-8")
    return [wikidata, records]


def test_linking_and_retrieval_are_the_same_on_every_store(store, slice_files, ner):  # noqa: F811
    ingest(store, slice_files)
    for policy, question, mention, selected, scores, source in CASES:
        linked = {lm.mention: lm for lm in link_entities(store, question, ner, type_policy=policy)}
        assert linked[mention].selected.id == selected, question
        assert [(c.entity.id, c.score) for c in linked[mention].candidates] == scores, question
        assert linked[mention].source == source, question
    found = retrieve(store, "What were some of Stephen Crane's notable works?", ner)
    assert [e.id for e in found.entities] == ["Q206534"]
    assert ("place of birth", "Newark") in {(t.label, t.value) for t in found.triples}
    assert found.blocks()[0].startswith("{qid: Q206534, name: Stephen Crane, ")
