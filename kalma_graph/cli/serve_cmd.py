"""`kalma-graph serve`: one GGUF behind an OpenAI-compatible endpoint, decoded as in-process (grammar-first, the
KV-cache prefix kept), with G-Eval's and (`--scoring`) eq. 1's log-probabilities over HTTP, on uvicorn with an API
key, a body limit, bounded requests in flight and a request timeout. Thin wrapper over `kalma_graph.models.serve`."""

from __future__ import annotations

import os

import click
from rich.markup import escape

from .common import err_console, fail
from .options import option


@click.command("serve")
@option("model", help="The GGUF to serve: a registry name or a path [env KALMA_LLM; default: the best model present].")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface; any address but loopback needs --api-key).")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@option("n-ctx")
@option("n-gpu-layers")
@option("threads")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--scoring", is_flag=True,
              help="Keep every position's logits, so that eq. 1's perplexities are served (BioKaLMA build "
                   "--scorer-model URL); prompt evaluation is slower, so serve generation without it.")
@click.option("--state-cache-mb", type=click.IntRange(min=0), default=2048, show_default=True,
              help="RAM for saved KV-cache states: a request restores its longest cached prefix, so requests of "
                   "several clients in flight do not evaluate their whole prompts again (0: off).")
@click.option("--api-key", envvar="KALMA_API_KEY", show_envvar=True, metavar="KEY",
              help="Every request must send `Authorization: Bearer KEY` (else 401); required unless --host is a "
                   "loopback address. Prefer the environment variable: an option is visible to `ps`. kalma-graph's "
                   "own clients (--model http://…) send KALMA_API_KEY.")
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=1 << 20, show_default=True,
              help="Largest request body; a larger one gets 413 before it is read.")
@click.option("--max-in-flight", type=click.IntRange(min=1), default=4, show_default=True,
              help="POST requests admitted at once (the model runs them one at a time); beyond: 503 with Retry-After.")
@click.option("--request-timeout", type=click.FloatRange(min=0, min_open=True), default=300.0, show_default=True,
              help="Seconds from a request's admission to its answer (waiting for the model included); past it 504 "
                   "and its call is cancelled.")
@click.option("--quiet", is_flag=True, help="No line per request.")
def serve(model, host, port, n_ctx, n_gpu_layers, threads, seed, scoring, state_cache_mb, api_key, max_body_bytes,
          max_in_flight, request_timeout, quiet):
    """Serve one GGUF at http://HOST:PORT/v1 for every --model option of kalma-graph (docs/scaling.md)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before llama_cpp loads: idle threads do not spin
    from kalma_graph.models.llm import LLMError, load_llm
    from kalma_graph.models.registry import choose_model
    from kalma_graph.models.serve import Limits, ModelService, Server, bind, check_settings

    limits = Limits(api_key=api_key or None, max_body_bytes=max_body_bytes, max_in_flight=max_in_flight,
                    request_timeout=request_timeout)
    check_settings(host, limits)  # before the model loads: a refusal is immediate (exit 2)
    try:
        sock = bind(host, port)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc}")
    choice = choose_model(model)
    if not isinstance(choice.path, os.PathLike):
        raise LLMError(f"{choice.name} is itself a model server: serve a GGUF file or registry model")
    try:
        llm = load_llm(choice.path, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=threads, seed=seed,
                       logits=scoring, state_cache_bytes=state_cache_mb << 20)
    except BaseException:
        sock.close()
        raise
    server = Server(ModelService(llm, choice.name), sock, limits,
                    log=None if quiet else (lambda line: err_console.print(escape(line), highlight=False)))
    where = server.url
    err_console.print(f"serving {escape(choice.name)} ({escape(llm.device_line())}) at {where}"
                      f"{' with eq. 1 scoring' if scoring else ''}{'; API key required' if limits.api_key else ''}; "
                      f"use --model {where}  (Ctrl-C stops)")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        llm.close()
