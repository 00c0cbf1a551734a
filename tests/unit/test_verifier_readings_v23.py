"""Verifier 23's reading (issue 44), from v16 (`grounded` answers to fresh paper questions), scored once with
verifier 22: a family word's sex ("son", "daughter", "brother") where `child` or `sibling` is cited and the graph
shown does not hold the relative's sex is a claim, absent. Both passes of v7, v14 and v16 label such a sentence not
fully supported; those of v2, v4 and v8 did not. On every labelled set (`docs/verifier.md`) it raises the grounded
sentence `full` BA of v7 (0.837 -> 0.906), v10, v14 (0.791 -> 0.838) and v16 (0.764 -> 0.864) and lowers v2, v4,
v6, v8, v9 and v11 by 0.003-0.018."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import check


@pytest.mark.parametrize("start", [
    "Cao Pi's son was Cao Rui",
    "Al-Hakam II's son was Hisham II",
    "Abhishek Bachchan's son is Aaradhya Bachchan",
])
def test_a_sons_sex_the_graph_shown_does_not_hold_is_a_claim(start):
    sentence = check(start, "v16")
    assert not sentence.fully_supported
    assert [c.text for c in sentence.claims if c.status == "absent"] == [start.split("'s ")[1].split()[0]]
    assert {c.verdict for c in sentence.citations} == {"supported"}  # the citation itself is still stated


def test_child_says_no_sex():
    assert check("Alessandra Mussolini's child was Romano Floriani Mussolini", "v16").fully_supported
