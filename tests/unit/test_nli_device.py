"""Device / dtype selection logic (kalma_graph.models.device): fake CUDA flags, no GPU needed."""

from __future__ import annotations

import pytest

from kalma_graph.models.device import DEVICE_ENV, DeviceInfo, pick_device


@pytest.fixture(autouse=True)
def _no_device_env(monkeypatch):
    monkeypatch.delenv(DEVICE_ENV, raising=False)


@pytest.mark.parametrize(
    "prefer, cuda, count, dtype, expected",
    [
        (None, False, 0, None, ("cpu", "float32")),
        ("auto", False, 0, None, ("cpu", "float32")),
        (None, True, 1, None, ("cuda:0", "float16")),
        ("auto", True, 2, None, ("cuda:0", "float16")),
        ("cpu", True, 1, None, ("cpu", "float32")),
        ("cuda", True, 1, None, ("cuda:0", "float16")),
        ("cuda:1", True, 2, None, ("cuda:1", "float16")),
        ("CUDA:1", True, 2, "fp32", ("cuda:1", "float32")),
        ("cuda", True, 1, "bf16", ("cuda:0", "bfloat16")),
        ("cpu", False, 0, "bfloat16", ("cpu", "bfloat16")),
        ("cpu", False, 0, "auto", ("cpu", "float32")),
    ],
)
def test_selection(prefer, cuda, count, dtype, expected):
    info = pick_device(prefer, dtype=dtype, cuda_available=cuda, cuda_device_count=count, cuda_name="Fake GPU",
                       cpu_threads=2)
    assert (info.device, info.dtype) == expected
    assert info.is_cuda == expected[0].startswith("cuda")
    assert info.name == ("Fake GPU" if info.is_cuda else "CPU (2 threads)")


def test_fp16_only_on_cuda():
    with pytest.raises(ValueError, match="float16 is only used on CUDA"):
        pick_device("cpu", dtype="float16", cuda_available=False)
    with pytest.raises(ValueError, match="float16"):
        pick_device("auto", dtype="fp16", cuda_available=False)  # auto resolved to CPU: still refused


def test_asking_for_missing_cuda_fails_loudly():
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        pick_device("cuda", cuda_available=False)
    with pytest.raises(RuntimeError, match="only 1 CUDA device"):
        pick_device("cuda:1", cuda_available=True, cuda_device_count=1, cuda_name="x")


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "cuda:-1", "gpu0"])
def test_unknown_device_names(bad):
    with pytest.raises(ValueError):
        pick_device(bad, cuda_available=True, cuda_device_count=1, cuda_name="x")


def test_unknown_dtype():
    with pytest.raises(ValueError, match="unknown dtype"):
        pick_device("cpu", dtype="int8", cuda_available=False)


def test_environment_supplies_preference(monkeypatch):
    monkeypatch.setenv(DEVICE_ENV, "cpu")
    assert pick_device(None, cuda_available=True, cuda_device_count=1, cuda_name="x").device == "cpu"
    # an explicit argument wins over the environment
    assert pick_device("cuda", cuda_available=True, cuda_device_count=1, cuda_name="x").device == "cuda:0"


def test_probe_on_this_machine_is_consistent():
    torch = pytest.importorskip("torch")
    info = pick_device()
    assert info.is_cuda == torch.cuda.is_available()
    assert info.torch_dtype == (torch.float16 if info.is_cuda else torch.float32)
    assert isinstance(info, DeviceInfo) and str(info).startswith(info.device)
