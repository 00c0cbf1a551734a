"""The shared attribution interface: one registry whose evaluators every stage reads in its own labels."""

from __future__ import annotations

import pytest

from kalma_graph.attribution import REGISTRY, StatementCase, VerifierAttribution, make
from kalma_graph.verification import GraphEntity, GraphTriple

SCHILLER = (GraphTriple(subject="Q22670", label="place of birth", value="Marbach am Neckar", object_id="Q3806"),
            GraphTriple(subject="Q22670", label="occupation", value="poet", object_id="Q49757"),
            GraphTriple(subject="Q22670", label="influenced by", value="Immanuel Kant", object_id="Q9312"))
NAMES = (GraphEntity(id="Q22670", name="Friedrich Schiller"), GraphEntity(id="Q9312", name="Immanuel Kant"))


def _case(statement: str, triples=SCHILLER) -> StatementCase:
    return StatementCase("Who was Friedrich Schiller?", statement, triples, NAMES)


def test_the_verifier_gives_each_label_of_the_interface():
    verdicts = VerifierAttribution().attribute([
        _case("Friedrich Schiller was a poet influenced by Immanuel Kant."),
        _case("Friedrich Schiller was born in Jena."),
        _case("Friedrich Schiller was a poet who lived in Weimar."),
        _case("Friedrich Schiller lived in Weimar."),
    ])
    assert [v.label for v in verdicts] == ["supported", "contradicted", "partial", "unsupported"]
    assert [c.text for c in verdicts[2].facts("absent")] == ["Weimar"]
    assert verdicts[1].facts("contradicted")[0].evidence == "Q22670, place of birth: Marbach am Neckar"


def test_make_builds_by_name_and_refuses_what_it_cannot_build(monkeypatch):
    assert make("verifier").name == "verifier"
    with pytest.raises(ValueError, match="unknown attribution evaluator 'oracle'; expected one of"):
        make("oracle")
    from kalma_graph.attribution.registry import AttributionEntry

    monkeypatch.setitem(REGISTRY, "needs-nli", AttributionEntry("nli", lambda **_: VerifierAttribution()))
    with pytest.raises(ValueError, match="needs a loaded nli model"):
        make("needs-nli")


def test_every_shared_evaluator_is_a_caqa_evaluator_and_an_sck_judge():
    from kalma_graph.caqa.evaluators import REGISTRY as CAQA
    from kalma_graph.sck.judges import JUDGES

    for name, entry in REGISTRY.items():
        assert CAQA[name].needs == entry.needs and JUDGES[name].needs == entry.needs


def test_the_score_command_offers_every_sck_judge():
    import click

    from kalma_graph.cli.score_cmd import score
    from kalma_graph.sck.judges import JUDGES

    (choice,) = [p.type for p in score.params if p.name == "judge"]
    assert isinstance(choice, click.Choice) and list(choice.choices) == list(JUDGES)
