"""The NLI component (kalma_graph.models.nli) on the real shared model, offline.

The shared model lives beside the checkout: `<repo>/../shared/models/nli-minilm-l6-v1` (CI clones the
repo with shared/ next to it). `KALMA_TEST_NLI_MODEL` may point elsewhere.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import numpy as np
import pytest

from kalma_graph.models.nli import (
    DEFAULT_NLI_MODEL,
    MODEL_ENV,
    NLICache,
    load_nli,
    model_files_hash,
    normalise_label,
    resolve_labels,
    split_sentences,
)
from tests.conftest import NLI_MODEL as SHARED_MODEL, needs_nli as needs_model

REPO = Path(__file__).resolve().parents[2]

HERTWIG = "Hertwig served as a professor at the University of Jena."
CRANE = "Stephen Crane was born on November 1, 1871, in Newark."
PAIRS = [
    (HERTWIG, "employer: University of Jena"),
    (HERTWIG, "employer: University of Vienna"),
    (CRANE, "place of birth: Newark"),
    (CRANE, "place of birth: Boston"),
    ("A man is playing a guitar on stage.", "A man is playing an instrument."),
    ("A man is playing a guitar on stage.", "A woman is sleeping in her bed."),
    ("A man is playing a guitar on stage.", "The man is a famous musician."),
    ("The cat sat on the mat.", "The cat is sitting on the mat."),
    ("The cat sat on the mat.", "No animal is on the mat."),
    ("Ernst Hanfstaengl was born in Munich. He studied at Harvard University and later worked for the Office "
     "of Strategic Services during the war.", "alma mater: Harvard University"),
]


# --- labels (no model needed) -------------------------------------------------------------------


@pytest.mark.parametrize("raw, expected", [
    ("entailment", "entailment"), ("ENTAILMENT", "entailment"), (" Neutral ", "neutral"),
    ("CONTRADICTION", "contradiction"), ("not_entailment", "not_entailment"), ("Non-Entailment", "not_entailment"),
    ("e", "entailment"), ("LABEL_0", None), ("positive", None),
])
def test_normalise_label(raw, expected):
    assert normalise_label(raw) == expected


def test_resolve_labels_reads_config_order():
    assert (resolve_labels({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"})
            == ("contradiction", "neutral", "entailment"))
    assert resolve_labels({"0": "entailment", "1": "not_entailment"}) == ("entailment", "not_entailment")


def test_resolve_labels_needs_a_map_for_generic_names():
    generic = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    with pytest.raises(ValueError, match="label_map"):
        resolve_labels(generic)
    mapping = {"LABEL_0": "contradiction", "LABEL_1": "entailment", "LABEL_2": "neutral"}
    assert resolve_labels(generic, mapping) == ("contradiction", "entailment", "neutral")
    assert resolve_labels(generic, {0: "contradiction", 1: "entailment", "2": "neutral"}) == (
        "contradiction", "entailment", "neutral")


@pytest.mark.parametrize("bad", [
    {0: "entailment", 1: "entailment"},  # duplicated
    {0: "neutral", 1: "contradiction"},  # no entailment
    {0: "entailment", 1: "neutral"},  # not a supported set
])
def test_resolve_labels_rejects_bad_sets(bad):
    with pytest.raises(ValueError):
        resolve_labels(bad)


def test_split_sentences():
    assert split_sentences('He said "yes." Then he left!\nNew line. Dr Smith') == [
        'He said "yes."', "Then he left!", "New line.", "Dr Smith"]


# --- the real model -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nli():
    if not (SHARED_MODEL / "config.json").exists():
        pytest.skip(f"shared NLI model not found at {SHARED_MODEL}")
    model = load_nli(SHARED_MODEL, device="cpu", cache=None)
    yield model
    model.close()


@needs_model
def test_loads_offline_with_labels_from_config(nli):
    assert nli.labels == ("entailment", "neutral", "contradiction")
    assert nli.device.device == "cpu" and nli.device.dtype == "float32"
    header = nli.describe()
    assert header["model_hash"] == nli.model_hash and header["device"] == "cpu"
    assert nli.max_length == 512


@needs_model
def test_fixed_cases(nli):
    probs = nli.entailment_prob([p for p, _ in PAIRS], [h for _, h in PAIRS])
    jena, vienna, newark, boston = probs[:4]
    assert jena > vienna + 0.2  # the example
    assert newark > 0.5 > boston
    preds = nli.predict([p for p, _ in PAIRS], [h for _, h in PAIRS])
    assert [p.label for p in preds[4:9]] == ["entailment", "contradiction", "neutral", "entailment", "contradiction"]
    harvard, yale = nli.entailment_prob([PAIRS[9][0]] * 2,
                                        ["alma mater: Harvard University", "alma mater: Yale University"])
    assert harvard > yale
    for p in preds:
        assert set(p.probs) == set(nli.labels)
        assert abs(sum(p.probs.values()) - 1) < 1e-5
        assert p.entailment_prob == p.probs["entailment"]
    assert nli.entails(CRANE, "place of birth: Newark") and not nli.entails(CRANE, "place of birth: Boston")


@needs_model
def test_batch_size_does_not_change_results(nli):
    premises, hypotheses = [p for p, _ in PAIRS], [h for _, h in PAIRS]
    reference = np.stack([nli.predict_proba([p], [h], batch_size=1)[0] for p, h in PAIRS])
    for batch_size in (1, 3, 16, 64):
        got = nli.predict_proba(premises, hypotheses, batch_size=batch_size)
        np.testing.assert_allclose(got, reference, atol=1e-4)
    # order is the caller's, whatever the length sorting inside
    np.testing.assert_allclose(nli.predict_proba(premises[::-1], hypotheses[::-1], batch_size=4),
                               reference[::-1], atol=1e-4)


@needs_model
def test_cache_gives_identical_results_and_hits(nli, tmp_path):
    premises, hypotheses = [p for p, _ in PAIRS], [h for _, h in PAIRS]
    plain = nli.predict_proba(premises, hypotheses)
    cached = load_nli(SHARED_MODEL, device="cpu", cache=tmp_path / "nli.sqlite")
    first = cached.predict_proba(premises, hypotheses, batch_size=4)
    assert cached.cache is not None and cached.cache.misses == len(PAIRS) and cached.cache.hits == 0
    assert len(cached.cache) == len(PAIRS)
    np.testing.assert_allclose(first, plain, atol=1e-4)
    cached.close()
    # a fresh object on the same file answers everything from the cache, bit-identically
    again = load_nli(SHARED_MODEL, device="cpu", cache=str(tmp_path / "nli.sqlite"))
    second = again.predict_proba(premises + premises[:2], hypotheses + hypotheses[:2], batch_size=7)
    assert again.cache.hits == len(PAIRS) + 2 and again.cache.misses == 0
    np.testing.assert_array_equal(second[: len(PAIRS)], first)
    again.close()


def test_cache_key_covers_model_and_settings():
    key = NLICache.key("hash1", "float32", 512, "p", "h")
    assert len(key) == 64
    assert key == hashlib.sha256("hash1\x1ffloat32\x1f512\x1fp\x1fh".encode()).hexdigest()
    assert len({key, NLICache.key("hash2", "float32", 512, "p", "h"), NLICache.key("hash1", "float16", 512, "p", "h"),
                NLICache.key("hash1", "float32", 128, "p", "h"), NLICache.key("hash1", "float32", 512, "p", "h2")}) == 5


@needs_model
def test_model_hash_is_sha256_of_weights():
    digest = hashlib.sha256((SHARED_MODEL / "model.safetensors").read_bytes()).hexdigest()
    assert model_files_hash(SHARED_MODEL) == digest


@needs_model
def test_windows_for_long_evidence(nli):
    short = nli.windows(CRANE, "place of birth: Newark")
    assert short == [CRANE]
    filler = " ".join(f"Sentence number {i} talks about an unrelated topic in some detail." for i in range(80))
    evidence = filler + " " + CRANE + " " + filler
    windows = nli.windows(evidence, "place of birth: Newark")
    assert len(windows) > 3
    assert all(len(nli.tokenizer(w, "place of birth: Newark")["input_ids"]) <= nli.max_length for w in windows)
    truncated = nli.entailment_prob([evidence], ["place of birth: Newark"])[0]
    windowed = nli.entailment_prob([evidence], ["place of birth: Newark"], window=True)[0]
    assert windowed > 0.5 > truncated  # the stating sentence sits past the truncation point


@needs_model
def test_env_variable_names_the_model(monkeypatch, tmp_path):
    monkeypatch.setenv(MODEL_ENV, str(SHARED_MODEL))
    model = load_nli(cache=None, device="cpu", max_length=128)
    assert model.name_or_path == str(SHARED_MODEL) and model.max_length == 128
    assert DEFAULT_NLI_MODEL.count("/") == 1  # a hub id; never loaded in tests


@needs_model
def test_two_way_model_with_generic_label_names(tmp_path):
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=2, id2label={0: "LABEL_0", 1: "LABEL_1"},
                        label2id={"LABEL_0": 0, "LABEL_1": 1})
    BertForSequenceClassification(config).save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(SHARED_MODEL).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="label_map"):
        load_nli(tmp_path, device="cpu", cache=None)
    model = load_nli(tmp_path, device="cpu", cache=None,
                     label_map={"LABEL_0": "not_entailment", "LABEL_1": "entailment"})
    assert model.labels == ("not_entailment", "entailment") and model.entailment_index == 1
    preds = model.predict([CRANE, HERTWIG], ["place of birth: Newark", "employer: University of Jena"])
    assert all(p.label in model.labels and 0 <= p.entailment_prob <= 1 for p in preds)
    np.testing.assert_allclose(model.entailment_prob([CRANE], ["x"]), model.predict_proba([CRANE], ["x"])[:, 1])


# --- weights: safetensors only; hub models pinned to a revision ------------------------------------------


def test_split_revision(tmp_path):
    from kalma_graph.models.nli import split_revision

    assert split_revision("org/model@0123abcd") == ("org/model", "0123abcd")
    assert split_revision("org/model@v1", "main") == ("org/model", "main")  # an explicit revision wins
    assert split_revision("org/model") == ("org/model", None)
    local = tmp_path / "name@with-at"
    local.mkdir()
    assert split_revision(str(local)) == (str(local), None)  # a local directory is never split


def _tiny_nli_files(folder: Path, *, pickled: bool) -> None:
    """A tiny random 3-way BERT NLI model with the shared model's tokenizer, as safetensors or as a
    pickled pytorch_model.bin."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=3, id2label=labels, label2id={v: k for k, v in labels.items()})
    model = BertForSequenceClassification(config)
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(SHARED_MODEL).save_pretrained(folder)
    if pickled:
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
        (folder / "model.safetensors").unlink()


@needs_model
def test_pickled_weights_are_refused(tmp_path):
    pytest.importorskip("torch")
    from kalma_graph.models.nli import UnsafeWeightsError

    _tiny_nli_files(tmp_path, pickled=True)
    with pytest.raises(UnsafeWeightsError, match=r"only pickled weights \(pytorch_model.bin\).*safetensors only"):
        load_nli(tmp_path, device="cpu", cache=None)


HUB_CHECK = """
import json, os, sys
from kalma_graph.models.nli import UnsafeWeightsError, load_nli
repo, commit = sys.argv[1], sys.argv[2]
out = {}
m = load_nli(f"{repo}@{commit}", device="cpu", cache=None)
out["pinned"] = [m.name_or_path, list(m.labels), m.model_hash]
os.environ["KALMA_NLI_REVISION"] = commit
out["env"] = load_nli(repo, device="cpu", cache=None).name_or_path
try:
    load_nli(repo + "-pickled", device="cpu", cache=None, revision=commit)
    out["pickled"] = "loaded"
except UnsafeWeightsError as exc:
    out["pickled"] = str(exc)
try:
    load_nli(f"{repo}@{'f' * 40}", device="cpu", cache=None)
    out["unknown"] = "loaded"
except FileNotFoundError as exc:
    out["unknown"] = str(exc)
print(json.dumps(out))
"""


@needs_model
def test_hub_model_pinned_to_a_revision_loads_offline_from_safetensors(tmp_path):
    """A fake Hugging Face cache (HF_HUB_CACHE) holding one commit of a model: `org/model@<commit>` and
    $KALMA_NLI_REVISION load that commit offline; a commit whose weights are only pickled is refused,
    an unknown commit is not found (offline, nothing is downloaded)."""
    import json
    import subprocess
    import sys

    from kalma_graph.models.nli import model_files_hash

    commit = "0123456789abcdef0123456789abcdef01234567"
    hub = tmp_path / "hub"
    for name, pickled in (("tiny-nli", False), ("tiny-nli-pickled", True)):
        repo = hub / f"models--kalma-test--{name}"
        snapshot = repo / "snapshots" / commit
        snapshot.mkdir(parents=True)
        _tiny_nli_files(snapshot, pickled=pickled)
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(commit)
    env = {**os.environ, "HF_HUB_CACHE": str(hub), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("KALMA_NLI_REVISION", None)
    proc = subprocess.run([sys.executable, "-c", HUB_CHECK, "kalma-test/tiny-nli", commit], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    snapshot = hub / "models--kalma-test--tiny-nli" / "snapshots" / commit
    assert out["pinned"] == [f"kalma-test/tiny-nli@{commit}", ["entailment", "neutral", "contradiction"],
                             model_files_hash(snapshot)]
    assert out["env"] == f"kalma-test/tiny-nli@{commit}"
    assert "safetensors" in out["pickled"] and "never loads pickled" in out["pickled"]
    assert "kalma-test/tiny-nli" in out["unknown"] and "not in the local Hugging Face cache" in out["unknown"]
