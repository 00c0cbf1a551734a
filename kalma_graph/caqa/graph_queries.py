"""The graph operations CAQA runs, each one named Cypher statement in `cypher/caqa_*.cypher`.

Functions take any `GraphStore` (embedded or Neo4j) and go through its public `query(name, params)`; every
operation is a read — extensions and edits return an edited *copy* of a subgraph, the base graph is
never written. Rows are turned into logical `Fact`s here (a CVT path counts as one hop) and sorted,
so both stores give identical results.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from kalma_graph.caqa.model import CVT_JOIN, Fact
from kalma_graph.store.base import GraphStore

Rows = list[dict[str, Any]]


def split_pid(pid: str) -> tuple[str, str]:
    """`p1./p2` → (p1, p2); a direct pid → (pid, '')."""
    first, _, second = pid.partition(CVT_JOIN)
    return first, second


def cvt_label(first: str, second: str) -> str:
    """The relation label a CVT fact shows: `award nominations (award)`; one label when the two
    agree or one contains the other (`film`)."""
    a, b = clean_label(first), clean_label(second)
    if not a:
        return b
    if not b or a == b or b in a:
        return a
    if a in b:
        return b
    return f"{a} ({b})"


def clean_label(label: str | None) -> str:
    """Freebase predicate names end plural CVT relations in ` s` (`spouse s`, `release date s`)."""
    text = (label or "").strip()
    return text[:-2] if text.endswith(" s") else text


def facts_from_hops(rows: Iterable[Mapping[str, Any]], direction: str) -> list[Fact]:
    """Logical facts from caqa_hop_out / caqa_hop_in style rows (see those files for the columns).

    `direction="out"`: the anchor (`subject` column) is the fact's subject; `"in"`: its object.
    Facts to unnamed or CVT end points are dropped (a question cannot name them).
    """
    facts: set[Fact] = set()
    for r in rows:
        if r.get("mid_cvt"):
            if not r.get("end_id") or r.get("end_cvt") or not r.get("end_name"):
                continue
            other, other_name = r["end_id"], r["end_name"]
            if direction == "out":
                pid = f"{r['pid']}{CVT_JOIN}{r['pid2']}"
                label = cvt_label(r["label"], r["label2"])
                sids: tuple[str, ...] = (r["sid"], r["sid2"])
            else:  # o -r2-> cvt -r-> anchor
                pid = f"{r['pid2']}{CVT_JOIN}{r['pid']}"
                label = cvt_label(r["label2"], r["label"])
                sids = (r["sid2"], r["sid"])
            cvt = r["mid"]
        else:
            if not r.get("mid_name"):
                continue
            other, other_name = r["mid"], r["mid_name"]
            pid, label, sids, cvt = r["pid"], clean_label(r["label"]), (r["sid"],), None
        if other == r["subject"]:
            continue  # self-loops say nothing
        if direction == "out":
            facts.add(Fact(r["subject"], pid, other, r.get("subject_name") or "", label, other_name, sids, cvt))
        else:
            facts.add(Fact(other, pid, r["subject"], other_name, label, r.get("subject_name") or "", sids, cvt))
    return sorted(facts)


def facts_from_statements(rows: Iterable[Mapping[str, Any]]) -> list[Fact]:
    """Logical facts from raw statement rows (caqa_ground / caqa_edit_*): statements into a CVT
    node are joined with the CVT node's statement out."""
    rows = list(rows)
    out_of_cvt: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        if r.get("subject_cvt"):
            out_of_cvt.setdefault(r["subject"], []).append(r)
    facts: set[Fact] = set()
    for r in rows:
        if r.get("subject_cvt"):
            continue
        if r.get("object_cvt"):
            for r2 in out_of_cvt.get(r["object"], []):
                if r2.get("object_cvt") or not r2.get("object_name"):
                    continue
                facts.add(Fact(r["subject"], f"{r['pid']}{CVT_JOIN}{r2['pid']}", r2["object"],
                               r.get("subject_name") or "", cvt_label(r["label"], r2["label"]),
                               r2["object_name"], (r["sid"], r2["sid"]), r["object"]))
        elif r.get("object_name"):
            facts.add(Fact(r["subject"], r["pid"], r["object"], r.get("subject_name") or "",
                           clean_label(r["label"]), r["object_name"], (r["sid"],), None))
    return sorted(facts)


def _subgraph_params(facts: Sequence[Fact]) -> dict[str, Any]:
    subjects = sorted({f.subject for f in facts} | {f.cvt for f in facts if f.cvt})
    sids = sorted({s for f in facts for s in f.sids})
    return {"subjects": subjects, "sids": sids}


def types_from_rows(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Entity id → types, from the `*_types` columns of hop rows."""
    out: dict[str, tuple[str, ...]] = {}
    for r in rows:
        for id_col, types_col in (("mid", "mid_types"), ("end_id", "end_types"), ("object", "object_types")):
            if r.get(id_col) and types_col in r:
                out[r[id_col]] = tuple(sorted(r.get(types_col) or ()))
    return out


# --- operations ---------------------------------------------------------------------------------


def hop_out(store: GraphStore, entity_id: str) -> tuple[list[Fact], dict[str, tuple[str, ...]]]:
    """Logical out-facts of an entity (caqa_hop_out) and the types of their objects."""
    rows = store.query("caqa_hop_out", {"id": entity_id})
    return facts_from_hops(rows, "out"), types_from_rows(rows)


def hop_in(store: GraphStore, entity_id: str) -> tuple[list[Fact], dict[str, tuple[str, ...]]]:
    """Logical in-facts of an entity (caqa_hop_in) and the types of their subjects."""
    rows = store.query("caqa_hop_in", {"id": entity_id})
    return facts_from_hops(rows, "in"), types_from_rows(rows)


def kgqa_fact(store: GraphStore, subject: str, pid: str, obj: str) -> tuple[Fact | None, tuple[str, ...]]:
    """The fact (subject, pid, object) when the loaded graph holds it (both ends named), with the
    object's types; (None, ()) otherwise."""
    rows = store.query("caqa_kgqa_fact", {"subject": subject, "pid": pid, "object": obj})
    facts = [f for f in facts_from_statements(rows) if f.subject_name]
    if not facts:
        return None, ()
    return facts[0], tuple(sorted(rows[0].get("object_types") or ()))


def named_entities(store: GraphStore, kb: str) -> list[str]:
    return sorted(r["id"] for r in store.query("caqa_named_entities", {"kb": kb}))


def namesake_groups(store: GraphStore, kb: str) -> list[tuple[str, list[str]]]:
    """Names shared by two or more entities of `kb`: [(name key, sorted ids)], sorted (caqa_namesakes)."""
    return sorted((r["key"], sorted(r["ids"])) for r in store.query("caqa_namesakes", {"kb": kb}))


def extend_union(store: GraphStore, name_key: str, entity_id: str, kb: str) -> list[str]:
    """Ids of the entities of `kb` named like e0 (caqa_extend_union), sorted."""
    rows = store.query("caqa_extend_union", {"key": name_key, "id": entity_id, "kb": kb})
    return sorted({r["id"] for r in rows})


def extend_head(store: GraphStore, entity_id: str, exclude_pids: Iterable[str],
                exclude_ids: Iterable[str]) -> list[Fact]:
    """Triples (e1, rn, e0) into the query's subject (caqa_extend_head)."""
    return _incoming(store, "caqa_extend_head", entity_id, exclude_pids, exclude_ids)


def extend_answer(store: GraphStore, answer_id: str, exclude_pids: Iterable[str],
                  exclude_ids: Iterable[str]) -> list[Fact]:
    """Triples (en, rn, a) into the answer (caqa_extend_answer)."""
    return _incoming(store, "caqa_extend_answer", answer_id, exclude_pids, exclude_ids)


def _incoming(store: GraphStore, name: str, entity_id: str, exclude_pids: Iterable[str],
              exclude_ids: Iterable[str]) -> list[Fact]:
    pids = sorted(set(exclude_pids))
    ids = sorted(set(exclude_ids))
    raw_pids = sorted({p for pid in pids for p in split_pid(pid) if p} | set(pids))
    rows = store.query(name, {"id": entity_id, "exclude_pids": raw_pids, "exclude_ids": ids})
    excluded = set(ids)
    return [f for f in facts_from_hops(rows, "in") if f.pid not in pids and f.subject not in excluded]


def same_type_candidates(store: GraphStore, pid: str, slot: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(id, name, types) of the entities filling `slot` ("object" | "subject") of relation `pid`
    anywhere in the graph, sorted by id (caqa_same_type_objects / caqa_same_type_subjects)."""
    first, second = split_pid(pid)
    if slot == "object":
        rows = store.query("caqa_same_type_objects", {"pid": first, "pid2": second})
    else:
        rows = store.query("caqa_same_type_subjects", {"pid": first, "pid2": second})
    found = {r["id"]: (r["id"], r["name"], tuple(sorted(r.get("types") or ()))) for r in rows}
    return [found[k] for k in sorted(found)]


def ground(store: GraphStore, facts: Sequence[Fact]) -> list[Fact]:
    """G read back from the graph (caqa_ground): the facts that exist, sorted."""
    if not facts:
        return []
    return facts_from_statements(store.query("caqa_ground", _subgraph_params(facts)))


def edit_partial(store: GraphStore, facts: Sequence[Fact], deleted: Sequence[Fact]) -> list[Fact]:
    """A copy of G without `deleted` (caqa_edit_partial)."""
    params = _subgraph_params(facts)
    params["deleted"] = sorted({s for f in deleted for s in f.sids})
    return facts_from_statements(store.query("caqa_edit_partial", params))


def edit_contradictory(store: GraphStore, facts: Sequence[Fact], answer: str, replacement: str) -> list[Fact]:
    """A copy of G with the answer entity replaced (caqa_edit_contradictory)."""
    params = _subgraph_params(facts)
    params.update(answer=answer, replacement=replacement)
    return facts_from_statements(store.query("caqa_edit_contradictory", params))


def irrelevant_out(store: GraphStore, entity_id: str, exclude_pids: Iterable[str],
                   exclude_ids: Iterable[str]) -> list[Fact]:
    """Out-facts of an entity avoiding G's relations and entities (caqa_irrelevant_out)."""
    pids = sorted(set(exclude_pids))
    ids = sorted(set(exclude_ids))
    raw_pids = sorted({p for pid in pids for p in split_pid(pid) if p} | set(pids))
    rows = store.query("caqa_irrelevant_out", {"id": entity_id, "exclude_pids": raw_pids, "exclude_ids": ids})
    excluded = set(ids)
    return [f for f in facts_from_hops(rows, "out") if f.pid not in pids and f.object not in excluded]


def irrelevant_in(store: GraphStore, entity_id: str, exclude_pids: Iterable[str],
                  exclude_ids: Iterable[str]) -> list[Fact]:
    """In-facts of an entity avoiding G's relations and entities (caqa_irrelevant_in)."""
    return _incoming(store, "caqa_irrelevant_in", entity_id, exclude_pids, exclude_ids)
