#!/usr/bin/env bash
# Create .venv and install kalma-graph with every extra, at the versions in constraints.txt.
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
  .venv/bin/python -m pip install --quiet --upgrade "pip>=24" wheel "setuptools>=69"
  # llama-cpp-python ships only as source. A default build uses -march=native, which can emit
  # instructions a VM advertises but does not run (AMX: SIGILL at the first token), and the wheel
  # would not move between machines. Build one portable AVX2 wheel, once per machine.
  llama=$(sed -n 's/^llama_cpp_python==//p' constraints.txt)
  wheels="${KALMA_WHEEL_CACHE:-$HOME/.cache/kalma-graph/wheels}/llama-portable-avx2"
  if ! ls "$wheels"/llama_cpp_python-"$llama"-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python $llama (portable AVX2, ~11 min on 2 cores; cached in $wheels)"
    mkdir -p "$wheels"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \
      CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      .venv/bin/python -m pip wheel --quiet --no-deps --no-cache-dir --no-binary llama-cpp-python \
      "llama-cpp-python==$llama" -w "$wheels"
  fi
  .venv/bin/python -m pip install --quiet -c constraints.txt --find-links "$wheels" -e ".[all]"
  echo "$want" > "$stamp"
fi
.venv/bin/kalma-graph --version
