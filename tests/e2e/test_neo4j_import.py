"""`kalma-graph neo4j import`: CSV staged by our readers, `neo4j-admin database import full`, schema after.

The real test imports the real Wikidata sample into a server home of its own and compares the whole
graph — every node's labels and properties, every relationship — with a driver ingest of the same
file into the session's Neo4j. The other tests need no server: they stop before the import.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kalma_graph.ingest import FormatError, IngestError, ingest
from kalma_graph.ingest.neo4j_csv import ENTITY_COLUMNS, CsvFiles, StagingError, entity_columns, field_value
from kalma_graph.ingest.neo4j_import import import_files
from kalma_graph.ingest.sources import fingerprint
from kalma_graph.neo4j_server import Neo4jServerError, free_port, stop, throwaway_home
from kalma_graph.store import open_store, resolve_store_uri
from tests.conftest import BIOKALMA_RECORDS, WIKIDATA_JSON

NODES = "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props"
RELATIONSHIPS = ("MATCH (a)-[r]->(b) RETURN type(r) AS type, coalesce(a.id, a.key) AS start, "
                 "coalesce(b.id, b.key) AS end, properties(r) AS props")


def _graph(store) -> tuple[list[str], list[str]]:
    """Every node and relationship as sorted JSON lines: equal lists are equal graphs."""
    def rows(text: str) -> list[str]:
        records = store._driver.execute_query(text, database_=store.database).records
        return sorted(json.dumps(r.data(), sort_keys=True) for r in records)

    return rows(NODES), rows(RELATIONSHIPS)


def _two_line_entity(path: Path) -> Path:
    """One entity whose description and a string value span lines (`\n`, `\r\n`): the staged CSV then
    needs `--multiline-fields=true`, which the sample alone does not."""
    claim = {"mainsnak": {"snaktype": "value", "property": "P1559", "datavalue": {"value": "a\r\nb", "type": "string"}},
             "type": "statement", "rank": "normal"}
    entity = {"type": "item", "id": "Q99999901", "labels": {"en": {"language": "en", "value": "Two-line entity"}},
              "descriptions": {"en": {"language": "en", "value": "first line\nsecond line"}},
              "claims": {"P1559": [claim]}}
    path.write_text(json.dumps(entity) + "\n", encoding="utf-8")
    return path


def _freebase_cvt(path: Path) -> Path:
    """A Freebase performance node (a blank node: a CVT entity, `cvt: true`) between an actor and a film."""
    ns = "http://rdf.freebase.com/ns/"
    path.write_text(
        f'<{ns}m.0test1> <{ns}type.object.name> "Test Actor"@en .\n'
        f"<{ns}m.0test1> <{ns}film.actor.film> _:perf1 .\n"
        f"_:perf1 <{ns}film.performance.film> <{ns}m.0test2> .\n"
        f'<{ns}m.0test2> <{ns}type.object.name> "Test Film"@en .\n', encoding="utf-8")
    return path


@pytest.mark.neo4j
def test_import_builds_the_graph_a_driver_ingest_writes(neo4j_store, tmp_path):
    if not (shutil.which("java") and shutil.which("mvn")):
        pytest.skip("the import runs the launcher's neo4j-admin (java + mvn)")
    files = [WIKIDATA_JSON, _two_line_entity(tmp_path / "two_lines.jsonl"), _freebase_cvt(tmp_path / "cvt.nt")]
    ingest(neo4j_store, files)
    home = throwaway_home(tmp_path)
    try:
        summary = import_files(home, files,
                               start_options={"bolt_port": free_port(), "http_port": free_port(), "auth": False})
        imported = open_store(summary["store"])
        try:
            assert summary["stats"] == neo4j_store.stats().as_dict()
            assert summary["stats"]["statements"] == 56056 + 1 + 2
            assert summary["stats"]["cvt_entities"] == 1  # `cvt: true` goes through the CSV as a boolean
            assert imported.get_entity("Q99999901").description == "first line\nsecond line"
            assert [t.value for t in imported.one_hop("Q99999901")] == ["a\r\nb"]
            nodes, relationships = _graph(imported)
            assert (nodes, relationships) == _graph(neo4j_store)  # labels, properties, directions: all
            ids = neo4j_store.entity_ids_of_type("Q5")[:50]
            assert imported.one_hop_many(ids) == neo4j_store.one_hop_many(ids)
            assert any(imported.one_hop_many(ids).values())
            name = imported.get_entity(ids[0]).name
            assert imported.entities_by_name(name) == neo4j_store.entities_by_name(name)  # the fulltext/name keys
            # The checkpoint is there: a later ingest of the file into the imported store changes nothing.
            assert json.loads(imported.get_meta(f"ingest:{fingerprint(WIKIDATA_JSON)}"))["done"] is True
            again = ingest(imported, [WIKIDATA_JSON])
            assert again["files"][0]["status"] == "already-ingested"
            assert imported.stats().as_dict() == summary["stats"]
            constraints = {r["name"]
                           for r in imported._driver.execute_query("SHOW CONSTRAINTS", database_="neo4j").records}
            assert {"entity_id", "value_id", "namekey_key", "meta_key"} <= constraints
        finally:
            imported.close()
    finally:
        stop(home)


def test_an_existing_database_needs_overwrite_and_another_name_is_refused(tmp_path):
    home = tmp_path / "home"
    (home / "data" / "databases" / "neo4j").mkdir(parents=True)
    (home / "data" / "databases" / "neo4j" / "neostore").write_bytes(b"")
    with pytest.raises(Neo4jServerError, match=r"databases/neo4j already holds a database.*--overwrite"):
        import_files(home, [WIKIDATA_JSON])
    with pytest.raises(Neo4jServerError, match="serves one database, 'neo4j'"):
        import_files(home, [WIKIDATA_JSON], database="other", overwrite=True)


def test_cli_names_the_database_in_the_way_without_a_traceback(tmp_path):
    home = tmp_path / "home"
    (home / "data" / "databases" / "neo4j").mkdir(parents=True)
    (home / "data" / "databases" / "neo4j" / "neostore").write_bytes(b"")
    cli = [sys.executable, "-m", "kalma_graph", "neo4j", "import", str(WIKIDATA_JSON), "--home", str(home)]
    refused = subprocess.run(cli, capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0
    assert "already holds a database" in refused.stderr and "--overwrite" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_biokalma_records_are_refused_with_the_way_out(installed_home):
    with pytest.raises(FormatError, match=r"biokalma_records.*kalma-graph ingest --store bolt://"):
        import_files(installed_home, [BIOKALMA_RECORDS])


@pytest.fixture
def installed_home(tmp_path) -> Path:
    """A server home with the launcher's verified jars, never started."""
    if not (shutil.which("java") and shutil.which("mvn")):
        pytest.skip("the import runs the launcher's neo4j-admin (java + mvn)")
    return throwaway_home(tmp_path / "installed")


def test_a_home_without_neo4j_is_told_to_install_it(tmp_path):
    with pytest.raises(Neo4jServerError, match="not installed .*kalma-graph neo4j install"):
        import_files(tmp_path / "bare-home", [WIKIDATA_JSON])


def test_a_bad_line_is_reported_with_file_and_line_and_fail_creates_no_database(installed_home, tmp_path):
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as handle:
        lines = [next(handle) for _ in range(20)]
    lines[6] = "not json at all\n"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines), encoding="utf-8")
    home = installed_home
    with pytest.raises(IngestError, match=rf"{broken}:7: invalid JSON"):
        import_files(home, [broken], on_error="fail")
    assert not (home / "data" / "databases" / "neo4j").exists()
    assert not list((home / "run").glob("import-staging-*"))  # the staged files are gone


def field_text(value) -> str:
    """The reference encoding of one staged CSV field (`neo4j_csv` module docstring): every present
    value quoted, a quote doubled inside; an absent one (None, an empty list) empty."""
    text = field_value(value)
    return "" if text is None else '"' + text.replace('"', '""') + '"'


def line(values) -> str:
    return ",".join(field_text(v) for v in values) + "\n"


def test_csv_fields_keep_quotes_empty_strings_lists_and_absent_values_apart():
    assert field_text(None) == "" and field_text([]) == ""  # absent: no property
    assert field_text("") == '""'  # an empty string stays one
    assert field_text('say "hi", then\nleave') == '"say ""hi"", then\nleave"'
    assert field_text(["a;b", "c|d"]) == '"a;b\x1fc|d"'
    assert field_text(False) == '"false"' and field_text(True) == '"true"'  # read as booleans, quoted or not
    assert line(["Q1", None, "x"]) == '"Q1",,"x"\n'
    with pytest.raises(StagingError, match="U\\+001F"):
        field_text(["bad\x1fitem"])


ENTITY = {"id": "Q1", "kb": "wikidata", "name": 'A "quoted" name', "name_lc": 'a "quoted" name', "aliases": [],
          "aliases_text": None, "description": "two\nlines", "types": ["Q5", "Q215627"], "cvt": False}


@pytest.mark.parametrize("value, spans", [("one line", False), ("two\nlines", True), ("carriage\rreturn", True),
                                          ("", False)])
def test_fields_spanning_lines_are_found_so_the_import_reads_them_as_such(tmp_path, value, spans):
    files = CsvFiles.create(tmp_path / "csv")
    files.write_columns("values", [[0, 1], ["v:1", "v:2"], ["plain", value], ["string", "string"]])
    files.write_columns("entities", [[0], *entity_columns([ENTITY | {"description": None}])])
    files.close()
    assert files.rows["values"] == 2 and files.rows["entities"] == 1
    assert files.spans_lines("values") is spans and not files.spans_lines("entities")
    assert f"--multiline-fields={'true' if spans else 'false'}" in files.admin_arguments()


def test_rows_are_counted_across_writes_in_the_order_written(tmp_path):
    """The count decides `--multiline-fields` (`spans_lines`)."""
    files = CsvFiles.create(tmp_path / "csv")
    files.write_columns("values", [[0, 1], ["v:1", "v:2"], ["a", "b"], ["string", "string"]])
    files.write_columns("values", [[], [], [], []])
    files.write_columns("values", [[2], ["v:3"], ["c"], ["time"]])
    files.close()
    assert files.rows["values"] == 3 and not files.spans_lines("values")
    body = (tmp_path / "csv" / "values.csv").read_text(encoding="utf-8").splitlines()
    assert [row.split(",")[:2] for row in body] == [[":ID(Value)", "id"], ['"0"', '"v:1"'], ['"1"', '"v:2"'],
                                                     ['"2"', '"v:3"']]


def test_a_file_is_written_with_as_many_columns_as_its_header(tmp_path):
    files = CsvFiles.create(tmp_path / "csv")
    with pytest.raises(ValueError, match="values.csv has 4 columns, 3 given"):
        files.write_columns("values", [["v:1"], ["a"], ["string"]])  # the number column left out


def test_the_columns_writer_encodes_as_field_text(tmp_path):
    """Arrow's CSV writer and the reference encoding (`field_text`) give the same bytes: quotes, line
    breaks, empty strings, absent values, lists, booleans, non-ASCII text."""
    files = CsvFiles.create(tmp_path / "csv")
    rows = [(0, "v:1", 'say "hi", then\nleave', "string"), (1, "v:2", "", "time"),
            (2, "v:3", "naïve, 東京 \r", "string"), (123456789012, "v:4", '""', "string")]
    files.write_columns("values", [list(column) for column in zip(*rows)])
    entities = [ENTITY, ENTITY | {"id": "Q2", "aliases": ["x", "y;z"], "aliases_text": "x | y;z", "cvt": True,
                                  "types": [], "name": None, "name_lc": None, "description": "one line"}]
    files.write_columns("entities", [[0, 1], *entity_columns(entities)])
    files.close()
    values = (tmp_path / "csv" / "values.csv").read_bytes().decode("utf-8").split("\n", 1)[1]
    assert values == "".join(line(row) for row in rows)
    staged = (tmp_path / "csv" / "entities.csv").read_bytes().decode("utf-8").split("\n", 1)[1]
    assert staged == "".join(line([n] + [e[c] for c in ENTITY_COLUMNS]) for n, e in enumerate(entities))
    assert staged.splitlines()[-1] == '"1","Q2","wikidata",,,"x\x1fy;z","x | y;z","one line",,"true"'
    with pytest.raises(StagingError, match="U\\+001F"):
        entity_columns([ENTITY | {"aliases": ["bad\x1fitem"]}])


@pytest.mark.parametrize("uri", ["bolt://localhost:7687", "neo4j://cluster.example.com:7687",
                                 "neo4j+s://abcd1234.databases.neo4j.io", "neo4j+ssc://10.0.0.5:7687",
                                 "bolt+s://db.example.com"])
def test_routing_and_tls_uris_reach_the_driver_unchanged(uri):
    assert resolve_store_uri(uri) == uri
