"""BioKaLMA person selection, name disambiguation, pools and checks against real graphs:

- a tiny hand-made graph loaded into each store (embedded, and Neo4j when one answers) pins the
  named Cypher of `cypher/biokalma_*.cypher` — including a name that stays ambiguous;
- the bundled sample graph (dumps/wikidata_sample.jsonl.gz + dumps/biokalma_records.jsonl.gz,
  ingested once for the module) shows real same-name persons told apart by the relation's edge.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

# llama.cpp's OpenMP threads spin-wait by default, which is 5-10x slower on 2 shared cores; this only
# takes effect when llama_cpp is loaded after this module is imported (it is loaded lazily).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest

from kalma_graph.biokalma import (
    BuildError,
    BuildOptions,
    EvolveConfig,
    build_biokalma,
    disambiguate,
    knowledge_pool,
    pairs_from_graph,
    plan_dataset,
)
from kalma_graph.biokalma.checks import triples_in_graph
from kalma_graph.biokalma.graph_queries import linked_by_names, person_links
from kalma_graph.biokalma.pairs import PERSON_RELATIONS, PersonPair, is_complete_name, seed_sentence
from kalma_graph.files import TornLineWarning
from kalma_graph.ingest import ingest
from kalma_graph.store.base import EntityRecord, StatementRecord
from kalma_graph.store.embedded import EmbeddedStore
from tests.conftest import BIOKALMA_RECORDS, NLI_MODEL as SHARED_NLI, WIKIDATA_JSON

# --- a tiny graph, both stores ---------------------------------------------------------------------


def _person(qid: str, name: str, types=("Q5",)) -> EntityRecord:
    return EntityRecord(qid, "wikidata", name=name, types=types)


def _st(s: str, pid: str, label: str, o: str) -> StatementRecord:
    return StatementRecord(s, pid, label, object_id=o)


TINY_ENTITIES = [
    _person("Q901", "John Smith"),
    _person("Q902", "John Smith"),
    _person("Q903", "Adam Smith"),
    _person("Q904", "Mary Jones"),
    _person("Q905", "Rex Smith", types=("Q144",)),  # a dog: not a person
    _person("Q906", "Jane Smith"),
]
TINY_STATEMENTS = [
    _st("Q901", "P22", "father", "Q903"),
    _st("Q902", "P22", "father", "Q903"),
    _st("Q903", "P40", "child", "Q901"),
    _st("Q901", "P26", "spouse", "Q904"),
    _st("Q904", "P26", "spouse", "Q901"),
    _st("Q905", "P22", "father", "Q903"),
    _st("Q906", "P3373", "sibling", "Q901"),
    _st("Q901", "P106", "occupation", "Q907"),
    StatementRecord("Q901", "P569", "date of birth", value="1900-01-01", datatype="time"),
]


@pytest.fixture
def tiny(store):
    store.bootstrap()
    store.load_batch(TINY_ENTITIES, TINY_STATEMENTS)
    return store


def test_person_links_keep_person_person_statements_only(tiny):
    links = person_links(tiny, list(PERSON_RELATIONS))
    assert [(link.a_id, link.pid, link.b_id) for link in links] == [
        ("Q901", "P22", "Q903"), ("Q901", "P26", "Q904"), ("Q902", "P22", "Q903"),
        ("Q903", "P40", "Q901"), ("Q904", "P26", "Q901"), ("Q906", "P3373", "Q901"),
    ]
    assert links[0].a_name == "John Smith" and links[0].b_name == "Adam Smith"
    assert person_links(tiny, []) == []


def test_linked_by_names_both_directions(tiny):
    links = linked_by_names(tiny, "john smith", "ADAM SMITH", forward=["P22"], inverse=["P40"])
    assert [(link.a_id, link.b_id, link.pid, link.direction) for link in links] == [
        ("Q901", "Q903", "P22", "forward"), ("Q901", "Q903", "P40", "inverse"), ("Q902", "Q903", "P22", "forward"),
    ]
    assert linked_by_names(tiny, "John Smith", "Mary Jones", forward=["P22"], inverse=[]) == []


def test_disambiguation_statuses(tiny):
    father = PersonPair("John Smith", "P22", "Adam Smith", "Adam Smith was the father of John Smith.")
    result = disambiguate(tiny, father)
    assert result.status == "ambiguous" and result.candidates == (("Q901", "Q903"), ("Q902", "Q903"))
    spouse = disambiguate(tiny, PersonPair("Mary Jones", "P26", "John Smith", "x"))
    assert spouse.ok and (spouse.a_id, spouse.b_id) == ("Q904", "Q901")
    assert spouse.entry_id == "biokalma-Q904-P26-Q901"
    sibling = disambiguate(tiny, PersonPair("John Smith", "P3373", "Jane Smith", "x"))
    assert sibling.ok and (sibling.a_id, sibling.b_id) == ("Q901", "Q906")  # met as Q906 -> Q901
    assert disambiguate(tiny, PersonPair("Mary Jones", "P22", "Adam Smith", "x")).status == "not_found"
    assert disambiguate(tiny, PersonPair("Rex Smith", "P22", "Adam Smith", "x")).status == "not_found"  # not human


def test_pairs_from_graph_one_per_unordered_pair(tiny):
    pairs = pairs_from_graph(tiny)
    assert [(p.hint, p.relation) for p in pairs] == [
        (("Q901", "Q903"), "P22"),  # father beats its inverse child
        (("Q901", "Q904"), "P26"),
        (("Q902", "Q903"), "P22"),
        (("Q906", "Q901"), "P3373"),
    ]
    assert pairs[0].sentence == "Adam Smith was the father of John Smith."


def test_pool_and_link_triples(tiny):
    spouse = disambiguate(tiny, PersonPair("John Smith", "P26", "Mary Jones", "x"))
    pool = knowledge_pool(tiny, spouse.a_id, spouse.b_id)
    assert {t.subject for t in pool.triples} == {"Q901", "Q904"}
    assert len(pool.triples) == len(tiny.one_hop("Q901")) + len(tiny.one_hop("Q904"))
    assert [(t.subject, t.pid, t.object_id) for t in pool.link_triples(spouse)] == [
        ("Q901", "P26", "Q904"), ("Q904", "P26", "Q901")]
    # Objects known only by id are no candidates (Q907 has no name).
    assert all(t.object_id != "Q907" for t in pool.candidates([]))


def test_in_graph_check_catches_a_made_up_triple(tiny):
    good = {"qid": "Q901", "pid": "P26", "property": "spouse", "value": "Mary Jones"}
    bad = {"qid": "Q901", "pid": "P26", "property": "spouse", "value": "Jane Smith"}
    report = triples_in_graph(tiny, [{"id": "e", "minimum_knowledge_set": [good, bad]}])
    assert (report["triples"], report["in_graph"], report["share"]) == (2, 1, 0.5)
    assert report["missing"] == [["e", "Q901", "spouse", "Jane Smith"]]


# --- the bundled sample graph ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    store = EmbeddedStore(tmp_path_factory.mktemp("biokalma") / "graph.lbdb")
    ingest(store, [WIKIDATA_JSON, BIOKALMA_RECORDS])
    yield store
    store.close()


def test_graph_pairs_are_complete_human_pairs(sample):
    pairs = pairs_from_graph(sample)
    assert len(pairs) > 500
    hints = [frozenset(p.hint) for p in pairs]
    assert len(hints) == len(set(hints))
    assert all(is_complete_name(p.a) and is_complete_name(p.b) for p in pairs)
    shelley = [p for p in pairs if p.hint == ("Q47152", "Q188569")]
    assert shelley and shelley[0].relation == "P22"
    assert shelley[0].sentence == seed_sentence("P22", "Mary Shelley", "William Godwin")
    for entity in sample.get_entities(sorted({i for p in pairs[:50] for i in p.hint})):
        assert "Q5" in entity.types


def test_same_name_persons_told_apart_by_the_relation(sample):
    # Two humans are named "Winston Churchill" in the sample (Q8016, the prime minister; Q332528).
    assert [e.id for e in sample.entities_by_name("Winston Churchill", types=["Q5"])] == ["Q332528", "Q8016"]
    son = disambiguate(sample, PersonPair("Winston Churchill", "P22", "Randolph Churchill", "x"))
    assert son.ok and son.a_id == "Q332528" and son.b_id == "Q183105"
    assert {link.direction for link in son.links} == {"forward", "inverse"}  # father and child statements
    father = disambiguate(sample, PersonPair("Winston Churchill", "P40", "Randolph Churchill", "x"))
    assert father.ok and father.a_id == "Q8016"
    # "Charlie Chaplin" names two humans; the influence edge picks the comic actor.
    lloyd = disambiguate(sample, PersonPair("Harold Lloyd", "P737", "Charlie Chaplin", "x"))
    assert lloyd.ok and lloyd.b_id == "Q882"


def test_plan_is_seeded_and_counts_fit_eq1(sample):
    plan = plan_dataset(sample, BuildOptions(limit=12))
    again = plan_dataset(sample, BuildOptions(limit=12))
    assert [r.entry_id for r in plan.resolutions] == [r.entry_id for r in again.resolutions]
    assert plan.n == 12 and plan.statuses["resolved"] == 12
    assert all(0 < c <= 2 * plan.n for c in plan.counts.values())
    assert plan.counts["P31"] == 2 * plan.n  # every person is an instance of human
    other = plan_dataset(sample, BuildOptions(limit=12, evolve=EvolveConfig(seed=1)))
    assert [r.entry_id for r in other.resolutions] != [r.entry_id for r in plan.resolutions]
    for resolution in plan.resolutions:
        pool = plan.pools[resolution.entry_id]
        assert pool.link_triples(resolution), resolution.entry_id  # the seed sentence's knowledge is in the pool



# --- end to end with the packaged GGUF model (SmolLM2) and the shared NLI model ---------------------

# Small enough for the 2-minute budget on 2 cores: two entries, rounds 1..3, four candidates scored per
# round (the bench builds full-size entries).
E2E = BuildOptions(limit=2, evolve=EvolveConfig(seed=7, rounds=3, max_candidates=4))
THREADS = min(2, os.cpu_count() or 1)


@pytest.fixture(scope="module")
def llm():
    from kalma_graph.models.llm import load_llm

    model = load_llm(n_ctx=2048, seed=0, n_threads=THREADS)
    yield model
    model.close()


@pytest.fixture(scope="module")
def scorer():
    from kalma_graph.models.llm import load_llm

    model = load_llm(n_ctx=2048, seed=0, n_threads=THREADS, logits=True)
    yield model
    model.close()


@pytest.fixture(scope="module")
def nli():
    if not (SHARED_NLI / "config.json").exists():
        yield None
        return
    from kalma_graph.models.nli import load_nli

    model = load_nli(SHARED_NLI, device="cpu", cache=None)
    yield model
    model.close()


@pytest.fixture(scope="module")
def built(sample, llm, scorer, nli, tmp_path_factory):
    out = tmp_path_factory.mktemp("bk-build") / "bk.jsonl"
    summary = build_biokalma(sample, llm, out, E2E, scorer_llm=scorer, nli=nli)
    return out, summary


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_build_writes_entries_gold_and_questions(built, llm):
    out, summary = built
    entries = _lines(out)
    assert summary["entries"] == summary["built_now"] == len(entries) == 2
    for entry in entries:
        assert entry["id"].startswith("biokalma-Q") and len(entry["qids"]) == 2
        for kind in ("general", "specific"):
            assert entry[f"{kind}_question"].endswith("?") and len(entry[f"{kind}_question"].split()) >= 3
        assert entry["paragraph"].startswith(entry["seed_sentence"])
        rounds = [g["round"] for g in entry["minimum_knowledge_set"]]
        assert rounds == sorted(rounds) and rounds[0] == 1 and rounds[-2:] == [2, 3]
        assert [r["round"] for r in entry["rounds"]] == [2, 3]
        assert all(r["candidates"] >= 4 for r in entry["rounds"])  # the 4 most specific, and ties
        for r in entry["rounds"]:  # eq. 1 as recorded: α·spec + (1 − α)·coh
            alpha = E2E.evolve.alpha
            assert r["score"] == pytest.approx(alpha * r["specificity"] + (1 - alpha) * r["coherence"], abs=2e-6)
            assert r["sentence"] in entry["paragraph"]
        prov = entry["provenance"]
        assert prov["seed"] == 7 and prov["alpha"] == E2E.evolve.alpha and prov["dataset_size"] == 2
        assert prov["model_sha256"] == llm.header()["model_sha256"] and prov["model_file"].endswith(".gguf")
    gold = _lines(Path(summary["gold"]))
    questions = _lines(Path(summary["questions"]))
    assert [g["id"] for g in gold] == [q["id"] for q in questions] == [e["id"] for e in entries]
    for g, q, e in zip(gold, questions, entries):
        assert g["gold"] == [[t["qid"], t["property"], t["value"]] for t in e["minimum_knowledge_set"]]
        assert q["variants"] == {"general": e["general_question"], "specific": e["specific_question"]}
    assert json.loads(Path(summary["checks_file"]).read_text())["checks"]["entries"] == 2
    # The figures the gold data must meet, by name, with the time per entry from the timings file.
    head = json.loads(Path(summary["checks_file"]).read_text())["headline"]
    assert (head["entries"] == 2 and head["gold_in_graph_share"] == 1.0 and head["gold_unlabelled"] == 0
            and head["timed_entries"] == 2)
    assert set(head["persons_named_share"]) == {"general", "specific"} and head["seconds_per_entry"] > 0
    assert head["model_sha256"] == llm.header()["model_sha256"]
    assert 0.0 <= head["template_sentence_share"] <= 1.0


@pytest.mark.slow
def test_every_gold_triple_is_a_statement_of_the_graph(built, sample):
    out, summary = built
    assert summary["checks"]["in_graph"]["share"] == 1.0
    for entry in _lines(out):  # independently of checks.py
        for g in entry["minimum_knowledge_set"]:
            statements = {(t.pid, t.label, t.value) for t in sample.one_hop(g["qid"])}
            assert (g["pid"], g["property"], g["value"]) in statements, g
            assert g["qid"] in entry["qids"]


@pytest.mark.slow
def test_quality_checks_report_sizes_relations_and_relevance(built, nli):
    _, summary = built
    checks = summary["checks"]
    assert checks["set_sizes"]["entries"] == 2 and checks["set_sizes"]["min"] >= 3
    assert sum(checks["relations"]["eq1"].values()) == 4
    if nli is not None:
        relevance = checks["relevance"]
        assert relevance["pairs"] == sum(int(k) * v for k, v in checks["set_sizes"]["histogram"].items())
        assert 0.0 <= relevance["entailed_micro"] <= 1.0
        assert "link" in relevance["per_source"]
        assert any(kind.startswith("eq1/") for kind in relevance["per_source"])


@pytest.mark.slow
def test_same_seed_same_entries_on_resume(built, sample, llm, scorer, tmp_path):
    out, _ = built
    first = out.read_text(encoding="utf-8")
    # A run interrupted after one entry (and half a line) resumes; entry 2, built again with the same
    # seed after other model calls, comes out byte for byte the same.
    partial = tmp_path / "again.jsonl"
    lines = first.splitlines(keepends=True)
    partial.write_text(lines[0] + lines[1][:40], encoding="utf-8")
    with pytest.warns(TornLineWarning, match="again.jsonl:2: dropped a torn last line"):
        summary = build_biokalma(sample, llm, partial, E2E, scorer_llm=scorer)
    assert (summary["resumed"], summary["built_now"]) == (1, 1)
    assert partial.read_text(encoding="utf-8") == first
    # Other settings are refused rather than mixed into the same file.
    with pytest.raises(BuildError, match="alpha"):
        build_biokalma(sample, llm, partial,
                       BuildOptions(limit=2, evolve=EvolveConfig(seed=7, rounds=3, max_candidates=4,
                                                                 alpha=0.9)),
                       scorer_llm=scorer)
