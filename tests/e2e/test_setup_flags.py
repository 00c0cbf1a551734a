"""The llama-cpp-python build `scripts/setup.sh` picks: CUDA where nvcc is, portable AVX2 elsewhere."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "llama_build_flags.py"
spec = importlib.util.spec_from_file_location("llama_build_flags", SCRIPT)
flags = importlib.util.module_from_spec(spec)
spec.loader.exec_module(flags)


def _fake_nvcc(folder):
    folder.mkdir(parents=True, exist_ok=True)
    nvcc = folder / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools'\n")
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IXUSR)
    return nvcc


def test_without_nvcc_the_build_is_portable(tmp_path):
    flavour, args = flags.pick({"PATH": str(tmp_path)})
    assert flavour == "portable-avx2"
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_AVX2=ON" in args and "GGML_CUDA" not in args
    assert "-DGGML_AMX_TILE=OFF" in args  # a VM's advertised AMX must not reach the wheel


def test_nvcc_on_path_builds_cuda(tmp_path):
    _fake_nvcc(tmp_path / "bin")
    flavour, args = flags.pick({"PATH": str(tmp_path / "bin")})
    assert flavour == "cuda" and args.startswith("-DGGML_CUDA=on ") and "-DGGML_NATIVE=OFF" in args


def test_nvcc_under_cuda_home(tmp_path):
    _fake_nvcc(tmp_path / "cuda" / "bin")
    assert flags.pick({"PATH": str(tmp_path), "CUDA_HOME": str(tmp_path / "cuda")})[0] == "cuda"


def test_override_and_its_error(tmp_path):
    _fake_nvcc(tmp_path)
    assert flags.pick({"PATH": str(tmp_path), "KALMA_LLAMA_FLAVOUR": "portable-avx2"})[0] == "portable-avx2"
    with pytest.raises(SystemExit, match="KALMA_LLAMA_FLAVOUR"):
        flags.pick({"KALMA_LLAMA_FLAVOUR": "metal"})


def test_the_script_prints_what_setup_reads(tmp_path):
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.path.dirname(sys.executable)}"}
    env.pop("KALMA_LLAMA_FLAVOUR", None)
    env.pop("CUDA_HOME", None)
    env.pop("CUDA_PATH", None)
    out = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, check=True).stdout
    flavour, args = out.rstrip("\n").split("\t")
    assert (flavour, args) == ("portable-avx2", flags.PORTABLE)
    assert "llama_build_flags.py" in (REPO / "scripts" / "setup.sh").read_text()
