"""The BioKaLMA question repair's grammar through llama.cpp's own matcher (the packaged model's vocabulary)."""

from __future__ import annotations

import pytest


def test_naming_grammar_admits_only_questions_naming_both():
    """The question repair's grammar, through llama.cpp's own matcher: every question it admits
    passes `names_both`, in either order and with quotes in a name; one naming one person, or
    going on past its question mark, is refused."""
    from kalma_graph.biokalma.evolve import names_both, naming_grammar
    from kalma_graph.generation.grammar import GrammarChecker

    checker = GrammarChecker.from_model_path()
    names = ["John Updike", "Henry James"]
    grammar = naming_grammar(names)
    admitted = ["How did Henry James's novels shape John Updike's style?",
                "Who was John Updike, and what did he owe to Henry James?"]
    for question in admitted:
        assert checker.accepts(grammar, question) and names_both(question, names)
    for question in ["Who influenced John Updike?", "Who was Henry James? And John Updike?",
                     "How did Henry James shape John Updike\nand why?", "Henry James and John Updike",
                     "How didHenry James shape John Updike?"]:
        assert not checker.accepts(grammar, question), question
    quoted = ['Al "Bird" Parker', "Dizzy Gillespie"]
    assert checker.accepts(naming_grammar(quoted), 'Did Dizzy Gillespie play with Al "Bird" Parker?')
    with pytest.raises(ValueError):
        naming_grammar(["only one"])
