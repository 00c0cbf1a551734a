"""Which software made a result: the installed versions of the libraries a header names, read from the
package metadata (never by importing them: llama_cpp may not load where a report is written)."""

from __future__ import annotations

from importlib import metadata
from typing import Callable, Iterable


def library_versions(dists: Iterable[str], *, missing: str | None = None,
                     key: Callable[[str], str] = str) -> dict[str, str | None]:
    """`{key(dist): installed version}` in the order given; `missing` for a distribution not installed.

    >>> library_versions(["no-such-distribution-kalma"], missing="not installed")
    {'no-such-distribution-kalma': 'not installed'}
    """
    out: dict[str, str | None] = {}
    for dist in dists:
        try:
            out[key(dist)] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[key(dist)] = missing
    return out
