#!/usr/bin/env bash
# Create .venv and install kalma-graph with every extra, at the versions in constraints.txt (the `lint`
# extra brings ruff and mypy, which scripts/lint.sh runs).
# Idempotent and quick when nothing changed. llama-cpp-python compiles from source the first
# time (~11 min on 2 cores); pip keeps the built wheel in its cache for later runs.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
"$PYTHON" - <<'PY' || { echo "kalma-graph needs Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.kalma-installed
want=$(cat pyproject.toml setup.py constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --upgrade "pip>=24" wheel "setuptools>=77"
  # llama-cpp-python ships only as source: CUDA when nvcc is here, else one portable AVX2 wheel
  # (scripts/llama_build_flags.py says why), built once per machine and flavour.
  llama=$(sed -n 's/^llama_cpp_python==//p' constraints.txt)
  IFS=$'\t' read -r flavour cmake_args < <(.venv/bin/python scripts/llama_build_flags.py)
  wheels="${KALMA_WHEEL_CACHE:-$HOME/.cache/kalma-graph/wheels}/llama-$flavour"
  if ! ls "$wheels"/llama_cpp_python-"$llama"-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python $llama ($flavour, ~11 min on 2 cores; cached in $wheels)"
    mkdir -p "$wheels"
    CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
      "llama-cpp-python==$llama" -w "$wheels"
  fi
  .venv/bin/python -m pip install --quiet -c constraints.txt --find-links "$wheels" -e ".[all]"
  echo "$want" > "$stamp"
fi
.venv/bin/kalma-graph --version
