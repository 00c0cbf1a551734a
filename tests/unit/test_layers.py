"""The import rules of docs/architecture.md, checked on the source: each package of kalma_graph
imports only from the packages below it (module-level and function-level imports alike)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "kalma_graph"

BASE = {"text", "files", "lines", "records", "metric_fields", "evaluation_result", "shards", "kg", "provenance"}
INFRA = BASE | {"store", "neo4j_server"}
# package -> the packages it may import (itself always allowed)
ALLOWED: dict[str, set[str]] = {
    "text": set(),
    "files": set(),
    "lines": set(),  # the input line reader: plain or compressed, strict UTF-8, `file:line` in every error
    "provenance": set(),  # which library versions made a result
    # what every stage shares: Entity and Triple, the knowledge block, the citation parser
    "kg": {"text"},
    "shards": {"files"},  # --shard I/N and merging what shards wrote (answers files, directories of caches)
    "records": set(),  # the typed records that cross package boundaries (pydantic only)
    "metric_fields": set(),  # the metric registry: each metric's summary fields and per-answer columns
    "evaluation_result": {"metric_fields"},  # the typed evaluation result, results.json (pydantic only)
    "prompts": set(),
    "reporting": {"files", "metric_fields", "evaluation_result"},
    "store": INFRA,
    # the launcher needs nothing of the store (the store reads the launcher's credentials and settings)
    "neo4j_server": BASE,
    "models": BASE | {"prompts"},
    "ingest": INFRA,
    "retrieval": INFRA | {"models"},
    "generation": INFRA | {"models", "prompts", "retrieval"},
    "verification": INFRA | {"retrieval"},  # the graph-grounded verifier (no model in stage one)
    # does a statement rest on its triples: one interface and one registry of evaluators for every stage
    "attribution": INFRA | {"models", "verification"},
    "evaluation": INFRA | {"models", "prompts", "reporting", "retrieval", "verification", "attribution"},
}
BELOW_FEATURES = set(ALLOWED)
FEATURES = {"pipeline", "caqa", "sck", "nli", "biokalma"}
for feature in FEATURES:
    # a feature (a paper's stage) builds on the layers below, never on another feature
    ALLOWED[feature] = set(BELOW_FEATURES)
ALLOWED["experiments"] = BELOW_FEATURES | FEATURES
ALLOWED["cli"] = BELOW_FEATURES | FEATURES | {"experiments"}  # thin commands over every layer
ALLOWED["__main__"] = {"cli"}
# the root of every error (kalma_graph/errors.py) sits below everything: any package may raise one
ALLOWED["errors"] = set()
for _package in ALLOWED:
    if _package != "errors":
        ALLOWED[_package].add("errors")


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
    assert not wrong, (f"{path.relative_to(ROOT.parent)} imports {sorted(wrong)}; "
                       f"{package} may import {sorted(ALLOWED[package])}")



def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
    return name.removesuffix(".__init__")


MODULE_NAMES = {_module_name(p) for p in MODULES}


def _module_imports(path: Path) -> set[str]:
    """The kalma_graph modules a module imports, at module level or inside functions (`from pkg import sub`
    counts as importing the submodule)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = (importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level
                    else node.module or "")
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULE_NAMES else base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in MODULE_NAMES and m != module}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_round_a_circle():
    """Issue 35: no import cycles, counting imports inside functions (a function-level import hides a cycle from
    the interpreter, not from a reader: the two modules can be understood only together)."""
    graph = {_module_name(p): _module_imports(p) for p in MODULES}
    assert _cycles(graph) == []


def test_no_package_imports_one_that_imports_it_back():
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        package = _package(path)
        graph.setdefault(package, set()).update(_imports(path) - {package})
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# names that live in the base layer and were once imported sideways from the store, retrieval or evaluation
SHARED = {"Entity", "Triple", "knowledge_block", "knowledge_blocks", "is_unlabelled", "unlabelled", "Citation",
          "ParsedAnswer", "Sentence", "parse_answer", "render_citation", "locate_marks", "from_attribute_first",
          "HYPOTHESES", "prop_value", "possessive", "the_of_sentence", "plain_sentence", "pos_sentence", "relation_pos"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_names_come_from_the_base_layer(path):
    """Issue 35: a stage imports Entity, Triple, the knowledge block and the citation parser from
    `kalma_graph.kg`, not from another stage that happens to use them (the store may re-export its records)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    wrong = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = (importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level
                  else node.module or "")
        parts = source.split(".")
        if parts[0] != "kalma_graph" or len(parts) < 2 or parts[1] in {"kg", _package(path)}:
            continue
        wrong += [f"{alias.name} from {source}" for alias in node.names if alias.name in SHARED]
    assert not wrong, f"{path.relative_to(ROOT.parent)} imports {wrong}: import them from kalma_graph.kg"



def test_no_function_is_over_80_lines():
    """Issue 35: a function longer than a screen and a half does several things; split it by concern (its
    decorators are not counted)."""
    long = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 80:
                long.append(f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} "
                            f"({node.end_lineno - node.lineno + 1} lines)")
    assert not long, long
