"""Query extension (§4.2, Table 3, Appendix B), each step one named Cypher operation.

- **union** (single-triple queries): entities sharing e0's name that have the relation r0 give
  sub-queries `(e_i, r0, ?a)`, joined by OR → union-tree (`caqa_extend_union`).
- **head** — first intersection: a triple `(e1, rn, e0)` into the subject (a randomly chosen subject
  `e_k` of a tree) from an entity outside the query, `rn` not in the query; `e0` becomes a variable
  and the branch grows by one hop, so a path stays a path (`caqa_extend_head`).
- **answer** — second intersection: a new sub-query `(en, rn, ?a)` whose answers meet the query's,
  from an entity outside the query; a path or a single triple becomes a tree (`caqa_extend_answer`).

Probabilities (§4.2): a single-triple query draws union / head / answer / none with 1/4 each; a
path (n ≥ 2) or tree draws head / answer with 1/2 each. When the drawn extension has nothing to
attach in the graph: for a path or tree the other intersection is tried (both are intersections;
the query is never left unextended when one applies); for a single triple the query stays a single
triple — as in the paper, where a union with m = 0 namesakes adds nothing. The outcome is recorded
in each sample's provenance (`extension`, `extension_drawn`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kalma_graph.caqa.graph import GraphView, usable_pid
from kalma_graph.caqa.model import Branch, Fact, Grounding, Hop, Query, entities_of

SINGLE_OPS = ("union", "head", "answer", "none")
MULTI_OPS = ("head", "answer")
MAX_NAMESAKES = 2  # namesakes joined to a union (the paper's Table 3 example has m = 2)


@dataclass(frozen=True)
class ExtensionProbs:
    single: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)  # union, head, answer, none
    multi: tuple[float, float] = (0.5, 0.5)  # head, answer

    def draw(self, structure: str, rng: random.Random) -> str:
        if structure == "single":
            return rng.choices(SINGLE_OPS, weights=self.single, k=1)[0]
        return rng.choices(MULTI_OPS, weights=self.multi, k=1)[0]


@dataclass
class Extension:
    grounding: Grounding
    drawn: str
    applied: str  # union | head | answer | none
    note: str = ""

    def provenance(self) -> dict:
        out = {"extension": self.applied, "extension_drawn": self.drawn}
        if self.note:
            out["extension_note"] = self.note
        return out


def extend(view: GraphView, grounding: Grounding, rng: random.Random,
           probs: ExtensionProbs = ExtensionProbs()) -> Extension:
    structure = grounding.query.structure
    drawn = probs.draw(structure, rng)
    if drawn == "none":
        return Extension(grounding, drawn, "none")
    order = [drawn]
    if structure != "single":
        order.append("answer" if drawn == "head" else "head")
    for op in order:
        extended = {"union": extend_union, "head": extend_head, "answer": extend_answer}[op](view, grounding, rng)
        if extended is not None:
            return Extension(extended, drawn, op)
    return Extension(grounding, drawn, "none", note=f"{'/'.join(order)}: nothing to attach in the graph")


def extend_union(view: GraphView, grounding: Grounding, rng: random.Random) -> Grounding | None:
    query = grounding.query
    if query.structure != "single" or query.branches[0].hops[0].reverse:
        return None
    fact = grounding.chains[0][0]
    others = [f for f in view.namesake_facts(fact) if f.object_name]
    if not others:
        return None
    by_subject: dict[str, list[Fact]] = {}
    for f in others:
        by_subject.setdefault(f.subject, []).append(f)
    subjects = sorted(by_subject)
    rng.shuffle(subjects)
    branches = [query.branches[0]]
    chains = [grounding.chains[0]]
    hop = query.branches[0].hops[0]
    answers = {fact.object}
    for subject in subjects:
        if len(branches) > MAX_NAMESAKES:
            break
        # Each namesake must add an answer of its own: then deleting its path (the partially
        # supportive edit) takes an answer away instead of leaving the statement fully supported.
        options = sorted((f for f in by_subject[subject] if f.object not in answers), key=lambda f: f.object)
        if not options:
            continue
        chosen = rng.choice(options)
        answers.add(chosen.object)
        branches.append(Branch(subject, chosen.subject_name, (hop,)))
        chains.append((chosen,))
    if len(branches) == 1:
        return None
    return Grounding(Query(tuple(branches), op="or"), tuple(chains))


def extend_head(view: GraphView, grounding: Grounding, rng: random.Random) -> Grounding | None:
    query = grounding.query
    if query.op != "and":
        return None
    k = rng.randrange(len(query.branches))
    branch = query.branches[k]
    candidates = [f for f in view.head_candidates(branch.anchor, query.pids, entities_of(grounding.facts))
                  if usable_pid(f.pid)]
    if not candidates:
        return None
    new = rng.choice(candidates)
    grown = Branch(new.subject, new.subject_name, (Hop(new.pid, new.label), *branch.hops))
    branches = list(query.branches)
    chains = list(grounding.chains)
    branches[k] = grown
    chains[k] = (new, *grounding.chains[k])
    return Grounding(Query(tuple(branches)), tuple(chains))


def extend_answer(view: GraphView, grounding: Grounding, rng: random.Random) -> Grounding | None:
    query = grounding.query
    if query.op != "and":
        return None
    answer = grounding.answers[0]
    candidates = [f for f in view.answer_candidates(answer, query.pids, entities_of(grounding.facts))
                  if usable_pid(f.pid)]
    if not candidates:
        return None
    new = rng.choice(candidates)
    branch = Branch(new.subject, new.subject_name, (Hop(new.pid, new.label),))
    return Grounding(Query((*query.branches, branch)), (*grounding.chains, (new,)))
