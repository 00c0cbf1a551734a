"""Queries drawn from the graph itself (the bundled KGQA samples are small): path-like (2 hops,
`e0 -r0-> ?v1 -r1-> ?a`), tree-like (two subjects converging on one answer, `(e0, r0, ?a) ∧ (e1,
r1, ?a)`) and single-triple queries whose subject has a namesake holding the same relation (the
only queries the union extension can extend).

Deterministic for a seed: anchors are a seeded permutation of the knowledge base's named entities
(sorted first), every choice uses `random.Random` seeded by (seed, kind, kb, anchor), and the
neighbourhoods come back sorted from `GraphView`.
"""

from __future__ import annotations

import random
from typing import Iterator

from kalma_graph.caqa.graph import GraphView, usable_pid
from kalma_graph.caqa.kgqa import CollectedQuery
from kalma_graph.caqa.model import Branch, Grounding, Hop, Query

MAX_ANCHOR_TRIES = 20  # anchors tried per wanted query before giving up on a kind


def rng_for(seed: int, *parts: object) -> random.Random:
    return random.Random("\x1f".join([str(seed), *map(str, parts)]))


def sample_path(view: GraphView, anchor: str, rng: random.Random) -> Grounding | None:
    firsts = [f for f in view.out_facts(anchor) if usable_pid(f.pid) and f.object != anchor]
    rng.shuffle(firsts)
    for f1 in firsts[:8]:
        seconds = [f for f in view.out_facts(f1.object)
                   if usable_pid(f.pid) and f.object not in (anchor, f1.object) and f.pid != f1.pid]
        if seconds:
            f2 = rng.choice(seconds)
            branch = Branch(anchor, f1.subject_name, (Hop(f1.pid, f1.label), Hop(f2.pid, f2.label)))
            return Grounding(Query((branch,)), ((f1, f2),))
    return None


def sample_tree(view: GraphView, anchor: str, rng: random.Random) -> Grounding | None:
    firsts = [f for f in view.out_facts(anchor) if usable_pid(f.pid) and f.object != anchor]
    rng.shuffle(firsts)
    for f0 in firsts[:8]:
        others = [f for f in view.in_facts(f0.object)
                  if usable_pid(f.pid) and f.subject not in (anchor, f0.object)]
        if others:
            f1 = rng.choice(others)
            b0 = Branch(anchor, f0.subject_name, (Hop(f0.pid, f0.label),))
            b1 = Branch(f1.subject, f1.subject_name, (Hop(f1.pid, f1.label),))
            return Grounding(Query((b0, b1)), ((f0,), (f1,)))
    return None


def sample_single(view: GraphView, anchor: str, rng: random.Random, kb: str | None = None) -> Grounding | None:
    """A triple of `anchor` under a relation that one of its namesakes also has, with another
    object (union-ready: the union then has two answers)."""
    facts = [f for f in view.out_facts(anchor) if usable_pid(f.pid) and f.object != anchor]
    rng.shuffle(facts)
    seen: set[str] = set()
    for f in facts:
        if f.pid in seen:
            continue
        seen.add(f.pid)
        if any(x.object != f.object for x in view.namesake_facts(f, kb)):
            return Grounding(Query((Branch(anchor, f.subject_name, (Hop(f.pid, f.label),)),)), ((f,),))
    return None


SAMPLERS = {"path": sample_path, "tree": sample_tree, "single": sample_single}


def sample_queries(view: GraphView, kb: str, counts: dict[str, int], seed: int = 0) -> Iterator[CollectedQuery]:
    """`counts` = {"path": n, "tree": n, "single": n}: queries wanted per kind for knowledge base `kb`.
    Fewer come back when the graph runs out of anchors (each anchor is tried once per kind)."""
    entities = view.named_entities(kb)
    for kind in ("path", "tree", "single"):
        wanted = counts.get(kind, 0)
        if wanted <= 0:
            continue
        if kind == "single":
            anchors = _namesake_anchors(view, kb)
        else:
            anchors = list(entities)
        rng_for(seed, "anchors", kind, kb).shuffle(anchors)
        made = 0
        seen: set[tuple] = set()
        for tries, anchor in enumerate(anchors):
            if made >= wanted or tries >= wanted * MAX_ANCHOR_TRIES:
                break
            rng = rng_for(seed, kind, kb, anchor)
            grounding = (sample_single(view, anchor, rng, kb) if kind == "single"
                         else SAMPLERS[kind](view, anchor, rng))
            if grounding is None:
                continue
            signature = tuple(sorted(f.key for f in grounding.facts))
            if signature in seen:
                continue
            seen.add(signature)
            made += 1
            yield CollectedQuery(
                key=f"sample-{kind}:{kb}:{anchor}", source=f"sampler-{kind}", kb=kb, question=None,
                grounding=grounding, provenance={"sampler": kind, "anchor": anchor, "seed": seed},
            )


def _namesake_anchors(view: GraphView, kb: str) -> list[str]:
    """Entities of `kb` whose name another entity of `kb` shares."""
    from kalma_graph.caqa import graph_queries as caqa_ops

    return sorted({i for _, ids in caqa_ops.namesake_groups(view.store, kb) for i in ids})
