"""Start, stop and inspect a local Neo4j server running from a home made by :func:`install`.

The server is ``java -cp plugins/*:conf/*:lib/* org.neo4j.server.CommunityEntryPoint
--home-dir=HOME --config-dir=HOME/conf`` with the JVM flags of ``conf/neo4j.conf`` — the command
Neo4j's own ``bin/neo4j start`` builds — detached in its own session, output to
``logs/console.log``, pid in ``run/neo4j.pid``.

With auth on, the first start generates a random password, records it (0600) in the user config
dir and sets it with Neo4j's supported ``neo4j-admin dbms set-initial-password`` (run as
``org.neo4j.cli.AdminTool`` from the same jars, the password passed through a 0600 argument file so
it never shows in the process list) before the database is first created.

Every start first re-checks the jars against the pinned lockfile (:func:`installer.verify_jars`,
cached by size and mtime), and refuses to start a home whose database was protected by a password
with authentication off unless forced. A lost password is reset by one start with auth off on a
random free port with HTTP off, so neither Browser nor the usual ports are open meanwhile.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .config import (
    DEFAULT_GC,
    DEFAULT_HEAP_INITIAL,
    DEFAULT_HEAP_MAX,
    DEFAULT_PAGECACHE,
    LISTEN_HOST,
    ServerConfig,
    classpath,
    jvm_options,
    read_config,
    write_config,
)
from .credentials import credentials_path, generate_password, load_credentials, save_credentials
from .errors import Neo4jServerError, NotInstalledError, StartupError
from .installer import is_installed, require_verified_jars
from .paths import Layout, apoc_installed, home_lock
from .process import _CHILDREN, _pid_alive, running_pid  # noqa: F401 - running_pid: this module's API too
from .tooling import JavaInfo, require_java
from .versions import ADMIN_MAIN_CLASS, NEO4J_USER, NEO4J_VERSION, SERVER_MAIN_CLASS

#: Where console.log and neo4j.log ended when each server was launched, so errors show only its output.
_LOG_OFFSETS: dict[int, tuple[int, int]] = {}


@dataclass(frozen=True)
class ServerInfo:
    """How to reach a running server. ``password`` is None when auth is off; it is left out of the
    object's repr/str (and masked by :meth:`to_dict`), so printing or logging the info never shows it."""

    uri: str
    http_url: str
    user: str | None
    password: str | None = field(repr=False)
    pid: int
    home: str
    browser_url: str
    auth: bool
    already_running: bool = False
    startup_seconds: float | None = None
    #: The start's jar check: jars ``hashed`` in full, ``cached`` (unchanged since verified), ``seconds``.
    jar_check: dict[str, float] | None = None

    @property
    def auth_tuple(self) -> tuple[str, str] | None:
        """``(user, password)`` for ``GraphDatabase.driver(uri, auth=...)``; None without auth."""
        return (self.user or NEO4J_USER, self.password) if self.auth and self.password else None

    def to_dict(self, *, reveal_password: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if data["password"] and not reveal_password:
            data["password"] = "********"
        return data


# --- small helpers -------------------------------------------------------------------------------
def free_port(host: str = LISTEN_HOST) -> int:
    """A TCP port that was free on ``host`` a moment ago (bind to port 0). For tests."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_free(port: int, host: str = LISTEN_HOST) -> bool:
    """True when nothing listens on ``host:port`` (SO_REUSEADDR, as the JVM binds with it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def port_is_open(port: int, host: str = LISTEN_HOST, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _tail(path: Path, offset: int = 0, lines: int = 30) -> str:
    """The last ``lines`` lines written to ``path`` after byte ``offset`` (this start's output)."""
    try:
        with path.open("rb") as handle:
            if offset <= _size(path):
                handle.seek(offset)
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return "(no file)"
    chunk = [line[:500] for line in text.strip().splitlines()[-lines:]]
    return "\n".join(chunk) if chunk else "(nothing written)"


def _diagnostics(layout: Layout, pid: int | None = None) -> str:
    console_at, log_at = _LOG_OFFSETS.get(pid, (0, 0)) if pid is not None else (0, 0)
    return (
        f"--- {layout.console_log} (this start) ---\n{_tail(layout.console_log, console_at)}\n"
        f"--- {layout.neo4j_log} (this start) ---\n{_tail(layout.neo4j_log, log_at)}"
    )


# --- password ------------------------------------------------------------------------------------
def _admin_env(layout: Layout) -> dict[str, str]:
    env = dict(os.environ)
    env["NEO4J_HOME"] = str(layout.home)
    env["NEO4J_CONF"] = str(layout.conf_dir)
    return env


def set_initial_password(home: Path | str, password: str, java: JavaInfo | None = None) -> None:
    """``neo4j-admin dbms set-initial-password`` for a home whose database was never started.

    The password goes through a 0600 ``@argfile`` (expanded by the ``java`` launcher) so it never
    appears in the process list.
    """
    layout = Layout.of(home)
    java = java or require_java()
    if layout.system_db.exists():
        raise Neo4jServerError(
            f"{layout.data} already holds a database; the initial password can only be set before the first start"
        )
    fd, argfile = tempfile.mkstemp(prefix="admin-", suffix=".args", dir=layout.run)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for arg in ("-Xmx256m", "-cp", str(layout.lib / "*"), ADMIN_MAIN_CLASS, "dbms", "set-initial-password"):
                handle.write(_argfile_quote(arg) + "\n")
            handle.write(_argfile_quote(password) + "\n")
        proc = subprocess.run(
            [java.path, f"@{argfile}"],
            env=_admin_env(layout),
            cwd=layout.home,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        os.unlink(argfile)
    if proc.returncode != 0:
        raise Neo4jServerError(
            f"neo4j-admin dbms set-initial-password failed (exit {proc.returncode}):\n"
            f"{(proc.stdout + proc.stderr).strip()[-3000:]}"
        )
    auth_ini = layout.data / "dbms" / "auth.ini"
    if auth_ini.exists():
        os.chmod(auth_ini, 0o600)


def _argfile_quote(arg: str) -> str:
    # java @argfiles: double quotes group, backslash escapes inside quotes.
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _recover_password(
    layout: Layout, java: JavaInfo, password: str, write_conf: Callable[..., Path], wait_s: float, avoid: set[int]
) -> int:
    """The Operations Manual's recovery for a lost admin password: start once with auth off,
    ``ALTER USER neo4j SET PASSWORD``, stop. Used when the data was created without a stored
    password (e.g. by an earlier ``--no-auth`` start). That start listens on 127.0.0.1 only, on a
    random free Bolt port (not the one clients know) and with HTTP off (no Browser), for the few
    seconds it takes. Returns the port it used."""
    import neo4j

    port = free_port()
    while port in avoid:
        port = free_port()
    write_conf(False, bolt=port, http_enabled=False)
    proc = _launch(layout, java)
    uri = f"bolt://{LISTEN_HOST}:{port}"
    try:
        _wait_for_bolt(layout, uri, None, proc.pid, time.monotonic() + wait_s)
        with neo4j.GraphDatabase.driver(uri, auth=None, connection_timeout=15.0) as driver:
            driver.execute_query(
                f"ALTER USER {NEO4J_USER} SET PASSWORD $password CHANGE NOT REQUIRED",
                password=password,
                database_="system",
            )
    finally:
        _stop(layout)
    return port


def _auth_protection(layout: Layout) -> str | None:
    """Why this home's database is protected by a password, or None when it is not (never
    started, or only ever started with auth off)."""
    if not layout.system_db.exists():
        return None
    if load_credentials(layout.home) is not None:
        return f"its password is recorded in {credentials_path(layout.home)}"
    previous = read_config(layout.home)
    if previous is not None and previous.auth:
        return f"{layout.conf} shows it was last started with authentication on"
    return None


# --- launching -----------------------------------------------------------------------------------
def server_command(home: Path | str, java: str, config: ServerConfig) -> list[str]:
    layout = Layout.of(home)
    return [
        java,
        "-cp",
        classpath(layout.home),
        *jvm_options(config),
        SERVER_MAIN_CLASS,
        f"--home-dir={layout.home}",
        f"--config-dir={layout.conf_dir}",
    ]


def _launch(layout: Layout, java: JavaInfo) -> subprocess.Popen[bytes]:
    config = read_config(layout.home)
    if config is None:
        raise Neo4jServerError(f"{layout.conf} is missing")
    cmd = server_command(layout.home, java.path, config)
    layout.logs.mkdir(parents=True, exist_ok=True)
    layout.run.mkdir(parents=True, exist_ok=True)
    offsets = (_size(layout.console_log), _size(layout.neo4j_log))
    with open(layout.console_log, "ab") as console:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        console.write(f"=== {stamp} kalma-graph starts Neo4j: {' '.join(cmd)}\n".encode())
        console.flush()
        kwargs: dict[str, Any] = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS  # type: ignore[attr-defined]
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            cwd=layout.home,
            env=_admin_env(layout),
            close_fds=True,
            **kwargs,
        )
    _CHILDREN[proc.pid] = proc
    _LOG_OFFSETS[proc.pid] = offsets
    tmp = layout.pid_file.with_suffix(".tmp")
    tmp.write_text(f"{proc.pid}\n")
    tmp.replace(layout.pid_file)
    return proc


def _wait_for_bolt(layout: Layout, uri: str, auth: tuple[str, str] | None, pid: int, deadline: float) -> None:
    """Return once Bolt accepts ``auth`` and answers a query; :class:`StartupError` otherwise."""
    import neo4j
    from neo4j.exceptions import AuthError, DriverError, Neo4jError

    port = int(uri.rsplit(":", 1)[1])
    last_error = "Bolt port not open yet"
    while True:
        if not _pid_alive(pid):
            proc = _CHILDREN.get(pid)
            code = proc.returncode if proc is not None else "?"
            raise StartupError(
                f"Neo4j (pid {pid}) exited with code {code} during startup.\n{_diagnostics(layout, pid)}"
            )
        if time.monotonic() > deadline:
            raise StartupError(
                f"Neo4j (pid {pid}) did not answer on {uri} in time (last: {last_error}).\n{_diagnostics(layout, pid)}"
            )
        if port_is_open(port):
            try:
                with neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=5.0) as driver:
                    driver.verify_connectivity()
                    driver.execute_query("RETURN 1")
                return
            except AuthError as exc:
                raise StartupError(
                    f"Neo4j at {uri} refused the stored credentials for user {auth[0] if auth else '?'}: {exc}.\n"
                    f"The password in {credentials_path(layout.home)} no longer matches the database "
                    f"in {layout.data}; restore it, or delete that data folder to start afresh."
                ) from exc
            except (Neo4jError, DriverError, OSError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
        time.sleep(0.5)


def _info(layout: Layout, config: ServerConfig, pid: int, **extra: Any) -> ServerInfo:
    creds = load_credentials(layout.home) if config.auth else None
    return ServerInfo(
        uri=config.uri,
        http_url=config.http_url,
        user=(creds.user if creds else NEO4J_USER) if config.auth else None,
        password=creds.password if creds else None,
        pid=pid,
        home=str(layout.home),
        browser_url=config.browser_url,
        auth=config.auth,
        **extra,
    )


# --- public API ----------------------------------------------------------------------------------
def start(
    home: Path | str | None = None,
    bolt_port: int = 7687,
    http_port: int = 7474,
    auth: bool = True,
    wait_s: float = 120,
    *,
    heap_initial: str = DEFAULT_HEAP_INITIAL,
    heap_max: str = DEFAULT_HEAP_MAX,
    pagecache: str = DEFAULT_PAGECACHE,
    version: str = NEO4J_VERSION,
    force: bool = False,
    gc: str = DEFAULT_GC,
) -> ServerInfo:
    """Start the server of ``home`` in the background and wait until Bolt answers.

    If it is already running (and answers), its current info is returned (``already_running``)
    and the arguments are ignored. With ``auth=True`` a password is generated on the first start
    and stored (see :mod:`.credentials`); ``auth=False`` is for throwaway test servers, and is
    refused for a home whose database is protected by a password unless ``force``. The jars are
    checked against the pinned lockfile first (:class:`ChecksumError` when they do not match). On a
    startup failure or timeout the process is stopped and :class:`StartupError` carries the tails
    of ``logs/console.log`` and ``logs/neo4j.log``.
    """
    t0 = time.monotonic()
    layout = Layout.of(home)
    if not is_installed(layout.home, version):
        raise NotInstalledError(
            f"Neo4j {version} is not installed in {layout.home}: run `kalma-graph neo4j install` first"
        )
    with home_lock(layout.home, "server"):
        return _start(layout, t0, bolt_port, http_port, auth, wait_s, heap_initial, heap_max, pagecache, version, force,
                      gc)


def _refuse_to_start(layout: Layout, bolt_port: int, http_port: int, *, auth: bool, force: bool) -> None:
    """A port already taken, or a database created with auth started without it (unless forced)."""
    for name, port in (("Bolt", bolt_port), ("HTTP", http_port)):
        if not port_is_free(port):
            raise Neo4jServerError(
                f"{name} port {port} on {LISTEN_HOST} is already in use (another Neo4j?); "
                "choose another with --bolt-port/--http-port"
            )
    if not auth and not force and (why := _auth_protection(layout)) is not None:
        raise Neo4jServerError(
            f"refusing to start {layout.home} without authentication: its database was created with "
            f"auth on ({why}), and with --no-auth anyone on this machine could read and write it. "
            "Start it with auth (drop --no-auth), or pass --force to start it without auth anyway."
        )


def _start(
    layout: Layout,
    t0: float,
    bolt_port: int,
    http_port: int,
    auth: bool,
    wait_s: float,
    heap_initial: str,
    heap_max: str,
    pagecache: str,
    version: str = NEO4J_VERSION,
    force: bool = False,
    gc: str = DEFAULT_GC,
) -> ServerInfo:
    pid = running_pid(layout.home)
    if pid is not None:
        config = read_config(layout.home)
        if config is None:
            raise Neo4jServerError(f"a server runs from {layout.home} (pid {pid}) but {layout.conf} is missing")
        info = _info(layout, config, pid, already_running=True)
        _wait_for_bolt(layout, info.uri, info.auth_tuple, pid, t0 + wait_s)
        return info

    java = require_java()
    _refuse_to_start(layout, bolt_port, http_port, auth=auth, force=force)
    t_jars = time.monotonic()
    counts = require_verified_jars(layout.home, version)
    jar_check = {**counts, "seconds": round(time.monotonic() - t_jars, 3)}

    def write_conf(auth_enabled: bool, bolt: int = bolt_port, http_enabled: bool = True) -> Path:
        return write_config(
            layout.home,
            bolt,
            http_port,
            auth_enabled,
            heap_initial=heap_initial,
            heap_max=heap_max,
            pagecache=pagecache,
            http_enabled=http_enabled,
            gc=gc,
        )

    write_conf(auth)  # first: the admin tool reads the data directory from it
    uri = f"bolt://{LISTEN_HOST}:{bolt_port}"
    http_url = f"http://{LISTEN_HOST}:{http_port}"
    password: str | None = None
    if auth:
        stored = load_credentials(layout.home)
        if not layout.system_db.exists():
            password = stored.password if stored else generate_password()
            # Record before setting, so a crash in between never loses the password.
            save_credentials(layout.home, uri, NEO4J_USER, password, http_url)
            set_initial_password(layout.home, password, java)
        elif stored is not None:
            password = stored.password
        else:
            password = generate_password()
            save_credentials(layout.home, uri, NEO4J_USER, password, http_url)
            _recover_password(layout, java, password, write_conf, wait_s, avoid={bolt_port, http_port})
            write_conf(auth)

    proc = _launch(layout, java)
    auth_tuple = (NEO4J_USER, password) if auth and password else None
    try:
        _wait_for_bolt(layout, uri, auth_tuple, proc.pid, t0 + wait_s)
    except BaseException:
        _stop(layout, timeout_s=30)
        raise
    if auth and password:
        save_credentials(layout.home, uri, NEO4J_USER, password, http_url)  # current ports
    config = read_config(layout.home)
    assert config is not None
    return _info(layout, config, proc.pid, startup_seconds=round(time.monotonic() - t0, 2), jar_check=jar_check)


def stop(home: Path | str | None = None, timeout_s: float = 60) -> dict[str, Any]:
    """SIGTERM the server of ``home`` and wait (Neo4j checkpoints on the way down); SIGKILL only
    after ``timeout_s``. Removes the pid file. Returns ``was_running``, ``pid``, ``forced``, ``seconds``."""
    layout = Layout.of(home)
    if not layout.home.is_dir():
        return {"home": str(layout.home), "was_running": False, "pid": None, "forced": False, "seconds": 0.0}
    with home_lock(layout.home, "server"):
        return _stop(layout, timeout_s)


def _stop(layout: Layout, timeout_s: float = 60) -> dict[str, Any]:
    t0 = time.monotonic()
    pid = running_pid(layout.home)
    if pid is None:
        layout.pid_file.unlink(missing_ok=True)
        return {"home": str(layout.home), "was_running": False, "pid": None, "forced": False, "seconds": 0.0}
    forced = False
    _signal(pid, signal.SIGTERM)
    if not _wait_gone(pid, timeout_s):
        forced = True
        _signal(pid, getattr(signal, "SIGKILL", signal.SIGTERM), group=True)
        if not _wait_gone(pid, 15):
            raise Neo4jServerError(f"Neo4j (pid {pid}) survived SIGKILL; check the process by hand")
    proc = _CHILDREN.pop(pid, None)
    _LOG_OFFSETS.pop(pid, None)
    if proc is not None:
        proc.wait(timeout=5)
    layout.pid_file.unlink(missing_ok=True)
    return {
        "home": str(layout.home),
        "was_running": True,
        "pid": pid,
        "forced": forced,
        "seconds": round(time.monotonic() - t0, 2),
    }


def _signal(pid: int, sig: int, group: bool = False) -> None:
    try:
        if group and hasattr(os, "killpg"):
            os.killpg(pid, sig)  # own session => pgid == pid
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return True
        time.sleep(0.2)
    return not _pid_alive(pid)


def status(home: Path | str | None = None, version: str = NEO4J_VERSION) -> dict[str, Any]:
    """What is installed in ``home`` and whether its server runs (no hashing, no driver)."""
    layout = Layout.of(home)
    config = read_config(layout.home)
    pid = running_pid(layout.home)
    creds = load_credentials(layout.home)
    jars = sorted(layout.lib.glob("neo4j-[0-9]*.jar")) if layout.lib.is_dir() else []
    return {
        "home": str(layout.home),
        "version": version,
        "installed_version": jars[0].stem.removeprefix("neo4j-") if jars else None,
        "installed": is_installed(layout.home, version),
        "apoc": apoc_installed(layout.home),
        "configured": config is not None,
        "running": pid is not None,
        "pid": pid,
        "uri": config.uri if config else None,
        "http_url": config.http_url if config else None,
        "browser_url": config.browser_url if config else None,
        "bolt_listening": bool(pid and config and port_is_open(config.bolt_port)),
        "auth": config.auth if config else None,
        "user": (creds.user if creds else NEO4J_USER) if config and config.auth else None,
        "credentials_file": str(credentials_path(layout.home)) if creds else None,
    }
