"""The answer prompt (seed 000, Table 13) built from a prompt file and the retrieved knowledge.

Prompt files live in `kalma_graph/prompts/kalma/answer_<variant>.json` (`general`, `specific`, and
`paper` for Table 13's own demonstration question). Each holds the instruction, the demonstration
(knowledge as structured records, question, answer) and the question template; knowledge of the
demonstration and of the question is rendered by the same `knowledge_block`, so the model sees one
format.

>>> prompt = load_answer_prompt("general")
>>> messages = build_messages(prompt, ["{qid: Q1, name: A}"], "Who is A?")
>>> [m["role"] for m in messages]
['system', 'user', 'assistant', 'user']
>>> print(messages[-1]["content"])
Question: Considering the information:
<BLANKLINE>
{qid: Q1, name: A}
<BLANKLINE>
Who is A?
"""

from __future__ import annotations

from typing import Any, Sequence

from kalma_graph.files import json_sha256
from kalma_graph.kg.knowledge import knowledge_block
from kalma_graph.kg.triples import Entity, Triple
from kalma_graph.prompts import load_prompt

VARIANTS = ("general", "specific")


def prompt_name(variant: str) -> str:
    return f"kalma/answer_{variant}"


def load_answer_prompt(variant: str = "general", name: str | None = None) -> dict[str, Any]:
    """The prompt file for a question variant (or any prompt file by name, e.g. `kalma/answer_paper`)."""
    data = load_prompt(name or prompt_name(variant))
    for key in ("instruction", "question_template", "demo"):
        if key not in data:
            raise ValueError(f"prompt {data['name']} lacks {key!r}")
    return data


def demo_blocks(prompt: dict[str, Any]) -> list[str]:
    out = []
    for record in prompt["demo"]["entities"]:
        entity = Entity(id=record["qid"], name=record["name"])
        triples = [Triple(subject=record["qid"], pid="", label=label, value=value)
                   for label, value in record["statements"]]
        out.append(knowledge_block(entity, triples))
    return out


def user_turn(prompt: dict[str, Any], blocks: Sequence[str], question: str) -> str:
    separator = prompt.get("knowledge_separator", "\n\n")
    return prompt["question_template"].format(knowledge=separator.join(blocks), question=question.strip())


def build_messages(prompt: dict[str, Any], blocks: Sequence[str], question: str) -> list[dict[str, str]]:
    """System instruction, the one-shot demonstration as a user/assistant exchange, then the question
    with its knowledge blocks. With no knowledge the block list is empty (the model may still answer,
    marking claims [NA])."""
    demo = prompt["demo"]
    return [
        {"role": "system", "content": prompt["instruction"]},
        {"role": "user", "content": user_turn(prompt, demo_blocks(prompt), demo["question"])},
        {"role": "assistant", "content": demo["answer"]},
        {"role": "user", "content": user_turn(prompt, blocks, question)},
    ]


def messages_sha256(messages: Sequence[dict[str, str]]) -> str:
    """A digest of the messages themselves (used when the model has no chat template to render)."""
    return json_sha256(list(messages), ensure_ascii=False)
