"""SCK's S score on spaCy's parse (tense, person, format): the real packaged pipeline."""

from __future__ import annotations

import pytest

from kalma_graph.sck.structure import observe, s_score_from


@pytest.fixture(scope="module")
def structure_nlp():
    from kalma_graph.sck.structure import load_structure_nlp

    return load_structure_nlp()


def test_observe_tense_pronouns_format(structure_nlp):
    obs = observe("Stephen Crane was born in Newark. He has written poems. You will love them.", structure_nlp)
    assert obs.tenses == {"past": 2, "future": 1}  # perfect counts as past
    assert obs.persons == {3: 2, 2: 1}  # He, them; You
    assert obs.n_words == 14 and obs.format == "paragraph"
    steps = observe("1. Preheat the oven.\n2. Bake the bread.", structure_nlp)
    assert steps.format == "step_list" and steps.tenses == {"present": 2}  # imperatives
    # Table 4, row 1 (soups vs stews) scored as a comparison answer
    soup = ("Stews are normally chunkier w/ larger more inexpensive cuts of meat since u simmer it on low heat for a "
            "long time. Most are made with a tomato base. while soups on the other hand don't require large cuts of "
            "meat and are perfect for a quick meal w/ little time and ingredients involved compared to stews.")
    result = s_score_from(observe(soup, structure_nlp), "comparison")
    assert result.evidence["features"]["keywords"] == 1.0  # "on the other hand", "compared to"
    assert result.evidence["features"]["format"] == 0.25  # one paragraph where a side-by-side list is expected
    assert result.value == pytest.approx(0.85)
