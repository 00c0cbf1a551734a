"""The cite strategies (`kalma-graph answer --cite NAME`), one object each in one registry: how an answer is
generated and how its citations are made. A strategy says which citation grammar it answers under (or that
it follows `--constrain-citations`, or that it answers freely), which prompt, whether it needs an NLI model,
and whether the verifier chose the citations it keeps (its alignment is then self-scored); `cite` turns one
question's prompt into the model's completion (`generate`, timed as generation) and that into the answer with its
marks (`finish`, timed as citing).

Adding a strategy is one class here and one line in `STRATEGIES` (docs/CONTRIBUTING.md).
"""

from __future__ import annotations

from dataclasses import dataclass
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
    name: ClassVar[str]
    grammar: ClassVar[str | None] = FOLLOW_OPTION  # a grammar mode, FOLLOW_OPTION, or None (never constrained)
    needs_nli: ClassVar[bool] = False
    verifier_keeps: ClassVar[bool] = False  # the verifier chose the citations kept: alignment is self-scored

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


class Posthoc(CiteStrategy):
    """The model answers freely; an NLI model then cites the shown triples each sentence entails, or [NA]."""

    name = "posthoc"
    grammar = None
    needs_nli = True

    def generate(self, q: Prompted) -> Generated:
        return Generated(q.llm.chat(q.messages, q.params))

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        answer, placements = place_citations(generated.completion.text, q.shown_entities, q.shown,
                                             q.nli.entailment_prob)
        return Cited(answer, placements)


class AttributeFirst(CiteStrategy):
    """The grammar makes the model pick each sentence's triples (or [NA]) before it writes the sentence."""

    name = "attribute-first"
    grammar = "attribute_first"

    def prompt_name(self, variant: str) -> str | None:
        return f"kalma/answer_{variant}_attribute_first"

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        return Cited(from_attribute_first(generated.completion.text))


class Verified(AttributeFirst):
    """Attribute-first, then a cited triple the verifier does not judge supported is dropped ([NA] if none is
    left, or if the sentence states what the graph does not hold)."""

    name = "verified"
    verifier_keeps = True

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        return Cited(keep_verified(from_attribute_first(generated.completion.text), question=q.question, shown=q.shown,
                                   entities=q.entities, known_props=q.props, known_pairs=q.pairs))


class Grounded(AttributeFirst):
    """The verifier in the decoding loop: a sentence at a time, re-sampled when unsupported, stopping when the
    question is covered (`pipeline/grounded.py`)."""

    name = "grounded"
    verifier_keeps = True

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
        completion = Completion(text=grounding.raw, finish_reason=grounding.finish_reason, prompt_tokens=q.n_prompt,
                                completion_tokens=grounding.completion_tokens)
        return Generated(completion, grounding)

    def finish(self, generated: Generated, q: Prompted) -> Cited:
        assert generated.grounding is not None  # the loop wrote the answer with its marks
        return Cited(generated.grounding.answer)


STRATEGIES: dict[str, CiteStrategy] = {s.name: s for s in (ModelCites(), Posthoc(), AttributeFirst(), Verified(),
                                                            Grounded())}
CITE_STRATEGIES: tuple[str, ...] = tuple(STRATEGIES)
# `answer`'s default: the best strategy measured (docs/results.md); the paper's baselines stay available by name.
DEFAULT_CITE = "grounded"
FALLBACK_CITE = "attribute-first"  # the default for a model whose chat prompt grounded cannot continue (a server)
DEFAULT_CITE_WHY = ("default: the verifier checks each sentence as it is written; on the paper's own questions "
                    "it states asked facts and marks parts the graph lacks [NA]; --cite model is the paper's baseline")
