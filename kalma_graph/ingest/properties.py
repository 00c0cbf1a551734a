"""Property labels: Wikidata PIDs from the bundled property list, Freebase predicates from their path.

Citations show property *labels* (`place of birth: Rome`), so every statement stores one.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def wikidata_properties() -> dict[str, tuple[str, str]]:
    """PID → (English label, Wikidata datatype), from `kalma_graph/data/wikidata_properties.tsv.gz`."""
    raw = resources.files("kalma_graph").joinpath("data/wikidata_properties.tsv.gz").read_bytes()
    table: dict[str, tuple[str, str]] = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines()[1:]:
        pid, label, datatype, _aliases = line.split("\t")
        table[pid] = (label, datatype)
    return table


@lru_cache(maxsize=1)
def wikidata_pid_by_label() -> dict[str, str]:
    """English label → PID; when two properties share a label, the older (smaller) PID wins."""
    by_label: dict[str, str] = {}
    for pid, (label, _) in sorted(wikidata_properties().items(), key=lambda kv: int(kv[0][1:])):
        by_label.setdefault(label, pid)
    return by_label


def wikidata_label(pid: str, learned: dict[str, str] | None = None) -> str:
    """Label for a PID: the bundled list, else one learned from the dump itself, else the PID."""
    found = wikidata_properties().get(pid)
    if found:
        return found[0]
    return (learned or {}).get(pid, pid)


def freebase_label(predicate: str) -> str:
    """`people.person.place_of_birth` → `place of birth`. For FB15k-237 compound (CVT-collapsed)
    relations `a.b.c_s./x.y.z` the last segment names what the edge leads to."""
    last = predicate.rstrip("./").split(".")[-1].split("/")[-1]
    return last.replace("_", " ").strip() or predicate
