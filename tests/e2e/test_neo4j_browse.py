"""`kalma-graph neo4j browse` and the Browser style (cypher/browse/style.grass): the GraSS file is
well-formed for Neo4j Browser's parser and captions each node by the properties a run writes; the
command finds the latest (or the named) run in a real store and prints the Browser URL, the `:style`
line and the query, and that query returns the run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner

from kalma_graph.cli.neo4j_cmd import neo4j
from kalma_graph.evaluation.evaluate import evaluate_file
from kalma_graph.evaluation.gold import write_gold
from kalma_graph.store.browse import browse_file, cypher_string, style_command
from kalma_graph.store.results import ANSWER_FIELDS, CITE_FIELDS, RUN_FIELDS, SENTENCE_FIELDS, write_run
from tests.e2e.test_evaluate import _load_two_people
from tests.unit.test_evaluate_fixtures import gold_sets, write_answers

REPO = Path(__file__).resolve().parents[2]
STYLE = REPO / "cypher" / "browse" / "style.grass"


# --- the GraSS file ---------------------------------------------------------------------------------


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """Neo4j Browser 5's GraSS parser (`parseGrassCSS` in neo4j-browser's grassUtils), ported: quotes
    are dropped, braces inside quotes kept, a declaration is kept only when it splits into exactly
    `key: value`. Stricter than Browser, it raises on what Browser would silently drop."""
    rules: dict[str, str] = {}
    keyword, props = "", ""
    in_string = in_props = in_binding = False
    for c in text:
        skip = True
        if c == "{":
            if in_string:
                skip = False
            elif in_props:
                in_binding = True
            else:
                in_props = True
        elif c == "}":
            if in_string:
                skip = False
            elif in_binding:
                in_binding = False
            else:
                in_props = False
                assert keyword and keyword not in rules, f"empty or repeated selector {keyword!r}"
                rules[keyword] = props
                keyword, props = "", ""
        elif c in "'\"":
            in_string = not in_string
        else:
            skip = False
        if skip:
            continue
        if in_props:
            props += c
        elif not c.isspace():
            keyword += c
    assert not (in_string or in_props or in_binding), "unbalanced quotes or braces"
    assert keyword == "", f"text after the last rule: {keyword!r}"
    parsed: dict[str, dict[str, str]] = {}
    for selector, body in rules.items():
        assert re.fullmatch(r"(node|relationship)(\.[A-Za-z_][A-Za-z0-9_]*)?", selector), selector
        declarations = [d for d in body.split(";") if d.strip()]
        parsed[selector] = {}
        for declaration in declarations:
            parts = declaration.split(":")
            assert len(parts) == 2, f"{selector}: Browser drops {declaration.strip()!r}"
            parsed[selector][parts[0].strip()] = parts[1].strip()
    return parsed


def test_style_file_is_well_formed_grass():
    text = STYLE.read_text(encoding="utf-8")
    assert "/*" not in text and "//" not in text  # Browser's parser has no comments: they'd join a selector
    rules = parse_grass(text)
    assert {"node", "relationship"} <= set(rules)
    for selector, props in rules.items():
        for key, value in props.items():
            if key.endswith("color") or key.startswith("color") or "-color" in key:
                assert re.fullmatch(r"#[0-9A-Fa-f]{6}", value), (selector, key, value)
            elif key in ("diameter", "border-width", "shaft-width", "font-size", "padding"):
                assert re.fullmatch(r"\d+px", value), (selector, key, value)
            else:
                assert key == "caption", (selector, key)


def test_style_captions_name_the_properties_a_run_writes():
    rules = parse_grass(STYLE.read_text(encoding="utf-8"))
    captions = {selector: props.get("caption") for selector, props in rules.items()}
    assert captions["node.Answer"] == "{question}"
    assert captions["node.Sentence"] == "{clean_text}"
    assert captions["node.Entity"] == "{name}"
    assert captions["node.Run"] == "{id}"
    assert captions["relationship.CITES"] == "{verdict}"  # the verifier's: supported / partial / unsupported
    assert captions["relationship.HAS_SENTENCE"] == "{position}"
    assert captions["relationship.STATEMENT"] == "{label}"
    written = {"Run": RUN_FIELDS, "Answer": ANSWER_FIELDS, "Sentence": SENTENCE_FIELDS, "CITES": CITE_FIELDS,
               "HAS_SENTENCE": ("position",), "Entity": ("id", "name"), "Value": ("value",),
               "NameKey": ("key",), "Meta": ("key",), "STATEMENT": ("label",)}
    for selector, caption in captions.items():
        if "." not in selector or caption == "<type>":
            continue
        name = selector.split(".", 1)[1]
        assert re.fullmatch(r"\{\w+\}", caption), (selector, caption)
        assert caption.strip("{}") in written[name], f"{selector} captions {caption}, a property never written"


def test_style_command_is_one_line_and_parses_to_the_same_rules():
    text = STYLE.read_text(encoding="utf-8")
    command = style_command(text)
    assert command.startswith(":style ") and "\n" not in command  # Browser reads `:style` up to the newline
    assert parse_grass(command.removeprefix(":style ")) == parse_grass(text)
    assert browse_file("style.grass").read_text(encoding="utf-8") == text  # shipped with the package


def test_cypher_string_escapes():
    assert cypher_string("answers-0123") == "'answers-0123'"
    assert cypher_string("it's a \\ run") == "'it\\'s a \\\\ run'"


# --- the command on real stores ---------------------------------------------------------------------


def _write_runs(store, tmp_path) -> tuple[str, str]:
    """The evaluation fixtures' answers as a run, plus an older copy under another id."""
    _load_two_people(store, tmp_path)
    gold = tmp_path / "gold.jsonl"
    write_gold(gold, gold_sets())
    results = evaluate_file(write_answers(tmp_path / "answers.jsonl"), out_dir=tmp_path / "out", gold=gold,
                            store=store, plots=False)
    older = results.model_copy(deep=True, update={"run_id": "zz-older-run"})  # sorts last by id…
    older.header.evaluated_at = "2000-01-01T00:00:00+00:00"  # …but was evaluated first
    write_run(store, older)
    return results.run_id, older.run_id


def _browse(*args: str, env: dict | None = None):
    result = CliRunner().invoke(neo4j, ["browse", *args], env={"KALMA_STORE": None, **(env or {})})
    return result


def _query_rows(store, query: str, run_id: str) -> int:
    if store.backend == "embedded":
        return len(store._execute(query, {"run_id": run_id}))
    return len(store._driver.execute_query(query, {"run_id": run_id}, database_=store.database).records)


def test_browse_embedded_store(tmp_path):
    from kalma_graph.store.embedded import EmbeddedStore

    path = tmp_path / "g.lbdb"
    store = EmbeddedStore(path)
    latest, older = _write_runs(store, tmp_path)
    store.close()
    uri = f"embedded:{path}"
    home = tmp_path / "no-server"

    shown = _browse("--json", "--store", uri, "--home", str(home))
    assert shown.exit_code == 0, shown.output
    info = json.loads(shown.output)
    assert info["run_id"] == latest and info["runs"] == 2 and info["run"]["records"] == 5
    assert info["store"] == uri and info["browser_url"] is None and info["open_url"] is None
    assert any("embedded" in note for note in info["notes"])
    assert info["params_command"] == f":param run_id => '{latest}'"
    assert info["style_command"] == style_command(STYLE.read_text(encoding="utf-8"))
    assert Path(info["style_file"]).read_text() == STYLE.read_text()
    assert info["query"].startswith("MATCH (r:Run {id: $run_id})") and "//" not in info["query"]

    text = _browse(older, "--store", uri, "--home", str(home))
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert f"run            {older}  (5 answers, evaluated 2000-01-01T00:00:00+00:00; 2 run(s) in {uri})" in lines
    assert f":param run_id => '{older}'" in lines
    assert info["style_command"] in lines and "MATCH (r:Run {id: $run_id})-[h:HAS_ANSWER]->(a:Answer)" \
        "-[hs:HAS_SENTENCE]->(s:Sentence)" in lines
    assert any(line.startswith("1. Style: drag ") and line.endswith("style.grass onto the Browser window, or run:")
               for line in lines)

    missing = _browse("no-such-run", "--store", uri, "--home", str(home))
    assert missing.exit_code == 1 and "no run 'no-such-run'" in missing.output and latest in missing.output

    store = EmbeddedStore(path)
    try:  # the printed query, with the printed parameter, returns the run: 5 answers, their sentences, citations
        assert _query_rows(store, info["query"], latest) == _query_rows(store, info["query"], older) > 20
    finally:
        store.close()


def test_browse_without_a_run_or_a_server(tmp_path):
    from kalma_graph.store.embedded import EmbeddedStore

    EmbeddedStore(tmp_path / "empty.lbdb").close()
    empty = _browse("--store", f"embedded:{tmp_path / 'empty.lbdb'}", "--home", str(tmp_path / "h"))
    assert empty.exit_code == 1 and "no evaluation run in" in empty.output and "Traceback" not in empty.output
    absent = _browse("--store", f"embedded:{tmp_path / 'absent.lbdb'}", "--home", str(tmp_path / "h"))
    assert absent.exit_code == 1 and "no store at embedded:" in absent.output
    assert not (tmp_path / "absent.lbdb").exists()
    nothing = _browse("--home", str(tmp_path / "h"))
    assert nothing.exit_code == 1 and "no local Neo4j server in" in nothing.output
    assert "kalma-graph neo4j start" in nothing.output


@pytest.mark.neo4j
def test_browse_neo4j(neo4j_store, neo4j_server, tmp_path, monkeypatch):
    """A run written into a real Neo4j; the Browser address comes from the home's neo4j.conf as
    `neo4j start` writes it (the test server's home is the fixture's, so a home with its ports stands in)."""
    from kalma_graph.neo4j_server import write_config

    monkeypatch.setenv("KALMA_NEO4J_CREDENTIALS_DIR", str(tmp_path / "credentials"))
    for key, value in (("KALMA_NEO4J_USER", neo4j_server["user"]), ("KALMA_NEO4J_PASSWORD", neo4j_server["password"])):
        if value:
            monkeypatch.setenv(key, value)
    latest, older = _write_runs(neo4j_store, tmp_path)
    uri = neo4j_server["uri"]
    parts = urlsplit(uri)
    http_port = urlsplit(neo4j_server["http_url"]).port if neo4j_server.get("http_url") else 7474
    home = tmp_path / "home"
    write_config(home, bolt_port=parts.port or 7687, http_port=http_port, auth=False, apoc=False)

    shown = _browse("--json", "--store", uri, "--home", str(home))
    assert shown.exit_code == 0, shown.output
    info = json.loads(shown.output)
    assert info["run_id"] == latest and info["runs"] == 2 and info["run"]["records"] == 5
    if parts.hostname in ("localhost", "127.0.0.1"):
        assert info["browser_url"] == f"http://127.0.0.1:{http_port}/browser/"
        if neo4j_server.get("http_url"):
            assert info["browser_url"] == neo4j_server["http_url"] + "/browser/"
        assert info["open_url"].startswith(info["browser_url"] + "?dbms=bolt://")
        assert f"127.0.0.1:{parts.port}" in info["open_url"] or f"localhost:{parts.port}" in info["open_url"]
        assert info["server_running"] is False  # nothing runs from the stand-in home
    assert _query_rows(neo4j_store, info["query"], latest) > 20

    if parts.hostname in ("localhost", "127.0.0.1"):  # default store: the home's server
        named = _browse(older, "--home", str(home))
        assert named.exit_code == 0, named.output
        assert f":param run_id => '{older}'" in named.output.splitlines()
        assert named.output.startswith(f"Neo4j Browser  http://127.0.0.1:{http_port}/browser/?dbms=")
