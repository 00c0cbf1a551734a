"""Checks of the committed sample dumps in ``dumps/`` (built by scripts/build_dumps.py)."""

from __future__ import annotations

import filecmp
import gzip
import json
import logging
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import rdflib

REPO = Path(__file__).resolve().parents[2]
DUMPS = REPO / "dumps"
SIZE_BUDGET = 25 * 1024 * 1024

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SCHEMA_DESC = "http://schema.org/description"
XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
FB = "http://rdf.freebase.com/ns/"
GREGORIAN = "http://www.wikidata.org/entity/Q1985727"

EXPECTED_FILES = [
    "SOURCES.md",
    "wikidata_sample.jsonl.gz",
    "wikidata_sample.nt.gz",
    "wikidata_sample.composed_descriptions.tsv",
    "freebase_sample.nt.gz",
    "biokalma_records.jsonl.gz",
    "biokalma/simple_question_graph.json.gz",
    "biokalma/complex_question_graph.json.gz",
    "biokalma/NOTICE.md",
    "biokalma/prompt/answer_question_simple_prompt.json",
    "biokalma/prompt/answer_question_complex_prompt.json",
    "biokalma/prompt/gpteval_prompt.json",
    "kgqa/simplequestions_wikidata_test_answerable.sample.txt",
    "kgqa/simplequestions_freebase_valid.sample.txt",
    "kgqa/mintaka_dev.sample.json",
    "kgqa/SimpleQuestions-LICENSE.txt",
    "kgqa/Mintaka-LICENSE.md",
    "licenses/CoDEx-LICENSE-MIT.txt",
    "licenses/BioKaLMA-S-Lab-License-1.0-NOTICE.md",
]

TIME_RE = re.compile(r"^[+-]\d{4,}-\d\d-\d\dT00:00:00Z$")
QID_RE = re.compile(r"^Q\d+$")
PID_RE = re.compile(r"^P\d+$")


def _lines(name: str):
    with gzip.open(DUMPS / name, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield line.rstrip("\n")


@pytest.fixture(scope="module")
def wd_entities() -> dict[str, dict]:
    out = {}
    for line in _lines("wikidata_sample.jsonl.gz"):
        obj = json.loads(line)
        assert obj["id"] not in out, f"duplicate entity line {obj['id']}"
        out[obj["id"]] = obj
    return out


def _parse_nt(name: str) -> tuple[rdflib.Graph, int]:
    # BCE xsd:dateTime literals are valid but have no Python datetime; rdflib logs that noisily.
    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)
    text = gzip.open(DUMPS / name, "rt", encoding="utf-8").read()
    graph = rdflib.Graph()
    graph.parse(data=text, format="nt")
    return graph, text.count("\n")


@pytest.fixture(scope="module")
def wd_graph():
    return _parse_nt("wikidata_sample.nt.gz")


@pytest.fixture(scope="module")
def fb_graph():
    return _parse_nt("freebase_sample.nt.gz")


# --------------------------------------------------------------------------- presence and size


def test_files_exist():
    missing = [f for f in EXPECTED_FILES if not (DUMPS / f).is_file()]
    assert not missing, f"missing dump files: {missing} (run scripts/build_dumps.py)"


def test_under_size_budget():
    total = sum(p.stat().st_size for p in DUMPS.rglob("*") if p.is_file())
    assert total < SIZE_BUDGET, f"dumps/ is {total:,} bytes, budget {SIZE_BUDGET:,}"


def test_sources_mentions_every_data_file():
    text = (DUMPS / "SOURCES.md").read_text(encoding="utf-8")
    for name in ("wikidata_sample.jsonl.gz", "wikidata_sample.nt.gz", "freebase_sample.nt.gz",
                 "biokalma_records.jsonl.gz", "kgqa/", "licenses/", "S-Lab License 1.0", "build_dumps.py"):
        assert name in text


# --------------------------------------------------------------------------- N-Triples validity


def test_wikidata_nt_parses_every_line(wd_graph):
    graph, n_lines = wd_graph
    assert n_lines > 30_000
    assert len(graph) == n_lines  # every line is one distinct, parsable triple


def test_freebase_nt_parses_every_line(fb_graph):
    graph, n_lines = fb_graph
    assert n_lines > 30_000
    assert len(graph) == n_lines


def test_nt_lines_individually_sampled():
    # every 97th line parsed on its own: catches lines that only parse in context
    for name in ("wikidata_sample.nt.gz", "freebase_sample.nt.gz"):
        for i, line in enumerate(_lines(name)):
            if i % 97 == 0:
                g = rdflib.Graph()
                g.parse(data=line + "\n", format="nt")
                assert len(g) == 1, line


# --------------------------------------------------------------------------- Wikidata JSON shape


def _check_statement(pid: str, st: dict) -> None:
    assert st["type"] == "statement"
    assert st["rank"] in ("normal", "preferred")
    snak = st["mainsnak"]
    assert snak["snaktype"] == "value"
    assert snak["property"] == pid
    dv = snak["datavalue"]
    if snak["datatype"] == "wikibase-item":
        assert dv["type"] == "wikibase-entityid"
        v = dv["value"]
        assert v["entity-type"] == "item"
        assert QID_RE.match(v["id"]) and v["numeric-id"] == int(v["id"][1:])
    elif snak["datatype"] == "time":
        assert dv["type"] == "time"
        v = dv["value"]
        assert TIME_RE.match(v["time"]), v["time"]
        assert v["precision"] in (9, 10, 11)
        assert v["calendarmodel"] == GREGORIAN
        assert v["timezone"] == 0 and v["before"] == 0 and v["after"] == 0
        if v["precision"] == 9:
            assert v["time"].endswith("-00-00T00:00:00Z")
    else:
        assert snak["datatype"] in ("string", "external-id", "monolingualtext", "quantity")


def test_wikidata_jsonl_official_shape(wd_entities):
    items = [e for e in wd_entities.values() if e["type"] == "item"]
    props = {e["id"]: e for e in wd_entities.values() if e["type"] == "property"}
    assert 5_000 <= len(items) <= 20_000
    n_statements = 0
    used_pids = set()
    for e in wd_entities.values():
        assert e["type"] in ("item", "property")
        assert (QID_RE if e["type"] == "item" else PID_RE).match(e["id"])
        for key in ("labels", "descriptions", "aliases", "claims"):
            assert isinstance(e[key], dict)
        if "en" in e["labels"]:
            assert e["labels"]["en"] == {"language": "en", "value": e["labels"]["en"]["value"]}
            assert e["labels"]["en"]["value"]
        if "en" in e["descriptions"]:
            assert e["descriptions"]["en"]["language"] == "en"
        for alias in e["aliases"].get("en", []):
            assert alias["language"] == "en" and alias["value"]
        for pid, statements in e["claims"].items():
            assert PID_RE.match(pid) and statements
            used_pids.add(pid)
            for st in statements:
                _check_statement(pid, st)
                n_statements += 1
                if st["mainsnak"]["datatype"] == "wikibase-item":
                    target = st["mainsnak"]["datavalue"]["value"]["id"]
                    assert target in wd_entities, f"{e['id']} {pid} -> {target} has no entity line"
    assert 30_000 <= n_statements <= 100_000
    # one property line (with an English label and the matching datatype) per used property
    assert used_pids <= set(props)
    for pid in used_pids:
        assert props[pid]["labels"]["en"]["value"]
    for e in items:
        for pid, statements in e["claims"].items():
            assert {s["mainsnak"]["datatype"] for s in statements} == {props[pid]["datatype"]}


def test_same_name_entities_present(wd_entities):
    by_label = defaultdict(set)
    for e in wd_entities.values():
        if e["type"] == "item" and "en" in e["labels"]:
            by_label[e["labels"]["en"]["value"]].add(e["id"])
    assert sum(1 for v in by_label.values() if len(v) > 1) >= 10


def test_no_label_or_alias_has_a_doubled_token(wd_entities):
    """Issue 33: the FB15k-237 map labels Q4235 "Miley CyrusCyrus"; Mintaka's "Miley Cyrus" is taken, the
    defect is neither label nor alias, and SOURCES.md says what was corrected."""
    doubled = re.compile(r"([A-Z][a-z]{2,})\1\b")
    names = [(e["id"], v["value"]) for e in wd_entities.values()
             for v in [*e.get("labels", {}).values(), *[a for al in e.get("aliases", {}).values() for a in al]]]
    assert [n for n in names if doubled.search(n[1])] == []
    assert wd_entities["Q4235"]["labels"]["en"]["value"] == "Miley Cyrus"
    assert "'Miley CyrusCyrus' (fb15k237-map) -> 'Miley Cyrus' (mintaka)" in (DUMPS / "SOURCES.md").read_text()


def _claim_targets(entity: dict, pid: str) -> list:
    out = []
    for st in entity["claims"].get(pid, []):
        v = st["mainsnak"]["datavalue"]["value"]
        out.append(v["id"] if isinstance(v, dict) and "id" in v else v)
    return out


def test_biokalma_person_stephen_crane(wd_entities):
    e = wd_entities["Q206534"]
    assert e["labels"]["en"]["value"] == "Stephen Crane"
    assert _claim_targets(e, "P19") == ["Q25395"]  # Newark
    assert "Q5" in _claim_targets(e, "P31")
    assert _claim_targets(e, "P21") == ["Q6581097"]
    born = _claim_targets(e, "P569")
    assert born[0]["time"] == "+1871-11-01T00:00:00Z" and born[0]["precision"] == 11
    died = _claim_targets(e, "P570")
    assert died[0]["time"] == "+1900-06-05T00:00:00Z"
    # the newark entity is labelled, the property has its English label
    assert wd_entities["Q25395"]["labels"]["en"]["value"] == "Newark"
    assert wd_entities["P19"]["labels"]["en"]["value"] == "place of birth"


def test_all_biokalma_persons_in_wikidata_sample(wd_entities):
    records = [json.loads(line) for line in _lines("biokalma_records.jsonl.gz")]
    assert len(records) == len({r["qid"] for r in records}) > 1000
    for r in records:
        e = wd_entities[r["qid"]]
        assert e["labels"]["en"]["value"] == r["name"]
        for label, qid in r["linked"].items():
            assert label in r["facts"]
            assert qid in _claim_targets(e, r["pids"][label]), (r["qid"], label, qid)


# --------------------------------------------------------------------------- descriptions


def _build_script():
    """scripts/build_dumps.py as a module (for its NATIONALITY table)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_dumps", REPO / "scripts" / "build_dumps.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def composed() -> dict[str, dict]:
    """wikidata_sample.composed_descriptions.tsv: qid -> {description, rule, from_claims}."""
    lines = (DUMPS / "wikidata_sample.composed_descriptions.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "qid\tdescription\trule\tfrom_claims"
    out = {}
    for line in lines[1:]:
        qid, description, rule, facts = line.split("\t")
        assert qid not in out and rule in ("human", "type")
        out[qid] = {"description": description, "rule": rule,
                    "from_claims": [tuple(f.split("=", 1)) for f in facts.split(" ")]}
    return out


def _description(entity: dict) -> str | None:
    return entity["descriptions"].get("en", {}).get("value")


def _label(entities: dict, qid: str) -> str | None:
    return entities[qid]["labels"].get("en", {}).get("value")


def test_stephen_crane_has_a_composed_description(wd_entities, composed):
    text = _description(wd_entities["Q206534"])
    assert text and "writer" in text and text.endswith("(1871–1900)")
    assert text == "American writer and poet (1871–1900)"
    assert composed["Q206534"]["description"] == text  # marked as composed, with what it was made from
    assert (("P27", "Q30") in composed["Q206534"]["from_claims"]
            and ("P106", "Q36180") in composed["Q206534"]["from_claims"])


def test_every_biokalma_person_has_a_description(wd_entities):
    records = [json.loads(line) for line in _lines("biokalma_records.jsonl.gz")]
    missing = [r["qid"] for r in records if not _description(wd_entities[r["qid"]])]
    assert not missing, missing[:10]


def test_composed_descriptions_are_marked_and_counted(wd_entities, composed):
    items = {q: e for q, e in wd_entities.items() if e["type"] == "item"}
    for qid, row in composed.items():
        assert _description(items[qid]) == row["description"]
    described = sum(1 for e in items.values() if _description(e))
    text = (DUMPS / "SOURCES.md").read_text(encoding="utf-8")
    assert f"**composed: {len(composed):,}**" in text
    m = re.search(r"With an English description: ([\d,]+) — source text ([\d,]+)", text)
    assert m and int(m.group(1).replace(",", "")) == described
    assert int(m.group(2).replace(",", "")) + len(composed) == described
    flat = " ".join(text.split())
    assert "is not inventing facts" in flat and "nothing is invented" not in flat


def test_composed_descriptions_use_only_the_items_own_claims(wd_entities, composed):
    """Every composed description: each claim it names is a claim of that item, and its text is those
    claims' value labels (occupations, type), the nationality wording of its countries of citizenship and
    its birth/death years, joined by the rule's few fixed words — nothing else."""
    nationality = _build_script().NATIONALITY
    connectives = {"and", "person", "from", "born", "died", "BCE", "CE"}
    for qid, row in composed.items():
        item = wd_entities[qid]
        text = row["description"]
        pieces: list[str] = []
        countries = []
        for pid, value in row["from_claims"]:
            if pid in ("P569", "P570"):
                years = {int(t["time"][:t["time"].index("-", 1)]) for t in _claim_targets(item, pid)}
                assert int(value) in years, (qid, pid, value)
                pieces.append(str(abs(int(value))))
                continue
            assert value in _claim_targets(item, pid), (qid, pid, value)
            if pid == "P27":
                countries.append(value)
            elif pid == "P31" and row["rule"] == "human":
                assert value == "Q5"
            else:
                label = _label(wd_entities, value)
                assert label, (qid, pid, value)
                pieces.append(label)
        if countries:
            # every country of citizenship the item has, all worded the same
            assert sorted(countries) == sorted(_claim_targets(item, "P27")), qid
            words = {nationality[_label(wd_entities, c)] for c in countries}
            assert len(words) == 1, (qid, words)
            pieces.append(words.pop())
        if row["rule"] == "type":
            assert [p for p, _ in row["from_claims"]] == ["P31"] and text == pieces[0]
            assert text.casefold() != (_label(wd_entities, qid) or "").casefold()
            continue
        rest = text
        for piece in sorted(pieces, key=len, reverse=True):
            assert piece in rest, (qid, piece, text)
            rest = rest.replace(piece, " ", 1)
        leftover = set(re.findall(r"[^\s()–]+", rest))
        assert leftover <= connectives, (qid, text, leftover)
    # a fair share of each kind is there to check
    rules = [row["rule"] for row in composed.values()]
    assert rules.count("human") > 1000 and rules.count("type") > 50


def test_nt_matches_jsonl(wd_entities, wd_graph):
    graph, _ = wd_graph
    nt_items = set()
    nt_labels = {}
    nt_descs = {}
    for s, p, o in graph:
        s, p = str(s), str(p)
        if p.startswith(WDT) and isinstance(o, rdflib.URIRef):
            nt_items.add((s[len(WD):], p[len(WDT):], str(o)[len(WD):]))
        elif p == RDFS_LABEL:
            assert o.language == "en"
            nt_labels[s[len(WD):]] = str(o)
        elif p == SCHEMA_DESC:
            assert o.language == "en" and s[len(WD):] not in nt_descs
            nt_descs[s[len(WD):]] = str(o)
    js_items = set()
    js_labels = {}
    js_descs = {}
    for e in wd_entities.values():
        if "en" in e["labels"]:
            js_labels[e["id"]] = e["labels"]["en"]["value"]
        if "en" in e["descriptions"] and e["type"] == "item":
            js_descs[e["id"]] = e["descriptions"]["en"]["value"]
        for pid, statements in e["claims"].items():
            for st in statements:
                v = st["mainsnak"]["datavalue"]["value"]
                if "id" in v:
                    js_items.add((e["id"], pid, v["id"]))
    assert nt_items == js_items
    assert nt_labels == js_labels
    assert nt_descs == js_descs  # composed descriptions included
    crane = rdflib.URIRef(WD + "Q206534")
    born = list(graph.objects(crane, rdflib.URIRef(WDT + "P569")))
    assert len(born) == 1 and str(born[0].datatype) == XSD_DATETIME
    expected = f'<{WD}Q206534> <{WDT}P569> "1871-11-01T00:00:00Z"^^<{XSD_DATETIME}> .'
    assert expected in set(_lines("wikidata_sample.nt.gz"))


# --------------------------------------------------------------------------- Freebase shape


def test_freebase_shape_and_cvt(fb_graph):
    graph, _ = fb_graph
    name = rdflib.URIRef(FB + "type.object.name")
    named = {s for s in graph.subjects(name, None)}
    assert 5_000 <= len(named) <= 15_000
    incoming, outgoing = defaultdict(int), defaultdict(int)
    for s, p, o in graph:
        assert str(p).startswith(FB)
        if isinstance(s, rdflib.URIRef):
            assert re.match(r"^http://rdf\.freebase\.com/ns/m\.[0-9a-z_]+$", str(s)), s
        if isinstance(s, rdflib.BNode):
            outgoing[s] += 1
        if isinstance(o, rdflib.BNode):
            incoming[o] += 1
    assert incoming and set(incoming) == set(outgoing)
    assert all(n == 1 for n in incoming.values()) and all(n == 1 for n in outgoing.values())
    assert not any(isinstance(s, rdflib.BNode) for s in named)  # CVT nodes carry no name
    crane_like = rdflib.URIRef(FB + "people.person.place_of_birth")
    assert any(True for _ in graph.triples((None, crane_like, None)))


# --------------------------------------------------------------------------- KGQA samples


def test_kgqa_simplequestions_wikidata_answerable(wd_entities):
    rows = (DUMPS / "kgqa/simplequestions_wikidata_test_answerable.sample.txt").read_text(encoding="utf-8").splitlines()
    assert rows
    for row in rows:
        s, p, o, question = row.split("\t")[:4]
        assert question
        pid = "P" + p[1:]
        subj, obj = (s, o) if p.startswith("P") else (o, s)
        assert obj in _claim_targets(wd_entities[subj], pid), row


def test_kgqa_simplequestions_freebase_in_sample(fb_graph):
    graph, _ = fb_graph
    subjects = {str(s) for s in graph.subjects(rdflib.URIRef(FB + "type.object.name"), None)}
    rows = (DUMPS / "kgqa/simplequestions_freebase_valid.sample.txt").read_text(encoding="utf-8").splitlines()
    assert rows
    for row in rows:
        s, _p, o = row.split("\t")[:3]
        for mid in (s, o):
            assert FB + "m." + mid.rsplit("/m/", 1)[1] in subjects, row


def test_kgqa_mintaka(wd_entities):
    data = json.loads((DUMPS / "kgqa/mintaka_dev.sample.json").read_text(encoding="utf-8"))
    assert 100 <= len(data) <= 300
    for q in data:
        assert {"id", "question", "questionEntity", "answer", "complexityType"} <= set(q)
        ents = [e["name"] for e in q["questionEntity"] if e["entityType"] == "entity"]
        assert any(e in wd_entities for e in ents)


# --------------------------------------------------------------------------- rebuild


def _shared_dir() -> Path | None:
    for cand in (os.environ.get("KALMA_SHARED"), REPO.parent / "shared", "/work/shared"):
        if cand and (Path(cand) / "data" / "kg").is_dir() and (Path(cand) / "data" / "biokalma").is_dir():
            return Path(cand)
    return None


def test_rebuild_is_byte_identical(tmp_path):
    shared = _shared_dir()
    if shared is None:
        pytest.skip(
            "the shared data folder (../shared or /work/shared, or $KALMA_SHARED) is not available, so the dumps "
            "cannot be rebuilt")
    out = tmp_path / "dumps"
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "build_dumps.py"), "--shared", str(shared), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    # dumps/biokalma_built/ is made by `kalma-graph build biokalma` from these dumps, not by
    # build_dumps.py (tests/e2e/test_main_job.py checks it against the graph).
    committed = sorted(p.relative_to(DUMPS).as_posix() for p in DUMPS.rglob("*")
                       if p.is_file() and not p.relative_to(DUMPS).as_posix().startswith("biokalma_built/"))
    assert built == committed
    different = [f for f in built if not filecmp.cmp(out / f, DUMPS / f, shallow=False)]
    assert not different, f"rebuild differs from the committed dumps: {different}"
