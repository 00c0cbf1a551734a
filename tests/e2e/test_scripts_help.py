"""Every script under scripts/ and bench/ at least imports and prints its --help, and every shell script parses
(issue 45: a script nobody runs rots, as scripts/screenshot_browser.py once did; this is how we notice)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sorted(p for folder in ("scripts", "bench") for p in (ROOT / folder).glob("*.py"))
SCRIPTS = [p for p in PYTHON if '__name__ == "__main__"' in p.read_text(encoding="utf-8")]
MODULES = [p for p in PYTHON if p not in SCRIPTS]  # helpers the scripts import (bench/sample_store.py)
SHELL = sorted(p for folder in ("scripts", "bench", ".ci") for p in (ROOT / folder).glob("*.sh")) + [ROOT / ".ci/run"]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_python_script_prints_its_help(script):
    done = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip(), f"{script.name}: {done.stderr[-2000:]}"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_helper_module_imports(module):
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(module.parent)!r}); "
                                                 f"import {module.stem}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("script", SHELL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shell_script_parses(script):
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
