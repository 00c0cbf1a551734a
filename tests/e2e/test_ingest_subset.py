"""Subsets while streaming (`ingest --subset`): class rules, seeds and hops, property lists, the
labels pass for objects outside the subset, and the rule recorded in the graph (issue 14, item 1)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from kalma_graph.ingest import SubsetError, ingest, parse_subset
from kalma_graph.store.embedded import EmbeddedStore
from tests.conftest import WIKIDATA_JSON, WIKIDATA_NT


def _entities() -> dict[str, dict]:
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as handle:
        return {o["id"]: o for o in map(json.loads, handle) if o.get("type") == "item"}


def _is_human(obj: dict) -> bool:
    return any(c["mainsnak"].get("datavalue", {}).get("value", {}).get("id") == "Q5"
               for c in obj["claims"].get("P31", []))


def _subjects(store, ids) -> set[str]:
    return {i for i, triples in store.one_hop_many(ids).items() if triples}


@pytest.fixture(scope="module")
def sample() -> dict[str, dict]:
    return _entities()


def test_a_class_subset_holds_exactly_its_members_and_names_their_objects(store, sample):
    summary = ingest(store, [WIKIDATA_JSON], subset=parse_subset(["P31=Q5"]))
    humans = {i for i, o in sample.items() if _is_human(o)}
    assert 900 < len(humans) < len(sample)
    assert _subjects(store, sample) == {i for i in humans if sample[i]["claims"]}
    # An object outside the subset is named from its own line, with no statements of its own.
    newark = store.get_entity("Q25395")
    assert newark.name == "Newark" and not store.one_hop("Q25395") and not _is_human(sample["Q25395"])
    assert summary["subset"]["labelled_objects"] > 100
    assert summary["subset"]["rule"] == "P31=Q5"


def test_ntriples_need_a_collection_pass_and_give_the_same_subset(tmp_path):
    rule = ["P31=Q5", "-props=P1343"]
    a, b = EmbeddedStore(tmp_path / "a.lbdb"), EmbeddedStore(tmp_path / "b.lbdb")
    try:
        sa = ingest(a, [WIKIDATA_JSON], subset=parse_subset(rule))
        sb = ingest(b, [WIKIDATA_NT], subset=parse_subset(rule))
        assert "members" not in sa["subset"]  # a JSON line holds the whole entity: decided on the line
        assert sb["subset"]["members"] > 900  # N-Triples: P31 is on its own line, collected first
        for key in ("entities", "named_entities", "statements", "entity_statements", "value_statements"):
            assert sa["stats"][key] == sb["stats"][key], key
        assert a.one_hop("Q206534") == b.one_hop("Q206534")
        assert not any(t.pid == "P1343" for t in a.one_hop("Q206534"))
    finally:
        a.close()
        b.close()


def test_seeds_and_hops(store, sample, tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# Stephen Crane\nQ206534\n", encoding="utf-8")
    ingest(store, [WIKIDATA_JSON], subset=parse_subset([f"seeds={seeds};hops=1"]))
    reached = {c["mainsnak"]["datavalue"]["value"]["id"] for cs in sample["Q206534"]["claims"].values() for c in cs
               if c["mainsnak"].get("datavalue", {}).get("type") == "wikibase-entityid"}
    expected = {"Q206534"} | {i for i in reached if i in sample and sample[i]["claims"]}
    assert _subjects(store, sample) == expected
    assert len(expected) > 3


def test_property_allow_list(store, sample):
    ingest(store, [WIKIDATA_JSON], subset=parse_subset(["P31=Q5;props=P19|P20"]))
    pids = {t.pid for triples in store.one_hop_many(sample).values() for t in triples}
    assert pids == {"P19", "P20"}
    assert {t.pid for t in store.one_hop("Q206534")} == {"P19"} & set(sample["Q206534"]["claims"]) | (
        {"P20"} & set(sample["Q206534"]["claims"]))


def test_another_rule_or_none_is_refused_and_the_same_rule_resumes(store):
    first = ingest(store, [WIKIDATA_JSON], subset=parse_subset(["P31=Q5"]))
    before = store.stats().as_dict()
    with pytest.raises(SubsetError, match=r"holds the subset 'P31=Q5'.*asks for --subset 'P31=Q6256'"):
        ingest(store, [WIKIDATA_JSON], subset=parse_subset(["P31=Q6256"]))
    with pytest.raises(SubsetError, match="asks for no --subset"):
        ingest(store, [WIKIDATA_JSON])
    again = ingest(store, [WIKIDATA_JSON], subset=parse_subset(["P31=Q5"]))
    assert again["files"][0]["status"] == "already-ingested"
    forced = ingest(store, [WIKIDATA_JSON], subset=parse_subset(["P31=Q5"]), force=True)
    assert forced["totals"]["statements_created"] == 0 and forced["stats"] == first["stats"] == before


@pytest.mark.parametrize("rule, message", [
    ("P31", "expected KEY=VALUE"),
    ("hops=3", "hops is 0, 1 or 2"),
    ("hops=1", "needs seeds=FILE"),
    ("seeds=no-such-file.txt", "no file"),
    ("colour=red", "unknown key 'colour'"),
])
def test_bad_rules_are_clear(rule, message):
    with pytest.raises(SubsetError, match=message):
        parse_subset([rule])


def test_a_class_file_and_its_fingerprint(tmp_path):
    classes = tmp_path / "classes.txt"
    classes.write_text("Q5\nQ95074\n", encoding="utf-8")
    first = parse_subset([f"P31=@{classes}"])
    assert first.class_rules[0].classes == {"Q5", "Q95074"}
    classes.write_text("Q5\n", encoding="utf-8")
    assert parse_subset([f"P31=@{classes}"]).fingerprint != first.fingerprint  # same text, other file


def test_cli_subset_and_refusal(tmp_path):
    uri = f"embedded:{tmp_path / 'graph.lbdb'}"
    base = [sys.executable, "-m", "kalma_graph", "ingest", str(WIKIDATA_JSON), "--store", uri, "--no-progress"]
    done = subprocess.run([*base, "--subset", "P31=Q5", "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["subset"]["rule"] == "P31=Q5"
    refused = subprocess.run(base, capture_output=True, text=True, timeout=600)
    assert refused.returncode == 2 and "would mix two subsets" in refused.stderr and "Traceback" not in refused.stderr
    bad = subprocess.run([*base, "--subset", "hops=9"], capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "hops is 0, 1 or 2" in bad.stderr
