"""`kalma-graph verify` on the real embedded store loaded from the bundled dumps: any answer's claims
against the graph, bad input as a clear error, and the graph left unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kalma_graph.cli.main import cli

DUMPS = Path(__file__).resolve().parents[2] / "dumps"


def _claims(runner: CliRunner, store: str, path: Path, question: str, answers: list[str]) -> list[dict]:
    """Each answer's claims by their text, as `kalma-graph verify --json` reports them."""
    path.write_text("".join(json.dumps({"id": f"a{i}", "question": question, "answer": answer}) + "\n"
                            for i, answer in enumerate(answers)), encoding="utf-8")
    checked = runner.invoke(cli, ["verify", str(path), "--store", store, "--json"])
    assert checked.exit_code == 0, checked.output
    return [{c["text"]: c for s in check["sentences"] for c in s["claims"]}
            for check in json.loads(checked.output)["checks"]]


def test_verify_checks_any_answer_against_the_loaded_graph(tmp_path):
    store = f"embedded:{tmp_path / 'graph.lbdb'}"
    runner = CliRunner()
    loaded = runner.invoke(cli,
                           ["ingest", str(DUMPS / "wikidata_sample.jsonl.gz"), str(DUMPS / "biokalma_records.jsonl.gz"),
                            "--store", store])
    assert loaded.exit_code == 0, loaded.output
    before = runner.invoke(cli, ["stats", "--store", store, "--json"]).output
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question": "Who influenced Joyce Carol Oates?",
                                   "answer": "Joyce Carol Oates was influenced by Franz Kafka, who was a German "
                                             "writer. MATCH (n) DETACH DELETE n; {\"x\": '1'}"}) + "\n"
                       + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["verify", str(answers), "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    claims = [c for s in report["checks"][0]["sentences"] for c in s["claims"]]
    kafka = [c for c in claims if c["text"] == "Franz Kafka"]
    assert kafka and kafka[0]["status"] == "supported_uncited", claims  # the graph holds it, nobody cited it
    assert any(c["status"] == "absent" for c in claims)
    assert (tmp_path / "answers.verify.json").is_file()
    assert runner.invoke(cli, ["stats", "--store", store, "--json"]).output == before  # nothing written

    # where a place lies, read from the store: Pisa (Q13375) is in Italy, not in France
    said = _claims(runner, store, tmp_path / "places.jsonl", "Where was Galileo Galilei born?",
                   [f"Galileo Galilei was born in Pisa, {country}." for country in ("Italy", "France")])
    assert said[0]["Italy"]["status"] == "supported_uncited", said[0]  # held as Pisa is: uncited
    assert said[0]["Italy"]["evidence"] == "Pisa, located in: Italy"
    assert said[1]["France"]["status"] == "absent", said[1]
    # another birthplace than the graph's England only where the store locates it elsewhere: Oxford is "city in
    # Oxfordshire, England" (its description), Paris is not in England (chatbot answers, labelled set v2)
    said = _claims(runner, store, tmp_path / "births.jsonl", "Who was Venetia Burney?",
                   [f"Venetia Burney was born in {town}." for town in ("Oxford", "Paris")])
    assert said[0]["Oxford"]["status"] == "absent", said[0]
    assert said[1]["Paris"]["status"] == "contradicted", said[1]
    assert said[1]["Paris"]["evidence"].endswith("place of birth: England")

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answer": "fine"}\n{"question": "no answer"}\n', encoding="utf-8")
    failed = runner.invoke(cli, ["verify", str(bad), "--store", store])
    assert failed.exit_code == 2 and "bad.jsonl:2" in failed.output

    # a file of more than 20 answers, printed as a table, reports its progress every 20 answers
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({"id": f"a{i}", "question": "Who influenced Joyce Carol Oates?",
                                        "answer": "Joyce Carol Oates was influenced by Franz Kafka."}) + "\n"
                            for i in range(21)), encoding="utf-8")
    table = runner.invoke(cli, ["verify", str(many), "--store", store])
    assert table.exit_code == 0, table.output
    assert "verified 20/21" in table.output and "verified 21/21" in table.output


def test_verify_says_the_same_in_every_process(tmp_path):
    """A value two persons' graphs both hold is reported with the same evidence whatever the process's hash seed
    (the verifier once walked a set of subjects: `occupation: writer` came from Roth in one run, Joyce in the next)."""
    import os
    import subprocess
    import sys

    store = f"embedded:{tmp_path / 'graph.lbdb'}"
    loaded = CliRunner().invoke(cli, ["ingest", str(DUMPS / "wikidata_sample.jsonl.gz"),
                                      str(DUMPS / "biokalma_records.jsonl.gz"), "--store", store])
    assert loaded.exit_code == 0, loaded.output
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question": "How was James Joyce connected to Philip Roth?",
                                   "answer": "Philip Roth and James Joyce were Jewish writers who studied at Cornell "
                                             "University."}) + "\n", encoding="utf-8")
    reports = []
    for seed in ("1", "7"):
        out = tmp_path / f"verify-{seed}.json"
        run = subprocess.run([sys.executable, "-m", "kalma_graph", "verify", str(answers), "--store", store, "--json",
                              "--out", str(out)], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        reports.append(json.loads(run.stdout)["checks"])
    assert reports[0] == reports[1]
    claims = [c for s in reports[0][0]["sentences"] for c in s["claims"]]
    assert any(c["status"] == "supported_uncited" for c in claims), claims
