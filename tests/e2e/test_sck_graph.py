"""SCK on real graphs: the paper's Figure 5 (content score) on a tiny product graph, and per-sentence
KG attribution of a Stephen Crane answer (Q206534, from dumps/wikidata_sample.jsonl.gz) with the real
local NLI model; then the file runner and `kalma-graph score` end to end."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from kalma_graph.ingest import ingest
from kalma_graph.sck.base import linked_ids
from kalma_graph.sck.content import c_score
from kalma_graph.sck.kg_attr import ATTRIBUTABLE, CONTRADICTORY
from kalma_graph.sck.ve import ve_score
from tests.conftest import SHARED, WIKIDATA_JSON

_env_model = os.environ.get("KALMA_NLI_MODEL")
NLI_MODEL = Path(_env_model) if _env_model and Path(_env_model).is_dir() else SHARED / "models" / "nli-minilm-l6-v1"
needs_nli = pytest.mark.skipif(not (NLI_MODEL / "config.json").is_file(), reason=f"no NLI model at {NLI_MODEL}")

# --- Figure 5: two of three compared products -> C = 2/3 -------------------------------------------

PRODUCTS = {  # the QIDs the paper gives for the three products
    "Q108118280": ("iPhone 13", "Apple iPhone 13"),
    "Q108939091": ("Pixel 6", "Google Pixel 6"),
    "Q115127699": ("Galaxy S23", "Samsung Galaxy S23"),
}
FIGURE5_QUESTION = "Compare these iPhone 13, Pixel 6, and Galaxy S23"
FIGURE5_ANSWER = (
    "The iPhone 12, released in 2020, offers a sleek design, a capable A14 Bionic chip, and a vibrant Super "
    "Retina XDR display. The iPhone 13, introduced in 2021, builds upon its predecessor with the more powerful "
    "A15 Bionic chip, improved camera system, and longer battery life. The Pixel 6, launched in 2021 as well, "
    "featuring impressive computational photography capabilities, alongside a clean Android experience. "
    "Ultimately, the choice between them depends on user preferences, with iPhone models known for their "
    "ecosystem integration and build quality, while the Pixel 6 excels in camera innovation and a more pure "
    "Android experience."
)


def _item(qid: str, label: str, alias: str) -> dict:
    return {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": label}},
            "descriptions": {}, "aliases": {"en": [{"language": "en", "value": alias}]}, "claims": {}}


def product_ner():
    """The spaCy pipeline with the product names as an entity ruler: the small model tags none of them
    as products ("Pixel" becomes a PERSON, "6" a number) — the usual spaCy way to teach it a domain's names."""
    from kalma_graph.models.ner import load_ner

    ner = load_ner()
    ruler = ner.nlp.add_pipe("entity_ruler", before="ner", config={"overwrite_ents": True})
    ruler.add_patterns([{"label": "PRODUCT", "pattern": label} for label, _ in PRODUCTS.values()])
    return ner


def test_figure5_content_score_on_a_product_graph(embedded_store, tmp_path):
    from kalma_graph.sck.entities import GraphLinker

    dump = tmp_path / "products.jsonl"
    dump.write_text("".join(json.dumps(_item(q, *names)) + "\n" for q, names in PRODUCTS.items()))
    ingest(embedded_store, [dump])
    linker = GraphLinker(embedded_store, product_ner())
    question, answer = linker.link([FIGURE5_QUESTION, FIGURE5_ANSWER])
    assert linked_ids(question) == list(PRODUCTS)
    result = c_score(linked_ids(answer), linked_ids(question), source="question")
    assert result.value == pytest.approx(2 / 3)
    assert result.evidence["found"] == ["Q108118280", "Q108939091"]
    assert result.evidence["missed"] == ["Q115127699"]
    # VE: iPhone 13 and Pixel 6 are in the graph; A14/A15 Bionic, Super Retina XDR, Android, iPhone are not
    ve = ve_score(answer)
    assert ve.evidence["verifiable"] == ["Q108118280", "Q108939091"]
    assert ve.value == pytest.approx(2 / 7)


# --- Stephen Crane: per-sentence attribution with the real NLI model ------------------------------

CRANE = "Q206534"


def crane_dump(path: Path) -> Path:
    """Stephen Crane's line of the sample dump, the lines of every entity he points to, and Boston's."""
    lines: dict[str, str] = {}
    with gzip.open(WIKIDATA_JSON, "rt", encoding="utf-8") as handle:
        for line in handle:
            line = line.strip().rstrip(",")
            if line.startswith("{"):
                lines[json.loads(line)["id"]] = line
    crane = json.loads(lines[CRANE])
    objects = sorted({s["mainsnak"]["datavalue"]["value"]["id"] for claims in crane["claims"].values() for s in claims
                      if s["mainsnak"].get("datavalue", {}).get("type") == "wikibase-entityid"})
    keep = [CRANE, "Q100", *[o for o in objects if o in lines]]
    path.write_text("".join(lines[k] + "\n" for k in keep))
    return path


@pytest.fixture(scope="module")
def crane_store(tmp_path_factory):
    from kalma_graph.store.embedded import EmbeddedStore

    root = tmp_path_factory.mktemp("sck-crane")
    store = EmbeddedStore(root / "graph.lbdb")
    ingest(store, [crane_dump(root / "crane.jsonl")])
    yield store
    store.close()


@pytest.fixture(scope="module")
def crane_scorer(crane_store):
    from kalma_graph.sck.run import build_scorer

    return build_scorer(crane_store, nli=str(NLI_MODEL), intent="rules", nli_cache=None, device="cpu")


CRANE_QUESTION = "Who was Stephen Crane?"
CRANE_ANSWER = ("Stephen Crane was born in Newark [Q206534, place of birth: Newark]. "
                "Stephen Crane was born in Boston. He died of tuberculosis. He liked long walks.")


@pytest.mark.slow
@needs_nli
def test_crane_sentence_attribution(crane_scorer):
    from kalma_graph.sck.scorer import QARecord

    result = crane_scorer.score(QARecord("crane", CRANE_QUESTION, CRANE_ANSWER))
    rows = result.sentence_rows()
    assert [r["sentence"] for r in rows] == ["Stephen Crane was born in Newark.", "Stephen Crane was born in Boston.",
                                             "He died of tuberculosis.", "He liked long walks."]
    assert [r["prediction"] for r in rows] == ["Attributable", "Contradictory", "Attributable", "Extrapolatory"]
    assert [r["label"] for r in rows[:2]] == [ATTRIBUTABLE, CONTRADICTORY]
    # Table 1 columns: relevant triplets, rationale, identified entities
    assert rows[0]["relevant_triplets"] == [["Stephen Crane", "place of birth", "Newark"]]
    assert rows[0]["identified_entities"] == [CRANE, "Q25395"]
    assert rows[1]["relevant_triplets"] == [["Stephen Crane", "place of birth", "Newark"]]
    assert rows[1]["identified_entities"] == [CRANE, "Q100"]
    assert "('Stephen Crane', 'place of birth', 'Boston')" in rows[1]["rationale"]
    assert "but the graph has ('Stephen Crane', 'place of birth', 'Newark')" in rows[1]["rationale"]
    assert ["Stephen Crane", "cause of death", "tuberculosis"] in rows[2]["relevant_triplets"]
    assert rows[2]["question_entities_added"] == [CRANE]  # "He" is Stephen Crane through the question
    assert rows[3]["relevant_triplets"] == []
    # KG-AttrScore = max(0, (2 attributable - 1 contradictory) / 4 sentences)
    assert result.value("kg_attr") == pytest.approx(0.25)
    # VE: Stephen Crane, Newark, Boston all in the graph; C: the question's only entity is covered
    assert result.value("ve") == 1.0 and result.value("c") == 1.0
    # ER: Stephen Crane's description in the sample ("American writer and poet (1871–1900)", composed
    # from his claims by scripts/build_dumps.py) against the question
    er = result.value("er")
    assert er is not None and 0.0 < er <= 1.0
    [row] = result.scores["er"].evidence["entities"]
    assert row["id"] == CRANE and row["description"] == "American writer and poet (1871–1900)"
    assert result.value("k") == pytest.approx((1.0 + er + 0.25) / 3)  # equal weights
    assert result.intent.intent == "factoid"
    s = result.value("s")
    assert result.value("sck") == pytest.approx((0.1 * s + 0.1 * 1.0 + 0.8 * result.value("k")) / 1.0)


# --- the bundled graph: descriptions for the ER score ----------------------------------------------

# A released BioKaLMA question (dumps/biokalma/simple_question_graph.json.gz) about Stephen Crane.
BIOKALMA_CRANE_QUESTION = ("Who was Stephen Crane, what were his family's religious affiliations, "
                           "and how did his health affect his work?")


@pytest.fixture(scope="module")
def sample_graph(tmp_path_factory) -> Path:
    """The whole Wikidata sample dump ingested into an embedded store (closed again: the CLI opens it)."""
    from kalma_graph.store.embedded import EmbeddedStore

    path = tmp_path_factory.mktemp("sck-sample") / "graph.lbdb"
    store = EmbeddedStore(path)
    try:
        ingest(store, [WIKIDATA_JSON])
    finally:
        store.close()
    return path


@pytest.mark.slow
def test_bundled_graph_describes_crane_and_er_is_defined(sample_graph):
    """`kalma-graph show Q206534` prints Stephen Crane's description from the bundled sample, and the ER
    score of a BioKaLMA question naming him is defined (it was None while the sample had no
    description for him)."""
    from kalma_graph.models.embeddings import load_embedder
    from kalma_graph.models.ner import load_ner
    from kalma_graph.sck.entities import GraphLinker
    from kalma_graph.sck.er import er_score
    from kalma_graph.store.embedded import EmbeddedStore
    from tests.e2e.test_cli import kg

    uri = f"embedded:{sample_graph}"
    [shown] = json.loads(kg("show", CRANE, "--store", uri, "--json").stdout)["entities"]
    assert shown["id"] == CRANE and shown["description"] == "American writer and poet (1871–1900)"
    assert "American writer and poet (1871–1900)" in kg("show", CRANE, "--store", uri, "--limit", "1").stdout

    store = EmbeddedStore(sample_graph, read_only=True)
    try:
        assert store.get_entity(CRANE).description == "American writer and poet (1871–1900)"
        linker = GraphLinker(store, load_ner())
        [mentions] = linker.link([BIOKALMA_CRANE_QUESTION])
        ids = linked_ids(mentions)
        assert CRANE in ids
        result = er_score(BIOKALMA_CRANE_QUESTION, [e for e in map(linker.entity, ids) if e], load_embedder())
    finally:
        store.close()
    assert result.value is not None and 0.0 < result.value <= 1.0
    crane = next(row for row in result.evidence["entities"] if row["id"] == CRANE)
    assert crane["cosine"] > 0.0 and CRANE not in result.evidence["no_description"]


@pytest.mark.slow
@needs_nli
def test_paper_evidence_only_cannot_see_the_contradiction(crane_scorer):
    """With the paper's SoT alone (statements between the sentence's entities), "born in Boston" has no
    triplet: Extrapolatory, as Table 1's sentence 4."""
    from kalma_graph.sck.scorer import QARecord, ScoreOptions

    old = crane_scorer.options
    crane_scorer.options = ScoreOptions(evidence="between")
    try:
        result = crane_scorer.score(QARecord("b", CRANE_QUESTION, "Stephen Crane was born in Boston."))
    finally:
        crane_scorer.options = old
    [row] = result.sentence_rows()
    assert row["prediction"] == "Extrapolatory" and row["n_between"] == 0 and row["n_context"] == 0


@pytest.mark.slow
@needs_nli
def test_score_file_writes_reports_and_resumes(crane_scorer, tmp_path):
    from kalma_graph.sck.run import RunConflict, score_file
    from kalma_graph.sck.scorer import ScoreOptions

    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "crane", "question": CRANE_QUESTION, "answer": CRANE_ANSWER}) + "\n" +
                    json.dumps({"id": "steps", "question": "How do I bake bread?",
                                "answer": "1. Mix flour and water.\n2. Knead the dough.\n3. Bake it."}) + "\n")
    out = tmp_path / "out"
    summary = score_file(crane_scorer, data, out)
    for name in ("header.json", "answers.jsonl", "sentences.jsonl", "answers.csv", "sentences.csv",
                 "summary.json", "summary.md"):
        assert (out / name).is_file(), name
    assert summary["answers"] == 2 and summary["throughput"]["scored_now"] == 2
    assert set(summary["per_intent"]) == {"factoid", "instruction"}
    assert summary["sentence_labels"] == {"Attributable": 2, "Extrapolatory": 4, "Contradictory": 1, "missing": 0}
    header = json.loads((out / "header.json").read_text())
    assert header["judge"]["judge"] == "nli" and header["judge"]["nli"]["model_hash"]
    assert header["embedder"]["embedder_hash"] and header["intent_weights"]["sha256"]
    assert "| factoid | 1 |" in (out / "summary.md").read_text()
    assert (out / "sentences.csv").read_text().count("\n") == 1 + 4 + 3
    # a second run finds nothing to do and rewrites the same reports
    again = score_file(crane_scorer, data, out)
    assert again["throughput"]["scored_now"] == 0 and again["overall"] == summary["overall"]
    # other settings in the same directory are refused
    old = crane_scorer.options
    crane_scorer.options = ScoreOptions(evidence="between")
    try:
        with pytest.raises(RunConflict):
            score_file(crane_scorer, data, out)
    finally:
        crane_scorer.options = old


@pytest.mark.slow
@needs_nli
def test_score_file_rescores_a_torn_answer_and_refuses_a_corrupt_log(crane_scorer, tmp_path):
    from kalma_graph.files import CorruptJsonlError, TornLineWarning
    from kalma_graph.sck.run import score_file

    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "crane", "question": CRANE_QUESTION, "answer": CRANE_ANSWER}) + "\n" +
                    json.dumps({"id": "born", "question": CRANE_QUESTION,
                                "answer": "Stephen Crane was born in Newark."}) + "\n")
    out = tmp_path / "out"
    first = score_file(crane_scorer, data, out)
    answers = out / "answers.jsonl"
    lines = answers.read_text(encoding="utf-8").splitlines(keepends=True)
    assert [json.loads(line)["id"] for line in lines] == ["crane", "born"]
    # Killed while writing the second answer (its sentence rows are already in sentences.jsonl).
    answers.write_text(lines[0] + lines[1][:25], encoding="utf-8")
    with pytest.warns(TornLineWarning, match="answers.jsonl:2: dropped a torn last line"):
        again = score_file(crane_scorer, data, out)
    assert again["throughput"]["scored_now"] == 1 and again["answers"] == 2
    assert again["overall"] == first["overall"] and again["sentence_labels"] == first["sentence_labels"]
    assert answers.read_text(encoding="utf-8").splitlines(keepends=True)[0] == lines[0]
    assert [json.loads(line)["id"] for line in answers.read_text(encoding="utf-8").splitlines()] == ["crane", "born"]
    # A damaged line with an answer after it is not a crash: refused with file:line, nothing dropped.
    answers.write_text(lines[0][:40] + "\n" + lines[1], encoding="utf-8")
    damaged = answers.read_bytes()
    with pytest.raises(CorruptJsonlError, match="answers.jsonl:1: not valid JSON"):
        score_file(crane_scorer, data, out)
    assert answers.read_bytes() == damaged


@pytest.mark.slow
@needs_nli
def test_cli_score_end_to_end(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from kalma_graph.cli.main import cli
    from kalma_graph.store.embedded import EmbeddedStore

    store = EmbeddedStore(tmp_path / "graph.lbdb")
    ingest(store, [crane_dump(tmp_path / "crane.jsonl")])
    store.close()
    data = tmp_path / "in.csv"
    data.write_text('id,question,answer\nc1,Where was Stephen Crane born?,Stephen Crane was born in Boston.\n')
    monkeypatch.setenv("KALMA_NLI_CACHE", str(tmp_path / "nli.sqlite"))
    args = ["score", "--in", str(data), "--out", str(tmp_path / "out"), "--store",
            f"embedded:{tmp_path / 'graph.lbdb'}",
            "--nli", str(NLI_MODEL), "--intent", "rules", "--device", "cpu", "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["answers"] == 1 and summary["sentence_labels"]["Contradictory"] == 1
    row = next(iter(__import__("csv").DictReader((tmp_path / "out" / "answers.csv").open())))
    assert row["id"] == "c1" and row["intent"] == "factoid" and float(row["kg_attr"]) == 0.0


@pytest.fixture(scope="module")
def local_llm():
    """The packaged SmolLM2 GGUF through llama-cpp-python — skipped when llama.cpp cannot run a model
    here (probed in a subprocess: a build for another CPU dies with SIGILL, taking pytest with it)."""
    import subprocess
    import sys

    code = ("from kalma_graph.models.llm import GenerationParams, load_llm; "
            "load_llm(n_ctx=2048).chat([{'role': 'user', 'content': 'Hi'}], GenerationParams(max_tokens=1))")
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"llama.cpp cannot run a model here (probe exit {probe.returncode})")
    from kalma_graph.models.llm import load_llm

    llm = load_llm(n_ctx=2048)
    yield llm
    llm.close()


@pytest.mark.slow
def test_llm_judge_and_intent_grammars_give_readable_outputs(crane_store, local_llm):
    """With the grammars of prompts/sck/*.json the tiny model's replies always parse: a decision (read
    from its JSON field even when max_tokens cuts the rationale) and one of the seven intents."""
    import re

    from kalma_graph.sck.base import INTENTS
    from kalma_graph.sck.intent import LLMIntentClassifier
    from kalma_graph.sck.judges import LLMAttributionJudge
    from kalma_graph.sck.kg_attr import fetch_evidence

    judge = LLMAttributionJudge(local_llm, max_triplets=3, max_tokens=24)
    evidence = fetch_evidence(crane_store, ["Q100"], [CRANE])
    [j] = judge.judge(CRANE_QUESTION, [("Stephen Crane was born in Boston.", evidence)])
    assert re.match(r'\{ ?"decision": ?"(Attributable|Contradictory|Extrapolatory)"', j.raw), j.raw
    assert j.label in (ATTRIBUTABLE, 0, CONTRADICTORY) and j.missing_reason is None
    assert judge.header()["constrained"] is True
    [prediction] = LLMIntentClassifier(local_llm, max_tokens=12).classify(["Why do cats purr?"])
    assert prediction.intent in INTENTS and prediction.missing_reason is None, prediction.raw
