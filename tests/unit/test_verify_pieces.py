"""A long answer is checked whole (issue 44, bad input): once an answer past 20,000 characters was cut silently, so
a 2,000-sentence answer got 299 sentences checked, the last cut mid-word, and nothing said so."""

from __future__ import annotations

from kalma_graph.evaluation.verify import MAX_PIECE_CHARS, answer_pieces, check_text
from kalma_graph.verification import Verifier


def test_a_2000_sentence_answer_gets_a_verdict_for_every_sentence():
    sentences = [f"Friedrich Schiller wrote play number {i} in Weimar." for i in range(2000)]
    answer = " ".join(sentences)
    assert len(answer) > 4 * MAX_PIECE_CHARS
    check = check_text(Verifier(), answer, question="What did Schiller write?")
    assert [s.text for s in check.sentences] == sentences  # every one, whole, in order
    assert [s.position for s in check.sentences] == list(range(2000))
    assert check.id == "answer" and check.question == "What did Schiller write?"


def test_pieces_end_at_sentence_ends_and_join_to_the_answer():
    answer = "Ann was born in Oxford. " * 3000 + "x" * (3 * MAX_PIECE_CHARS)  # a run of no sentence end at all
    pieces = answer_pieces(answer)
    assert "".join(pieces) == answer and max(map(len, pieces)) <= MAX_PIECE_CHARS
    assert all(p.endswith(".") for p in pieces[:3])
    assert answer_pieces("") == [""] and answer_pieces("Short.") == ["Short."]


def test_a_short_answer_is_one_check_as_before():
    check = check_text(Verifier(), "Friedrich Schiller was a poet.")
    assert len(check.sentences) == 1 and check.sentences[0].position == 0
