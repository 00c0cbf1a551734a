"""`kalma-graph build biokalma` as a user runs it: a real process, a real (tiny) embedded store, the
packaged GGUF model."""

from __future__ import annotations

import json

import pytest

from kalma_graph.store.embedded import EmbeddedStore

from .test_biokalma_graph import TINY_ENTITIES, TINY_STATEMENTS
from .test_cli import kg


def test_build_is_a_group_with_biokalma():
    assert "biokalma" in kg("build", "--help").stdout
    helptext = kg("build", "biokalma", "--help").stdout
    for option in ("--out", "--alpha", "--seed", "--limit", "--pairs", "--rounds", "--model", "--no-nli"):
        assert option in helptext


@pytest.mark.slow
def test_build_biokalma_on_a_tiny_graph_and_resume(tmp_path):
    path = tmp_path / "tiny.lbdb"
    store = EmbeddedStore(path)
    store.bootstrap()
    store.load_batch(TINY_ENTITIES, TINY_STATEMENTS)
    store.close()
    out = tmp_path / "bk.jsonl"
    # Rounds 1 only (the link + the two questions): this test is about the command, not the evolution.
    args = ("build", "biokalma", "--out", str(out), "--store", f"embedded:{path}", "--limit", "2", "--rounds", "1",
            "--no-nli", "--json")
    summary = json.loads(kg(*args).stdout)
    # Four linked pairs; the two father pairs stay ambiguous (two "John Smith"s, both sons of Adam Smith).
    assert summary["disambiguation"] == {"resolved": 2, "not_found": 0, "ambiguous": 2, "duplicate": 0}
    assert summary["entries"] == summary["built_now"] == 2
    assert summary["checks"]["in_graph"]["share"] == 1.0
    ids = sorted(json.loads(line)["id"] for line in out.read_text().splitlines())
    assert ids == ["biokalma-Q901-P26-Q904", "biokalma-Q906-P3373-Q901"]
    assert len((tmp_path / "bk.gold.jsonl").read_text().splitlines()) == 2
    assert len((tmp_path / "bk.questions.jsonl").read_text().splitlines()) == 2
    again = json.loads(kg(*args).stdout)
    assert (again["built_now"], again["resumed"]) == (0, 2)
    refused = kg(*args[:-1], "--alpha", "0.9", check=False)
    assert refused.returncode == 2 and "other settings" in refused.stderr and "Traceback" not in refused.stderr
