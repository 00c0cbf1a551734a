"""The named CAQA operations (`cypher/caqa_*.cypher`) give the same answers on both stores.

The graph is a handful of real facts from the bundled dumps: two Wikidata items named Cambridge
(Q350, Q49111) with their countries and capitals, and Amy Grant's Grammy nomination in Freebase,
which passes through a CVT node (one logical hop)."""

from __future__ import annotations

from kalma_graph.caqa import graph_queries as caqa_ops
from kalma_graph.caqa.model import Fact
from kalma_graph.store.base import EntityRecord, StatementRecord

ENTITIES = [
    EntityRecord("Q350", "wikidata", "Cambridge", types=("Q515",)),
    EntityRecord("Q49111", "wikidata", "Cambridge", types=("Q1093829",)),
    EntityRecord("Q145", "wikidata", "United Kingdom", types=("Q3624078", "Q6256")),
    EntityRecord("Q30", "wikidata", "United States of America", types=("Q3624078", "Q6256")),
    EntityRecord("Q84", "wikidata", "London", types=("Q515",)),
    EntityRecord("Q1345", "wikidata", "Philadelphia", types=("Q515",)),
    EntityRecord("m.010hn", "freebase", "Amy Grant"),
    EntityRecord("m.01bgqh", "freebase", "Grammy Award for Record of the Year"),
    EntityRecord("cvt.a", "freebase", cvt=True),
]
STATEMENTS = [
    StatementRecord("Q350", "P17", "country", object_id="Q145"),
    StatementRecord("Q49111", "P17", "country", object_id="Q30"),
    StatementRecord("Q145", "P36", "capital", object_id="Q84"),
    StatementRecord("Q30", "P36", "capital", object_id="Q1345"),
    StatementRecord("Q84", "P17", "country", object_id="Q145"),
    StatementRecord("m.010hn", "award.award_nominee.award_nominations", "award nominations", object_id="cvt.a"),
    StatementRecord("cvt.a", "award.award_nomination.award", "award", object_id="m.01bgqh"),
]
SID = {(s.subject, s.pid, s.object_id): s.sid for s in STATEMENTS}
UK = Fact("Q350", "P17", "Q145", sids=(SID[("Q350", "P17", "Q145")],))
CAPITAL = Fact("Q145", "P36", "Q84", sids=(SID[("Q145", "P36", "Q84")],))
CVT_PID = "award.award_nominee.award_nominations./award.award_nomination.award"


def _load(store):
    store.bootstrap()
    store.load_batch(ENTITIES, STATEMENTS)


def test_caqa_operations_on_each_store(store):
    _load(store)
    out, types = caqa_ops.hop_out(store, "Q350")
    assert [f.key for f in out] == [UK.key] and out[0].label == "country" and types["Q145"] == ("Q3624078", "Q6256")
    grant = caqa_ops.hop_out(store, "m.010hn")[0]
    assert [f.key for f in grant] == [("m.010hn", CVT_PID, "m.01bgqh")]
    assert grant[0].cvt == "cvt.a" and grant[0].label == "award nominations" and len(grant[0].sids) == 2
    assert [f.key for f in caqa_ops.hop_in(store, "m.01bgqh")[0]] == [("m.010hn", CVT_PID, "m.01bgqh")]
    assert [f.key for f in caqa_ops.hop_in(store, "Q145")[0]] == [("Q350", "P17", "Q145"), ("Q84", "P17", "Q145")]

    fact = caqa_ops.kgqa_fact(store, "Q350", "P17", "Q145")[0]
    assert fact.key == UK.key and fact.subject_name == "Cambridge"
    assert caqa_ops.kgqa_fact(store, "Q350", "P17", "Q30")[0] is None
    assert caqa_ops.named_entities(store, "freebase") == ["m.010hn", "m.01bgqh"]

    # extension: the namesake (same knowledge base), incoming triples at the subject / the answer
    assert caqa_ops.namesake_groups(store, "wikidata") == [("cambridge", ["Q350", "Q49111"])]
    assert caqa_ops.namesake_groups(store, "freebase") == []
    assert caqa_ops.extend_union(store, "cambridge", "Q350", "wikidata") == ["Q49111"]
    assert [f.key for f in caqa_ops.extend_head(store, "Q145", ["P36"], ["Q84"])] == [UK.key]
    assert [f.key for f in caqa_ops.extend_answer(store, "Q145", ["P17"], [])] == []

    # edits return copies; the graph keeps every statement
    g = caqa_ops.ground(store, [UK, CAPITAL])
    assert [f.key for f in g] == [CAPITAL.key, UK.key]
    assert [f.key for f in caqa_ops.edit_partial(store, g, [UK])] == [CAPITAL.key]
    swapped = caqa_ops.edit_contradictory(store, g, "Q84", "Q1345")
    assert {f.key for f in swapped} == {UK.key, ("Q145", "P36", "Q1345")}
    assert {f.object_name for f in swapped} == {"United Kingdom", "Philadelphia"}
    assert [c[0] for c in caqa_ops.same_type_candidates(store, "P36", "object")] == ["Q1345", "Q84"]
    assert [c[0] for c in caqa_ops.same_type_candidates(store, "P36", "subject")] == ["Q145", "Q30"]
    assert [c[0] for c in caqa_ops.same_type_candidates(store, CVT_PID, "object")] == ["m.01bgqh"]
    assert [f.key for f in caqa_ops.irrelevant_out(store, "Q145", ["P17"], ["Q350"])] == [CAPITAL.key]
    assert caqa_ops.irrelevant_out(store, "Q145", ["P36"], []) == []
    assert [f.key for f in caqa_ops.irrelevant_in(store, "Q145", [], ["Q350"])] == [("Q84", "P17", "Q145")]
    assert store.stats().statements == len(STATEMENTS)
