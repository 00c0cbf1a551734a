"""Errors raised by the local Neo4j server manager. All derive from :class:`Neo4jServerError`."""

from __future__ import annotations

from kalma_graph.errors import KalmaError


class Neo4jServerError(KalmaError, RuntimeError):
    """Anything that stops installing, configuring, starting or stopping the local server."""


class JavaError(Neo4jServerError):
    """``java`` is missing or too old."""


class MavenError(Neo4jServerError):
    """``mvn`` is missing or failed to resolve the pinned artifacts."""


class ChecksumError(Neo4jServerError):
    """A downloaded jar does not match the committed lockfile (or the lockfile is missing)."""


class NotInstalledError(Neo4jServerError):
    """The server home has no (complete) installation."""


class StartupError(Neo4jServerError):
    """The server died or did not answer Bolt in time; the message carries the log tails."""
