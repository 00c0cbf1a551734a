"""The cite strategies (`kalma-graph answer --cite NAME`), one object each in one registry: how an answer is
generated and how its citations are made. Each strategy declares what it is in `traits` (`StrategyTraits`: its
one-line summary, the citation grammar it answers under, whether it needs an NLI model or a chat template, whether
the verifier filters its citations, whether its answer is planned from the graph, whether it is the paper's
baseline), and every other module asks the registry about those traits, never about a strategy's name
(`tests/unit/test_strategies.py` scans the source for that); a strategy turns one question's prompt into the
model's completion (`generate`, timed as generation) and that into the answer with its marks (`finish`, timed as
citing).

Adding a strategy is one class here, with its `name` and `traits`, and one line in `STRATEGIES`
(docs/CONTRIBUTING.md); `--cite`'s help, the answers header's `cite.traits` and docs/answer.md's traits table
follow from the registry.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Sequence

from kalma_graph.generation.grammar import build_citation_grammar, llama_grammar
from kalma_graph.kg.citation_marks import KnownPairs, KnownProps
from kalma_graph.kg.citations import from_attribute_first
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.models.llm import Completion, GenerationParams, LLMError
from kalma_graph.models.protocols import Entailer, Generator
from kalma_graph.pipeline.cite import Placement, keep_verified, place_citations
from kalma_graph.pipeline.grounded import GroundedResult, grounded_generate

FOLLOW_OPTION = "follow"  # the strategy answers under whatever grammar --constrain-citations asks for


@dataclass(frozen=True)
class StrategyTraits:
    """What a strategy is, as the rest of kalma-graph asks it (recorded in the answers header's `cite.traits`).

    - `summary`: one line, for `--cite`'s help and docs/answer.md's traits table;
    - `grammar`: the citation grammar it answers under: a mode of `generation/grammar.py`, `FOLLOW_OPTION` (whatever
      `--constrain-citations` asks) or None (it answers freely, never constrained);
    - `needs_nli`: it places citations with an NLI model (`--nli`); an NLI alignment by that same model is
      self-scored;
    - `needs_chat_template`: it continues the rendered chat prompt itself, so a model without a chat template
      (a model server) cannot run it (the default then gives way to `FALLBACK_CITE`);
    - `filters_citations`: the graph-grounded verifier drops, trims or re-cites what it does not judge supported,
      so the verifier's alignment of its answers is self-scored (`params.cite_verifier` names the verifier) and the
      evaluation reports the alignment of the answer as it stood before the filter beside it;
    - `plans_answer`: the answer is planned from the shown graph (a fact the question asks that the graph does not
      show is left unsaid or marked `[NA]` by the plan, not by the model);
    - `paper_baseline`: the KaLMA paper's own way of citing (its Table 3 baseline).
    """

    summary: str
    grammar: str | None = FOLLOW_OPTION
    needs_nli: bool = False
    needs_chat_template: bool = False
    filters_citations: bool = False
    plans_answer: bool = False
    paper_baseline: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Prompted:
    """One question as a strategy receives it: the chat messages (and their rendering, None when the model has
    no chat template), the graph the prompt shows and the property labels a citation may use."""

    llm: Generator
    messages: list[dict[str, str]]
    rendered: str | None
    n_prompt: int | None
    params: GenerationParams
    grammar_mode: str | None  # the run's grammar (after the strategy's choice)
    question: str
    shown: Sequence[Triple]
    shown_entities: Sequence[Entity]
    entities: Sequence[Entity]  # every entity the model saw or could have seen
    props: KnownProps
    pairs: KnownPairs
    nli: Entailer | None = None


@dataclass(frozen=True)
class Generated:
    """The model's completion as written, and how the grounded loop went (`grounded` only)."""

    completion: Completion
    grounding: GroundedResult | None = None


@dataclass(frozen=True)
class Cited:
    """The answer with its marks, and where post-hoc citations were placed (`posthoc` only)."""

    answer: str
    placements: list[Placement] | None = None


class CiteStrategy:
    """A strategy: its `name` (`--cite NAME`) and `traits`, both declared by every registered class itself (a
    subclass does not inherit its parent's), and its two steps."""

    name: ClassVar[str]
    traits: ClassVar[StrategyTraits]

    def prompt_name(self, variant: str) -> str | None:
        """The prompt file it answers with; None: the variant's default (`kalma/answer_<variant>`)."""
        return None

    def generate(self, q: Prompted) -> Generated:
        grammar = None
        if q.grammar_mode is not None:
            grammar = llama_grammar(build_citation_grammar(q.shown_entities, q.shown, mode=q.grammar_mode).text)
        return Generated(q.llm.chat(q.messages, q.params, grammar=grammar))

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        """The answer with its citation marks, from what the model wrote."""
        return Cited(generated.completion.text)


class ModelCites(CiteStrategy):
    """The paper's baseline: the model writes its citations (under the grammar with --constrain-citations)."""

    name = "model"
    traits = StrategyTraits(summary="the paper's baseline: the model writes its citations (under the grammar with "
                                    "--constrain-citations)", paper_baseline=True)


class Posthoc(CiteStrategy):
    """The model answers freely; an NLI model then cites the shown triples each sentence entails, or [NA]."""

    name = "posthoc"
    traits = StrategyTraits(summary="ALCE's post-hoc citation: the model answers freely, then an NLI model (--nli) "
                                    "cites the shown triples each sentence entails, or [NA]",
                            grammar=None, needs_nli=True)

    def generate(self, q: Prompted) -> Generated:
        return Generated(q.llm.chat(q.messages, q.params))

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        assert q.nli is not None  # traits.needs_nli: the pipeline refuses to start without one
        answer, placements = place_citations(generated.completion.text, q.shown_entities, q.shown,
                                             q.nli.entailment_prob)
        return Cited(answer, placements)


class AttributeFirst(CiteStrategy):
    """The grammar makes the model pick each sentence's triples (or [NA]) before it writes the sentence."""

    name = "attribute-first"
    traits = StrategyTraits(summary="the grammar makes the model pick each sentence's triples (or [NA]) before it "
                                    "writes the sentence", grammar="attribute_first")

    def prompt_name(self, variant: str) -> str | None:
        return f"kalma/answer_{variant}_attribute_first"

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        return Cited(from_attribute_first(generated.completion.text))


class Verified(AttributeFirst):
    """Attribute-first, then a cited triple the verifier does not judge supported is dropped ([NA] if none is
    left, or if the sentence states what the graph does not hold)."""

    name = "verified"
    traits = StrategyTraits(summary="attribute-first, then a cited triple the verifier does not judge supported is "
                                    "dropped ([NA] if none is left)", grammar="attribute_first", filters_citations=True)

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        return Cited(keep_verified(from_attribute_first(generated.completion.text), question=q.question, shown=q.shown,
                                   entities=q.entities, known_props=q.props, known_pairs=q.pairs))


class Grounded(AttributeFirst):
    """The verifier in the decoding loop: a sentence at a time, re-sampled when unsupported, stopping when the
    question is covered (`pipeline/grounded.py`)."""

    name = "grounded"
    traits = StrategyTraits(summary="the verifier in the decoding loop, a sentence at a time: the facts the question "
                                    "asks, [NA] for asked parts the graph lacks, then the facts of its topics",
                            grammar="attribute_first", needs_chat_template=True, filters_citations=True,
                            plans_answer=True)

    def generate(self, q: Prompted) -> Generated:
        if q.rendered is None:
            raise LLMError("--cite grounded continues the rendered chat prompt: the model needs a chat template")

        def grammar(mode: str) -> Any:
            return llama_grammar(build_citation_grammar(q.shown_entities, q.shown, mode=mode).text)

        grounding = grounded_generate(q.llm, q.rendered, grammar("attribute_first_unit"), q.params,
                                      question=q.question, shown=q.shown, entities=q.entities,
                                      first_grammar=grammar("attribute_first_one"),
                                      text_grammar=grammar("attribute_first_text"),
                                      known_props=q.props, known_pairs=q.pairs)
        assert q.n_prompt is not None  # counted whenever the prompt was rendered
        completion = Completion(text=grounding.raw, finish_reason=grounding.finish_reason, prompt_tokens=q.n_prompt,
                                completion_tokens=grounding.completion_tokens)
        return Generated(completion, grounding)

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        assert generated.grounding is not None  # the loop wrote the answer with its marks
        return Cited(generated.grounding.answer)


def _registry(*strategies: CiteStrategy) -> dict[str, CiteStrategy]:
    """name -> strategy; a class that does not declare its own `name` and `traits` is refused (inheriting its
    parent's would register a second strategy under the parent's description)."""
    out: dict[str, CiteStrategy] = {}
    for s in strategies:
        own = vars(type(s))
        if not isinstance(own.get("name"), str) or not isinstance(own.get("traits"), StrategyTraits):
            raise TypeError(f"{type(s).__name__} must declare its own `name` and `traits = StrategyTraits(...)`")
        if s.name in out:
            raise TypeError(f"two strategies are named {s.name!r}")
        out[s.name] = s
    return out


STRATEGIES: dict[str, CiteStrategy] = _registry(ModelCites(), Posthoc(), AttributeFirst(), Verified(), Grounded())
CITE_STRATEGIES: tuple[str, ...] = tuple(STRATEGIES)
# `answer`'s default: the best strategy measured (docs/results.md); the paper's baselines stay available by name.
DEFAULT_CITE = "grounded"
FALLBACK_CITE = "attribute-first"  # the default for a model whose chat prompt grounded cannot continue (a server)
DEFAULT_CITE_WHY = ("default: the verifier checks each sentence as it is written; on the paper's own questions "
                    "it states asked facts and marks parts the graph lacks [NA]; --cite model is the paper's baseline")


def strategy(name: str) -> CiteStrategy:
    """The registered strategy `name` (a ValueError naming the registered ones otherwise)."""
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"cite must be one of {', '.join(CITE_STRATEGIES)}, not {name!r}") from None


def strategy_traits() -> dict[str, dict[str, Any]]:
    """Every registered strategy's traits, as plain dicts (for layers that may not import this one: reporting)."""
    return {name: s.traits.as_dict() for name, s in STRATEGIES.items()}


def paper_baseline() -> str:
    """The name of the paper's own strategy (the one whose traits say `paper_baseline`)."""
    return next(name for name, s in STRATEGIES.items() if s.traits.paper_baseline)


def cite_help(intro: str) -> str:
    """`--cite`'s help: `intro`, then one `name: summary` paragraph per registered strategy (click wraps each)."""
    return "\n\n".join([intro, *(f"{name}: {s.traits.summary}." for name, s in STRATEGIES.items())])


def traits_table() -> str:
    """docs/answer.md's table of the strategies' traits (a unit test keeps the page equal to it)."""
    flags = ("needs_nli", "needs_chat_template", "filters_citations", "plans_answer", "paper_baseline")
    head = ["strategy", "grammar", *(f"`{f}`" for f in flags), "summary"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in STRATEGIES.items():
        t = s.traits
        grammar = {FOLLOW_OPTION: "`--constrain-citations`", None: "none"}.get(t.grammar, f"`{t.grammar}`")
        cells = [f"`{name}`", grammar, *("yes" if getattr(t, f) else "" for f in flags), t.summary]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
