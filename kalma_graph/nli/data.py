"""Labelled NLI and attribution files, and the fixed train / evaluation portions we use.

The combined public file (`nli_pairs.jsonl`: source, split, premise, hypothesis, label, label2) holds
only dev/test portions of the public sets, plus ConjNLI's adversarial train set and RTE. We carve
fixed evaluation portions out of it by a hash of the pair text, and never train on them:

- `mnli_dev`:  20% of the MNLI dev pairs (TaxiNLI subset)       -- reported as MNLI-dev accuracy
- `anli_dev`:  30% of the ANLI dev pairs (r1-r3)                 -- reported as ANLI accuracy
- `breaking_nli` and RTE stay out of training (a test-only set; a 2-way set)
- everything else 3-way (SNLI dev+test, the other MNLI/ANLI dev pairs, SICK, ConjNLI) is `train`,
  minus any pair whose text equals an evaluation pair.

Attribution files (AttributionBench format, as in `attribution_pairs_dev.jsonl`: question, claim,
evidence, label "attributable"/"not attributable") become premise = evidence, hypothesis = claim
(optionally prefixed by the question), label 1/0.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Iterable

from kalma_graph.lines import json_lines

THREE_WAY = ("entailment", "neutral", "contradiction")
MNLI_EVAL_FRACTION = 0.2
ANLI_EVAL_FRACTION = 0.3


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines data file (plain or compressed); a bad line is a `ValueError` naming file:line."""
    return [row for _, row in json_lines(path, what="JSON-lines file", error=ValueError)]


def write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


_DETOK = [
    (re.compile(r" ([.,!?;:%)\]])"), r"\1"),
    (re.compile(r"([(\[]) "), r"\1"),
    (re.compile(r" (n't|'s|'re|'ve|'m|'ll|'d)\b", re.I), r"\1"),
    (re.compile(r"\s+"), " "),
]


def detokenise(text: str) -> str:
    """Undo PTB-style tokenisation (SNLI ships `Two women are embracing .`).

    >>> detokenise("Two women are n't embracing , really .")
    "Two women aren't embracing, really."
    """
    for pattern, repl in _DETOK:
        text = pattern.sub(repl, text)
    return text.strip()


def pair_key(premise: str, hypothesis: str) -> str:
    return (" ".join(detokenise(premise).casefold().split()) + "\x1f"
            + " ".join(detokenise(hypothesis).casefold().split()))


def bucket(text: str, salt: str = "") -> float:
    """A stable number in [0, 1) from a text (for hash-based portions)."""
    digest = hashlib.sha256(f"{salt}\x1f{text}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def nli_portions(
    rows: Iterable[dict[str, Any]],
    *,
    mnli_eval: float = MNLI_EVAL_FRACTION,
    anli_eval: float = ANLI_EVAL_FRACTION,
) -> dict[str, list[dict[str, Any]]]:
    """Split the combined public NLI rows into `train`, `mnli_dev`, `anli_dev`, `excluded`.

    Texts are detokenised; rows keep their `source`/`split` fields.
    """
    out: dict[str, list[dict[str, Any]]] = {"train": [], "mnli_dev": [], "anli_dev": [], "excluded": []}
    pending: list[dict[str, Any]] = []
    for row in rows:
        row = dict(row, premise=detokenise(row["premise"]), hypothesis=detokenise(row["hypothesis"]))
        source = str(row.get("source", ""))
        u = bucket(pair_key(row["premise"], row["hypothesis"]), "nli-eval")
        if row.get("label") not in THREE_WAY or source.startswith(("breaking_nli", "rte")):
            out["excluded"].append(row)
        elif source.startswith("mnli") and u < mnli_eval:
            out["mnli_dev"].append(row)
        elif source.startswith("anli") and u < anli_eval:
            out["anli_dev"].append(row)
        else:
            pending.append(row)
    held = {pair_key(r["premise"], r["hypothesis"]) for r in out["mnli_dev"] + out["anli_dev"]}
    seen: set[str] = set()
    for row in pending:
        key = pair_key(row["premise"], row["hypothesis"])
        if key in held or key in seen:
            out["excluded"].append(row)
            continue
        seen.add(key)
        out["train"].append(row)
    return out


def load_attribution(path: str | Path, *, with_question: bool = False) -> list[dict[str, Any]]:
    """AttributionBench-style rows as {id, source, premise, hypothesis, label (1 = attributable)}."""
    out = []
    for row in read_jsonl(path):
        label = str(row["label"]).strip().lower()
        if label not in ("attributable", "not attributable"):
            raise ValueError(f"row {row.get('id')}: unknown attribution label {row['label']!r}")
        claim = row["claim"].strip()
        hypothesis = f"{row['question'].strip()} {claim}" if with_question and row.get("question") else claim
        out.append({
            "id": row.get("id") or hashlib.sha256((row["evidence"] + claim).encode()).hexdigest()[:16],
            "source": row.get("source", ""),
            "premise": row["evidence"],
            "hypothesis": hypothesis,
            "label": 1 if label == "attributable" else 0,
        })
    return out
