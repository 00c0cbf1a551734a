"""Shared fixtures: real stores (embedded Ladybug in a temp dir; a real Neo4j server), real dumps.

Neo4j is reached in this order: `KALMA_NEO4J_URI` (+ `KALMA_NEO4J_USER` / `KALMA_NEO4J_PASSWORD`),
else our launcher (Neo4j 5.26 from Maven Central; needs java + mvn), else testcontainers when a
Docker engine answers, else the `neo4j` tests are skipped — unless `KALMA_REQUIRE_NEO4J=1`, which
turns a missing server into a failure (CI sets it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
DUMPS = REPO / "dumps"
SHARED = Path(os.environ.get("KALMA_SHARED", REPO.parent / "shared"))
# The offline NLI model of every NLI test (../shared/models; KALMA_TEST_NLI_MODEL names another).
NLI_MODEL = Path(os.environ.get("KALMA_TEST_NLI_MODEL") or SHARED / "models" / "nli-minilm-l6-v1")
needs_nli = pytest.mark.skipif(not (NLI_MODEL / "config.json").is_file(), reason=f"no NLI model at {NLI_MODEL}")

WIKIDATA_JSON = DUMPS / "wikidata_sample.jsonl.gz"
WIKIDATA_NT = DUMPS / "wikidata_sample.nt.gz"
FREEBASE_NT = DUMPS / "freebase_sample.nt.gz"
BIOKALMA_RECORDS = DUMPS / "biokalma_records.jsonl.gz"
SAMPLE_DUMPS = [WIKIDATA_JSON, BIOKALMA_RECORDS, FREEBASE_NT]
# Every file in dumps/ that holds graph facts (the Mintaka sample holds only questions).
ALL_GRAPH_DUMPS = SAMPLE_DUMPS + [
    WIKIDATA_NT,
    DUMPS / "biokalma/simple_question_graph.json.gz",
    DUMPS / "biokalma/complex_question_graph.json.gz",
    DUMPS / "kgqa/simplequestions_wikidata_test_answerable.sample.txt",
    DUMPS / "kgqa/simplequestions_freebase_valid.sample.txt",
]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The answer and judge commands default to the best pulled model (`kalma-graph models`); tests run
# the packaged SmolLM2 for speed unless they name another model (the slow 1.5B tests do).
os.environ.setdefault("KALMA_LLM", "smollm2-135m")


def _require_neo4j() -> bool:
    return os.environ.get("KALMA_REQUIRE_NEO4J", "") not in ("", "0", "false")


def _unavailable(reason: str):
    if _require_neo4j():
        pytest.fail(f"KALMA_REQUIRE_NEO4J=1 but no Neo4j server: {reason}", pytrace=False)
    pytest.skip(f"no Neo4j server: {reason}")


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory) -> Iterator[dict]:
    """Connection settings of a real Neo4j 5 server for the whole test session."""
    uri = os.environ.get("KALMA_NEO4J_URI")
    if uri:
        yield {
            "uri": uri,
            "user": os.environ.get("KALMA_NEO4J_USER", "neo4j"),
            "password": os.environ.get("KALMA_NEO4J_PASSWORD"),
            "how": "KALMA_NEO4J_URI",
        }
        return
    if shutil.which("java") and shutil.which("mvn"):
        from kalma_graph.neo4j_server import throwaway_server

        # Jars come from the shared install (verified against pinned checksums); the server's
        # data, config and logs live in a throwaway home so a user's own server is never touched.
        with throwaway_server(tmp_path_factory.mktemp("neo4j")) as info:
            yield {"uri": info.uri, "user": None, "password": None, "how": "launcher", "http_url": info.http_url}
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5.26.30-community") as container:
            yield {
                "uri": container.get_connection_url(),
                "user": "neo4j",
                "password": container.password,
                "how": "testcontainers",
            }
        return
    _unavailable("KALMA_NEO4J_URI unset, java/mvn missing for the launcher, and no Docker engine")


def open_neo4j(server: dict):
    from kalma_graph.store.neo4j_store import Neo4jStore

    return Neo4jStore(server["uri"], user=server["user"], password=server["password"])


@pytest.fixture
def embedded_store(tmp_path):
    from kalma_graph.store.embedded import EmbeddedStore

    store = EmbeddedStore(tmp_path / "graph.lbdb")
    yield store
    store.close()


@pytest.fixture
def neo4j_store(request):
    server = request.getfixturevalue("neo4j_server")
    store = open_neo4j(server)
    store.clear()
    yield store
    store.clear()
    store.close()


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store(request):
    """Each test using this runs once per store, on an empty graph."""
    yield request.getfixturevalue(f"{request.param}_store")
