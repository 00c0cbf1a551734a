"""Verifier 36's readings (issue 44), from v30 (chatbot answers on birth, death and family, sixth draw), read after it
was scored once with verifier 35.

"do" joins a name as "de" does ("Diante do Trono"), so the values after the sentence's verb stay its opener's; a day
and month said after a date of that month and year is that day ("died in December 1855, I believe on 19 December");
"Qiantang (modern Hangzhou)" names the held Hangchow by another spelling; "Assuming you mean <another name>, …" is an
aside, while "Assuming you mean <the graph's person>" is judged."""

from __future__ import annotations

import pytest

from tests.unit.test_verifier_readings_v12_v13 import statuses


@pytest.mark.parametrize("start, value", [
    # the graph holds `date of birth: 1976-05-16`; both passes: contradicted
    ("Ana Paula Valadão, the Brazilian gospel singer", "16 April 1976"),
    # the graph holds `date of death: 1855-12-25`; both passes: contradicted
    ("He died in December 1855, I believe on 19 December", "19 December"),
])
def test_contradicted_values_found_past_a_group_name_or_a_month_said_first(start, value):
    claims = statuses(start, "v30")
    assert claims.get(value) == "contradicted", claims


@pytest.mark.parametrize("start", [
    "Shen Kuo, the Song dynasty polymath, was born in 1031 in Qiantang",  # the graph holds the name Hangchow
    "Assuming you mean Thomas Adolphus Trollope",  # the graph's person is Thomas Trollope, another man's parents
])
def test_another_spelling_and_an_assumed_other_person_contradict_nothing(start):
    # both passes: not contradicted
    claims = statuses(start, "v30")
    assert "contradicted" not in claims.values(), claims


def test_assuming_the_graphs_own_person_is_still_judged():
    # "Assuming you mean the Croatian basketball guard Marko Popović, he was born on …": both passes of v28 call it
    # contradicted (the graph's Marko Popović holds another birth)
    claims = statuses("Assuming you mean the Croatian basketball guard Marko Popović", "v28")
    assert "contradicted" in claims.values(), claims
