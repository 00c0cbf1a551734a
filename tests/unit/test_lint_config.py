"""Issue 45: ruff and mypy are configured in pyproject.toml, pinned, and run by CI before the tests
(scripts/lint.sh from .ci/run). What the settings must keep saying: long lines are an error, and the verifier,
the pipeline and the evaluation type every function."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRICT = {"kalma_graph.verification.*", "kalma_graph.pipeline.*", "kalma_graph.evaluation.*"}


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_ruff_checks_pyflakes_pycodestyle_imports_and_bugbear_at_120_columns():
    ruff = pyproject()["tool"]["ruff"]
    assert ruff["line-length"] == 120 and ruff["target-version"] == "py311"
    lint = ruff["lint"]
    assert {"E", "F", "W", "I", "B"} <= set(lint["select"])
    ignored = set(lint.get("ignore", [])) | {code for codes in lint.get("per-file-ignores", {}).values()
                                              for code in codes}
    assert not {"E", "E5", "E50", "E501", "F", "W", "I", "B"} & ignored, ignored


def test_mypy_types_every_function_of_the_verifier_the_pipeline_and_the_evaluation():
    mypy = pyproject()["tool"]["mypy"]
    assert mypy["python_version"] == "3.11"
    strict = {module for override in mypy["overrides"] if override.get("disallow_untyped_defs")
              for module in override["module"]}
    assert STRICT <= strict
    # missing imports are ignored library by library, never for the whole project
    assert not mypy.get("ignore_missing_imports")
    for override in mypy["overrides"]:
        if override.get("ignore_missing_imports"):
            assert not any(m.startswith("kalma_graph") for m in override["module"]), override


def test_ruff_and_mypy_are_pinned_and_installed_with_every_extra():
    project = pyproject()["project"]
    extras = project["optional-dependencies"]
    assert {re.split(r"[<>=]", r)[0] for r in extras["lint"]} == {"ruff", "mypy"}
    assert "lint" in re.search(r"\[(.*)\]", extras["all"][0]).group(1).split(",")  # scripts/setup.sh installs all
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
                if "==" in line and not line.startswith("#"))
    assert "ruff" in pins and "mypy" in pins


def test_ci_lints_before_it_tests():
    lint = (ROOT / "scripts" / "lint.sh").read_text(encoding="utf-8")
    assert "ruff check" in lint and "mypy kalma_graph" in lint
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.index("scripts/lint.sh") < next(i for i, line in enumerate(ci) if line.startswith("scripts/test.sh"))
