"""The ``conf/neo4j.conf`` of a server home: writing it, reading it back, and the JVM command it implies.

The file is the single source of truth for a home: :func:`write_config` produces it and
:func:`jvm_options` derives the JVM flags from it the way Neo4j's own launcher (``bin/neo4j``)
does, so a home can also be started by hand with the stock ``neo4j`` scripts if someone wants to.

What it guarantees: Bolt and HTTP listen on 127.0.0.1 only, HTTPS is off, the HTTP connector sends
``Access-Control-Allow-Origin: http://127.0.0.1:<http port>`` (the Browser's own origin) instead of
Neo4j's default ``*``, so a web page from elsewhere cannot read the HTTP API's answers, and every
transaction that sets no timeout of its own is stopped after ``db.transaction.timeout``
(``KALMA_NEO4J_TX_TIMEOUT_S``, see :mod:`kalma_graph.store.timeouts`). Neo4j validates the file
strictly at start (``server.config.strict_validation.enabled`` is on by default): an unknown or
repeated setting stops the server.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kalma_graph.files import atomic_write_text

from .paths import Layout, apoc_installed

#: `db.transaction.timeout` of the neo4j.conf this launcher writes: the server's limit for clients that set none
#: (Browser, cypher-shell); 0 = none. The store's own per-query limits are `store.timeouts`' (which lists this too).
SERVER_TX_TIMEOUT_ENV = "KALMA_NEO4J_TX_TIMEOUT_S"
DEFAULT_SERVER_TX_S = 3600.0


def server_tx_timeout_s() -> float:
    """`$KALMA_NEO4J_TX_TIMEOUT_S`, else 3600 s; a value that is not 0 or more seconds is a ValueError naming it."""
    return env_seconds(SERVER_TX_TIMEOUT_ENV, DEFAULT_SERVER_TX_S)


def env_seconds(name: str, default: float, *, allow_zero: bool = True) -> float:
    """Seconds from the environment variable `name` (unset or empty: `default`); ValueError naming it otherwise.
    The store's timeouts are read with it too (`store.timeouts`)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number of seconds") from None
    if value < 0 or value != value or value == float("inf") or (value == 0 and not allow_zero):
        bound = "0 (no limit) or more" if allow_zero else "more than 0"
        raise ValueError(f"{name}={raw!r}: must be {bound} seconds")
    return value

#: The ``server.jvm.additional`` defaults of the neo4j.conf that Neo4j 5.26 ships (G1, module
#: opens for Netty/NIO on Java 17+, native access, no JMX for log4j, …).
DEFAULT_JVM_ADDITIONAL: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+AlwaysPreTouch",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
)

#: Garbage collectors `--gc` offers: the flag that takes the place of the shipped ``-XX:+UseG1GC``.
#: G1 is Neo4j's default (short pauses while queries run); with a 2 GB heap the parallel collector
#: made bulk loads through the driver about a tenth faster on two cores (1M statements: 17.4-18.8k
#: statements/s against 15.6-17.1k with the defaults; docs/ingest.md).
GC_FLAGS = {"g1": "-XX:+UseG1GC", "parallel": "-XX:+UseParallelGC"}
DEFAULT_GC = "g1"

#: Laptop-sized memory defaults: ~1.5 GB resident in total, enough for the sample dumps and
#: subsets of a few million statements. Raise them for big graphs (``--heap``/``--pagecache``).
DEFAULT_HEAP_INITIAL = "512m"
DEFAULT_HEAP_MAX = "1g"
DEFAULT_PAGECACHE = "512m"

_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def initial_heap(heap_max: str) -> str:
    """The heap a server with a maximum of `heap_max` starts with: `DEFAULT_HEAP_INITIAL`, or the
    maximum where that is smaller (what `neo4j start --heap` passes)."""
    def size(value: str, name: str) -> int:
        norm = _size(value, name)
        return int(norm[:-1]) * _UNITS[norm[-1]]

    return heap_max if size(heap_max, "heap_max") < size(DEFAULT_HEAP_INITIAL, "heap_initial") else DEFAULT_HEAP_INITIAL


LISTEN_HOST = "127.0.0.1"

_SIZE_RE = re.compile(r"^\d+[kmg]$")
_MANAGED_HEADER = (
    "# Managed by kalma-graph: `kalma-graph neo4j start` rewrites this file on every start.\n"
    "# Bound to 127.0.0.1 only. Neo4j Browser: http://{host}:{http}/browser/  Bolt: bolt://{host}:{bolt}\n"
)


@dataclass(frozen=True)
class ServerConfig:
    """The settings kalma-graph reads back from a home's neo4j.conf."""

    bolt_port: int
    http_port: int
    auth: bool
    heap_initial: str
    heap_max: str
    pagecache: str
    jvm_additional: tuple[str, ...]
    host: str = LISTEN_HOST

    @property
    def uri(self) -> str:
        return f"bolt://{self.host}:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    @property
    def browser_url(self) -> str:
        return f"{self.http_url}/browser/"


def _size(value: str, name: str) -> str:
    norm = str(value).strip().lower()
    if not _SIZE_RE.match(norm):
        raise ValueError(f"{name} must look like 512m or 2g, got {value!r}")
    return norm


def _port(value: int, name: str) -> int:
    if not isinstance(value, int) or not 0 < value < 65536:
        raise ValueError(f"{name} must be a TCP port (1-65535), got {value!r}")
    return value


def render_config(
    home: Path | str,
    bolt_port: int = 7687,
    http_port: int = 7474,
    auth: bool = True,
    *,
    heap_initial: str = DEFAULT_HEAP_INITIAL,
    heap_max: str = DEFAULT_HEAP_MAX,
    pagecache: str = DEFAULT_PAGECACHE,
    apoc: bool = False,
    http_enabled: bool = True,
    tx_timeout_s: float | None = None,
    gc: str = DEFAULT_GC,
) -> str:
    """The text of neo4j.conf for ``home`` (pure; :func:`write_config` writes it).

    ``http_enabled=False`` turns the HTTP connector (and Browser) off, as for the password
    recovery start; ``tx_timeout_s`` None takes ``KALMA_NEO4J_TX_TIMEOUT_S`` (default 1 h; 0 = none).
    """
    layout = Layout.of(home)
    bolt, http = _port(bolt_port, "bolt_port"), _port(http_port, "http_port")
    if bolt == http:
        raise ValueError("bolt_port and http_port must differ")
    heap_initial, heap_max = _size(heap_initial, "heap_initial"), _size(heap_max, "heap_max")
    pagecache = _size(pagecache, "pagecache")
    if gc not in GC_FLAGS:
        raise ValueError(f"gc must be one of {', '.join(GC_FLAGS)}, got {gc!r}")
    if tx_timeout_s is None:
        tx_timeout_s = server_tx_timeout_s()
    if tx_timeout_s < 0:
        raise ValueError(f"tx_timeout_s must be 0 (no limit) or more, got {tx_timeout_s!r}")
    host = LISTEN_HOST
    lines = [
        _MANAGED_HEADER.format(host=host, http=http, bolt=bolt),
        "# Network: loopback only",
        f"server.default_listen_address={host}",
        f"server.default_advertised_address={host}",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address={host}:{bolt}",
        f"server.bolt.advertised_address={host}:{bolt}",
        f"server.http.enabled={'true' if http_enabled else 'false'}",
        f"server.http.listen_address={host}:{http}",
        f"server.http.advertised_address={host}:{http}",
        "server.https.enabled=false",
        "# No CORS wildcard (Neo4j's default is *): only pages served by this server read its HTTP API",
        f"dbms.security.http_access_control_allow_origin={browser_origin(http)}",
        "",
        "# Directories (all inside the home)",
        *(f"server.directories.{key}={folder.as_posix()}" for key, folder in (
            ("data", layout.data), ("logs", layout.logs), ("run", layout.run), ("lib", layout.lib),
            ("plugins", layout.plugins), ("import", layout.import_dir))),
        "",
        "# Security",
        f"dbms.security.auth_enabled={'true' if auth else 'false'}",
    ]
    if apoc:
        lines += [
            "# APOC Core is installed in plugins/: let its procedures use internal APIs.",
            "dbms.security.procedures.unrestricted=apoc.*",
        ]
    lines += [
        "",
        "# Transactions that set no timeout of their own (Browser, cypher-shell) stop after this",
        f"db.transaction.timeout={_duration(tx_timeout_s)}",
        "",
        "# Memory (laptop-sized; change with --heap / --pagecache)",
        f"server.memory.heap.initial_size={heap_initial}",
        f"server.memory.heap.max_size={heap_max}",
        f"server.memory.pagecache.size={pagecache}",
        "",
        "# No usage reports (works offline)",
        "dbms.usage_report.enabled=false",
        "",
        f"# JVM flags, as in the neo4j.conf shipped with Neo4j 5.26 (garbage collector: {gc}; change with --gc)",
        *(f"server.jvm.additional={GC_FLAGS[gc] if flag == GC_FLAGS[DEFAULT_GC] else flag}"
          for flag in DEFAULT_JVM_ADDITIONAL),
    ]
    return "\n".join(lines) + "\n"


def browser_origin(http_port: int, host: str = LISTEN_HOST) -> str:
    """The origin Neo4j Browser is served from: the only one the HTTP API answers cross-origin."""
    return f"http://{host}:{http_port}"


def _duration(seconds: float) -> str:
    """A Neo4j duration: whole milliseconds (``0s`` = no limit)."""
    ms = round(seconds * 1000)
    return "0s" if ms <= 0 else (f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms")


def write_config(home: Path | str, *ports_and_auth: Any, apoc: bool | None = None, **settings: Any) -> Path:
    """Write ``home/conf/neo4j.conf`` (:func:`render_config`'s text, with the same ports, auth and
    settings) and create the home's folders; returns the file's path.

    ``apoc=None`` detects APOC Core in ``home/plugins`` (only then are its procedures unrestricted).
    """
    layout = Layout.of(home)
    if apoc is None:
        apoc = apoc_installed(layout.home)
    text = render_config(layout.home, *ports_and_auth, apoc=apoc, **settings)
    for folder in (layout.conf_dir, layout.data, layout.logs, layout.run, layout.plugins, layout.import_dir):
        folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(layout.conf, text)
    return layout.conf


def parse_conf(text: str) -> dict[str, list[str]]:
    """``key -> [values]`` (a key may repeat, e.g. ``server.jvm.additional``)."""
    settings: dict[str, list[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def read_config(home: Path | str) -> ServerConfig | None:
    """The settings of ``home/conf/neo4j.conf``; ``None`` when the file does not exist."""
    layout = Layout.of(home)
    if not layout.conf.is_file():
        return None
    s = parse_conf(layout.conf.read_text(encoding="utf-8"))

    def one(key: str, default: str) -> str:
        return s.get(key, [default])[-1]

    def port(key: str, default: int) -> int:
        value = one(key, f":{default}")
        return int(value.rsplit(":", 1)[-1]) if ":" in value else default

    return ServerConfig(
        bolt_port=port("server.bolt.listen_address", 7687),
        http_port=port("server.http.listen_address", 7474),
        auth=one("dbms.security.auth_enabled", "true").lower() == "true",
        heap_initial=one("server.memory.heap.initial_size", DEFAULT_HEAP_INITIAL),
        heap_max=one("server.memory.heap.max_size", DEFAULT_HEAP_MAX),
        pagecache=one("server.memory.pagecache.size", DEFAULT_PAGECACHE),
        jvm_additional=tuple(s.get("server.jvm.additional", [])),
    )


def jvm_options(config: ServerConfig) -> list[str]:
    """JVM flags in the order Neo4j's launcher uses: the additional flags, encoding, heap."""
    return [
        *config.jvm_additional,
        "-Dfile.encoding=UTF-8",
        f"-Xms{config.heap_initial}",
        f"-Xmx{config.heap_max}",
    ]


def classpath(home: Path | str) -> str:
    """``lib/*:plugins/*:conf/*``: the verified server jars first, so no jar in ``plugins/`` can
    shadow a server class (Neo4j's own launcher puts ``plugins/*`` first)."""
    layout = Layout.of(home)
    return os.pathsep.join(str(folder / "*") for folder in (layout.lib, layout.plugins, layout.conf_dir))
