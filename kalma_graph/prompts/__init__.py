"""Prompts are data: JSON files under `kalma_graph/prompts/<stage>/<name>.json`, loaded by name.

A prompt file holds at least `{"version": "...", "source": "seed/table it comes from", ...}` and the
texts the stage needs (e.g. `system`, `instruction`, `demos`, `template`). Templates use
`str.format` named fields; `load_prompt` returns the parsed dict plus `name` and a `sha256` of the
file, so run headers can name the exact prompt version used.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from kalma_graph.errors import BadInputError


class PromptError(BadInputError, KeyError):
    pass


@lru_cache(maxsize=None)
def load_prompt(name: str) -> dict[str, Any]:
    """`load_prompt("kalma/answer_general")` → the dict in `prompts/kalma/answer_general.json`."""
    path = resources.files("kalma_graph.prompts").joinpath(*f"{name}.json".split("/"))
    if not path.is_file():
        raise PromptError(f"no prompt file {name}.json under kalma_graph/prompts/")
    raw = path.read_bytes()
    data = json.loads(raw.decode("utf-8"))
    data["name"] = name
    data["sha256"] = hashlib.sha256(raw).hexdigest()
    return data

