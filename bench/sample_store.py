"""The store a bench reads: the one named by `--store`, or (with `--ingest`) a throwaway embedded store
loaded with the bundled Wikidata sample and BioKaLMA records. Shared by the answer, retrieval and
evaluate benches."""

from __future__ import annotations

from pathlib import Path

from kalma_graph.store import open_store

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DUMPS = (REPO / "dumps/wikidata_sample.jsonl.gz", REPO / "dumps/biokalma_records.jsonl.gz")


def open_sample_store(uri: str | None, ingest_under: str | None = None):
    """`open_store(uri)`; with `ingest_under` (a temporary directory), a new embedded store there
    holding the sample dumps instead."""
    if ingest_under is None:
        return open_store(uri)
    from kalma_graph.ingest import ingest

    store = open_store(f"embedded:{ingest_under}/graph.lbdb")
    ingest(store, list(SAMPLE_DUMPS))
    return store
