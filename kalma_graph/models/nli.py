"""One NLI component for the whole product: any `transformers` sequence-classification NLI model.

    nli = load_nli("/path/to/model")            # or a hub id, or None: $KALMA_NLI_MODEL, else the default
    nli.entailment_prob(["Hertwig served as a professor at the University of Jena."],
                        ["employer: University of Jena"])       # -> array([0.56...])
    nli.predict(premises, hypotheses)           # -> [NLIPrediction(label, entailment_prob, probs)]

An `NLIModel` is constructed once and passed to whatever needs it (metrics, evaluators, training
evaluation); nothing in the library loads a model behind the caller's back.

- Labels come from the model's `config.id2label`, normalised to `entailment` / `neutral` /
  `contradiction` (3-way) or `entailment` / `not_entailment` (2-way). Names the normaliser does not
  know (`LABEL_0`, ...) need `label_map={"LABEL_0": "entailment", ...}` (keys: raw names or indices).
- Pairs are sorted by token length and batched, so a batch holds pairs of similar length.
- Device and dtype come from `kalma_graph.models.device.pick_device` (fp16 on CUDA, fp32 on CPU).
- Results are cached in SQLite by sha256(model weights hash, dtype, max_length, premise,
  hypothesis); the raw probability vector is stored, so a `label_map` change never stales the cache.
- Long premises (evidence passages) can be scored in windows (`window=True`): the premise is split
  into sentence groups that fit `max_length` with the hypothesis, each group is scored, and the
  group with the highest entailment probability gives the result (the SummaC/TRUE practice).
- Weights load from safetensors only (`use_safetensors=True`): a model that ships only pickled
  weights (`pytorch_model.bin`) is refused rather than unpickled. A hub model can be pinned to a
  revision (a commit hash, so the weights cannot change under the same name): `org/model@<rev>`,
  `load_nli(..., revision=...)` or `$KALMA_NLI_REVISION`.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from kalma_graph.errors import BadInputError
from kalma_graph.files import KeyedCache, file_sha256
from kalma_graph.models.device import DeviceInfo, pick_device
from kalma_graph.text.sentences import split_sentences  # windows the evidence

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

MODEL_ENV = "KALMA_NLI_MODEL"
REVISION_ENV = "KALMA_NLI_REVISION"
CACHE_ENV = "KALMA_NLI_CACHE"
#: The documented default for users: a well-known 3-way NLI model (MIT licence), downloaded once by
#: `transformers` and used offline afterwards. Tests and CI point `KALMA_NLI_MODEL` at a local path.
DEFAULT_NLI_MODEL = "MoritzLaurer/DeBERTa-v3-base-mnli-fever-anli"

ENTAILMENT, NEUTRAL, CONTRADICTION, NOT_ENTAILMENT = "entailment", "neutral", "contradiction", "not_entailment"
CANONICAL_LABELS = (ENTAILMENT, NEUTRAL, CONTRADICTION, NOT_ENTAILMENT)
_ALIASES = {
    "entailment": ENTAILMENT,
    "entails": ENTAILMENT,
    "entail": ENTAILMENT,
    "entailed": ENTAILMENT,
    "e": ENTAILMENT,
    "neutral": NEUTRAL,
    "n": NEUTRAL,
    "contradiction": CONTRADICTION,
    "contradict": CONTRADICTION,
    "contradicts": CONTRADICTION,
    "contradictory": CONTRADICTION,
    "c": CONTRADICTION,
    "not_entailment": NOT_ENTAILMENT,
    "not entailment": NOT_ENTAILMENT,
    "not-entailment": NOT_ENTAILMENT,
    "non_entailment": NOT_ENTAILMENT,
    "non-entailment": NOT_ENTAILMENT,
    "non entailment": NOT_ENTAILMENT,
    "not_entailed": NOT_ENTAILMENT,
}
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack")


def normalise_label(name: str) -> str | None:
    """Canonical name for a label, or None when it is not recognised (e.g. `LABEL_0`).

    >>> normalise_label("ENTAILMENT"), normalise_label("Not_Entailment"), normalise_label("LABEL_1")
    ('entailment', 'not_entailment', None)
    """
    return _ALIASES.get(" ".join(str(name).strip().lower().split()))


def resolve_labels(id2label: Mapping[Any, str], label_map: Mapping[Any, str] | None = None) -> tuple[str, ...]:
    """Canonical label names in the model's output order.

    `label_map` keys may be raw label names (`"LABEL_0"`) or output indices (`0` or `"0"`); its values
    are label names the normaliser understands.
    """
    label_map = dict(label_map or {})
    n = len(id2label)
    labels: list[str] = []
    for index in range(n):
        raw = id2label.get(index, id2label.get(str(index)))  # type: ignore[call-overload]
        if raw is None:
            raise ValueError(f"config.id2label has no entry for index {index}: {dict(id2label)}")
        target = None
        for key in (raw, index, str(index)):
            if key in label_map:
                target = label_map[key]
                break
        name = normalise_label(target if target is not None else raw)
        if name is None:
            raise ValueError(
                f"cannot tell what label {raw!r} (index {index}) means; pass label_map, e.g. "
                f"{{'LABEL_0': 'entailment', 'LABEL_1': 'neutral', 'LABEL_2': 'contradiction'}}"
            )
        labels.append(name)
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels {labels} are not distinct (from id2label {dict(id2label)})")
    if ENTAILMENT not in labels:
        raise ValueError(f"an NLI model needs an entailment label; got {labels}")
    allowed = ({ENTAILMENT, NEUTRAL, CONTRADICTION}, {ENTAILMENT, NOT_ENTAILMENT})
    if set(labels) not in allowed:
        raise ValueError(f"unsupported label set {labels}: expected 3-way (entailment/neutral/"
                         f"contradiction) or 2-way (entailment/not_entailment)")
    return tuple(labels)


# --- model files and their hash -----------------------------------------------------------------

def weight_files(model_dir: Path) -> list[Path]:
    files = sorted(p for p in model_dir.iterdir() if p.is_file() and p.name.endswith(_WEIGHT_SUFFIXES)
                   and not p.name.startswith(("optimizer", "scheduler", "rng", "training_args")))
    safetensors = [p for p in files if p.name.endswith(".safetensors")]
    return safetensors or files  # transformers prefers safetensors when both exist


def model_files_hash(model_dir: str | os.PathLike[str]) -> str:
    """sha256 over the weight file(s) of a model directory (name + content hash of each, sorted)."""
    model_dir = Path(model_dir)
    files = weight_files(model_dir)
    if not files:
        raise FileNotFoundError(f"no weight files (*.safetensors, *.bin) in {model_dir}")
    if len(files) == 1:
        return file_sha256(files[0])
    h = hashlib.sha256()
    for p in files:
        h.update(f"{p.name}\x1f{file_sha256(p)}\n".encode())
    return h.hexdigest()


class NLIModelNotFound(BadInputError, FileNotFoundError):
    """The NLI model is neither a local directory nor in the Hugging Face cache (and could not be
    downloaded). A `FileNotFoundError` so callers that report missing files report this too."""


def split_revision(name_or_path: str, revision: str | None = None) -> tuple[str, str | None]:
    """`org/model@rev` -> (`org/model`, `rev`); a local directory is never split (its name may hold
    an `@`). An explicit `revision` wins over one in the name."""
    if Path(name_or_path).expanduser().exists() or "@" not in name_or_path:
        return name_or_path, revision
    name, _, rev = name_or_path.rpartition("@")
    if not name or not rev or "/" in rev:
        return name_or_path, revision
    return name, revision or rev


def default_nli_available() -> bool:
    """Whether the NLI model a plain command would load (`$KALMA_NLI_MODEL`, else `DEFAULT_NLI_MODEL`) is here
    without a download: a local directory, or a hub snapshot in the local cache. Asks no server."""
    source = os.environ.get(MODEL_ENV) or DEFAULT_NLI_MODEL
    name, revision = split_revision(source, None)
    if Path(name).expanduser().is_dir():
        return True
    from transformers.utils import cached_file

    try:
        return cached_file(name, "config.json", local_files_only=True, revision=revision) is not None
    except OSError:
        return False


def resolve_model_dir(name_or_path: str, revision: str | None = None) -> Path:
    """The local directory holding a model: the path itself, or the hub snapshot (of `revision`,
    default the main branch) `transformers` finds in its cache (downloading it once when the
    machine is online)."""
    p = Path(name_or_path).expanduser()
    if p.is_dir():
        return p.resolve()
    hint = (
        f"pass a local model directory (--nli PATH or ${MODEL_ENV}), e.g. the offline "
        "nli-minilm-l6-v1 shipped beside the repository"
    )
    if p.is_absolute() or name_or_path.startswith((".", "~")) or p.exists():
        raise NLIModelNotFound(f"NLI model directory {name_or_path!r} does not exist; {hint}")
    from transformers.utils import cached_file

    # The cache first, so that an offline machine answers at once instead of retrying the hub.
    for local_only in (True, False):
        try:
            config_path = cached_file(name_or_path, "config.json", local_files_only=local_only, revision=revision)
        except OSError as exc:
            if local_only and os.environ.get("HF_HUB_OFFLINE") not in ("1", "true", "True"):
                continue
            raise NLIModelNotFound(
                f"NLI model {name_or_path!r} is not in the local Hugging Face cache and could not be "
                f"downloaded ({type(exc).__name__}); {hint}"
            ) from exc
        if config_path is not None:
            return Path(config_path).parent
    raise NLIModelNotFound(f"cannot find NLI model {name_or_path!r}; {hint}")


class UnsafeWeightsError(BadInputError, ValueError):
    """The model has no safetensors weights, only pickled ones (which are never loaded)."""


def _require_safetensors(model_dir: Path, source: str) -> None:
    """For a local directory: refuse one whose weights are only pickled (`*.bin`, `*.pt`)."""
    files = weight_files(model_dir)
    if files and not any(f.name.endswith(".safetensors") for f in files):
        raise UnsafeWeightsError(
            f"NLI model {source!r} ({model_dir}) has only pickled weights ({', '.join(f.name for f in files)}); "
            "kalma-graph loads safetensors only. Convert it once where you trust it: "
            "AutoModelForSequenceClassification.from_pretrained(DIR).save_pretrained(DIR, safe_serialization=True)"
        )


# --- the cache ----------------------------------------------------------------------------------


def default_cache_path() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kalma-graph")) / "nli_cache.sqlite"


class NLICache(KeyedCache):
    """A small SQLite table: key (hex sha256) -> raw probability vector (JSON list)."""

    def __init__(self, path: str | os.PathLike[str]):
        super().__init__(path, table="nli", column="probs")

    @staticmethod
    def key(model_hash: str, dtype: str, max_length: int, premise: str, hypothesis: str) -> str:
        text = f"{model_hash}\x1f{dtype}\x1f{max_length}\x1f{premise}\x1f{hypothesis}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def put_many(self, items: Iterable[tuple[str, Sequence[float]]]) -> None:
        super().put_many((k, [float(x) for x in v]) for k, v in items)


def open_cache(cache: "NLICache | str | os.PathLike[str] | bool | None") -> NLICache | None:
    """`True`/"default" -> the default path; a path -> that file; `None`/`False` -> no cache."""
    if cache is None or cache is False:
        return None
    if isinstance(cache, NLICache):
        return cache
    if cache is True or cache == "default":
        return NLICache(default_cache_path())
    return NLICache(cache)


# --- the model ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NLIPrediction:
    label: str  # argmax among the model's labels
    entailment_prob: float
    probs: dict[str, float] = field(default_factory=dict)


class NLIModel:
    """A loaded NLI cross-encoder. Build it with `load_nli`; pass it to whatever needs NLI."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        *,
        name_or_path: str,
        model_hash: str,
        device: DeviceInfo,
        labels: Sequence[str],
        max_length: int,
        batch_size: int = 32,
        cache: NLICache | None = None,
    ):
        self.model = model
        self.tokenizer = tokenizer
        self.name_or_path = name_or_path
        self.model_hash = model_hash
        self.device = device
        self.labels = tuple(labels)
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.cache = cache
        self.entailment_index = self.labels.index(ENTAILMENT)

    # public API ---------------------------------------------------------------------------
    def predict_proba(
        self,
        premises: Sequence[str],
        hypotheses: Sequence[str],
        *,
        batch_size: int | None = None,
        window: bool = False,
    ) -> np.ndarray:
        """Probabilities, shape (n, len(self.labels)), columns in `self.labels` order."""
        premises, hypotheses = list(premises), list(hypotheses)
        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        if not premises:
            return np.zeros((0, len(self.labels)))
        if not window:
            return self._infer(premises, hypotheses, batch_size or self.batch_size)
        owners: list[int] = []
        chunk_premises: list[str] = []
        chunk_hypotheses: list[str] = []
        for i, (p, h) in enumerate(zip(premises, hypotheses)):
            for chunk in self.windows(p, h):
                owners.append(i)
                chunk_premises.append(chunk)
                chunk_hypotheses.append(h)
        probs = self._infer(chunk_premises, chunk_hypotheses, batch_size or self.batch_size)
        out = np.zeros((len(premises), len(self.labels)))
        best = np.full(len(premises), -1.0)
        for row, owner in enumerate(owners):
            if probs[row, self.entailment_index] > best[owner]:
                best[owner] = probs[row, self.entailment_index]
                out[owner] = probs[row]
        return out

    def entailment_prob(self, premises: Sequence[str], hypotheses: Sequence[str], **kw: Any) -> np.ndarray:
        """P(entailment) for each pair, shape (n,)."""
        return self.predict_proba(premises, hypotheses, **kw)[:, self.entailment_index]

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str], **kw: Any) -> list[NLIPrediction]:
        probs = self.predict_proba(premises, hypotheses, **kw)
        return [
            NLIPrediction(
                label=self.labels[int(np.argmax(row))],
                entailment_prob=float(row[self.entailment_index]),
                probs={name: float(x) for name, x in zip(self.labels, row)},
            )
            for row in probs
        ]

    def entails(self, premise: str, hypothesis: str, threshold: float = 0.5, **kw: Any) -> bool:
        return bool(self.entailment_prob([premise], [hypothesis], **kw)[0] >= threshold)

    def describe(self) -> dict[str, Any]:
        """What a run header records about this model."""
        import torch
        import transformers

        return {
            "name_or_path": self.name_or_path,
            "model_hash": self.model_hash,
            "labels": list(self.labels),
            "max_length": self.max_length,
            "batch_size": self.batch_size,
            **self.device.as_dict(),
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "cache": str(self.cache.path) if self.cache is not None else None,
        }

    def windows(self, premise: str, hypothesis: str) -> list[str]:
        """The premise split into sentence groups that each fit `max_length` with the hypothesis."""
        budget = self.max_length - len(self._tokens(hypothesis)) - 4  # [CLS] [SEP] [SEP] + slack
        if budget <= 8 or len(self._tokens(premise)) <= budget:
            return [premise]
        chunks: list[str] = []
        current: list[str] = []
        used = 0
        for sentence in split_sentences(premise):
            n = len(self._tokens(sentence))
            if current and used + n > budget:
                chunks.append(" ".join(current))
                current, used = [], 0
            current.append(sentence)
            used += n
        if current:
            chunks.append(" ".join(current))
        return chunks or [premise]

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()

    # internals ----------------------------------------------------------------------------
    def _tokens(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]

    def _infer(self, premises: list[str], hypotheses: list[str], batch_size: int) -> np.ndarray:
        keys = [NLICache.key(self.model_hash, self.device.dtype, self.max_length, p, h)
                for p, h in zip(premises, hypotheses)]
        known: dict[str, list[float]] = self.cache.get_many(keys) if self.cache is not None else {}
        todo: dict[str, tuple[str, str]] = {}
        for k, p, h in zip(keys, premises, hypotheses):
            if k not in known and k not in todo:
                todo[k] = (p, h)
        if todo:
            fresh = self._run_model(list(todo.values()), batch_size)
            new = dict(zip(todo.keys(), fresh))
            if self.cache is not None:
                self.cache.put_many(new.items())
            known.update(new)
        return np.array([known[k] for k in keys], dtype=np.float64)

    def _run_model(self, pairs: list[tuple[str, str]], batch_size: int) -> list[list[float]]:
        import torch

        enc = self.tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation=True,
                             max_length=self.max_length)
        fields = [name for name in ("input_ids", "token_type_ids", "attention_mask") if name in enc]
        lengths = [len(ids) for ids in enc["input_ids"]]
        order = sorted(range(len(pairs)), key=lambda i: (-lengths[i], i))  # batch by length
        pad_id = self.tokenizer.pad_token_id or 0
        left = getattr(self.tokenizer, "padding_side", "right") == "left"
        results: list[list[float]] = [[] for _ in pairs]
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                width = max(lengths[i] for i in idx)
                batch: dict[str, Any] = {}
                for name in fields:
                    fill = pad_id if name == "input_ids" else 0
                    rows = []
                    for i in idx:
                        seq = list(enc[name][i])
                        pad = [fill] * (width - len(seq))
                        rows.append(pad + seq if left else seq + pad)
                    batch[name] = torch.tensor(rows, dtype=torch.long, device=self.device.device)
                logits = self.model(**batch).logits.float()
                probs = torch.softmax(logits, dim=-1).cpu().numpy().astype(np.float64)
                for row, i in enumerate(idx):
                    results[i] = probs[row].tolist()
        return results


def load_nli(
    name_or_path: str | os.PathLike[str] | None = None,
    *,
    device: str | DeviceInfo | None = None,
    dtype: str | None = None,
    label_map: Mapping[Any, str] | None = None,
    cache: NLICache | str | os.PathLike[str] | bool | None = "default",
    max_length: int | None = None,
    batch_size: int = 32,
    revision: str | None = None,
) -> NLIModel:
    """Load an NLI model by hub id (optionally `org/model@revision`) or local path.

    `name_or_path` None -> `$KALMA_NLI_MODEL`, else `DEFAULT_NLI_MODEL`. `revision` (a hub commit,
    tag or branch; None -> the one in the name, else `$KALMA_NLI_REVISION`, else the main branch)
    only applies to hub ids. Weights load from safetensors only. `device` None -> auto
    (`$KALMA_DEVICE` or CUDA when present). `cache` "default" -> SQLite under the user cache dir
    (`$KALMA_NLI_CACHE` overrides), a path -> that file, None/False -> no cache. `max_length` None ->
    the model's limit, at most 512.
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    source = str(name_or_path or os.environ.get(MODEL_ENV) or DEFAULT_NLI_MODEL)
    name, revision = split_revision(source, revision)
    local = Path(name).expanduser().is_dir()
    if not local:
        revision = revision or os.environ.get(REVISION_ENV) or None
    info = device if isinstance(device, DeviceInfo) else pick_device(device, dtype=dtype)
    model_dir = resolve_model_dir(name, revision)
    if local:
        _require_safetensors(model_dir, source)
    # A hub model loads by id and revision (transformers fetches model.safetensors into the same
    # snapshot folder when it is not cached yet); use_safetensors=True never falls back to a .bin.
    load_from, pinned = (str(model_dir), None) if local else (name, revision)
    tokenizer = AutoTokenizer.from_pretrained(load_from, revision=pinned)
    try:
        model = AutoModelForSequenceClassification.from_pretrained(load_from, revision=pinned, use_safetensors=True)
    except OSError as exc:
        raise UnsafeWeightsError(
            f"NLI model {source!r}: no safetensors weights could be loaded ({exc}); kalma-graph never loads "
            "pickled (.bin) weights"
        ) from exc
    model.to(device=info.device, dtype=info.torch_dtype)
    model.eval()
    labels = resolve_labels(model.config.id2label, label_map)
    if max_length is None:
        limits = [512, getattr(model.config, "max_position_embeddings", 512) or 512]
        tml = getattr(tokenizer, "model_max_length", None)
        if isinstance(tml, int) and 0 < tml < 100_000:
            limits.append(tml)
        max_length = min(limits)
    return NLIModel(
        model,
        tokenizer,
        name_or_path=f"{name}@{revision}" if revision and not local else source,
        model_hash=model_files_hash(model_dir),
        device=info,
        labels=labels,
        max_length=max_length,
        batch_size=batch_size,
        cache=open_cache(cache),
    )
