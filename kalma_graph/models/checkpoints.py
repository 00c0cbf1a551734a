"""Training checkpoints that load with `torch.load(weights_only=True)`: no pickled code, ever.

A checkpoint file may only hold tensors and plain data (dicts, lists, tuples, numbers, strings, None),
which is what PyTorch's weights-only unpickler accepts. Model, optimizer, scheduler and grad-scaler
state dicts already are; the random-number-generator states are made so here: Python's as a tuple of
ints, NumPy's legacy `RandomState` as its named fields with the key as a list of ints (a pickled
`ndarray` would need the full unpickler), torch's and CUDA's as uint8 tensors.

    torch.save({"rng": rng_state(), ...}, path)
    state = load_checkpoint(path)         # weights_only=True; CheckpointError names the file if refused
    set_rng_state(state["rng"])
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING, Any

import numpy as np

from kalma_graph.errors import BadInputError

if TYPE_CHECKING:
    from torch.serialization import MAP_LOCATION


class CheckpointError(BadInputError, RuntimeError):
    """A checkpoint file cannot be loaded safely (or at all); the message names it."""


def rng_state() -> dict[str, Any]:
    """Python, NumPy, torch (and CUDA) RNG states as tensors and plain data."""
    import torch

    kind, keys, pos, has_gauss, cached_gaussian = np.random.get_state(legacy=True)
    state: dict[str, Any] = {
        "python": random.getstate(),  # (version, tuple of 625 ints, gauss_next)
        "numpy": {"kind": str(kind), "keys": [int(k) for k in keys], "pos": int(pos), "has_gauss": int(has_gauss),
                  "cached_gaussian": float(cached_gaussian)},
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = list(torch.cuda.get_rng_state_all())
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore what :func:`rng_state` saved (the CUDA states only where CUDA is present)."""
    import torch

    version, internal, gauss_next = state["python"]
    random.setstate((int(version), tuple(int(x) for x in internal), gauss_next))
    n = state["numpy"]
    np.random.set_state((n["kind"], np.asarray(n["keys"], dtype=np.uint32), int(n["pos"]), int(n["has_gauss"]),
                         float(n["cached_gaussian"])))
    torch.set_rng_state(state["torch"].cpu())  # a map_location may have moved it
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda"]])


def load_checkpoint(path: str | os.PathLike[str], map_location: MAP_LOCATION = None) -> dict[str, Any]:
    """`torch.load(path, weights_only=True)`: tensors and plain data only, never pickled code."""
    import torch

    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except Exception as exc:  # noqa: BLE001 - the unpickler raises several kinds; all mean "refused"
        raise CheckpointError(
            f"{path}: refused by torch.load(weights_only=True) ({type(exc).__name__}: {str(exc).splitlines()[0]}); "
            "a checkpoint written by an older kalma-graph held pickled objects. Delete it to start that "
            "training over (it resumes only from checkpoints this version writes)."
        ) from exc


__all__ = ["CheckpointError", "load_checkpoint", "rng_state", "set_rng_state"]
