"""The one place that reads Cypher text: named files in `cypher/` (shipped as `kalma_graph.cypher`)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

BACKENDS = ("embedded", "neo4j")


@lru_cache(maxsize=None)
def load(name: str, backend: str) -> str:
    """Text of the named statement for a backend: `<name>.<backend>.cypher`, else `<name>.cypher`."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
    root = resources.files("kalma_graph.cypher")
    for filename in (f"{name}.{backend}.cypher", f"{name}.cypher"):
        path = root.joinpath(filename)
        if path.is_file():
            return path.read_text(encoding="utf-8").strip()
    raise KeyError(f"no Cypher statement named {name!r} for backend {backend!r} in cypher/")


def load_script(name: str, backend: str) -> list[str]:
    """A `;`-separated multi-statement file (schema bootstrap) as a list of statements."""
    return [part.strip() for part in load(name, backend).split(";") if part.strip()]


def names() -> list[str]:
    """Every statement name shipped, without backend suffixes (for docs and tests)."""
    found = set()
    for path in resources.files("kalma_graph.cypher").iterdir():
        if path.name.endswith(".cypher"):
            stem = path.name[: -len(".cypher")]
            for backend in BACKENDS:
                stem = stem.removesuffix("." + backend)
            found.add(stem)
    return sorted(found)
