"""Stored credentials of the servers kalma-graph started, so the rest of the product finds them.

One JSON file per server home in ``<user config dir>/kalma-graph/neo4j/<instance>.json`` (the
folder is 0700, each file 0600) holding ``uri``, ``user`` and ``password``. ``$KALMA_NEO4J_CREDENTIALS_DIR``
moves the folder (tests use it). :func:`credentials_for` maps a Bolt URI back to ``(user, password)``.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs

from kalma_graph.files import atomic_write_text

from .paths import APP_NAME, Layout

CREDENTIALS_DIR_ENV = "KALMA_NEO4J_CREDENTIALS_DIR"
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "0:0:0:0:0:0:0:1"}
_BOLT_SCHEMES = {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}


@dataclass(frozen=True)
class StoredCredentials:
    """One credentials file. The password is left out of repr/str, so logging the record is safe."""

    instance: str
    home: str
    uri: str
    user: str
    password: str = field(repr=False)
    http_url: str | None = None
    updated_at: float = 0.0


def credentials_dir() -> Path:
    override = os.environ.get(CREDENTIALS_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "neo4j"


def instance_name(home: Path | str) -> str:
    """Stable per home: ``<folder name>-<8 hex of the absolute path>``."""
    path = Layout.of(home).home
    return f"{path.name}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"


def credentials_path(home: Path | str) -> Path:
    return credentials_dir() / f"{instance_name(home)}.json"


def generate_password() -> str:
    """32 URL-safe random characters (Neo4j's minimum is 8), never starting with "-": neo4j-admin reads an argument
    that starts with one as an option, and `set-initial-password -x…` failed with "Missing required parameter"."""
    while True:
        password = secrets.token_urlsafe(24)
        if not password.startswith("-"):
            return password


def save_credentials(
    home: Path | str, uri: str, user: str, password: str, http_url: str | None = None
) -> Path:
    """Write the credentials file atomically with mode 0600 (folder 0700)."""
    folder = credentials_dir()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    target = credentials_path(home)
    record = StoredCredentials(
        instance=instance_name(home),
        home=str(Layout.of(home).home),
        uri=uri,
        user=user,
        password=password,
        http_url=http_url,
        updated_at=time.time(),
    )
    # Created 0600 from the start: the password is never readable by others, not even briefly.
    atomic_write_text(target, json.dumps(asdict(record), indent=2) + "\n", mode=0o600)
    return target


def _read(path: Path) -> StoredCredentials | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        fields = StoredCredentials.__dataclass_fields__
        return StoredCredentials(**{k: v for k, v in data.items() if k in fields})
    except (OSError, ValueError, TypeError):
        return None


def load_credentials(home: Path | str) -> StoredCredentials | None:
    path = credentials_path(home)
    return _read(path) if path.is_file() else None


def delete_credentials(home: Path | str) -> bool:
    path = credentials_path(home)
    if path.is_file():
        path.unlink()
        return True
    return False


def _endpoint(uri: str) -> tuple[str, int] | None:
    """``(host, port)`` with loopback names folded together; None for a non-Bolt URI."""
    try:
        parts = urlsplit(uri.strip())
        port = parts.port or 7687
    except ValueError:
        return None
    if parts.scheme.lower() not in _BOLT_SCHEMES or not parts.hostname:
        return None
    host = parts.hostname.lower()
    return ("localhost" if host in _LOOPBACK else host), port


def credentials_for(uri: str) -> tuple[str, str] | None:
    """``(user, password)`` recorded for the server at ``uri`` by ``kalma-graph neo4j start``.

    ``bolt://`` and ``neo4j://`` of the same host and port match, as do ``localhost``/``127.0.0.1``.
    When several homes were served on the same port over time, the most recently started wins.
    """
    wanted = _endpoint(uri)
    folder = credentials_dir()
    if wanted is None or not folder.is_dir():
        return None
    matches = [
        cred
        for path in folder.glob("*.json")
        if (cred := _read(path)) is not None and _endpoint(cred.uri) == wanted
    ]
    if not matches:
        return None
    best = max(matches, key=lambda c: c.updated_at)
    return best.user, best.password
