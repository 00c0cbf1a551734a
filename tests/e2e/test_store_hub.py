"""Bounded queries at scale (issue 14, item 4): a hub with a million statements does not blow up
linking. Q5 ("human") in Wikidata has millions of incoming statements; re-ranking reads the neighbour
labels of each candidate, and the prior counts its statements: both stay bounded."""

from __future__ import annotations

import tracemalloc

import pyarrow as pa

from kalma_graph.retrieval.linking import link_question
from kalma_graph.store.base import NEIGHBOUR_LABELS_LIMIT, EntityRecord
from kalma_graph.store.embedded import _ENTITY_SCHEMA, _STATEMENT_SCHEMA, EmbeddedStore

N = int(__import__("os").environ.get("HUB_N", 1_000_000))


def _hub(path) -> EmbeddedStore:
    """Q5 "human" with N people pointing at it (P31), and Q1 "Ann Hub", who has N statements of her own."""
    store = EmbeddedStore(path)
    store.bootstrap()
    ids = [f"Q{10_000_000 + i}" for i in range(N)]
    store.load_batch([EntityRecord("Q5", "wikidata", name="human"), EntityRecord("Q1", "wikidata", name="Ann Hub")], [])
    store._execute("COPY Entity FROM $rows", {"rows": pa.table({
        "id": ids, "kb": ["wikidata"] * N, "name": [f"person {i}" for i in range(N)],
        "name_lc": [f"person {i}" for i in range(N)], "aliases": [[]] * N, "aliases_text": [""] * N,
        "description": [None] * N, "types": [["Q5"]] * N, "cvt": [False] * N}, schema=_ENTITY_SCHEMA)})
    edges = {"from": ids + ["Q1"] * N, "to": ["Q5"] * N + ids, "sid": [f"s{i}" for i in range(2 * N)],
             "pid": ["P31"] * N + ["P1038"] * N, "label": ["instance of"] * N + ["relative"] * N}
    store._execute("COPY STATEMENT FROM $rows (from = 'Entity', to = 'Entity')",
                   {"rows": pa.table(edges, schema=_STATEMENT_SCHEMA)})
    return store


def test_a_hub_with_a_million_statements_keeps_linking_bounded(tmp_path):
    store = _hub(tmp_path / "hub.lbdb")
    try:
        assert store.stats().entity_statements == 2 * N
        link_question(store, "Who is Ann Hub?", None)  # loads spaCy's stop words: not what is measured
        tracemalloc.start()
        labels = store.neighbour_labels("Q5")  # a million incoming statements
        own = store.neighbour_labels("Q1")  # a million outgoing ones
        degree = store.out_degree("Q1")
        linking = link_question(store, "Was Ann Hub a human?", None)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(labels) == NEIGHBOUR_LABELS_LIMIT and len(own) == NEIGHBOUR_LABELS_LIMIT
        assert degree == N  # counted in the database
        assert "Q1" in [lm.selected.id for lm in linking.linked if lm.selected]
        # Fetching the labels whole would hold a million strings (well over 100 MB of Python objects).
        assert peak < 30 * 2**20, f"peak Python memory {peak / 2**20:.1f} MiB"
    finally:
        store.close()
