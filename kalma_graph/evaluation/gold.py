"""Gold minimum knowledge sets: the triples each question needs (KaLMA §2.2), one JSON line per question.

    {"id": "biokalma-0907", "gold": [["Q85907", "occupation", "biologist"],
                                     ["Q85907", "doctoral student", "Stanislaus von Prowazek"]]}

A triple is `[subject id, property label, value]`, written the way a citation writes it (the value is
the object's name, never its id). `load_gold` reads such a file (plain, `.gz` or `.bz2`) into
`{question id: [(subject, label, value), ...]}`, keeping each set's order (knowledge removal takes
triples in that order) and failing with `file:line: reason` on anything it cannot read.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "gold.jsonl"
>>> write_gold(path, {"q1": [("Q85907", "occupation", "biologist")]})
>>> load_gold(path)
{'q1': [('Q85907', 'occupation', 'biologist')]}
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from kalma_graph.errors import BadInputError
from kalma_graph.evaluation.matching import TripleLike, triple_parts

GoldSets = dict[str, list[tuple[str, str, str]]]


class GoldError(BadInputError, ValueError):
    """A gold file line that cannot be read; the message starts with `file:line:`."""


def load_gold(path: str | os.PathLike[str]) -> GoldSets:
    """`{question id: [(subject, label, value), ...]}` from a gold JSONL file (see the module doc)."""
    from kalma_graph.lines import json_lines

    gold: GoldSets = {}
    for where, row in json_lines(path, what="gold file", error=GoldError):
        if not isinstance(row, dict) or "id" not in row or "gold" not in row:
            raise GoldError(f'{where}: expected {{"id": ..., "gold": [[subject, property, value], ...]}}')
        qid = str(row["id"])
        if qid in gold:
            raise GoldError(f"{where}: question id {qid!r} appears twice")
        gold[qid] = [_triple(item, where) for item in _list(row["gold"], where)]
    return gold


def write_gold(path: str | os.PathLike[str], gold: Mapping[str, Iterable[TripleLike]]) -> None:
    """Write gold sets in the file format `load_gold` reads (ids in the given order)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for qid, triples in gold.items():
            rows = [list(triple_parts(t)) for t in triples]
            handle.write(json.dumps({"id": qid, "gold": rows}, ensure_ascii=False) + "\n")


def _list(value: object, where: str) -> Sequence:
    if not isinstance(value, list):
        raise GoldError(f"{where}: 'gold' must be a list of [subject, property, value] triples")
    return value


def _triple(item: object, where: str) -> tuple[str, str, str]:
    if isinstance(item, dict):  # tolerate {"subject", "label"|"prop", "value"} objects
        item = [item.get("subject") or item.get("qid"), item.get("label") or item.get("prop"), item.get("value")]
    if not isinstance(item, list) or len(item) != 3 or not all(isinstance(x, str) and x for x in item):
        raise GoldError(f"{where}: a gold triple must be three non-empty strings, got {item!r}")
    return (item[0], item[1], item[2])
