"""`kalma-graph serve`: one GGUF behind an OpenAI-compatible endpoint, decoded as in-process (grammar-first, the
KV-cache prefix kept), with G-Eval's and (`--scoring`) eq. 1's log-probabilities over HTTP. Thin wrapper over
`kalma_graph.models.serve`."""

from __future__ import annotations

import os

import click
from rich.markup import escape

from .common import err_console, fail
from .options import option


@click.command("serve")
@option("model", help="The GGUF to serve: a registry name or a path [env KALMA_LLM; default: the best model present].")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
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
@click.option("--quiet", is_flag=True, help="No line per request.")
def serve(model, host, port, n_ctx, n_gpu_layers, threads, seed, scoring, state_cache_mb, quiet):
    """Serve one GGUF at http://HOST:PORT/v1 for every --model option of kalma-graph (docs/scaling.md)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before llama_cpp loads: idle threads do not spin
    from kalma_graph.models.llm import LLMError, load_llm
    from kalma_graph.models.registry import choose_model
    from kalma_graph.models.serve import ModelService, make_server

    choice = choose_model(model)
    if not isinstance(choice.path, os.PathLike):
        raise LLMError(f"{choice.name} is itself a model server: serve a GGUF file or registry model")
    llm = load_llm(choice.path, n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=threads, seed=seed,
                   logits=scoring, state_cache_bytes=state_cache_mb << 20)
    try:
        server = make_server(ModelService(llm, choice.name), host, port,
                             log=None if quiet else (lambda line: err_console.print(line, highlight=False)))
    except OSError as exc:
        llm.close()
        fail(f"cannot listen on {host}:{port}: {exc}")
    where = f"http://{host}:{server.server_address[1]}/v1"
    err_console.print(f"serving {escape(choice.name)} ({escape(llm.device_line())}) at {where}"
                      f"{' with eq. 1 scoring' if scoring else ''}; use --model {where}  (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        llm.close()
