"""The one place that decides where a model runs (CPU or a CUDA GPU) and in which dtype.

Every model wrapper (NLI, NER, embeddings) calls `pick_device` and records the returned
`DeviceInfo` in its run header, so a report always says which device produced it.

Rules:
- `prefer` is `None`/`"auto"` (a CUDA GPU when one is present, else the CPU), `"cpu"`, `"cuda"` or
  `"cuda:N"`. The environment variable `KALMA_DEVICE` supplies `prefer` when the caller passes None.
- Asking for CUDA where there is none is an error, never a silent fall-back to the CPU.
- The dtype defaults to float16 on CUDA and float32 on the CPU; float16 is refused on the CPU (slow
  and numerically poor there). bfloat16 may be asked for explicitly on either.

The decision is a pure function of its inputs: tests pass `cuda_available` (and friends) to check
the selection logic without a GPU; when they are left as None, torch is asked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

DEVICE_ENV = "KALMA_DEVICE"
_DTYPES = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class DeviceInfo:
    device: str  # "cpu" | "cuda:0" | ...
    dtype: str  # "float32" | "float16" | "bfloat16"
    name: str  # human-readable: "CPU (2 threads)", "NVIDIA H100 80GB HBM3"

    @property
    def is_cuda(self) -> bool:
        return self.device.startswith("cuda")

    @property
    def torch_dtype(self) -> torch.dtype:
        import torch

        return getattr(torch, self.dtype)

    def as_dict(self) -> dict[str, str]:
        return {"device": self.device, "dtype": self.dtype, "name": self.name}

    def __str__(self) -> str:
        return f"{self.device} ({self.name}, {self.dtype})"


def pick_device(
    prefer: str | None = None,
    *,
    dtype: str | None = None,
    cuda_available: bool | None = None,
    cuda_device_count: int | None = None,
    cuda_name: str | None = None,
    cpu_threads: int | None = None,
) -> DeviceInfo:
    """Choose the device and dtype for a model.

    >>> pick_device("auto", cuda_available=False, cpu_threads=2)
    DeviceInfo(device='cpu', dtype='float32', name='CPU (2 threads)')
    >>> pick_device(None, cuda_available=True, cuda_device_count=1, cuda_name="GPU X")
    DeviceInfo(device='cuda:0', dtype='float16', name='GPU X')
    """
    if prefer is None:
        prefer = os.environ.get(DEVICE_ENV) or "auto"
    prefer = prefer.strip().lower()
    if dtype is not None:
        dtype = dtype.strip().lower()
        if dtype in ("fp16", "half"):
            dtype = "float16"
        elif dtype in ("fp32", "float"):
            dtype = "float32"
        elif dtype in ("bf16",):
            dtype = "bfloat16"
        elif dtype == "auto":
            dtype = None
        if dtype is not None and dtype not in _DTYPES:
            raise ValueError(f"unknown dtype {dtype!r}; use one of {', '.join(_DTYPES)} or 'auto'")

    if cuda_available is None:
        cuda_available, cuda_device_count = _probe_cuda()
    elif cuda_device_count is None:
        cuda_device_count = 1 if cuda_available else 0

    if prefer in ("auto", ""):
        device = "cuda:0" if cuda_available else "cpu"
    elif prefer == "cpu":
        device = "cpu"
    elif prefer == "cuda" or prefer.startswith("cuda:"):
        if not cuda_available:
            raise RuntimeError(f"device {prefer!r} was asked for but no CUDA GPU is available")
        index = 0 if prefer == "cuda" else _cuda_index(prefer)
        count = cuda_device_count or 0
        if index >= count:
            raise RuntimeError(f"device {prefer!r} was asked for but only {count} CUDA device(s) exist")
        device = f"cuda:{index}"
    else:
        raise ValueError(f"unknown device {prefer!r}; use 'auto', 'cpu', 'cuda' or 'cuda:N'")

    if device == "cpu":
        if dtype == "float16":
            raise ValueError("float16 is only used on CUDA; on the CPU use float32 (or bfloat16)")
        threads = cpu_threads if cpu_threads is not None else _cpu_threads()
        return DeviceInfo("cpu", dtype or "float32", f"CPU ({threads} threads)")
    name = cuda_name if cuda_name is not None else _cuda_name(int(device.split(":")[1]))
    return DeviceInfo(device, dtype or "float16", name)


def _cuda_index(prefer: str) -> int:
    try:
        index = int(prefer.split(":", 1)[1])
    except ValueError:
        raise ValueError(f"bad CUDA device {prefer!r}; expected 'cuda:N'") from None
    if index < 0:
        raise ValueError(f"bad CUDA device {prefer!r}")
    return index


def _probe_cuda() -> tuple[bool, int]:
    try:
        import torch
    except ImportError:  # torch missing: nothing can run on a GPU
        return False, 0
    available = bool(torch.cuda.is_available())
    return available, (int(torch.cuda.device_count()) if available else 0)


def _cuda_name(index: int) -> str:
    try:
        import torch

        return str(torch.cuda.get_device_name(index))
    except Exception:  # pragma: no cover - only on broken drivers
        return f"CUDA device {index}"


def _cpu_threads() -> int:
    try:
        import torch

        return int(torch.get_num_threads())
    except ImportError:
        return os.cpu_count() or 1
