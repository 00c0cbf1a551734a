"""The local Neo4j server manager (`kalma_graph.neo4j_server`) and its CLI (`kalma-graph neo4j`).

Unit tests need neither Java nor Maven. The `neo4j`-marked tests install Neo4j with the real Maven
into a temporary home (a few minutes the first time, ~10 s once ~/.m2 holds the jars), start ONE
server with auth on for the module, and stop it; the `slow` one starts servers three more times.

    .venv/bin/python -m pytest tests/e2e/test_neo4j_server.py -m "not neo4j"        # unit only, ~1 s
    .venv/bin/python -m pytest tests/e2e/test_neo4j_server.py -m "not slow"         # + one real server
    .venv/bin/python -m pytest tests/e2e/test_neo4j_server.py                       # everything
"""

from __future__ import annotations

import json
import mmap
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kalma_graph import neo4j_server as ns
from kalma_graph.neo4j_server import config as cfg, credentials as creds, installer as inst, server as srv, tooling


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
    assert settings["server.http.enabled"] == ["true"]
    assert settings["dbms.security.auth_enabled"] == ["true"]
    # No CORS wildcard: only the Browser's own origin may read the HTTP API's answers.
    assert settings["dbms.security.http_access_control_allow_origin"] == ["http://127.0.0.1:17474"]
    assert settings["db.transaction.timeout"] == ["3600s"]  # default KALMA_NEO4J_TX_TIMEOUT_S
    assert "0.0.0.0" not in text and "*" not in "".join(settings["dbms.security.http_access_control_allow_origin"])
    assert all(len(values) == 1 for key, values in settings.items() if key != "server.jvm.additional")  # strict
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


def test_config_garbage_collector_g1_by_default_parallel_on_request(tmp_path):
    default = cfg.parse_conf(cfg.render_config(tmp_path))["server.jvm.additional"]
    assert "-XX:+UseG1GC" in default and "-XX:+UseParallelGC" not in default
    parallel = cfg.parse_conf(cfg.render_config(tmp_path, gc="parallel"))["server.jvm.additional"]
    assert "-XX:+UseParallelGC" in parallel and "-XX:+UseG1GC" not in parallel
    # Only the collector changes; every other shipped flag stays, in its place.
    assert [f for f in parallel if f != "-XX:+UseParallelGC"] == [f for f in default if f != "-XX:+UseG1GC"]
    cfg.write_config(tmp_path, gc="parallel")
    assert "-XX:+UseParallelGC" in cfg.read_config(tmp_path).jvm_additional
    cfg.write_config(tmp_path)
    assert "-XX:+UseG1GC" in cfg.read_config(tmp_path).jvm_additional


def test_the_heap_starts_at_512m_or_at_a_smaller_maximum():
    """`neo4j start --heap` and the bench's throwaway servers start the heap the same way."""
    assert [cfg.initial_heap(h) for h in ("256m", "512m", "1g", "2G")] == ["256m", "512m", "512m", "512m"]
    with pytest.raises(ValueError, match="heap_max must look like 512m or 2g"):
        cfg.initial_heap("lots")


def test_config_http_off_and_transaction_timeout(tmp_path, monkeypatch):
    settings = cfg.parse_conf(cfg.render_config(tmp_path, 17687, 17474, http_enabled=False, tx_timeout_s=0))
    assert settings["server.http.enabled"] == ["false"] and settings["server.bolt.enabled"] == ["true"]
    assert settings["db.transaction.timeout"] == ["0s"]  # 0 = no limit
    assert cfg.parse_conf(cfg.render_config(tmp_path, tx_timeout_s=2.5))["db.transaction.timeout"] == ["2500ms"]
    monkeypatch.setenv("KALMA_NEO4J_TX_TIMEOUT_S", "90")
    assert cfg.parse_conf(cfg.render_config(tmp_path))["db.transaction.timeout"] == ["90s"]
    monkeypatch.setenv("KALMA_NEO4J_TX_TIMEOUT_S", "soon")
    with pytest.raises(ValueError, match="KALMA_NEO4J_TX_TIMEOUT_S"):
        cfg.render_config(tmp_path)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bolt_port": 0},
        {"http_port": 70000},
        {"bolt_port": 7474, "http_port": 7474},
        {"heap_max": "lots"},
        {"pagecache": "1.5g"},
        {"gc": "zgc"},
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
    # lib/ first: no jar in plugins/ can shadow a server class
    assert cmd[2].split(os.pathsep) == [str(home / "lib" / "*"), str(home / "plugins" / "*"), str(home / "conf" / "*")]
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


def test_credential_objects_never_show_the_password(cred_dir, tmp_path):
    secret = "pw-" + creds.generate_password()
    ns.save_credentials(tmp_path / "home", "bolt://127.0.0.1:17687", "neo4j", secret)
    stored = ns.load_credentials(tmp_path / "home")
    assert stored.password == secret
    info = srv.ServerInfo(uri="bolt://127.0.0.1:17687", http_url="http://127.0.0.1:17474", user="neo4j",
                          password=secret, pid=1, home=str(tmp_path), browser_url="http://127.0.0.1:17474/browser/",
                          auth=True)
    for shown in (repr(stored), str(stored), repr(info), str(info), f"{info}", json.dumps(info.to_dict())):
        assert secret not in shown and "password=" not in shown.replace("'password': '********'", "")
    assert info.to_dict(reveal_password=True)["password"] == secret


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


def _jar_home(tmp_path, plugins=False):
    """A home with three small jars in lib/ (and two in plugins/) and the lockfile that pins them."""
    home = tmp_path / "home"
    (home / "lib").mkdir(parents=True)
    (home / "plugins").mkdir()
    entries = {}
    for name in ("a.jar", "b.jar", "c.jar"):
        (home / "lib" / name).write_bytes(name.encode() * 1000)
        entries[f"lib/{name}"] = inst.sha256_file(home / "lib" / name)
    for name in ("apoc-core-x.jar", "apoc-common-x.jar"):
        path = tmp_path / name
        path.write_bytes(name.encode() * 10)
        entries[f"plugins/{name}"] = inst.sha256_file(path)
        if plugins:
            shutil.copy(path, home / "plugins" / name)
    return home, inst.Lockfile("test", entries)


def test_verify_jars_caches_by_size_and_mtime(tmp_path):
    home, lock = _jar_home(tmp_path)
    assert inst.verify_jars(home, lock=lock) == ([], {"hashed": 3, "cached": 0})
    assert (home / "run" / inst.VERIFIED_JARS).is_file()
    assert inst.verify_jars(home, lock=lock) == ([], {"hashed": 0, "cached": 3})  # a start only stats
    jar = home / "lib" / "b.jar"
    jar.write_bytes(b"X" + jar.read_bytes()[1:])  # same size, new content and mtime
    problems, counts = inst.verify_jars(home, lock=lock)
    assert counts == {"hashed": 1, "cached": 2}
    assert problems == [f"checksum mismatch lib/b.jar: expected {lock.entries['lib/b.jar']}, got "
                        f"{inst.sha256_file(jar)}"]
    assert inst.verify_jars(home, lock=lock)[0] == problems  # a bad jar is never remembered as good
    (home / "lib" / "b.jar").write_bytes(b"b.jar" * 1000)
    (home / "lib" / "extra.jar").write_bytes(b"x")
    assert inst.verify_jars(home, lock=lock)[0] == ["unexpected lib/extra.jar (not in the lockfile)"]


def test_verify_jars_takes_plugins_exactly(tmp_path):
    home, lock = _jar_home(tmp_path)
    assert inst.verify_jars(home, lock=lock)[0] == []  # no plugins at all: fine
    (home / "plugins" / "my-plugin.jar").write_bytes(b"someone else's code")
    problems = inst.verify_jars(home, lock=lock)[0]
    assert "unexpected plugins/my-plugin.jar (not in the lockfile)" in problems
    assert "missing plugins/apoc-core-x.jar" in problems  # a plugins/ in use must be exactly pinned APOC
    home2, lock2 = _jar_home(tmp_path / "second", plugins=True)
    assert inst.verify_jars(home2, lock=lock2) == ([], {"hashed": 5, "cached": 0})
    (home2 / "plugins" / "my-plugin.jar").write_bytes(b"someone else's code")
    assert inst.verify_jars(home2, lock=lock2)[0] == ["unexpected plugins/my-plugin.jar (not in the lockfile)"]


def _fake_installed_home(tmp_path, monkeypatch):
    """A home that passes `is_installed` (every pinned lib/ jar exists, by name) but whose jars are
    empty files, with a fake `java`: start() goes as far as its checks, and no JVM ever runs."""
    home = tmp_path / "fake-home"
    (home / "lib").mkdir(parents=True)
    for name in inst.load_lockfile().section("lib"):
        (home / "lib" / name).touch()
    monkeypatch.setattr(srv, "require_java", lambda: tooling.JavaInfo("/nonexistent/java", "17.0.0", 17))
    launched = []
    monkeypatch.setattr(srv, "_launch", lambda *a, **k: launched.append(a) or pytest.fail("launched"))
    return home, launched


def test_start_refuses_jars_that_no_longer_match(tmp_path, cred_dir, monkeypatch):
    home, launched = _fake_installed_home(tmp_path, monkeypatch)
    assert ns.is_installed(home)
    with pytest.raises(ns.ChecksumError, match="do not match the pinned neo4j-5.26.30.sha256") as err:
        ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=False)
    pinned = sorted(inst.load_lockfile().section("lib"))
    assert f"({len(pinned)} problem(s))" in str(err.value) and f"checksum mismatch lib/{pinned[0]}" in str(err.value)
    assert "kalma-graph neo4j install" in str(err.value) and "Neo4j was not started" in str(err.value)
    assert not launched and not (home / "conf" / "neo4j.conf").exists()
    assert not (home / "run" / inst.VERIFIED_JARS).exists()


def test_no_auth_start_of_a_home_created_with_auth_needs_force(tmp_path, cred_dir, monkeypatch):
    from click.testing import CliRunner

    from kalma_graph.cli.neo4j_cmd import neo4j

    home, launched = _fake_installed_home(tmp_path, monkeypatch)
    (home / "data" / "databases" / "system").mkdir(parents=True)  # it has been started before…
    ns.save_credentials(home, "bolt://127.0.0.1:17687", "neo4j", "pw-" + creds.generate_password())  # …with auth
    ports = ["--bolt-port", str(ns.free_port()), "--http-port", str(ns.free_port())]
    result = CliRunner().invoke(neo4j, ["start", "--home", str(home), "--no-auth", *ports])
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "refusing to start" in message and "created with auth on" in message and "--force" in message
    assert str(ns.credentials_path(home)) in message
    # --force gets past that check (to the jar check, which these empty jars fail)
    result = CliRunner().invoke(neo4j, ["start", "--home", str(home), "--no-auth", "--force", *ports])
    assert result.exit_code == 1 and "do not match the pinned" in result.output and "refusing" not in result.output
    # without a recorded password, the conf of the last start tells
    ns.delete_credentials(home)
    ns.write_config(home, 17687, 17474, auth=True)
    with pytest.raises(ns.Neo4jServerError, match="last started with authentication on.*--force"):
        ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=False)
    ns.write_config(home, 17687, 17474, auth=False)  # a home only ever run without auth: no refusal
    with pytest.raises(ns.ChecksumError):
        ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=False)
    result = CliRunner().invoke(neo4j, ["start", "--home", str(home), "--force", *ports])
    assert result.exit_code == 2 and "--force only applies to --no-auth" in result.output
    assert not launched


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

    from kalma_graph.cli.neo4j_cmd import neo4j

    runner = CliRunner()
    result = runner.invoke(neo4j, ["status", "--json", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["running"] is False
    result = runner.invoke(neo4j, ["start", "--home", str(tmp_path), "--bolt-port", "17999", "--http-port", "17998"])
    assert result.exit_code == 1
    assert "not installed" in result.output
    result = runner.invoke(neo4j, ["stop", "--home", str(tmp_path)])
    assert result.exit_code == 0 and "not running" in result.output
    assert set(neo4j.commands) == {"install", "start", "stop", "status", "browse", "import"}


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
        print(f"\nstart-to-Bolt-ready: {info.startup_seconds}s (jar check: {info.jar_check})")
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
def test_first_start_verified_every_jar(server):
    pinned = inst.load_lockfile().section("lib")
    assert server.jar_check["hashed"] == len(pinned) and server.jar_check["cached"] == 0  # a fresh install
    assert (Path(server.home) / "run" / inst.VERIFIED_JARS).is_file()  # the next start only stats them


@pytest.mark.neo4j
def test_server_accepted_the_hardened_settings(server):
    """Neo4j validates neo4j.conf strictly: this server started, so it took every setting we wrote."""
    import neo4j

    names = ["db.transaction.timeout", "dbms.security.http_access_control_allow_origin",
             "server.config.strict_validation.enabled", "server.http.listen_address", "server.bolt.listen_address"]
    with neo4j.GraphDatabase.driver(server.uri, auth=server.auth_tuple) as driver:
        records, _, _ = driver.execute_query(
            "SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value", names=names)
    settings = {r["name"]: r["value"] for r in records}
    assert settings == {
        "db.transaction.timeout": "1h",
        "dbms.security.http_access_control_allow_origin": server.http_url,
        "server.config.strict_validation.enabled": "true",
        "server.http.listen_address": server.http_url.removeprefix("http://"),
        "server.bolt.listen_address": server.uri.removeprefix("bolt://"),
    }


@pytest.mark.neo4j
def test_http_api_answers_only_its_own_origin(server):
    """A page from another origin gets the Browser's origin back, not `*`: its browser withholds the answer."""
    probes = [
        (server.http_url + "/", "GET", {}),
        (server.browser_url, "GET", {}),
        (server.http_url + "/db/neo4j/tx/commit", "OPTIONS",  # the preflight of a cross-origin POST
         {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,authorization"}),
    ]
    for url, method, headers in probes:
        request = urllib.request.Request(url, method=method, headers={"Origin": "http://evil.example", **headers})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.headers.get_all("Access-Control-Allow-Origin") == [server.http_url], (method, url)


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
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="reads the server's command line from /proc")
def test_a_server_started_with_the_parallel_collector_runs_with_it(neo4j_home, tmp_path):
    import neo4j

    home = tmp_path / "home"
    home.mkdir()
    (home / "lib").symlink_to(Path(neo4j_home) / "lib", target_is_directory=True)
    info = ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=False, heap_initial="256m",
                    heap_max="512m", pagecache="64m", gc="parallel")
    try:
        flags = Path(f"/proc/{info.pid}/cmdline").read_bytes().split(b"\0")
        assert b"-XX:+UseParallelGC" in flags and b"-XX:+UseG1GC" not in flags
        with neo4j.GraphDatabase.driver(info.uri, auth=None) as driver:
            assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1
    finally:
        ns.stop(home)


def _kalma(*args: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    """The real CLI in its own process (its own stdout and stderr)."""
    return subprocess.run([sys.executable, "-m", "kalma_graph", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600)


def _cli_home(neo4j_home: Path, tmp_path: Path) -> tuple[Path, Path, dict, list[str]]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "lib").symlink_to(Path(neo4j_home) / "lib", target_is_directory=True)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {**os.environ, creds.CREDENTIALS_DIR_ENV: str(tmp_path / "credentials"), "COLUMNS": "250"}
    options = ["--home", str(home), "--bolt-port", str(ns.free_port()), "--http-port", str(ns.free_port()),
               "--heap", "512m", "--pagecache", "64m"]
    return home, cwd, env, options


def _files_holding(secret: bytes, roots: list[Path], skip: set[Path]) -> tuple[list[Path], int]:
    """Files under `roots` (symlinks not followed) whose bytes contain `secret`, and how many were read."""
    found, read = [], 0
    for root in roots:
        for folder, _dirs, names in os.walk(root):
            for name in names:
                path = Path(folder) / name
                if path in skip or path.is_symlink() or not path.is_file():
                    continue
                read += 1
                if path.stat().st_size == 0:
                    continue
                with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                    if data.find(secret) >= 0:
                        found.append(path)
    return found, read


@pytest.mark.neo4j
def test_cli_start_and_status_never_show_the_password(neo4j_home, tmp_path, monkeypatch):
    """`neo4j start` / `status` (and a second `start`, and `stop`) run for real: the generated password
    is in the 0600 credentials file and nowhere else — not in their stdout or stderr, not in the
    server's logs, its conf, pid file or data files, not in any other file they wrote."""
    home, cwd, env, options = _cli_home(neo4j_home, tmp_path)
    monkeypatch.setenv(creds.CREDENTIALS_DIR_ENV, env[creds.CREDENTIALS_DIR_ENV])
    runs = []
    try:
        started = _kalma("neo4j", "start", *options, env=env, cwd=cwd)
        runs.append(started)
        assert started.returncode == 0, started.stdout + started.stderr
        assert "(hidden; --show-password)" in started.stdout
        assert re.search(r"jars match the pinned sha256 \(\d+ hashed, \d+ unchanged", started.stdout)
        for args in (["status", "--home", str(home)], ["status", "--json", "--home", str(home)],
                     ["start", *options]):
            runs.append(_kalma("neo4j", *args, env=env, cwd=cwd))
            assert runs[-1].returncode == 0, runs[-1].stdout + runs[-1].stderr
        assert json.loads(runs[2].stdout)["running"] is True and "already running" in runs[3].stdout
        runs.append(_kalma("neo4j", "stop", "--home", str(home), env=env, cwd=cwd))
        assert runs[-1].returncode == 0 and "Neo4j stopped" in runs[-1].stdout
    finally:
        ns.stop(home)
    cred_file = ns.credentials_path(home)
    password = json.loads(cred_file.read_text())["password"]
    assert len(password) >= 32 and stat.S_IMODE(cred_file.stat().st_mode) == 0o600
    for run in runs:
        assert password not in run.stdout and password not in run.stderr, run.args
    found, read = _files_holding(password.encode(), [home, cred_file.parent, cwd], skip={cred_file})
    assert found == []
    assert read > 20 and (home / "logs" / "neo4j.log").stat().st_size > 0 and (home / "data" / "databases").is_dir()


@pytest.mark.neo4j
@pytest.mark.slow
def test_cli_no_auth_warns_and_a_home_made_with_auth_needs_force(neo4j_home, tmp_path, monkeypatch):
    import neo4j

    home, cwd, env, options = _cli_home(neo4j_home, tmp_path)
    monkeypatch.setenv(creds.CREDENTIALS_DIR_ENV, env[creds.CREDENTIALS_DIR_ENV])
    n_jars = len(inst.load_lockfile().section("lib"))
    try:
        first = _kalma("neo4j", "start", *options, env=env, cwd=cwd)
        assert first.returncode == 0, first.stdout + first.stderr
        assert f"({n_jars} hashed, 0 unchanged since verified)" in first.stdout  # a new home: every jar read
        assert "warning" not in first.stderr
        assert _kalma("neo4j", "stop", "--home", str(home), env=env, cwd=cwd).returncode == 0

        refused = _kalma("neo4j", "start", "--no-auth", *options, env=env, cwd=cwd)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert "refusing to start" in refused.stderr and "pass --force" in refused.stderr
        assert ns.status(home)["running"] is False

        forced = _kalma("neo4j", "start", "--no-auth", "--force", *options, env=env, cwd=cwd)
        assert forced.returncode == 0, forced.stdout + forced.stderr
        assert f"(0 hashed, {n_jars} unchanged since verified)" in forced.stdout  # the restart only stats jars
        warning = " ".join(forced.stderr.split())
        assert "warning: --no-auth: authentication is off" in warning and "Anyone on this machine" in warning
        uri = ns.status(home)["uri"]
        assert uri in warning
        with neo4j.GraphDatabase.driver(uri, auth=None) as driver:  # it really is open
            assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1
        print(f"\nfirst start: {first.stdout.splitlines()[0]}\nrestart:     {forced.stdout.splitlines()[0]}")
    finally:
        ns.stop(home)


def _starts(neo4j_log: Path) -> list[str]:
    """neo4j.log cut into one piece per server start."""
    return re.split(r"INFO  Starting\.\.\.\n", neo4j_log.read_text(encoding="utf-8"))[1:]


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
        first = info = ns.start(home, bolt_port=ns.free_port(), http_port=ns.free_port(), auth=False, **small)
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
    # Three starts: --no-auth; the password reset, on a random Bolt port with HTTP off; with auth.
    starts = _starts(home / "logs" / "neo4j.log")
    assert len(starts) == 3
    bolt = [int(m) for s in starts for m in re.findall(r"Bolt enabled on [^:\s]+:(\d+)", s)]
    assert len(bolt) == 3 and bolt[0] == int(first.uri.rsplit(":", 1)[1]) and bolt[2] == int(info.uri.rsplit(":", 1)[1])
    assert (bolt[1]
            not in (bolt[0], bolt[2], int(first.http_url.rsplit(":", 1)[1]), int(info.http_url.rsplit(":", 1)[1])))
    assert "HTTP enabled" not in starts[1]
    assert "HTTP enabled" in starts[0] and "HTTP enabled" in starts[2]
