"""Grounding and structured attribution generation (§4.3): the supportive subgraph G and its three
edits, each read through a named Cypher operation that returns an edited copy (the base graph is
never written).

- **supportive**: G itself, read back from the graph (`caqa_ground`).
- **partially supportive**: G minus one triple (path) or minus every triple of one
  subject-to-answer path (tree, union) (`caqa_edit_partial`); single-triple queries get none.
- **contradictory**: G with the answer entity (for a union: one of the answers) replaced by a
  non-answer entity of the same type (`caqa_same_type_*` for the candidates,
  `caqa_edit_contradictory` for the copy). "Same type": the candidate fills the same slot of the
  same relation somewhere in the graph (the relation's range, or domain for a reverse hop) and, when
  the answer has `instance of` classes (Wikidata), shares one of them; Freebase entities carry no
  classes here, so the range alone decides there. Non-answer: not an answer of the query anywhere in
  the graph, and not an entity of G.
- **irrelevant**: a subgraph of G's shape around G's subject (the first branch's anchor: same hop
  count and directions, branches meeting in one new entity for a tree) with other relations and
  other entities: it shares only the subject with G (`caqa_irrelevant_out/_in`, then `caqa_ground`).
  A union's shape is taken as a star of as many triples from the subject. When the subject has no
  such neighbourhood: a lone triple is tried in the other direction, then a star of |G| triples;
  else the query gets no irrelevant sample (counted).

Every choice uses the caller's seeded `random.Random`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

from kalma_graph.caqa.graph import GraphView, usable_pid
from kalma_graph.caqa.model import (
    CONTRADICTORY,
    IRRELEVANT,
    PARTIAL,
    SUPPORTIVE,
    Fact,
    Grounding,
    entities_of,
    pids_of,
)

IRRELEVANT_TRIES = 6


@dataclass
class Edit:
    category: str
    facts: list[Fact]
    deleted: list[Fact] = field(default_factory=list)
    info: dict = field(default_factory=dict)


def ordered(facts: Sequence[Fact], reference: Sequence[Fact]) -> list[Fact]:
    """`facts` in the order of `reference` (matched by statement ids, which edits keep), the rest
    after them in their given order — citations read from the subject towards the answer."""
    rank = {f.sids: i for i, f in enumerate(reference)}
    return sorted(facts, key=lambda f: (rank.get(f.sids, len(rank)), f.key))


def chain_order(grounding: Grounding) -> list[Fact]:
    out: list[Fact] = []
    for chain in grounding.chains:
        for f in chain:
            if f not in out:
                out.append(f)
    return out


def supportive(view: GraphView, grounding: Grounding) -> Edit | None:
    wanted = chain_order(grounding)
    found = view.ground(wanted)
    if {f.key for f in found} != {f.key for f in wanted}:
        return None  # the graph lacks part of G (cannot happen for facts read from it)
    return Edit(SUPPORTIVE, ordered(found, wanted))


def partial(view: GraphView, grounding: Grounding, support: Edit, rng: random.Random) -> Edit | None:
    query = grounding.query
    structure = query.structure
    if structure == "single":
        return None  # §4.3: "In the case of single-triple queries, no deletion is performed."
    if structure == "path":
        deleted = [rng.choice(list(grounding.chains[0]))]
        how = "one triple of the path"
    else:
        k = rng.randrange(len(grounding.chains))
        deleted = list(grounding.chains[k])
        how = f"the path from subject {query.branches[k].anchor} to the answer"
    remaining = view.edit_partial(support.facts, deleted)
    expected = {f.key for f in support.facts} - {f.key for f in deleted}
    if {f.key for f in remaining} != expected or not remaining:
        return None
    return Edit(PARTIAL, ordered(remaining, support.facts), deleted=deleted, info={"deleted": how})


def contradictory(view: GraphView, grounding: Grounding, support: Edit, all_answers: set[str],
                  rng: random.Random) -> Edit | None:
    query = grounding.query
    k = rng.randrange(len(query.branches)) if query.op == "or" else 0
    branch, chain = query.branches[k], grounding.chains[k]
    hop = branch.hops[-1]
    answer = chain[-1].subject if hop.reverse else chain[-1].object
    slot = "subject" if hop.reverse else "object"
    exclude = set(all_answers) | entities_of(support.facts) | set(grounding.answers)
    pool = [c for c in view.same_type_candidates(hop.pid, slot) if c[0] not in exclude and c[1]]
    answer_types = set(view.entity_types(answer))
    basis = "relation range" if slot == "object" else "relation domain"
    if answer_types:
        typed = [c for c in pool if answer_types.intersection(c[2])]
        if typed:
            pool, basis = typed, f"instance of + {basis}"
    if not pool:
        return None
    replacement = rng.choice(pool)
    edited = view.edit_contradictory(support.facts, answer, replacement[0])
    if not any(replacement[0] in (f.subject, f.object) for f in edited):
        return None
    return Edit(CONTRADICTORY, ordered(edited, support.facts), info={
        "replaced": answer, "replacement": replacement[0], "replacement_name": replacement[1],
        "type_basis": basis, "answer_types": sorted(answer_types), "replacement_types": list(replacement[2]),
    })


def irrelevant(view: GraphView, grounding: Grounding, support: Edit, all_answers: set[str],
               rng: random.Random) -> Edit | None:
    query = grounding.query
    subject = query.branches[0].anchor
    exclude_pids = set(pids_of(support.facts)) | set(query.pids)
    exclude_ids = (entities_of(support.facts) | set(all_answers)) - {subject}
    directions = tuple(h.reverse for h in query.branches[0].hops)
    shapes: list[tuple[str, int | tuple[bool, ...]]]  # (shape, its size or its hops' directions)
    if query.structure == "union":
        shapes = [("star", len(grounding.chains))]
    elif query.structure == "tree":
        shapes = [("tree", directions)]
    else:
        shapes = [("chain", directions)]
        if len(directions) == 1:  # a lone triple from the subject in the other direction
            shapes.append(("chain", (not directions[0],)))
    shapes.append(("star", len(support.facts)))  # fallback: as many triples out of the subject
    memo: dict = {}
    for shape, size in shapes:
        for _ in range(IRRELEVANT_TRIES):
            facts = _draw_shape(view, grounding, shape, size, subject, exclude_pids, exclude_ids, rng, memo)
            if facts is None:
                continue
            found = view.ground(facts)
            if {f.key for f in found} != {f.key for f in facts}:
                continue
            return Edit(IRRELEVANT, ordered(found, facts), info={"shape": shape, "subject": subject})
    return None


def _draw_shape(view, grounding, shape, size, subject, exclude_pids, exclude_ids, rng, memo) -> list[Fact] | None:
    used_ids = set(exclude_ids) | {subject}
    facts: list[Fact] = []

    def neighbours(direction: str, node: str) -> list[Fact]:
        # the exclusions are G's (fixed per query); facts already drawn are filtered below
        key = (direction, node)
        if key not in memo:
            read = view.irrelevant_out if direction == "out" else view.irrelevant_in
            memo[key] = read(node, exclude_pids, set(exclude_ids) - {node})
        return memo[key]

    def step(direction: str, node: str) -> Fact | None:
        """One random unused fact leaving (`out`) or entering (`in`) `node`; its far end is used up."""
        far = (lambda f: f.object) if direction == "out" else (lambda f: f.subject)
        options = [f for f in neighbours(direction, node) if usable_pid(f.pid) and far(f) not in used_ids]
        if not options:
            return None
        chosen = rng.choice(options)
        facts.append(chosen)
        used_ids.add(far(chosen))
        return chosen

    def walk(node: str, hops: Sequence[bool]) -> str | None:
        """Follow `hops` from `node` (True: against the edge direction); the node reached, or None."""
        for reverse in hops:
            f = step("in" if reverse else "out", node)
            if f is None:
                return None
            node = f.subject if reverse else f.object
        return node

    if shape == "chain":
        return facts if walk(subject, size) is not None else None
    if shape == "star":
        for _ in range(size):
            if step("out", subject) is None:
                return None
        return facts
    # tree: the first branch's hops from the subject to a new meeting point, then each other
    # branch, as long as its own, into that point from new entities
    query = grounding.query
    meeting = walk(subject, size)
    if meeting is None:
        return None
    for branch in query.branches[1:]:
        if walk(meeting, [True] * len(branch.hops)) is None:
            return None
    return facts
