#!/usr/bin/env bash
# Static checks, as CI runs them before the tests (.ci/run): ruff over the whole checkout (pyflakes, pycodestyle,
# import order, bugbear at 120 columns: pyproject.toml [tool.ruff]) and mypy over the package ([tool.mypy]).
# Sets up .venv if needed: ruff and mypy come with the `lint` extra, pinned in constraints.txt.
# Extra arguments go to ruff (`scripts/lint.sh --fix` applies its safe fixes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
status=0
.venv/bin/ruff check "$@" . || status=1
.venv/bin/mypy kalma_graph || status=1
exit $status
