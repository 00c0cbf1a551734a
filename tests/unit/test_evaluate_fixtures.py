"""Answer records for the evaluation tests, built from real BioKaLMA records (dumps/) and the answers
printed in the KaLMA paper (seed 000, Tables 19 and 20), with citations whose verdicts are known.

The records follow the answers-file schema of `kalma-graph answer` (issue #4). The gold minimum
knowledge sets are ours (BioKaLMA released none) except Hertwig's, which is the paper's Table 1.
The tests in this file pin the fixture itself: every citation parses as intended and every
retrieved triple is the dump's.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

from kalma_graph.kg import parse_answer

REPO = Path(__file__).resolve().parents[2]
RECORDS = REPO / "dumps" / "biokalma_records.jsonl.gz"
COMPLEX = REPO / "dumps" / "biokalma" / "complex_question_graph.json.gz"
SIMPLE = REPO / "dumps" / "biokalma" / "simple_question_graph.json.gz"

CRANE, HERTWIG, OSCAR = "Q206534", "Q85907", "Q68753"

TABLE19_QUESTION = (
    "What were some of Stephen Crane's notable works that reflected his views on religion and the harsh "
    "realities of life, and how did his experiences at Syracuse University influence his writing? Also, what "
    "was the name of the sports team he was a member of at Syracuse University?")
TABLE19_ANSWER = (
    "Stephen Crane was a male writer born on November 1, 1871, in Newark, United States of America, and died on "
    "June 5, 1900, in Badenweiler due to tuberculosis [Q206534, sex or gender: male, place of birth: Newark, "
    "place of death: Badenweiler, country of citizenship: United States of America, cause of death: Tuberculosis, "
    "medical condition: Tuberculosis, date of birth: 1871-11-01, date of death: 1900-06-05]. Crane was a "
    "prominent literary realist writer [Q206534, movement: literary realism] who wrote about the harsh realities "
    "of life and his atheistic views on religion [Q206534, religion: atheism]. His notable works include \"The Red "
    "Badge of Courage\" [Q206534, notable works: The Red Badge of Courage].\n\n"
    "Crane attended Syracuse University and was a member of the Syracuse Orange baseball team [Q206534, alma "
    "mater: Syracuse University, sport: baseball, member of sports team: Syracuse Orange baseball]. His "
    "experiences at Syracuse University influenced his writing, and he wrote several stories about college life, "
    "including \"The Eighty-Yard Run,\" which was based on his own experiences as a football player at Syracuse "
    "[NA].")
TABLE20_ANSWER = (
    "Stephen Crane was an American writer born on November 1, 1871, in Newark, and died on June 5, 1900, in "
    "Badenweiler [Q206534, date of birth: 1871-11-01, date of death: 1900-06-05, place of birth: Newark, place of "
    "death: Badenweiler]. He was a part of the literary realism movement and is best known for his notable work, "
    "The Red Badge of Courage [Q206534, movement: literary realism, notable works: The Red Badge of Courage]. "
    "Crane's views on religion were atheistic [Q206534, religion: atheism]. His works often reflected the harsh "
    "realities of life, such as war, poverty, and human suffering [NA].\n\n"
    "Crane attended Syracuse University [Q206534, alma mater: Syracuse University], where his experiences likely "
    "influenced his writing. He was exposed to a diverse range of ideas and perspectives, which may have "
    "contributed to his realistic approach to literature [NA].\n\n"
    "While at Syracuse University, Stephen Crane was a member of the Syracuse Orange baseball team [Q206534, "
    "member of sports team: Syracuse Orange baseball].")
# Hand-written for BioKaLMA entry 907 (the paper's Table 1 person): one wrong value (employer), one
# sloppy citation (`qid:` prefix), one [NA] claim about Oscar Hertwig, who is not in the retrieved graph.
HERTWIG_ANSWER = (
    "Richard Hertwig was a German biologist [Q85907, occupation: biologist, country of citizenship: German Reich]. "
    "He worked at the University of Munich [Q85907, employer: University of Munich] and supervised the doctoral "
    "student Stanislaus von Prowazek [Q85907, doctoral student: Stanislaus von Prowazek]. He studied at the "
    "University of Bonn [qid: Q85907, alma mater: University of Bonn]. His brother Oscar Hertwig was nominated "
    "for the Nobel Prize in Physiology or Medicine [NA].")
NO_CITATION_ANSWER = "Stephen Crane was an American writer who died young."
# Conscious incompetence: religion and place of burial withheld from the graph shown to the model.
REMOVED_LABELS = ("religion", "place of burial")
REMOVED_ANSWER = (
    "Stephen Crane was born in Newark [Q206534, place of birth: Newark]. Stephen Crane's religion was atheism "
    "[NA]. He died of tuberculosis in Badenweiler [Q206534, cause of death: Tuberculosis, place of death: "
    "Badenweiler].")

CRANE_GOLD = [
    (CRANE, "notable works", "The Red Badge of Courage"),
    (CRANE, "religion", "atheism"),
    (CRANE, "alma mater", "Syracuse University"),
    (CRANE, "member of sports team", "Syracuse Orange baseball"),
    (CRANE, "father", "Jonathan Townley Crane"),
]
HERTWIG_GOLD = [  # KaLMA Table 1
    (HERTWIG, "occupation", "biologist"),
    (HERTWIG, "doctoral student", "Stanislaus von Prowazek"),
    (OSCAR, "doctoral advisor", "Ernst Haeckel"),
    (OSCAR, "student of", "Ernst Haeckel"),
    (OSCAR, "nominated for", "Nobel Prize in Physiology or Medicine"),
]

# What the metrics must give on the five records below (worked out by hand in the test docstrings).
EXPECTED = {
    "citations": 14 + 9 + 5 + 0 + 3,
    "correct": 14 + 9 + 4 + 0 + 3,
    "precise": 4 + 4 + 2 + 0 + 0,
    "gold_triples": 25,
    "gold_hit": 4 + 4 + 2 + 0 + 0,
    "precision_macro": (4 / 14 + 4 / 9 + 2 / 5 + 0 / 3) / 4,
    "recall_macro": (4 / 5 + 4 / 5 + 2 / 5 + 0 + 0) / 5,
}


@lru_cache(maxsize=None)
def biokalma_record(qid: str) -> dict:
    with gzip.open(RECORDS, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["qid"] == qid:
                return row
    raise KeyError(qid)


def retrieved_triples(qid: str) -> list[dict]:
    """The entity's one-hop graph in the answers-file triple schema, as the store holds it when the
    BioKaLMA records and the Wikidata sample are loaded (objects named; dates under their labels)."""
    row = biokalma_record(qid)
    pids = row.get("pids") or {}
    linked = row.get("linked") or {}
    triples = [
        {"subject": qid, "pid": pids.get(label, ""), "label": label, "value": value,
         "object_id": linked.get(label), "datatype": None if label in linked else "string"}
        for label, value in row["facts"].items()
    ]
    for key, label, pid in (("date_of_birth", "date of birth", "P569"), ("date_of_death", "date of death", "P570")):
        if row.get(key):
            triples.append({"subject": qid, "pid": pid, "label": label, "value": row[key], "object_id": None,
                            "datatype": "time"})
    return sorted(triples, key=lambda t: (t["pid"], t["value"]))


def complex_question(index: int) -> str:
    with gzip.open(COMPLEX, "rt", encoding="utf-8") as handle:
        return json.load(handle)[index][0]


def record(rid: str, question: str, answer: str, retrieved: list[dict], removed: list[dict] | None = None,
           *, name: str) -> dict:
    parsed = parse_answer(answer, {t["subject"]: {u["label"] for u in retrieved} for t in retrieved})
    return {
        "id": rid,
        "question": question,
        "variant": "specific",
        "entities": [{"mention": name, "ner_label": "PERSON", "selected": retrieved[0]["subject"],
                      "reason": "fixture", "candidates": [{"id": retrieved[0]["subject"], "name": name}]}],
        "retrieved": retrieved,
        "removed": removed or [],
        "prompt_sha256": "0" * 64,
        "answer": answer,
        "sentences": [{"text": s.text, "clean_text": s.clean_text, "na": s.na,
                       "citations": [{"qid": c.qid, "prop": c.prop, "value": c.value, "sloppy": c.sloppy}
                                     for c in s.citations]} for s in parsed.sentences],
        "n_sloppy": parsed.n_sloppy,
        "finish_reason": "stop",
        "truncated": False,
        "model": {"model_file": "KaLMA paper answers (Tables 19, 20) and hand-written fixtures"},
        "params": {"max_tokens": 512, "temperature": 0.0, "seed": 0},
        "timings": {},
    }


def answer_records() -> list[dict]:
    crane = retrieved_triples(CRANE)
    removed = [t for t in crane if t["label"] in REMOVED_LABELS]  # as the pipeline records a filter's work:
    return [
        record("crane-table19", TABLE19_QUESTION, TABLE19_ANSWER, crane, name="Stephen Crane"),
        record("crane-table20", TABLE19_QUESTION, TABLE20_ANSWER, crane, name="Stephen Crane"),
        record("hertwig-907", complex_question(907), HERTWIG_ANSWER, retrieved_triples(HERTWIG),
               name="Richard Hertwig"),
        record("crane-no-citation", complex_question(0), NO_CITATION_ANSWER, crane, name="Stephen Crane"),
        record("crane-removed", complex_question(0), REMOVED_ANSWER, crane, removed, name="Stephen Crane"),
    ]


def gold_sets() -> dict[str, list[tuple[str, str, str]]]:
    return {"crane-table19": CRANE_GOLD, "crane-table20": CRANE_GOLD, "hertwig-907": HERTWIG_GOLD,
            "crane-no-citation": CRANE_GOLD, "crane-removed": CRANE_GOLD}


def write_answers(path: Path, records: list[dict] | None = None, *, header: bool = True) -> Path:
    records = answer_records() if records is None else records
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    if header:
        path.with_name(path.name + ".header.json").write_text(json.dumps({
            "command": "fixture", "variant": "specific", "model": records[0]["model"] if records else None,
            "params": {"max_tokens": 512, "temperature": 0.0, "seed": 0}}), encoding="utf-8")
    return path


# --- the fixture itself -----------------------------------------------------------------------------


def test_fixture_citations_parse_as_intended():
    records = {r["id"]: r for r in answer_records()}
    counts = {rid: sum(len(s["citations"]) for s in r["sentences"]) for rid, r in records.items()}
    assert counts == {"crane-table19": 14, "crane-table20": 9, "hertwig-907": 5, "crane-no-citation": 0,
                      "crane-removed": 3}
    assert records["hertwig-907"]["n_sloppy"] == 1
    assert [s["na"] for s in records["crane-table20"]["sentences"]] == [False, False, False, True, False, True, False]


def test_fixture_graphs_are_the_dumps():
    crane = {(t["label"], t["value"]) for t in retrieved_triples(CRANE)}
    assert ("religion", "atheism") in crane and ("date of birth", "1871-11-01") in crane
    assert ("employer", "University of Jena") in {(t["label"], t["value"]) for t in retrieved_triples(HERTWIG)}
    assert "Hertwig" in complex_question(907)
    last = answer_records()[-1]  # `retrieved` is the whole retrieval, `removed` what was withheld
    assert sorted(t["label"] for t in last["removed"]) == ["place of burial", "religion"]
    assert all(t in last["retrieved"] for t in last["removed"])
