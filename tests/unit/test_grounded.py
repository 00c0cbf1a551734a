"""The grounded strategy's pure parts: which prose is never kept, and what a question asks."""

from __future__ import annotations

from kalma_graph.pipeline.grounded import asked_facts, prose_problem
from kalma_graph.store.base import Entity, Triple


def test_prose_that_is_never_kept():
    seen = ["goethe was a poet."]
    assert prose_problem("Goethe was a poet.", seen) == "repeats an earlier sentence"
    assert prose_problem("He was a member of Q329464.", seen) == "holds an entity id"
    assert prose_problem("He was a composer, religion: Lutheranism, languages spoken: German.", seen) == \
        "lists raw 'label: value' pairs"
    assert prose_problem("  ", seen) == "empty"
    assert prose_problem("Goethe studied law in Leipzig: a city he loved.", seen) is None


def test_what_a_question_asks_is_a_named_persons_named_relation_the_graph_holds():
    entities = [Entity("Q5879", name="Johann Wolfgang von Goethe"), Entity("Q22670", name="Friedrich Schiller")]
    shown = [Triple("Q5879", "P19", "place of birth", "Frankfurt"), Triple("Q5879", "P106", "occupation", "poet"),
             Triple("Q22670", "P69", "educated at", "University of Jena"),
             Triple("Q22670", "P19", "place of birth", "Marbach am Neckar")]
    asked = asked_facts("Where was Johann Wolfgang von Goethe born, and where did Friedrich Schiller study?", entities, shown)
    assert asked == {("Q5879", "place of birth"), ("Q22670", "educated at")}
    assert asked_facts("Tell me a story.", entities, shown) == set()
