"""A local Neo4j Community 5.26 LTS server without Docker, assembled from Maven Central.

    from kalma_graph.neo4j_server import default_home, install, start, stop, credentials_for

    home = default_home()                # $KALMA_NEO4J_HOME or <user data dir>/kalma-graph/neo4j-5.26.30
    install(home, with_apoc=True)        # Maven -> home/lib (+ home/plugins), sha256-verified, idempotent
    info = start(home)                   # auth on: random password, stored 0600 in the user config dir
    credentials_for(info.uri)            # -> ("neo4j", "<password>") for the rest of the product
    stop(home)

Needs ``java`` (17 or 21) and ``mvn`` on PATH; the CLI is ``kalma-graph neo4j install|start|stop|status``.
"""

from __future__ import annotations

from .config import ServerConfig, read_config, render_config, write_config
from .credentials import (
    credentials_dir,
    credentials_for,
    credentials_path,
    delete_credentials,
    load_credentials,
    save_credentials,
)
from .errors import (
    ChecksumError,
    JavaError,
    MavenError,
    Neo4jServerError,
    NotInstalledError,
    StartupError,
)
from .installer import apoc_installed, install, is_installed, verify_installation, write_lockfile
from .paths import Layout, default_home
from .server import ServerInfo, free_port, port_is_free, port_is_open, running_pid, start, status, stop
from .throwaway import throwaway_home, throwaway_server
from .versions import APOC_VERSION, BROWSER_VERSION, NEO4J_VERSION

__all__ = [
    "throwaway_home",
    "throwaway_server",
    "APOC_VERSION",
    "BROWSER_VERSION",
    "NEO4J_VERSION",
    "ChecksumError",
    "JavaError",
    "Layout",
    "MavenError",
    "Neo4jServerError",
    "NotInstalledError",
    "ServerConfig",
    "ServerInfo",
    "StartupError",
    "apoc_installed",
    "credentials_dir",
    "credentials_for",
    "credentials_path",
    "default_home",
    "delete_credentials",
    "free_port",
    "install",
    "is_installed",
    "load_credentials",
    "port_is_free",
    "port_is_open",
    "read_config",
    "render_config",
    "running_pid",
    "save_credentials",
    "start",
    "status",
    "stop",
    "verify_installation",
    "write_config",
    "write_lockfile",
]
