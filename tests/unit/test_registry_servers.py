"""Registry entries of kind `server` (issue 34): a model server by name, in a user registry that extends the
packaged one. Parsing and resolution only; requests to a real server are in tests/e2e/test_model_server.py."""

from __future__ import annotations

import json

import pytest

from kalma_graph.models.registry import ModelError, choose_model, load_registry, server_spec


def write(tmp_path, data) -> str:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


SERVER = {"kind": "server", "name": "gpu-qwen", "endpoint": "http://gpu-box:8000/v1#Qwen/Qwen2.5-1.5B",
          "serves": "qwen2.5-coder-1.5b-q4km"}


def test_a_user_registry_extends_the_packaged_models_with_servers(tmp_path):
    registry = load_registry(write(tmp_path, {"extends": "packaged", "servers": [SERVER]}))
    packaged = load_registry()
    assert registry.models == packaged.models  # every packaged model, in its order
    assert [s.name for s in registry.servers] == ["gpu-qwen"]
    assert registry.find_server("gpu-qwen").timeout == 300.0  # the defaults
    assert registry.names()[-1] == "gpu-qwen"
    assert server_spec("gpu-qwen", registry).endpoint == SERVER["endpoint"]
    assert server_spec("./gpu-qwen", registry) is None  # a path is never a server name
    assert server_spec("qwen2.5-coder-1.5b-q4km", registry) is None


def test_a_server_name_is_chosen_as_the_model_and_cannot_be_pinned(tmp_path, monkeypatch):
    monkeypatch.setenv("KALMA_MODEL_REGISTRY", write(tmp_path, {"extends": "packaged", "servers": [SERVER]}))
    choice = choose_model("gpu-qwen")
    assert (choice.path, choice.name) == ("gpu-qwen", "gpu-qwen")
    assert "http://gpu-box:8000/v1" in choice.why
    with pytest.raises(ModelError, match="cannot be pinned"):
        choose_model("gpu-qwen", sha256="0" * 64)
    with pytest.raises(ModelError, match="is a model server at http://gpu-box:8000"):
        load_registry().get("gpu-qwen")


@pytest.mark.parametrize("data, message", [
    ({"servers": [SERVER]}, "no models"),  # a servers-only file that does not extend the packaged registry
    ({"extends": "packaged", "servers": [SERVER | {"name": "smollm2-135m"}]}, "duplicate names smollm2-135m"),
    ({"extends": "packaged", "servers": [SERVER | {"serves": "llama-70b"}]}, "serves 'llama-70b'"),
    ({"extends": "packaged", "servers": [SERVER | {"endpoint": "gpu-box:8000"}]}, "endpoint"),
    ({"extends": "packaged", "servers": [SERVER | {"timeout": 0}]}, "timeout"),
    ({"extends": "elsewhere", "servers": [SERVER]}, "extends"),
])
def test_a_malformed_server_entry_is_refused_naming_the_registry(tmp_path, data, message):
    with pytest.raises(ModelError, match="registry") as caught:
        load_registry(write(tmp_path, data))
    assert message in str(caught.value)
