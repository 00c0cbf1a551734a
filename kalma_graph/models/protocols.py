"""What the stages need from a model, as protocols: any object with these methods will do (an in-process
`LocalLLM`, a `ServerLLM`, a test's lookup table). Stages type their model parameters with these, not `Any`,
and call only these public methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

from kalma_graph.models.chat import Completion, GenerationParams, Grammar

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy as np
    from llama_cpp import LlamaGrammar

    #: What `chat(..., grammar=)` / `complete(..., grammar=)` take: a `Grammar` (`generation.grammar.llama_grammar`),
    #: GBNF text, or a grammar llama.cpp compiled already (in-process only; a model server refuses it).
    GrammarLike: TypeAlias = Grammar | str | LlamaGrammar


@runtime_checkable
class Generator(Protocol):
    """A text generator: the answer pipeline, the grounded loop, CAQA's and SCK's LLM judges, the BioKaLMA build."""

    n_ctx: int

    def chat(self, messages: Sequence[dict[str, str]], params: GenerationParams = ...,
             grammar: GrammarLike | None = None) -> Completion: ...

    def complete(self, prompt: str, params: GenerationParams = ...,
                 grammar: GrammarLike | None = None) -> Completion: ...

    def chat_prompt(self, messages: Sequence[dict[str, str]]) -> str: ...

    def count_tokens(self, text: str) -> int: ...

    def header(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


@runtime_checkable
class Judge(Protocol):
    """What G-Eval needs: the probability mass over the tokens "1".."5" at one decoding step (the paper's
    weighted score), not a generated text."""

    n_ctx: int

    def chat_prompt(self, messages: Sequence[dict[str, str]]) -> str: ...

    def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]: ...

    def count_tokens(self, text: str) -> int: ...

    def header(self) -> dict[str, Any]: ...


@runtime_checkable
class PerplexityScorer(Protocol):
    """What eq. 1 of the BioKaLMA build needs: the log-probabilities of a continuation given a prefix."""

    def continuation_logprobs(self, prefix: str, continuation: str) -> list[float]: ...


@runtime_checkable
class Entailer(Protocol):
    """An NLI model: alignment, [NA] quality, post-hoc citations, the verifier's stage two."""

    name_or_path: str
    model_hash: str

    def entailment_prob(self, premises: Sequence[str], hypotheses: Sequence[str],
                        **kw: Any) -> np.ndarray | Sequence[float]: ...


@runtime_checkable
class MentionDetector(Protocol):
    """A NER pipeline: the mentions of a question that retrieval links to the graph."""

    def mentions(self, text: str) -> list[Any]: ...

    def header(self) -> dict[str, Any]: ...
