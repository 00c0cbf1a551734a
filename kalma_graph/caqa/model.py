"""CAQA's records: logical facts, queries (branches of hops), subgraphs and benchmark samples.

A **fact** is one *logical* hop of the graph: a statement `(subject, pid, object)` between two named
entities, or — Freebase — two statements through a CVT node, which CAQA counts as one hop (seed 002,
Appendix C). A CVT fact's `pid` joins the two predicates as FB15k-237 does: `p1./p2`.

A **query** is a set of branches. Each branch starts at a constant entity (its anchor) and follows
hops to the answer variable `?a`; intermediate nodes are variables. `op="and"` intersects the
branches' answers (a path when there is one branch, a tree when several converge), `op="or"` unites
them (the union extension). The four structures map to the paper's complexity labels:

| structure | query (§4.1, Table 3)                      | complexity    |
|-----------|--------------------------------------------|---------------|
| single    | `(e0, r0, ?a)`                             | single        |
| path      | `[e0, r0, ?v1, …, r_{n-1}, ?a]`            | concatenation |
| tree      | `∧_i (e_i, r_i, ?a)` (branches may be paths) | intersection  |
| union     | `(e0, r0, ?a) ∨ (e1, r0, ?a) ∨ …`          | union         |
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

SUPPORTIVE = "supportive"
PARTIAL = "partially_supportive"
CONTRADICTORY = "contradictory"
IRRELEVANT = "irrelevant"
CATEGORIES = (SUPPORTIVE, PARTIAL, CONTRADICTORY, IRRELEVANT)
#: a 2-way evaluator's "everything but supportive" (AutoAIS); scored on the Sup. column only
NOT_SUPPORTIVE = "not_supportive"

SINGLE, CONCATENATION, INTERSECTION, UNION = "single", "concatenation", "intersection", "union"
COMPLEXITIES = (SINGLE, CONCATENATION, INTERSECTION, UNION)
STRUCTURE_TO_COMPLEXITY = {"single": SINGLE, "path": CONCATENATION, "tree": INTERSECTION, "union": UNION}

CATEGORY_SHORT = {SUPPORTIVE: "Sup.", PARTIAL: "Par.", CONTRADICTORY: "Con.", IRRELEVANT: "Irr."}

CVT_JOIN = "./"


@dataclass(frozen=True, order=True)
class Fact:
    """One logical hop between two named entities (ordering: subject, pid, object)."""

    subject: str
    pid: str
    object: str
    subject_name: str = field(default="", compare=False)
    label: str = field(default="", compare=False)
    object_name: str = field(default="", compare=False)
    sids: tuple[str, ...] = field(default=(), compare=False)  # 1 statement id, 2 through a CVT node
    cvt: str | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.subject, self.pid, self.object)

    def triple(self) -> tuple[str, str, str]:
        """The (name, relation, name) triple a prompt shows (Table 9's subgraph format)."""
        return (self.subject_name or self.subject, self.label, self.object_name or self.object)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["sids"] = list(self.sids)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Fact":
        return cls(
            subject=d["subject"], pid=d["pid"], object=d["object"], subject_name=d.get("subject_name", ""),
            label=d.get("label", ""), object_name=d.get("object_name", ""), sids=tuple(d.get("sids") or ()),
            cvt=d.get("cvt"),
        )


@dataclass(frozen=True)
class Hop:
    pid: str
    label: str
    reverse: bool = False  # True: the fact is (next node, pid, current node)


@dataclass(frozen=True)
class Branch:
    anchor: str
    anchor_name: str
    hops: tuple[Hop, ...]


@dataclass(frozen=True)
class Query:
    branches: tuple[Branch, ...]
    op: str = "and"  # "and" | "or"

    @property
    def structure(self) -> str:
        if self.op == "or":
            return "union"
        if len(self.branches) == 1:
            return "single" if len(self.branches[0].hops) == 1 else "path"
        return "tree"

    @property
    def complexity(self) -> str:
        return STRUCTURE_TO_COMPLEXITY[self.structure]

    @property
    def anchors(self) -> tuple[str, ...]:
        return tuple(b.anchor for b in self.branches)

    @property
    def pids(self) -> frozenset[str]:
        return frozenset(h.pid for b in self.branches for h in b.hops)

    def as_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "structure": self.structure,
            "branches": [
                {"anchor": b.anchor, "anchor_name": b.anchor_name,
                 "hops": [{"pid": h.pid, "label": h.label, "reverse": h.reverse} for h in b.hops]}
                for b in self.branches
            ],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Query":
        return cls(
            branches=tuple(
                Branch(b["anchor"], b.get("anchor_name", ""),
                       tuple(Hop(h["pid"], h.get("label", ""), bool(h.get("reverse"))) for h in b["hops"]))
                for b in d["branches"]
            ),
            op=d.get("op", "and"),
        )


@dataclass(frozen=True)
class Grounding:
    """A query bound to the graph: for each branch the chain of facts from its anchor to its answer."""

    query: Query
    chains: tuple[tuple[Fact, ...], ...]

    @property
    def facts(self) -> tuple[Fact, ...]:
        seen: dict[tuple[str, str, str], Fact] = {}
        for chain in self.chains:
            for f in chain:
                seen.setdefault(f.key, f)
        return tuple(seen.values())

    @property
    def answers(self) -> tuple[str, ...]:
        """The answer of each branch (one entity for a path/tree; one per branch for a union)."""
        return tuple(dict.fromkeys(_chain_end(b, c) for b, c in zip(self.query.branches, self.chains)))

    def answer_names(self) -> list[str]:
        names: dict[str, str] = {}
        for b, chain in zip(self.query.branches, self.chains):
            last, hop = chain[-1], b.hops[-1]
            end, name = (last.subject, last.subject_name) if hop.reverse else (last.object, last.object_name)
            names.setdefault(end, name or end)
        return list(names.values())


def _chain_end(branch: Branch, chain: Sequence[Fact]) -> str:
    last, hop = chain[-1], branch.hops[-1]
    return last.subject if hop.reverse else last.object


def entities_of(facts: Iterable[Fact]) -> set[str]:
    out: set[str] = set()
    for f in facts:
        out.add(f.subject)
        out.add(f.object)
    return out


def pids_of(facts: Iterable[Fact]) -> set[str]:
    return {f.pid for f in facts}


def evaluate(query: Query, facts: Iterable[Fact]) -> set[str]:
    """The answers of `query` over a set of facts (a subgraph): how tests check that a supportive
    citation entails the answer and that an edited one does not."""
    out_index: dict[tuple[str, str], set[str]] = {}
    in_index: dict[tuple[str, str], set[str]] = {}
    for f in facts:
        out_index.setdefault((f.subject, f.pid), set()).add(f.object)
        in_index.setdefault((f.object, f.pid), set()).add(f.subject)
    results: list[set[str]] = []
    for branch in query.branches:
        frontier = {branch.anchor}
        for hop in branch.hops:
            index = in_index if hop.reverse else out_index
            frontier = set().union(*(index.get((node, hop.pid), set()) for node in frontier)) if frontier else set()
        results.append(frontier)
    if not results:
        return set()
    if query.op == "or":
        return set().union(*results)
    answer = results[0]
    for r in results[1:]:
        answer = answer & r
    return answer


@dataclass
class Sample:
    """One benchmark sample, as written to the JSONL output (one object per line)."""

    id: str
    query_key: str
    kb: str
    split: str
    question: str
    extended_question: str | None
    answer: list[str]
    answer_ids: list[str]
    answer_statement: str
    citation: str
    category: str
    complexity: str
    triples: list[list[str]]  # (subject name, relation, object name) of the citation's subgraph
    facts: list[dict]  # the subgraph's logical facts with ids (Fact.as_dict)
    query: dict
    group_size: int  # samples written for this query (resume checks that a group is complete)
    supportive_facts: list[dict] | None = None  # partially supportive: the subgraph before deletion
    deleted_facts: list[dict] | None = None
    provenance: dict = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Sample":
        names = cls.__dataclass_fields__.keys()
        return cls(**{k: d[k] for k in names if k in d})

    @property
    def claim_question(self) -> str:
        """The question an evaluator sees: the extended one when the query was extended."""
        return self.extended_question or self.question


#: what `kalma_graph.caqa` offers of the model (the package re-exports exactly these)
__all__ = ["CATEGORIES", "COMPLEXITIES", "CONTRADICTORY", "IRRELEVANT", "PARTIAL", "SUPPORTIVE", "Fact",
           "Grounding", "Query", "Sample", "evaluate"]
