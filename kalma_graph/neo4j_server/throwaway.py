"""Throwaway servers for tests and benchmarks: a home of their own, the user's verified jars.

Data, configuration and logs live in the throwaway home, and auth is off there, so nothing a test or a
benchmark does (clearing the database, rewriting the configuration) reaches the user's own server,
its password or its data.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .installer import install
from .paths import default_home
from .server import ServerInfo, free_port, start, stop


def throwaway_home(parent: Path | str, jars: Path | str | None = None) -> Path:
    """A fresh home under `parent` sharing the verified jars of `jars` (default: the installed home,
    installed first if needed) through symlinks."""
    jars = Path(jars) if jars is not None else default_home()
    install(jars)
    home = Path(parent) / "neo4j-home"
    home.mkdir(parents=True, exist_ok=False)
    (home / "lib").symlink_to(jars / "lib", target_is_directory=True)
    if (jars / "plugins").is_dir():
        (home / "plugins").symlink_to(jars / "plugins", target_is_directory=True)
    return home


@contextmanager
def throwaway_server(parent: Path | str | None = None, **settings: Any) -> Iterator[ServerInfo]:
    """A server started in a throwaway home (under `parent`, else a temporary directory removed
    afterwards) on free ports with auth off; stopped on exit. `settings`: `start`'s memory and
    collector options (`heap_max`, `pagecache`, `gc`, …)."""
    with tempfile.TemporaryDirectory(prefix="kalma-neo4j-") as tmp:
        home = throwaway_home(parent if parent is not None else tmp)
        info = start(home, bolt_port=free_port(), http_port=free_port(), auth=False, **settings)
        try:
            yield info
        finally:
            stop(home)
