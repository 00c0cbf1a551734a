"""`--cite verified`: a cited triple stays only where its sentence states its value (a truth table)."""

import pytest

from kalma_graph.pipeline.cite import keep_stated, states_value


@pytest.mark.parametrize("sentence, value, stated", [
    ("She was born in Rome.", "Rome", True),
    ("She was born in ROME.", "Rome", True),  # letter case aside
    ("A Roman painter.", "Rome", False),  # another word, not the value
    ("He was of German descent.", "Germans", True),  # a word ending aside (five first letters)
    ("He spoke English.", "England", False),
    ("He studied at the University of Jena.", "University of Jena", True),
    ("He studied at Jena.", "University of Jena", False),  # every content word of the value
    ("Born on 3 January 1892.", "1892-01-03", True),  # an ISO date by its year
    ("Born in 1893.", "1892-01-03", False),
    ("Born in the year 1892.", "+1892-01-03", False),  # not an ISO date: its words, "1892" and "01" ...
    ("It was the one.", "The One", True),  # a value of stop words only must appear as a whole
    ("It was one of them.", "The One", False),
    ("Workers’ Party of Korea ruled.", "Workers' Party of Korea", True),  # punctuation is no word
])
def test_states_value(sentence, value, stated):
    assert states_value(sentence, value) is stated


@pytest.mark.parametrize("answer, verified", [
    # a triple the sentence does not state goes; the stated ones stay in the same mark
    ("Italian, born in Rome [Q1, ethnic group: Italians, place of birth: Rome, occupation: painter].",
     "Italian, born in Rome [Q1, ethnic group: Italians, place of birth: Rome]."),
    # a sentence whose every triple went is marked [NA]; a sentence with [NA] keeps it
    ("He was an American author [Q1, languages spoken: English].", "He was an American author [NA]."),
    ("A painter [NA] [Q1, occupation: painter].", "A painter [NA] [Q1, occupation: painter]."),
    # names cite like any value; sentences without marks stay without
    ("Ann Hub was here [Q1, name: Ann Hub]. Unmarked.", "Ann Hub was here [Q1, name: Ann Hub]. Unmarked."),
    # a pair repeated in one sentence is kept once
    ("A German citizen [Q1, ethnic group: Germans, instance of: human, ethnic group: Germans].",
     "A German citizen [Q1, ethnic group: Germans]."),
    # two entities' marks: each triple judged on its own
    ("Born in Rome [Q1, place of birth: Rome] [Q2, place of birth: Paris].",
     "Born in Rome [Q1, place of birth: Rome]."),
])
def test_keep_stated(answer, verified):
    assert keep_stated(answer) == verified


def test_keep_stated_reads_a_label_with_a_comma_whole_given_the_shown_labels():
    answer = "Julia Maesa spoke Latin [Q1, languages spoken, written or signed: Latin, occupation: poet]."
    assert keep_stated(answer, {"languages spoken, written or signed", "occupation"}) == \
        "Julia Maesa spoke Latin [Q1, languages spoken, written or signed: Latin]."
    pairs = {"Q1": {("languages spoken, written or signed", "Latin"), ("occupation", "poet")}}
    assert (keep_stated(answer, None, pairs)
            == "Julia Maesa spoke Latin [Q1, languages spoken, written or signed: Latin].")
