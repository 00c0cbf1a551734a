"""tests/unit: no database, no model, no kalma-graph process. Every test here runs with the doors to
those shut, so a unit test that starts to open a store or load weights fails at once, naming the
door, instead of quietly making the fast suite slow (it belongs in tests/e2e then)."""

from __future__ import annotations

import importlib
import subprocess

import pytest

_DOORS = (  # (module, attribute path): what opens a database or loads a model
    ("ladybug", "Database"),
    ("neo4j", "GraphDatabase.driver"),
    ("llama_cpp", "Llama"),
    ("spacy", "load"),
    ("transformers", "AutoModelForSequenceClassification.from_pretrained"),
    ("transformers", "AutoTokenizer.from_pretrained"),
    ("sentence_transformers", "SentenceTransformer"),
)


def _warm_matplotlib_font_cache() -> None:
    """Matplotlib lists the system fonts with `fc-list` (a subprocess) the first time it is imported
    on a machine; on a fresh one that would trip the subprocess door in the first unit test that
    draws a plot. Build its cache before any door is shut."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.font_manager  # noqa: F401
    except ImportError:
        pass


_warm_matplotlib_font_cache()


class UnitTestLeftItsLane(RuntimeError):
    """A unit test reached a database, a model or a subprocess."""


def _shut(what: str):
    def door(*args, **kwargs):
        raise UnitTestLeftItsLane(f"{what} in a unit test: move the test to tests/e2e")
    return door


@pytest.fixture(autouse=True)
def _no_database_no_model(monkeypatch):
    for module_name, path in _DOORS:
        try:
            target = importlib.import_module(module_name)
        except ImportError:
            continue
        *parents, attribute = path.split(".")
        for name in parents:
            target = getattr(target, name)
        door = _shut(f"{module_name}.{path}")
        monkeypatch.setattr(target, attribute, staticmethod(door) if isinstance(target, type) else door)
    monkeypatch.setattr(subprocess, "Popen", _shut("a subprocess"))
