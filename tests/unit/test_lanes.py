"""The unit lane's doors are shut (tests/unit/conftest.py): opening a store, loading a model or
starting a process fails at once, naming what was reached."""

from __future__ import annotations

import subprocess

import pytest

from tests.unit.conftest import UnitTestLeftItsLane


def test_opening_an_embedded_store_fails_in_a_unit_test(tmp_path):
    from kalma_graph.store.embedded import EmbeddedStore

    with pytest.raises(Exception) as caught:
        EmbeddedStore(tmp_path / "store")
    assert "ladybug.Database in a unit test" in str(caught.value) + str(caught.value.__cause__)


def test_loading_a_model_or_starting_a_process_fails_in_a_unit_test():
    import spacy

    with pytest.raises(UnitTestLeftItsLane, match="spacy.load"):
        spacy.load("en_core_web_sm")
    with pytest.raises(UnitTestLeftItsLane, match="subprocess"):
        subprocess.run(["true"])
