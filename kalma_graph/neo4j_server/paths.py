"""Where a server home keeps its parts, and where the default home is."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from .versions import NEO4J_VERSION

HOME_ENV = "KALMA_NEO4J_HOME"
APP_NAME = "kalma-graph"


def default_home(version: str = NEO4J_VERSION) -> Path:
    """``$KALMA_NEO4J_HOME`` if set, else ``<user data dir>/kalma-graph/neo4j-<version>``."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_data_dir(APP_NAME)) / f"neo4j-{version}"


@dataclass(frozen=True)
class Layout:
    """The directories and files of one server home (all absolute)."""

    home: Path

    @classmethod
    def of(cls, home: Path | str | None) -> Layout:
        return cls(Path(home).expanduser().resolve() if home is not None else default_home())

    @property
    def lib(self) -> Path:
        return self.home / "lib"

    @property
    def plugins(self) -> Path:
        return self.home / "plugins"

    @property
    def conf_dir(self) -> Path:
        return self.home / "conf"

    @property
    def conf(self) -> Path:
        return self.conf_dir / "neo4j.conf"

    @property
    def data(self) -> Path:
        return self.home / "data"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def run(self) -> Path:
        return self.home / "run"

    @property
    def import_dir(self) -> Path:
        return self.home / "import"

    @property
    def maven(self) -> Path:
        """The generated Maven project(s) used to fetch the jars."""
        return self.home / "maven"

    @property
    def pid_file(self) -> Path:
        return self.run / "neo4j.pid"

    @property
    def console_log(self) -> Path:
        return self.logs / "console.log"

    @property
    def neo4j_log(self) -> Path:
        return self.logs / "neo4j.log"

    @property
    def system_db(self) -> Path:
        """Exists once the server has started at least once (users live in the system database)."""
        return self.data / "databases" / "system"


@contextlib.contextmanager
def home_lock(home: Path, name: str) -> Iterator[None]:
    """Serialise one kind of operation (install, start/stop) on a home across processes.

    A POSIX advisory lock on ``home/.<name>.lock``; a no-op where ``fcntl`` does not exist.
    """
    home.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(home / f".{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def apoc_installed(home: Path | str | None = None) -> bool:
    """APOC Core is in the home's plugins folder."""
    return any(Layout.of(home).plugins.glob("apoc-core-*.jar"))
