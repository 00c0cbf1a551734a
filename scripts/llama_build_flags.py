#!/usr/bin/env python3
"""Which llama-cpp-python build this machine gets (`scripts/setup.sh` asks; tests/e2e/test_setup_flags.py
checks). Prints `FLAVOUR<TAB>CMAKE_ARGS`.

- `cuda`: `nvcc` on PATH (or in $CUDA_HOME/bin) → GGML_CUDA=on, so the answer and judge models
  offload every layer to the GPU (`n_gpu_layers=-1` is the default when llama.cpp has a GPU);
- `portable-avx2`: otherwise. Not `-march=native`: a VM may advertise instructions it does not run
  (AMX: SIGILL at the first token), and the wheel should move between machines of one kind.

`KALMA_LLAMA_FLAVOUR=cuda|portable-avx2` overrides the detection.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PORTABLE = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
            "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF")
# The CPU part of a CUDA build stays portable too; CUDA kernels for the GPUs of this decade.
CUDA = f"-DGGML_CUDA=on {PORTABLE}"
FLAVOURS = {"cuda": CUDA, "portable-avx2": PORTABLE}


def find_nvcc(environ: dict[str, str] | None = None) -> str | None:
    environ = dict(os.environ if environ is None else environ)
    found = shutil.which("nvcc", path=environ.get("PATH"))
    if found:
        return found
    home = environ.get("CUDA_HOME") or environ.get("CUDA_PATH")
    candidate = Path(home) / "bin" / "nvcc" if home else None
    return str(candidate) if candidate is not None and os.access(candidate, os.X_OK) else None


def pick(environ: dict[str, str] | None = None) -> tuple[str, str]:
    """(flavour, CMAKE_ARGS) for this machine."""
    environ = dict(os.environ if environ is None else environ)
    forced = environ.get("KALMA_LLAMA_FLAVOUR")
    if forced:
        if forced not in FLAVOURS:
            raise SystemExit(f"KALMA_LLAMA_FLAVOUR must be one of {', '.join(FLAVOURS)}, not {forced!r}")
        return forced, FLAVOURS[forced]
    flavour = "cuda" if find_nvcc(environ) else "portable-avx2"
    return flavour, FLAVOURS[flavour]


if __name__ == "__main__":
    flavour, args = pick()
    sys.stdout.write(f"{flavour}\t{args}\n")
