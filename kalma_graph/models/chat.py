"""What in-process models (`models.llm.LocalLLM`) and model servers (`models.server.ServerLLM`) share: the error
they raise, the sampling parameters of a call, a completion, the chat-template helpers, and what names a server
(`is_endpoint`), and how a call is cancelled from another thread (`cancellable`). A leaf of `models/`: it imports
nothing of kalma_graph but its errors, so llm, server and registry all build on it without importing one another in
a circle.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from kalma_graph.errors import BadInputError, KalmaError

if TYPE_CHECKING:
    from llama_cpp import Llama, LlamaGrammar

LLM_ENV = "KALMA_LLM"


class LLMError(BadInputError, RuntimeError):
    """The model file is missing or unusable; the message says what to do."""


class GenerationCancelled(KalmaError, RuntimeError):
    """A model call stopped before its end because its caller cancelled it (`kalma-graph serve`'s
    --request-timeout, or a client gone)."""


_cancel = threading.local()


@contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """Model calls of this thread inside the block stop with `GenerationCancelled` once `event` is set: checked
    before each prompt evaluation and each sampled token (`grammar_first.GrammarFirstLlama`, the in-process
    decoding; a `LocalLLM(grammar_first=False)` call runs to its end). Between the checks nothing changes, so a
    call that is never cancelled decodes exactly as without the block."""
    outer = getattr(_cancel, "event", None)
    _cancel.event = event
    try:
        yield
    finally:
        _cancel.event = outer


def check_cancelled() -> None:
    """Raise `GenerationCancelled` when the calling thread's model call was cancelled (`cancellable`)."""
    event = getattr(_cancel, "event", None)
    if event is not None and event.is_set():
        raise GenerationCancelled("the model call was cancelled")


@dataclass(frozen=True)
class GenerationParams:
    """Sampling parameters, set per call and recorded with each output."""

    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not (0 < self.max_tokens <= 32768):
            raise ValueError("max_tokens must be between 1 and 32768: generation is always capped")


@dataclass
class Completion:
    text: str
    finish_reason: str  # "stop" | "length" (truncated at max_tokens)
    prompt_tokens: int
    completion_tokens: int
    params: dict = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


def chat_template_of(llama: Llama, name: str) -> tuple[str, str, str]:
    """A loaded `llama_cpp.Llama`'s chat template and its BOS / EOS texts (what `render_chat` takes)."""
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise LLMError(f"{name} has no chat template in its metadata")
    bos = llama.detokenize([llama.token_bos()]).decode("utf-8", errors="ignore")
    eos = llama.detokenize([llama.token_eos()]).decode("utf-8", errors="ignore")
    return template, bos, eos


def render_chat(template: str, bos: str, eos: str, messages: Sequence[dict[str, str]]) -> str:
    """A chat template applied as llama-cpp-python applies it, ending where the assistant speaks."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
    # the role/content dicts that llama-cpp-python's message TypedDicts describe
    return formatter(messages=list(messages)).prompt  # type: ignore[arg-type]


def sampling_args(params: GenerationParams) -> dict[str, Any]:
    return {
        "max_tokens": params.max_tokens,
        "temperature": params.temperature,
        "top_p": params.top_p,
        "seed": params.seed,
        "stop": list(params.stop) or None,
    }


def completion_of(out: dict, text: str | None, params: GenerationParams) -> Completion:
    choice = out["choices"][0]
    usage = out.get("usage") or {}
    return Completion(
        text=text or "",
        finish_reason=choice.get("finish_reason") or "stop",
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        params=asdict(params),
    )


def is_endpoint(model: object) -> bool:
    """Does a `--model` value name a server rather than a file or a registry entry?"""
    return isinstance(model, str) and model.startswith(("http://", "https://"))


# The grammar type lives here, beside the other chat-level types, so that `protocols` and `server` name it without
# importing `llm` (which imports them).
@dataclass(frozen=True)
class Grammar:
    """A GBNF grammar as callers pass it to `chat(..., grammar=)` / `complete(..., grammar=)`: its text, which
    a model server receives as is (`models.server`), compiled by llama.cpp once per text for an in-process
    model."""

    text: str

    def compiled(self) -> LlamaGrammar:
        return _compiled_grammar(self.text)


@lru_cache(maxsize=64)
def _compiled_grammar(text: str) -> LlamaGrammar:
    from llama_cpp import LlamaGrammar

    compiled = LlamaGrammar.from_string(text, verbose=False)
    # what `grammar_first.GrammarFirstLlama` builds its own sampler from: our attribute on llama.cpp's object
    compiled.kalma_text = text  # type: ignore[attr-defined]
    return compiled
