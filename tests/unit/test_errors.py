"""Issue 45: one error root. Every exception class kalma_graph defines derives from `KalmaError`, its exit code is
one of the table in `kalma_graph/errors.py`, and the CLI turns one into a one-line message and that exit code."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import kalma_graph
from kalma_graph.errors import EXIT_CODES, BadInputError, KalmaError

ROOT = Path(__file__).resolve().parents[2]

# Not KalmaErrors, on purpose (the module docstring of kalma_graph/errors.py says why).
EXEMPT = {
    "kalma_graph.pipeline.answer.AnswerInterrupted": "a KeyboardInterrupt: as an Exception, `except Exception` "
                                                     "would swallow Ctrl-C",
    "kalma_graph.files.TornLineWarning": "a warning, issued with warnings.warn, never raised",
}


def _classes_in(owner: object, module: str) -> list[type]:
    found = []
    for obj in vars(owner).values():
        if inspect.isclass(obj) and obj.__module__ == module:
            found.append(obj)
            found += _classes_in(obj, module)  # classes nested in a class
    return found


def project_exceptions() -> dict[str, type[BaseException]]:
    """Every BaseException subclass defined in a module of kalma_graph (each module imported; `__main__`, which
    runs the CLI, is only `if __name__ == "__main__"` and defines none)."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(kalma_graph.__path__, "kalma_graph."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        module = importlib.import_module(info.name)  # an unimportable module fails here, not silently
        for cls in _classes_in(module, info.name):
            if issubclass(cls, BaseException):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


EXCEPTIONS = project_exceptions()


def test_the_walk_finds_the_project_errors():
    assert len(EXCEPTIONS) > 40
    for name in ("kalma_graph.store.base.StoreError", "kalma_graph.lines.InputError", "kalma_graph.sck.run.InputError",
                 "kalma_graph.neo4j_server.errors.ChecksumError", "kalma_graph.models.registry.HashMismatchError",
                 *EXEMPT):
        assert name in EXCEPTIONS, name


@pytest.mark.parametrize("name", sorted(set(EXCEPTIONS) - set(EXEMPT)))
def test_every_project_exception_derives_from_kalma_error(name):
    assert issubclass(EXCEPTIONS[name], KalmaError), (
        f"{name} does not derive from kalma_graph.errors.KalmaError: give it a category of kalma_graph/errors.py "
        "(BadInputError, ...) and keep the built-in base its callers catch")


def test_the_exempt_ones_are_what_they_say():
    assert issubclass(EXCEPTIONS["kalma_graph.pipeline.answer.AnswerInterrupted"], KeyboardInterrupt)
    assert not issubclass(EXCEPTIONS["kalma_graph.pipeline.answer.AnswerInterrupted"], Exception)
    assert issubclass(EXCEPTIONS["kalma_graph.files.TornLineWarning"], Warning)


@pytest.mark.parametrize("name", sorted(n for n, c in EXCEPTIONS.items() if issubclass(c, KalmaError)))
def test_every_exit_code_is_in_the_table(name):
    cls = EXCEPTIONS[name]
    assert type(cls.exit_code) is int and cls.exit_code in EXIT_CODES, (name, cls.exit_code)
    # a class exits with its category's code: the category of the table that carries that code
    assert issubclass(cls, EXIT_CODES[cls.exit_code]), (name, cls.exit_code)


def test_the_built_in_bases_are_kept():
    """Callers catch these as the built-ins they were (`except ValueError`, `except FileNotFoundError`)."""
    from kalma_graph.models.nli import NLIModelNotFound
    from kalma_graph.prompts import PromptError

    for name, base in [("kalma_graph.lines.InputError", ValueError),
                       ("kalma_graph.files.CorruptJsonlError", ValueError),
                       ("kalma_graph.store.base.StoreError", RuntimeError),
                       ("kalma_graph.experiments.filters.FilterError", LookupError),
                       ("kalma_graph.neo4j_server.errors.Neo4jServerError", RuntimeError)]:
        assert issubclass(EXCEPTIONS[name], base), name
    assert issubclass(NLIModelNotFound, FileNotFoundError) and issubclass(PromptError, KeyError)
    assert str(NLIModelNotFound("no model at x")) == "no model at x"


def _documented(text: str) -> dict[int, str]:
    """`| 2 | `BadInputError` | ...` rows of a Markdown table: exit code -> class name."""
    return {int(code): name for code, name in re.findall(r"^\| (\d+) \| `(\w+)` \|", text, re.M)}


def test_the_table_is_documented_where_it_is_read():
    table = {code: cls.__name__ for code, cls in EXIT_CODES.items()}
    import kalma_graph.errors as errors

    assert _documented(errors.__doc__) == table
    for doc in (ROOT / "docs" / "CONTRIBUTING.md", ROOT / "README.md"):
        assert _documented(doc.read_text(encoding="utf-8")) == table, doc
    assert KalmaError.exit_code == 1 and BadInputError.exit_code == 2


# --- through the CLI -------------------------------------------------------------------------------------

def _bad_answers(tmp_path: Path) -> Path:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answer": "fine"}\n{"question": "no answer"}\n', encoding="utf-8")
    return bad


def test_a_bad_input_file_is_one_line_and_exit_2_through_the_cli(tmp_path):
    """`verify` reads its input before it opens the store: the VerifyInputError (a BadInputError) reaches the one
    handler round the command group, which prints one line naming file:line and exits 2, without a traceback."""
    from kalma_graph.cli.main import cli

    bad = _bad_answers(tmp_path)
    result = CliRunner().invoke(cli, ["verify", str(bad), "--store", f"embedded:{tmp_path / 'never.lbdb'}"])
    assert result.exit_code == BadInputError.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}:2: "), result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "never.lbdb").exists()


def test_main_exits_with_the_class_exit_code(tmp_path, monkeypatch, capsys):
    """`kalma-graph` itself (the console script's `main`), not only the group a test runner calls."""
    from kalma_graph.cli.main import main

    bad = _bad_answers(tmp_path)
    monkeypatch.setattr(sys, "argv", ["kalma-graph", "verify", str(bad), "--store", f"embedded:{tmp_path / 'n.lbdb'}"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {bad}:2: ")


def test_a_kalma_error_of_another_category_exits_with_its_own_code(monkeypatch):
    """The handler reads the code from the class: a server error (category 1) raised by a command exits 1."""
    from kalma_graph.cli.main import cli
    from kalma_graph.neo4j_server.errors import StartupError

    def refuse(path):
        raise StartupError("Neo4j did not start: see its log")

    monkeypatch.setattr("kalma_graph.evaluation.verify.read_items", refuse)  # imported by the command as it runs
    result = CliRunner().invoke(cli, ["verify", "answers.jsonl"])
    assert result.exit_code == 1 and result.stderr == "error: Neo4j did not start: see its log\n", result.output
