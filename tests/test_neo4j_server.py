"""The local Neo4j server manager (`kalma_graph.neo4j_server`) and its CLI (`kalma-graph neo4j`).

Unit tests need neither Java nor Maven. The `neo4j`-marked tests install Neo4j with the real Maven
into a temporary home (a few minutes the first time, ~10 s once ~/.m2 holds the jars), start ONE
server with auth on for the module, and stop it; the `slow` one starts servers three more times.

    .venv/bin/python -m pytest tests/test_neo4j_server.py -m "not neo4j"        # unit only, ~1 s
    .venv/bin/python -m pytest tests/test_neo4j_server.py -m "not slow"         # + one real server
    .venv/bin/python -m pytest tests/test_neo4j_server.py                       # everything
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kalma_graph import neo4j_server as ns
from kalma_graph.neo4j_server import config as cfg
from kalma_graph.neo4j_server import credentials as creds
from kalma_graph.neo4j_server import installer as inst
from kalma_graph.neo4j_server import server as srv
from kalma_graph.neo4j_server import tooling


@pytest.fixture
def cred_dir(tmp_path, monkeypatch):
    folder = tmp_path / "credentials"
    monkeypatch.setenv(creds.CREDENTIALS_DIR_ENV, str(folder))
    return folder


# --- configuration ----------------------------------------------------------------------------
def test_config_binds_loopback_only_and_uses_home_dirs(tmp_path):
    text = cfg.render_config(tmp_path, 17687, 17474, auth=True)
    settings = cfg.parse_conf(text)
    assert settings["server.default_listen_address"] == ["127.0.0.1"]
    assert settings["server.bolt.listen_address"] == ["127.0.0.1:17687"]
    assert settings["server.http.listen_address"] == ["127.0.0.1:17474"]
    assert settings["server.bolt.advertised_address"] == ["127.0.0.1:17687"]  # what Browser connects to
    assert settings["server.https.enabled"] == ["false"]
    assert settings["dbms.security.auth_enabled"] == ["true"]
    assert "0.0.0.0" not in text
    for key, sub in [("data", "data"), ("logs", "logs"), ("run", "run"), ("plugins", "plugins"), ("import", "import")]:
        assert settings[f"server.directories.{key}"] == [(tmp_path.resolve() / sub).as_posix()]
    assert "dbms.security.procedures.unrestricted" not in settings
    flags = settings["server.jvm.additional"]
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in flags
    assert "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED" in flags
    assert "--enable-native-access=ALL-UNNAMED" in flags


def test_config_auth_off_apoc_and_memory(tmp_path):
    text = cfg.render_config(tmp_path, 7687, 7474, auth=False, heap_max="2G", pagecache="256m", apoc=True)
    settings = cfg.parse_conf(text)
    assert settings["dbms.security.auth_enabled"] == ["false"]
    assert settings["dbms.security.procedures.unrestricted"] == ["apoc.*"]
    assert settings["server.memory.heap.max_size"] == ["2g"]
    assert settings["server.memory.pagecache.size"] == ["256m"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bolt_port": 0},
        {"http_port": 70000},
        {"bolt_port": 7474, "http_port": 7474},
        {"heap_max": "lots"},
        {"pagecache": "1.5g"},
    ],
)
def test_config_rejects_bad_values(tmp_path, kwargs):
    with pytest.raises(ValueError):
        cfg.render_config(tmp_path, **kwargs)


def test_write_config_round_trip_and_server_command(tmp_path):
    path = ns.write_config(tmp_path, 17001, 17002, auth=True, heap_initial="256m", heap_max="768m", pagecache="64m")
    assert path == tmp_path.resolve() / "conf" / "neo4j.conf"
    for sub in ("data", "logs", "run", "plugins", "import"):
        assert (tmp_path / sub).is_dir()
    read = ns.read_config(tmp_path)
    assert (read.bolt_port, read.http_port, read.auth) == (17001, 17002, True)
    assert read.uri == "bolt://127.0.0.1:17001"
    assert read.browser_url == "http://127.0.0.1:17002/browser/"
    cmd = srv.server_command(tmp_path, "java", read)
    assert cmd[:2] == ["java", "-cp"]
    home = tmp_path.resolve()
    assert cmd[2].split(os.pathsep) == [str(home / "plugins" / "*"), str(home / "conf" / "*"), str(home / "lib" / "*")]
    assert {"-Dfile.encoding=UTF-8", "-Xms256m", "-Xmx768m", "--add-opens=java.base/java.io=ALL-UNNAMED"} <= set(cmd)
    assert cmd[-3:] == ["org.neo4j.server.CommunityEntryPoint", f"--home-dir={home}", f"--config-dir={home / 'conf'}"]


def test_default_home_honours_env(monkeypatch, tmp_path):
    monkeypatch.setenv("KALMA_NEO4J_HOME", str(tmp_path / "h"))
    assert ns.default_home() == (tmp_path / "h").resolve()
    monkeypatch.delenv("KALMA_NEO4J_HOME")
    assert ns.default_home().name == f"neo4j-{ns.NEO4J_VERSION}"


# --- credentials --------------------------------------------------------------------------------
def test_credentials_file_is_private(cred_dir, tmp_path):
    path = ns.save_credentials(tmp_path / "home", "bolt://127.0.0.1:17687", "neo4j", "s3cret-s3cret")
    assert path.parent == cred_dir
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(cred_dir.stat().st_mode) == 0o700
    data = json.loads(path.read_text())
    assert (data["uri"], data["user"], data["password"]) == ("bolt://127.0.0.1:17687", "neo4j", "s3cret-s3cret")
    # Rewriting keeps the mode even if someone loosened it.
    os.chmod(path, 0o644)
    ns.save_credentials(tmp_path / "home", "bolt://127.0.0.1:17688", "neo4j", "other-password")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in cred_dir.iterdir()] == [path.name]  # no temp files left


def test_credentials_for_matches_the_endpoint(cred_dir, tmp_path):
    ns.save_credentials(tmp_path / "a", "bolt://127.0.0.1:17687", "neo4j", "password-a")
    assert ns.credentials_for("bolt://127.0.0.1:17687") == ("neo4j", "password-a")
    assert ns.credentials_for("neo4j://localhost:17687") == ("neo4j", "password-a")
    assert ns.credentials_for("bolt://127.0.0.1:17688") is None
    assert ns.credentials_for("bolt://db.example.org:17687") is None
    assert ns.credentials_for("embedded:/tmp/x") is None
    time.sleep(0.01)
    ns.save_credentials(tmp_path / "b", "bolt://localhost:17687", "neo4j", "password-b")
    assert ns.credentials_for("bolt://127.0.0.1:17687") == ("neo4j", "password-b")  # most recent wins


def test_credentials_for_without_any_file(cred_dir):
    assert ns.credentials_for("bolt://127.0.0.1:7687") is None


def test_generated_passwords_are_long_and_distinct():
    passwords = {creds.generate_password() for _ in range(50)}
    assert len(passwords) == 50 and all(len(p) >= 32 for p in passwords)


# --- tools ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "output, expected",
    [
        ('openjdk version "17.0.15" 2025-04-15', ("17.0.15", 17)),
        ('java version "1.8.0_392"', ("1.8.0_392", 8)),
        ('openjdk version "21" 2023-09-19', ("21", 21)),
        ('openjdk version "22-ea" 2024-03-19', ("22-ea", 22)),
    ],
)
def test_parse_java_version(output, expected):
    assert tooling.parse_java_version(output) == expected


def test_missing_java_and_maven_are_clear_errors(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ns.JavaError, match="java.*not found"):
        tooling.require_java()
    with pytest.raises(ns.MavenError, match="mvn.*not found"):
        tooling.require_maven()


def test_old_java_is_rejected(monkeypatch, tmp_path):
    fake = tmp_path / "java"
    fake.write_text('#!/bin/sh\necho \'java version "1.8.0_392"\' >&2\n')
    fake.chmod(0o755)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ns.JavaError, match="needs Java 17"):
        tooling.require_java()


# --- lockfile and verification ---------------------------------------------------------------------
def test_lockfile_pins_every_artifact():
    lock = inst.load_lockfile()
    lib, plugins = lock.section("lib"), lock.section("plugins")
    assert f"neo4j-{ns.NEO4J_VERSION}.jar" in lib
    assert f"neo4j-server-{ns.NEO4J_VERSION}.jar" in lib
    assert f"neo4j-browser-{ns.BROWSER_VERSION}.jar" in lib
    assert {f"apoc-core-{ns.APOC_VERSION}.jar", f"apoc-common-{ns.APOC_VERSION}.jar"} <= set(plugins)
    assert not set(lib) & set(plugins)
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in lock.entries.values())


def test_unknown_version_has_no_lockfile():
    with pytest.raises(ns.ChecksumError, match="no lockfile"):
        inst.load_lockfile("5.26.0")


def test_check_folder_reports_missing_mismatched_and_unexpected(tmp_path):
    (tmp_path / "alpha.jar").write_bytes(b"aaa")
    (tmp_path / "beta.jar").write_bytes(b"tampered")
    (tmp_path / "extra.jar").write_bytes(b"x")
    expected = {
        "alpha.jar": inst.sha256_file(tmp_path / "alpha.jar"),
        "beta.jar": "0" * 64,
        "gamma.jar": "1" * 64,
    }
    problems = inst.check_folder(tmp_path, expected, exact=True)
    assert len(problems) == 3
    assert any(p.startswith("checksum mismatch") and "beta.jar" in p for p in problems)
    assert any(p.startswith("missing") and "gamma.jar" in p for p in problems)
    assert any(p.startswith("unexpected") and "extra.jar" in p for p in problems)
    assert len(inst.check_folder(tmp_path, expected, exact=False)) == 2  # plugins/ may hold other jars


def test_install_refuses_jars_that_do_not_match_the_lockfile(monkeypatch, tmp_path):
    """A stand-in `mvn` that "downloads" a tampered neo4j jar: nothing may land in lib/."""
    java = tooling.find_java()
    if java is None:
        pytest.skip("needs java")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").symlink_to(java)
    fake_mvn = bin_dir / "mvn"
    fake_mvn.write_text(
        f"#!{sys.executable}\n"
        "import pathlib, sys\n"
        "out = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('-DoutputDirectory='))\n"
        "pathlib.Path(out).mkdir(parents=True, exist_ok=True)\n"
        f"(pathlib.Path(out) / 'neo4j-{ns.NEO4J_VERSION}.jar').write_text('tampered')\n"
    )
    fake_mvn.chmod(0o755)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(bin_dir))
    home = tmp_path / "home"
    with pytest.raises(ns.ChecksumError, match="do not match") as err:
        ns.install(home)
    assert f"checksum mismatch lib/neo4j-{ns.NEO4J_VERSION}.jar" in str(err.value)
    assert not (home / "lib").exists()
    assert not (home / ".staging").exists()
    assert (home / "maven" / "pom.xml").is_file()


def test_generated_pom_pins_versions():
    pom = inst._pom("x", True, ns.NEO4J_VERSION)
    assert f"<artifactId>neo4j</artifactId>\n      <version>{ns.NEO4J_VERSION}</version>" in pom
    assert f"<artifactId>neo4j-browser</artifactId>\n      <version>{ns.BROWSER_VERSION}</version>" in pom
    assert f"<artifactId>apoc-core</artifactId>\n      <version>{ns.APOC_VERSION}</version>" in pom
    assert "apoc" not in inst._pom("x", False, ns.NEO4J_VERSION)


# --- server helpers without a server ------------------------------------------------------------------
def test_free_port_and_port_checks():
    port = ns.free_port()
    assert 0 < port < 65536 and ns.port_is_free(port) and not ns.port_is_open(port)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        busy = sock.getsockname()[1]
        assert not ns.port_is_free(busy) and ns.port_is_open(busy)


def test_status_and_start_of_an_empty_home(tmp_path, cred_dir):
    info = ns.status(tmp_path)
    assert (info["installed"], info["running"], info["pid"], info["configured"]) == (False, False, None, False)
    with pytest.raises(ns.NotInstalledError, match="kalma-graph neo4j install"):
        ns.start(tmp_path)
    assert ns.stop(tmp_path)["was_running"] is False


def test_stale_pid_file_is_ignored(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "neo4j.pid").write_text(f"{os.getpid()}\n")  # alive, but not a Neo4j
    assert ns.running_pid(tmp_path) is None
    assert not (tmp_path / "run" / "neo4j.pid").exists()


def test_cli_status_json_and_errors(tmp_path, cred_dir):
    from click.testing import CliRunner

    from cli.neo4j_cmd import neo4j

    runner = CliRunner()
    result = runner.invoke(neo4j, ["status", "--json", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["running"] is False
    result = runner.invoke(neo4j, ["start", "--home", str(tmp_path), "--bolt-port", "17999", "--http-port", "17998"])
    assert result.exit_code == 1
    assert "not installed" in result.output
    result = runner.invoke(neo4j, ["stop", "--home", str(tmp_path)])
    assert result.exit_code == 0 and "not running" in result.output
    assert set(neo4j.commands) == {"install", "start", "stop", "status", "browse"}


# --- a real server ------------------------------------------------------------------------------------
def _require_tools() -> None:
    try:
        tooling.require_java()
        tooling.require_maven()
    except ns.Neo4jServerError as exc:
        pytest.skip(f"needs java 17+ and mvn: {exc}")


@pytest.fixture(scope="module")
def neo4j_home(tmp_path_factory):
    _require_tools()
    home = tmp_path_factory.mktemp("neo4j-home")
    t0 = time.perf_counter()
    result = ns.install(home)
    print(f"\ninstall: {result['seconds']}s, {result['lib_jars']} jars, {result['lib_bytes'] / 1e6:.1f} MB")
    assert result["changed"] is True and time.perf_counter() - t0 < 900
    return home


@pytest.fixture(scope="module")
def server(neo4j_home, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(creds.CREDENTIALS_DIR_ENV, str(tmp_path_factory.mktemp("credentials")))
        info = ns.start(
            neo4j_home,
            bolt_port=ns.free_port(),
            http_port=ns.free_port(),
            auth=True,
            heap_initial="256m",
            heap_max="512m",
            pagecache="64m",
        )
        print(f"\nstart-to-Bolt-ready: {info.startup_seconds}s")
        try:
            yield info
        finally:
            ns.stop(neo4j_home)


@pytest.mark.neo4j
def test_second_install_is_a_fast_no_op(neo4j_home):
    result = ns.install(neo4j_home)
    assert result["changed"] is False
    assert result["seconds"] < 10
    assert ns.verify_installation(neo4j_home) == []


@pytest.mark.neo4j
def test_query_with_the_stored_password(server):
    import neo4j

    assert server.auth and server.password and not server.already_running
    assert ns.credentials_for(server.uri) == ("neo4j", server.password)
    stored = ns.load_credentials(server.home)
    assert stored.uri == server.uri
    assert stat.S_IMODE(ns.credentials_path(server.home).stat().st_mode) == 0o600
    user, password = ns.credentials_for(server.uri.replace("127.0.0.1", "localhost"))
    with neo4j.GraphDatabase.driver(server.uri, auth=(user, password)) as driver:
        records, _, _ = driver.execute_query(
            "CREATE (e:Entity {id: $id, name: $name}) RETURN e.name AS name", id="Q1", name="Universe"
        )
        assert records[0]["name"] == "Universe"
        records, _, _ = driver.execute_query("CALL dbms.components() YIELD name, versions, edition RETURN *")
        assert records[0]["versions"] == [ns.NEO4J_VERSION] and records[0]["edition"] == "community"


@pytest.mark.neo4j
def test_wrong_password_is_refused(server):
    import neo4j

    with neo4j.GraphDatabase.driver(server.uri, auth=("neo4j", server.password + "x")) as driver:
        with pytest.raises(neo4j.exceptions.AuthError):
            driver.verify_connectivity()
    with neo4j.GraphDatabase.driver(server.uri, auth=None) as driver:
        with pytest.raises((neo4j.exceptions.AuthError, neo4j.exceptions.ClientError)):
            driver.verify_connectivity()


@pytest.mark.neo4j
def test_browser_is_served(server):
    with urllib.request.urlopen(server.browser_url, timeout=30) as response:
        assert response.status == 200
        assert response.headers.get_content_type() == "text/html"
        body = response.read().decode("utf-8")
    assert "<title>Neo4j Browser</title>" in body
    with urllib.request.urlopen(server.http_url + "/", timeout=30) as response:
        discovery = json.loads(response.read())
    assert discovery["bolt_direct"] == server.uri  # Browser connects where the server really listens
    assert discovery["neo4j_version"] == ns.NEO4J_VERSION


@pytest.mark.neo4j
def test_listens_on_loopback_only(server):
    port = int(server.uri.rsplit(":", 1)[1])
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet is sent; picks the outward interface
            outward = probe.getsockname()[0]
    except OSError:
        pytest.skip("no non-loopback interface")
    if outward.startswith("127."):
        pytest.skip("no non-loopback interface")
    assert not ns.port_is_open(port, host=outward)


@pytest.mark.neo4j
def test_start_again_returns_the_running_server(server):
    again = ns.start(server.home, bolt_port=ns.free_port(), http_port=ns.free_port())
    assert again.already_running and again.pid == server.pid and again.uri == server.uri
    assert again.password == server.password
    state = ns.status(server.home)
    assert state["running"] and state["bolt_listening"] and state["pid"] == server.pid and state["auth"]


@pytest.mark.neo4j
def test_busy_port_is_a_clear_error(server, tmp_path):
    other = tmp_path / "second-home"  # shares the jars, asks for the running server's Bolt port
    other.mkdir()
    (other / "lib").symlink_to(Path(server.home) / "lib")
    busy = int(server.uri.rsplit(":", 1)[1])
    with pytest.raises(ns.Neo4jServerError, match=f"port {busy} .* already in use"):
        ns.start(other, bolt_port=busy, http_port=ns.free_port(), auth=False)
    assert not (other / "data").exists()


@pytest.mark.neo4j
def test_stop_closes_the_port(server, neo4j_home):
    port = int(server.uri.rsplit(":", 1)[1])
    result = ns.stop(neo4j_home)
    assert result["was_running"] and result["pid"] == server.pid and not result["forced"]
    print(f"\nstop: {result['seconds']}s")
    assert not ns.port_is_open(port)
    assert not (Path(neo4j_home) / "run" / "neo4j.pid").exists()
    assert ns.status(neo4j_home)["running"] is False
    assert ns.stop(neo4j_home)["was_running"] is False


@pytest.mark.neo4j
@pytest.mark.slow
def test_auth_after_a_no_auth_first_start(neo4j_home, tmp_path, monkeypatch):
    """Data created by a --no-auth start gets a generated password on the first auth start."""
    import neo4j

    monkeypatch.setenv(creds.CREDENTIALS_DIR_ENV, str(tmp_path / "credentials"))
    home = tmp_path / "home"
    home.mkdir()
    shutil.copytree(Path(neo4j_home) / "lib", home / "lib")
    small = {"heap_initial": "256m", "heap_max": "512m", "pagecache": "64m"}
    try:
        info = ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=False, **small)
        assert info.password is None and info.auth_tuple is None
        with neo4j.GraphDatabase.driver(info.uri, auth=None) as driver:
            driver.execute_query("CREATE (:Entity {id: 'Q2'})")
        ns.stop(home)
        assert ns.credentials_for(info.uri) is None
        info = ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=True, **small)
        assert info.auth and info.password
        with neo4j.GraphDatabase.driver(info.uri, auth=ns.credentials_for(info.uri)) as driver:
            records, _, _ = driver.execute_query("MATCH (e:Entity {id: 'Q2'}) RETURN count(e) AS n")
            assert records[0]["n"] == 1
    finally:
        ns.stop(home)
