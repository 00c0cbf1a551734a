"""Ingest on both stores: idempotence, malformed lines, fail-before-batch, resume, formats."""

from __future__ import annotations

import bz2
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kalma_graph.ingest import IngestError, InputError, detect_format, ingest
from kalma_graph.store.base import EntityRecord
from kalma_graph.store.embedded import EmbeddedStore
from tests.conftest import BIOKALMA_RECORDS, FREEBASE_NT, WIKIDATA_JSON, WIKIDATA_NT

CODEX = Path(__file__).resolve().parents[3] / "shared/data/kg/tsafavi+codex/data/triples/codex-s/valid.txt"


def _lines(path: Path, n: int) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [next(handle).rstrip("\n") for _ in range(n)]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def tsv_sample(tmp_path) -> Path:
    """40 real CoDEx triples (Wikidata QIDs/PIDs), one statement per line."""
    source = CODEX if CODEX.exists() else None
    if source is None:
        pytest.skip("../shared/data/kg not beside the checkout")
    return _write(tmp_path / "codex.txt", _lines(source, 40))


def test_reingest_changes_nothing(store, tmp_path):
    sample = _write(tmp_path / "wd.jsonl", _lines(WIKIDATA_JSON, 400))
    first = ingest(store, [sample])
    assert first["totals"]["statements_created"] > 1000
    again = ingest(store, [sample])
    assert again["files"][0]["status"] == "already-ingested"
    forced = ingest(store, [sample], force=True)
    assert forced["totals"] == {"entities_created": 0, "entities_updated": 0, "values_created": 0,
                                "statements_created": 0, "error_count": 0}
    assert forced["stats"] == first["stats"]


def test_same_content_in_array_form_and_compressed(store, tmp_path):
    lines = _lines(WIKIDATA_JSON, 200)
    array = tmp_path / "latest-all.json.bz2"
    with bz2.open(array, "wt", encoding="utf-8") as out:  # the official dump's shape
        out.write("[\n" + ",\n".join(lines) + "\n]\n")
    plain = _write(tmp_path / "wd.jsonl", lines)
    assert detect_format(array) == "wikidata-json"
    a = ingest(store, [array])
    b = ingest(store, [plain])  # same facts: nothing new
    assert a["totals"]["statements_created"] > 0
    assert b["totals"]["statements_created"] == 0 and b["totals"]["entities_created"] == 0


def test_malformed_lines_are_skipped_with_file_and_line(store, tmp_path):
    lines = _lines(WIKIDATA_JSON, 30)
    lines[9] = '{"type": "item", "id": "Q1", "claims": '  # truncated JSON
    lines[19] = "not json at all"
    sample = _write(tmp_path / "broken.jsonl", lines)
    seen: list[str] = []
    summary = ingest(store, [sample], on_line_error=seen.append)
    report = summary["files"][0]
    assert report["status"] == "done"
    assert report["error_count"] == 2
    assert report["errors"][0].startswith(f"{sample}:10: invalid JSON")
    assert report["errors"][1].startswith(f"{sample}:20: invalid JSON")
    assert seen == report["errors"]
    clean = _write(tmp_path / "clean.jsonl", [ln for i, ln in enumerate(lines) if i not in (9, 19)])
    assert ingest(store, [clean])["totals"]["statements_created"] == 0  # every good line was loaded


def test_fail_stops_before_the_batch_holding_the_bad_line(store, tsv_sample, tmp_path):
    lines = tsv_sample.read_text().splitlines()
    lines[14] = "Q1\tnot-a-property\tQ2"  # line 15
    broken = _write(tmp_path / "broken.txt", lines)
    with pytest.raises(IngestError, match=r"broken\.txt:15: expected 'Q… P… Q…'"):
        ingest(store, [broken], on_error="fail", batch_size=10)
    # Lines 1-10 were one committed batch; lines 11-14 shared the batch with the bad line.
    assert store.stats().statements == 10
    facts = lambda rows: {tuple(r.split("\t")[:3]) for r in rows}  # noqa: E731
    in_store = {(t.subject, t.pid, t.object_id) for head, _, _ in facts(lines[:14]) for t in store.one_hop(head)}
    assert in_store == facts(lines[:10])


def test_interrupted_run_resumes_after_its_checkpoint(store, tsv_sample):
    calls = []

    def stop_after_first_batch(path, done, total):
        calls.append(done)
        if len(calls) == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest(store, [tsv_sample], batch_size=10, progress=stop_after_first_batch)
    assert store.stats().statements == 10
    resumed = ingest(store, [tsv_sample], batch_size=10)
    report = resumed["files"][0]
    assert report["resumed_after_line"] == 10
    assert report["statements_created"] == 30  # the 10 written before were not redone
    assert store.stats().statements == 40


def test_tsv_reverse_relations_and_freebase_ids(store, tmp_path):
    wd = _write(tmp_path / "sq.txt", ["Q7358590\tP20\tQ1637790\tWhere did roger marquis die",
                                     "Q345494\tR86\tQ696855\twhich film did ryuichi sakamoto create the music for"])
    fb = _write(tmp_path / "fb.txt", ["www.freebase.com/m/07f3jg\twww.freebase.com/people/person/place_of_birth\t"
                                     "www.freebase.com/m/0565d\twhere was sasha born",
                                     "/m/07pd_j\t/film/film/genre\t/m/02l7c8"])
    assert detect_format(wd) == "tsv-wikidata" and detect_format(fb) == "tsv-freebase"
    ingest(store, [wd, fb])
    assert [(t.pid, t.object_id) for t in store.one_hop("Q696855")] == [("P86", "Q345494")]
    birth = store.one_hop("m.07f3jg")
    assert ([(t.pid, t.label, t.object_id) for t in birth]
            == [("people.person.place_of_birth", "place of birth", "m.0565d")])
    assert store.get_entity("m.0565d").kb == "freebase"


def test_ntriples_wikidata_and_freebase(store):
    summary = ingest(store, [WIKIDATA_NT, FREEBASE_NT])
    assert [f["format"] for f in summary["files"]] == ["wikidata-nt", "freebase-nt"]
    assert all(f["error_count"] == 0 for f in summary["files"])
    crane = {(t.label, t.value) for t in store.one_hop("Q206534")}
    assert ("place of birth", "Newark") in crane and ("date of birth", "1871-11-01") in crane
    stats = store.stats()
    assert stats.cvt_entities == 22734  # every blank node of the Freebase sample is a CVT entity
    cvt_hop = [t for t in store.one_hop("m.011xg5") if t.pid == "film.film.release_date_s"]
    assert cvt_hop and all(store.get_entity(t.object_id).cvt for t in cvt_hop)


def test_wikidata_json_and_ntriples_samples_agree(tmp_path):
    a = EmbeddedStore(tmp_path / "a.lbdb")
    b = EmbeddedStore(tmp_path / "b.lbdb")
    sa, sb = ingest(a, [WIKIDATA_JSON])["stats"], ingest(b, [WIKIDATA_NT])["stats"]
    # Same facts; literal dates may differ in form (JSON knows year precision, truthy N-Triples do not).
    for key in ("entities", "named_entities", "statements", "entity_statements", "value_statements"):
        assert sa[key] == sb[key], key
    assert a.one_hop("Q4028") == b.one_hop("Q4028")
    assert a.entities_by_name("Paul Frederic Simon") == b.entities_by_name("Paul Frederic Simon")


def test_biokalma_values_link_to_unique_entities(store):
    summary = ingest(store, [WIKIDATA_JSON, BIOKALMA_RECORDS])
    bio = summary["files"][1]
    assert bio["format"] == "biokalma" and bio["error_count"] == 0
    assert bio["labels_linked"] > 0 and bio["labels_kept_as_values"] > 0
    crane = store.one_hop("Q206534")
    by_label = {t.label: t for t in crane}
    assert by_label["father"].value == "Jonathan Townley Crane"
    assert by_label["father"].datatype == "string"  # no entity of that name: kept as a Value
    # a value links only to an entity whose class fits the property, never through a short alias:
    # Lee Hsien Loong's `surname: Li` once linked to Liechtenstein (alias `LI`)
    lee = {(t.label, t.value, t.object_id) for t in store.one_hop("Q57643")}
    assert ("surname", "Li", None) in lee and not any(v == "Liechtenstein" for _, v, _ in lee)
    assert bio["labels_refused_class"] + bio["labels_refused_short_alias"] > 0
    linked = [t for q in ("Q57643", "Q206534", "Q5879", "Q22670") for t in store.one_hop(q) if t.object_id]
    for t in linked:
        types = set(store.get_entity(t.object_id).types)
        if t.pid in ("P734", "P735"):
            assert types and not types & {"Q5", "Q6256"}, t  # a name links to a name, never a person or a country
        if t.pid in ("P19", "P20", "P551"):
            assert "Q5" not in types, t


def test_unknown_formats_and_missing_files_are_clear(store, tmp_path):
    from kalma_graph.ingest import FormatError

    odd = _write(tmp_path / "x.csv", ["a,b,c"])
    with pytest.raises(FormatError, match="cannot tell the format"):
        ingest(store, [odd])
    with pytest.raises(FileNotFoundError):
        ingest(store, [tmp_path / "nope.nt"])


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_a_truncated_download_names_the_file_and_the_last_good_line(store, tmp_path, suffix):
    lines = _lines(WIKIDATA_JSON, 300)
    whole = tmp_path / f"wd.jsonl{suffix}"
    opener = gzip.open if suffix == ".gz" else bz2.open
    with opener(whole, "wt", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    cut = tmp_path / f"cut.jsonl{suffix}"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size * 2 // 3])
    with pytest.raises(InputError, match=rf"cut\.jsonl\{suffix} ends before its compressed stream does "
                                          r"\(a truncated download\?\); the last complete line read was line \d+"):
        ingest(store, [cut], batch_size=100)
    # The CLI says the same in one line, without a traceback.
    if store.backend == "embedded":
        store.close()
        done = subprocess.run([sys.executable, "-m", "kalma_graph", "ingest", str(cut), "--store",
                               f"embedded:{tmp_path / 'cli.lbdb'}", "--no-progress"], capture_output=True, text=True)
        assert done.returncode == 2 and "truncated download" in done.stderr and "Traceback" not in done.stderr


def test_invalid_utf8_is_a_line_error_not_a_replacement_character(store, tmp_path):
    lines = [line.encode("utf-8") for line in _lines(WIKIDATA_JSON, 400)[-20:]]  # items, not properties
    assert b'"en"' in lines[6]
    lines[6] = lines[6].replace(b'"en"', b'"\xff\xfe"', 1)  # line 7: bytes that are not UTF-8
    sample = tmp_path / "latin.jsonl"
    sample.write_bytes(b"\n".join(lines) + b"\n")
    report = ingest(store, [sample])["files"][0]
    assert report["error_count"] == 1
    assert report["errors"][0].startswith(f"{sample}:7: invalid UTF-8 at byte ")
    assert report["status"] == "done" and report["statements_created"] > 0
    ids = [json.loads(line)["id"] for i, line in enumerate(lines) if i != 6]
    names = [e.name or "" for e in store.get_entities(ids)]
    assert len(names) == 19 and not any("\ufffd" in name for name in names)


def test_a_fresh_load_plans_without_lookups_and_equals_an_incremental_one(tmp_path):
    """Into an empty store the plan trusts what this load wrote (no lookups, 200k-record batches);
    the graph must be the one the looked-up path builds, record for record."""
    fresh, incremental = EmbeddedStore(tmp_path / "fresh.lbdb"), EmbeddedStore(tmp_path / "incr.lbdb")
    try:
        incremental.load_batch([EntityRecord("Q999999999", "wikidata", name="Someone else")], [])
        a = ingest(fresh, [WIKIDATA_JSON, BIOKALMA_RECORDS])
        b = ingest(incremental, [WIKIDATA_JSON, BIOKALMA_RECORDS], batch_size=2000)
        assert a["fresh_load"] and a["batch_size"] == 200_000
        assert not b["fresh_load"]
        sa, sb = a["stats"], b["stats"]
        assert sb["entities"] == sa["entities"] + 1 and sb["named_entities"] == sa["named_entities"] + 1
        for key in ("values", "statements", "entity_statements", "value_statements"):
            assert sa[key] == sb[key], key
        ids = [json.loads(line)["id"] for line in _lines(WIKIDATA_JSON, 600)[-200:]]
        assert fresh.get_entities(ids) == incremental.get_entities(ids)
        assert fresh.one_hop_many(ids) == incremental.one_hop_many(ids)
        assert fresh.entities_by_name("Stephen Crane") == incremental.entities_by_name("Stephen Crane")
    finally:
        fresh.close()
        incremental.close()


@pytest.mark.parametrize("limit", [None, 3000], ids=["one-write-per-file", "a-write-every-3000-statements"])
def test_a_first_load_writes_statements_once_per_file_and_equals_an_incremental_one(tmp_path, monkeypatch, limit):
    """A first load defers every row to one COPY per table per file (`embedded._Deferred`). Small
    batches make the plan meet again, batches later, entities whose rows, names or statements are
    still deferred (an entity's later row replaces its earlier one): N-Triples subjects whose lines
    span batches, entities of one file named again in another. With a write every 3,000 statements
    some of them are in the store already and are updated there. The graph must be the one the
    looked-up path builds, and a later ingest must see every deferred row."""
    if limit is not None:
        monkeypatch.setattr("kalma_graph.store.embedded.DEFERRED_STATEMENTS_LIMIT", limit)
    fresh, incremental = EmbeddedStore(tmp_path / "fresh.lbdb"), EmbeddedStore(tmp_path / "incr.lbdb")
    statement_copies = []
    execute = fresh._execute

    def counting(text, params):  # the real statement runs; the test only counts the COPYs
        if text.startswith("COPY STATEMENT"):
            statement_copies.append(text)
        return execute(text, params)

    fresh._execute = counting
    files = [WIKIDATA_NT, WIKIDATA_JSON, FREEBASE_NT]
    try:
        incremental.load_batch([EntityRecord("Q999999999", "wikidata", name="Someone else")], [])
        a = ingest(fresh, files, batch_size=2000)
        b = ingest(incremental, files, batch_size=2000)
        assert a["fresh_load"] and not b["fresh_load"]
        if limit is None:
            assert len(statement_copies) <= 2 * len(files)  # not one per batch: there are about 120
        sa, sb = a["stats"], b["stats"]
        assert sb["entities"] == sa["entities"] + 1 and sb["named_entities"] == sa["named_entities"] + 1
        for key in ("values", "statements", "entity_statements", "value_statements"):
            assert sa[key] == sb[key], key
        ids = sorted({t.split()[0].rsplit("/", 1)[-1].rstrip(">") for t in _lines(WIKIDATA_NT, 3000)})
        assert fresh.one_hop_many(ids) == incremental.one_hop_many(ids)
        assert fresh.get_entities(ids) == incremental.get_entities(ids)
        for name in ("Stephen Crane", "IBM"):
            assert [e.id for e in fresh.entities_by_name(name)] == [e.id for e in incremental.entities_by_name(name)]
        assert not (tmp_path / "fresh.lbdb.deferred").exists()
        again = ingest(fresh, files)  # nothing deferred is left unwritten, and nothing is doubled
        assert [f["status"] for f in again["files"]] == ["already-ingested"] * len(files)
        assert again["stats"] == sa
    finally:
        fresh.close()
        incremental.close()


def test_the_batch_writer_keeps_one_batch_in_flight_commits_in_order_and_hands_errors_back():
    import threading
    import time as clock

    from kalma_graph.ingest.writer import BatchWriter
    from kalma_graph.store.base import LoadResult

    committed: list[int] = []
    harvested: list[int] = []
    in_flight = threading.Semaphore(1)  # a second batch written before the first committed fails here

    def batch(n: int):
        def write() -> LoadResult:
            assert in_flight.acquire(blocking=False), "two batches in flight"
            clock.sleep(0.05)
            committed.append(n)
            in_flight.release()
            return LoadResult(statements_created=n)
        return write

    writer = BatchWriter(background=True)
    for n in (1, 2, 3):
        writer.submit(batch(n), lambda result: harvested.append(result.statements_created))
    writer.wait()
    assert committed == harvested == [1, 2, 3]

    def broken() -> LoadResult:
        raise RuntimeError("the server went away")

    writer.submit(broken, harvested.append)
    with pytest.raises(RuntimeError, match="went away"):
        writer.wait()  # raised in the caller's thread
    writer.wait()  # and only once
    assert harvested == [1, 2, 3]
