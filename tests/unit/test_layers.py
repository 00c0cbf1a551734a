"""The import rules of docs/architecture.md, checked on the source: each package of kalma_graph
imports only from the packages below it (module-level and function-level imports alike)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "kalma_graph"

BASE = {"text", "files", "records", "evaluation_result", "shards"}
INFRA = BASE | {"store", "neo4j_server"}
# package -> the packages it may import (itself always allowed)
ALLOWED: dict[str, set[str]] = {
    "text": set(),
    "files": set(),
    "shards": {"files"},  # --shard I/N and merging what shards wrote (answers files, directories of caches)
    "records": set(),  # the typed records that cross package boundaries (pydantic only)
    "evaluation_result": set(),  # the typed evaluation result, results.json (pydantic only)
    "prompts": set(),
    "reporting": {"files", "evaluation_result"},
    "store": INFRA,
    "neo4j_server": INFRA,
    "models": BASE | {"prompts"},
    "ingest": INFRA,
    "retrieval": INFRA | {"models"},
    "generation": INFRA | {"models", "prompts", "retrieval"},
    "verification": INFRA | {"retrieval"},  # the graph-grounded verifier (no model in stage one)
    "evaluation": INFRA | {"ingest", "models", "prompts", "reporting", "retrieval", "verification"},
}
BELOW_FEATURES = set(ALLOWED)
FEATURES = {"pipeline", "caqa", "sck", "nli", "biokalma"}
for feature in FEATURES:
    # a feature (a paper's stage) builds on the layers below, never on another feature
    ALLOWED[feature] = set(BELOW_FEATURES)
ALLOWED["experiments"] = BELOW_FEATURES | FEATURES
ALLOWED["__main__"] = {"cli"}


def _imports(path: Path) -> set[str]:
    """kalma_graph packages a module imports (first component after kalma_graph)."""
    module = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    if path.name == "__init__.py":
        package = module.removesuffix(".__init__")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            names = [importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level
                     else node.module or ""]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "kalma_graph" and len(parts) > 1:
                found.add(parts[1])
    return found


MODULES = sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


def _package(path: Path) -> str:
    first = path.relative_to(ROOT).parts[0]
    return first.removesuffix(".py")


def test_every_package_has_a_rule():
    assert {_package(p) for p in MODULES} - {"__init__"} <= set(ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path):
    package = _package(path)
    if package == "__init__":
        return
    wrong = _imports(path) - ALLOWED[package] - {package}
    assert not wrong, f"{path.relative_to(ROOT.parent)} imports {sorted(wrong)}; {package} may import {sorted(ALLOWED[package])}"
