"""The same graph loaded into both stores answers every named operation identically.

The dumps are ingested once per module into a fresh embedded store and the real Neo4j server; each
test then compares the two and checks the answer against facts of the real data.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from kalma_graph.ingest import ingest
from kalma_graph.store.embedded import EmbeddedStore
from kalma_graph.verification.records import GraphTriple
from tests.conftest import ALL_GRAPH_DUMPS, open_neo4j

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def both(tmp_path_factory, neo4j_server):
    embedded = EmbeddedStore(tmp_path_factory.mktemp("contract") / "graph.lbdb")
    neo4j = open_neo4j(neo4j_server)
    neo4j.clear()
    # One batch size for both: the per-file counts (created vs updated) depend on where batches end.
    summaries = {name: ingest(s, ALL_GRAPH_DUMPS, batch_size=20_000)
                 for name, s in (("embedded", embedded), ("neo4j", neo4j))}
    yield embedded, neo4j, summaries
    neo4j.clear()
    neo4j.close()
    embedded.close()


def test_stats_identical_and_plausible(both):
    embedded, neo4j, summaries = both
    stats = embedded.stats()
    assert stats == neo4j.stats()
    assert summaries["embedded"]["stats"] == summaries["neo4j"]["stats"]
    # Figures of the committed dumps (dumps/SOURCES.md): 56,056 Wikidata statements, 22,734 CVT nodes.
    assert stats.per_kb["wikidata"] >= 5270
    assert stats.cvt_entities == 22734
    assert stats.statements == stats.entity_statements + stats.value_statements
    assert stats.statements > 56056 + 38152 - 1
    # Re-ingesting everything (forced) creates nothing in either store.
    for store in both[:2]:
        again = ingest(store, ALL_GRAPH_DUMPS, force=True)
        assert again["totals"]["statements_created"] == 0 and again["totals"]["entities_created"] == 0
        assert again["stats"] == stats.as_dict()


def test_ingest_reports_identical(both):
    _, _, summaries = both
    strip = lambda s: [{k: v for k, v in f.items() if k != "seconds"} for f in s["files"]]  # noqa: E731
    assert strip(summaries["embedded"]) == strip(summaries["neo4j"])


def test_one_hop_identical_on_sampled_entities(both):
    embedded, neo4j, _ = both
    ids = embedded.entity_ids_of_type("Q5")
    sample = random.Random(3).sample(ids, 40) + ["Q206534", "m.0c94fn"]
    for entity_id in sample:
        assert embedded.one_hop(entity_id) == neo4j.one_hop(entity_id), entity_id


def test_one_hop_many_by_lookups_and_by_one_scan_agree(both):
    # the embedded store looks a few ids up one by one and reads many in one scan (ONE_HOP_LOOKUPS_UP_TO):
    # both ways, and Neo4j's one query, give each id exactly its one_hop, an unknown id nothing
    from kalma_graph.store.embedded import ONE_HOP_LOOKUPS_UP_TO

    embedded, neo4j, _ = both
    ids = random.Random(5).sample(embedded.entity_ids_of_type("Q5"), ONE_HOP_LOOKUPS_UP_TO + 4)
    few, many = ids[:3] + ["Q0-unknown"], ids
    for wanted in (few, many):
        found = embedded.one_hop_many(wanted)
        assert found == {i: embedded.one_hop(i) for i in wanted}, wanted
        assert {i: sorted(ts, key=repr) for i, ts in found.items()} == {
            i: sorted(ts, key=repr) for i, ts in neo4j.one_hop_many(wanted).items()}
    assert embedded.one_hop_many(few)["Q0-unknown"] == [] and any(embedded.one_hop_many(many).values())


def test_one_hop_has_the_real_facts(both):
    embedded, _, _ = both
    crane = {(t.label, t.value) for t in embedded.one_hop("Q206534")}
    assert ("place of birth", "Newark") in crane
    assert ("date of birth", "1871-11-01") in crane
    assert ("instance of", "human") in crane


def test_lookup_by_name_alias_and_type(both):
    embedded, neo4j, _ = both
    for store in both[:2]:
        assert [e.id for e in store.entities_by_name("stephen CRANE")] == ["Q206534"]
        assert store.entities_by_name("Stephen Crane", types=["Q5"])[0].id == "Q206534"
        assert store.entities_by_name("Stephen Crane", types=["Q515"]) == []
        assert store.entities_by_name("") == []
    # An alias from the dump (Paul Simon's full name) finds the entity.
    assert [e.id for e in embedded.entities_by_name("Paul Frederic Simon")] == ["Q4028"]
    assert embedded.entities_by_name("Cambridge") == neo4j.entities_by_name("Cambridge")
    assert {"Q350", "Q49111"} <= {e.id for e in embedded.entities_by_name("Cambridge")}


def test_batch_name_lookup_matches_single(both):
    embedded, neo4j, _ = both
    names = ["Cambridge", "Stephen Crane", "no such entity at all", "NEWARK"]
    batch = embedded.entities_by_names(names)
    assert batch == neo4j.entities_by_names(names)
    for name in names:
        key = name.casefold()
        assert batch[key] == embedded.entities_by_name(name)


def test_same_name_entities(both):
    embedded, neo4j, _ = both
    groups = embedded.same_name_entities()
    assert groups == neo4j.same_name_entities()
    assert all(len(ids) >= 2 for _, ids in groups)
    assert embedded.same_name_entities(limit=3) == groups[:3]
    # The same event in both knowledge bases shares a name...
    assert ("1904 summer olympics", ["Q8098", "m.018wrk"]) in groups
    # ...and within Wikidata, real homonyms remain (Cambridge, England and Massachusetts).
    wikidata = embedded.same_name_entities(kb="wikidata")
    assert wikidata == neo4j.same_name_entities(kb="wikidata")
    cambridge = dict(wikidata)["cambridge"]
    assert {"Q350", "Q49111"} <= set(cambridge)
    assert all(i.startswith("Q") for _, ids in wikidata for i in ids)


def test_statements_between_and_neighbours(both):
    embedded, neo4j, _ = both
    ids = ["Q206534", "Q25395", "Q30", "Q5"]
    between = embedded.statements_between(ids)
    assert between == neo4j.statements_between(ids)
    assert ({(t.subject, t.pid, t.object_id) for t in between}
            >= {("Q206534", "P19", "Q25395"), ("Q206534", "P31", "Q5")})
    assert all(t.subject in ids and t.object_id in ids for t in between)
    labels = embedded.neighbour_labels("Q206534")
    assert labels == neo4j.neighbour_labels("Q206534")
    assert "Newark" in labels and "1871-11-01" in labels


def test_types_and_seeded_sampling(both):
    embedded, neo4j, _ = both
    humans = embedded.entity_ids_of_type("Q5")
    assert humans == neo4j.entity_ids_of_type("Q5")
    assert "Q206534" in humans
    draw = embedded.random_entities_of_type("Q5", 10, seed=5)
    assert draw == neo4j.random_entities_of_type("Q5", 10, seed=5)
    assert len(set(draw)) == 10 and set(draw) <= set(humans)
    assert draw != embedded.random_entities_of_type("Q5", 10, seed=6)
    # Streamed in keyset pages (a page of 7 makes hundreds of pages), counted in the database, and
    # drawn by position while streaming: the same ids as sampling the whole sorted list.
    assert draw == sorted(random.Random(5).sample(humans, 10))
    for store in (embedded, neo4j):
        assert list(store.iter_entity_ids_of_type("Q5", page=7)) == humans
        assert store.count_entities_of_type("Q5") == len(humans)
        assert store.random_entities_of_type("Q5", len(humans) + 5, seed=5) == humans
        assert store.count_entities_of_type("Q-not-a-class") == 0
        assert store.random_entities_of_type("Q-not-a-class", 3) == []


def test_get_entities(both):
    embedded, neo4j, _ = both
    ids = ["Q206534", "m.0c94fn", "Q-missing"]
    assert embedded.get_entities(ids) == neo4j.get_entities(ids)
    assert [e.id for e in embedded.get_entities(ids)] == ["Q206534", "m.0c94fn"]
    assert embedded.get_entity("Q-missing") is None


def test_value_holders(both):
    embedded, neo4j, _ = both
    names = ["Ian Khama", "Arundhati Roy", "no such value at all"]
    found = embedded.value_holders(names)
    assert found == neo4j.value_holders(names)
    assert ("Q219962", "child", "Ian Khama") in [(t.subject, t.label, t.value) for t in found]
    assert embedded.value_holders([]) == [] == neo4j.value_holders(["  "])


def test_label_export_context_is_the_graphs_from_both_stores(both):
    """`bench/verifier_label_export_v2.py --context` shows annotators where a shown place lies and others' family
    triples naming a person (what the verifier reads): the same from both stores, and the real facts."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from verifier_label_export_v2 import graph_context

    embedded, neo4j, _ = both
    shown = [GraphTriple(subject="Q-asked", label="place of birth", value="Amsterdam", object_id="Q727")]
    persons = {"Q-asked": "Ian Khama"}
    got = [sorted((d["qid"], d["relation"], d["value"]) for d in graph_context(store, shown, persons))
           for store in (embedded, neo4j)]
    assert got[0] == got[1]
    assert ("Q727", "country", "Netherlands") in got[0]
    assert ("Q219962", "child", "Ian Khama") in got[0]
