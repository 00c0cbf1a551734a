"""Export the verifier's labelled sets, version 2 (issue 44): sentences the first sets lack, from three sources.

    python bench/verifier_label_export_v2.py --store embedded:/tmp/chatbot.lbdb

1. `grounded-dev`: the cited sentences of the grounded strategy's answers to the paper's own questions of the
   development set (`bench/results/question_facts/dev/runs/grounded-270d21d`);
2. `attribute-first-dev`: the same of the attribute-first strategy (`.../runs/attribute-first`);
3. `chatbot`: every sentence of 40 hand-written chatbot-style answers without citations
   (`labels_v2/chatbot_answers.jsonl`), as a user pastes them into `kalma-graph verify`.

Questions with index 500 and above are a held-out test set: every answer read here must be
`complex_question_graph:N` with N < 500, checked on each line before anything else is read from it.

Each item carries `shown`: the triples of the graph an annotator judges against. For the cited sources they are
the answer's `retrieved` triples (its answers.jsonl record) of the subjects the answer cites; for `chatbot` they are
the triples of the persons (`instance of: human`) that the verify run linked, retrieved again by the same function
`kalma-graph verify` uses (`kalma_graph.evaluation.verify.to_input`, over the same store); the sentences are
checked against the verify run's output (`--verify`, written by
`kalma-graph verify labels_v2/chatbot_answers.jsonl --out labels_v2/chatbot_verify.json`).

Splits: a seeded hash of the answer's id puts the whole answer in `dev` (55 %) or `test` (45 %); the two cited
sources answer the same questions, so one question's answers share a split. Per cited source and split, whole
answers in hash order are taken until `--citations` citations. Every chatbot answer is taken; there the 45 % of
answers with the lowest hashes go to `test` (an exact share of 40 rather than a draw). Answers whose text
repeats one already taken are skipped. Writes `items.jsonl`, `items_<source>_<split>.md` and `README.md` into
`--out`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier_label_export import _names, sentence_items  # noqa: E402

RUNS = Path("bench/results/question_facts/dev/runs")
CITED = {"grounded-dev": RUNS / "grounded-270d21d", "attribute-first-dev": RUNS / "attribute-first"}
CHATBOT = "chatbot"
SOURCES = (*CITED, CHATBOT)
HELD_OUT_FROM = 500  # complex_question_graph:N with N >= 500 is the held-out test set: never read, never exported
SEED = "verifier-labels-v2"
_DEV_ID = re.compile(r"complex_question_graph:(\d+)")


def dev_only(answer_id: str) -> str:
    """The id of a development question: a paper question below index 500, or one of our own ("natural19-01", v19);
    never a paper question at 500 or above."""
    match = _DEV_ID.fullmatch(str(answer_id))
    own = match is None and "complex_question" not in str(answer_id)
    assert own or (match and int(match.group(1)) < HELD_OUT_FROM), \
        f"{answer_id}: not a development question (index < 500)"
    return answer_id


def _dev_lines(path: Path):
    for line in path.open(encoding="utf-8"):
        record = json.loads(line)
        dev_only(record["id"])
        yield record


def split_hash(answer_id: str) -> float:
    """The answer's seeded hash in [0, 1]."""
    return int(hashlib.sha256(f"{SEED}\n{answer_id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def split_of(answer_id: str, test_share: float) -> str:
    return "test" if split_hash(answer_id) < test_share else "dev"


def quota_splits(answer_ids: list[str], test_share: float) -> dict[str, str]:
    """For a small source taken whole: the `test_share` of answers with the lowest hashes go to test, so the
    shares are exact rather than drawn."""
    ranked = sorted(answer_ids, key=split_hash)
    n_test = round(test_share * len(ranked))
    return {a: "test" if k < n_test else "dev" for k, a in enumerate(ranked)}


def answer_key(source: str, answer_id: str, text: str) -> str:
    """The item ids' prefix: one per answer, distinct across sources."""
    return hashlib.sha256(f"{SEED}\n{source}\n{answer_id}\n{text}".encode()).hexdigest()[:10]


def cited_items(source: str, run: Path, test_share: float, seen: set[str]) -> list[dict]:
    records = {r["id"]: r for r in _dev_lines(run / "answers.jsonl")}
    names = _names(run / "answers.jsonl")
    items = []
    for answer in _dev_lines(run / "evaluation" / "answers_scored.jsonl"):
        text = answer["answer"].strip()
        if text in seen or not any(s["citations"] for s in answer["sentences"]):
            continue
        seen.add(text)
        key = answer_key(source, answer["id"], text)
        cited = {c["qid"] for s in answer["sentences"] for c in s["citations"]}
        shown = [{"qid": t["subject"], "subject": names.get(t["subject"], t["subject"]), "relation": t["label"],
                  "value": t["value"]} for t in records[answer["id"]]["retrieved"] if t["subject"] in cited]
        items += sentence_items(answer, names, key, {"source": source, "split": split_of(answer["id"], test_share),
                                                     "run": str(run)}, {"shown": shown})
    return items


def chatbot_items(answers: Path, verify: Path, store_uri: str | None, test_share: float, seen: set[str],
                  context: bool = False) -> list[dict]:
    from kalma_graph.evaluation.verify import read_items, to_input
    from kalma_graph.store import open_store

    report = json.loads(verify.read_text(encoding="utf-8"))
    checks = {c["id"]: c for c in report["checks"]}
    store = open_store(store_uri)
    items = []
    given_answers = read_items(answers)
    splits = quota_splits([a["id"] for a in given_answers], test_share)
    try:
        for answer in given_answers:
            text = answer["answer"].strip()
            assert text not in seen, answer["id"]
            seen.add(text)
            check = checks[answer["id"]]
            given = to_input(answer, store)  # the retrieval `kalma-graph verify` ran
            assert [s for s, _ in given.sentences] == [s["text"] for s in check["sentences"]], answer["id"]
            names = {e.id: e.name for e in given.entities}
            persons = [q for q in dict.fromkeys(t.subject for t in given.shown)
                       if any(t.subject == q and t.label == "instance of" and t.value == "human" for t in given.shown)]
            about = {q for s in check["sentences"] for q in s["about"]}
            shown = [{"qid": t.subject, "subject": names.get(t.subject) or t.subject, "relation": t.label,
                      "value": t.value} for t in given.shown if t.subject in persons]
            if context:
                shown += graph_context(store, [t for t in given.shown if t.subject in persons],
                                       {q: names.get(q) or q for q in persons})
            key = answer_key(CHATBOT, answer["id"], text)
            previous = ""
            for s in check["sentences"]:
                items.append({
                    "item_id": f"{key}-{s['position']}",
                    "source": CHATBOT,
                    "split": splits[answer["id"]],
                    "run": str(answers),
                    "answer_id": answer["id"],
                    "question": answer["question"],
                    "previous_sentence": previous,
                    "sentence": s["text"],
                    "sentence_with_marks": s["text"],
                    "citations": [],
                    "shown": shown,
                    "persons": [{"qid": q, "name": names.get(q) or q, "spoken_of": q in about} for q in persons],
                })
                previous = s["text"]
    finally:
        store.close()
    return items


def graph_context(store, shown: list, persons: dict[str, str]) -> list[dict]:
    """What the verifier also reads beyond the persons' own triples (v28 on): where each shown place lies (the
    verifier's own walk, `places.containment_edges`) and the family triples of others that name the persons
    ("Subhas Chandra Bose, father: Janakinath Bose"), marked `"context": true`. Annotators of v24–v27 saw
    neither, and called "born in Amsterdam, Netherlands" not held where the graph says where Amsterdam lies."""
    from kalma_graph.verification.lexicon import load_lexicon
    from kalma_graph.verification.places import containment_edges

    lexicon = load_lexicon()
    places = {t.object_id for t in shown if t.object_id and lexicon.is_place_relation(t.label)}
    edges = containment_edges(places, store.one_hop_many, lexicon)
    names = {e.id: e.name for e in store.get_entities(sorted({pid for pid, _ in edges}))}
    out: list[dict] = [{"qid": pid, "subject": names.get(pid) or pid, "relation": t.label,
                        "value": str(t.value or t.object_id), "context": True} for pid, t in edges]
    # others' family triples naming a person: by the person's item, or by the bare name (a value with no item)
    for qid, name in persons.items():
        incoming = [(r["mid"], r["mid_name"], r["label"]) for r in store.query("caqa_hop_in", {"id": qid})]
        incoming += [(t.subject, None, t.label) for t in store.value_holders([name])]
        for subject, subject_name, label in incoming:
            if subject not in persons and lexicon.relation(label).kin:
                entity = None if subject_name else store.get_entity(subject)
                out.append({"qid": subject, "subject": subject_name or (entity.name if entity else subject),
                            "relation": label, "value": name, "context": True})
    return list({(d["qid"], d["relation"], d["value"]): d for d in out}.values())


def select(items: list[dict], citations: int | None) -> list[dict]:
    """Per split, whole answers in hash order until `citations` citations (all answers when None)."""
    kept = []
    for split in ("dev", "test"):
        total, answers = 0, set()
        for item in sorted((i for i in items if i["split"] == split),
                           key=lambda i: (i["item_id"].split("-")[0], int(i["item_id"].rsplit("-", 1)[1]))):
            answer = item["item_id"].split("-")[0]
            if citations is not None and answer not in answers and total >= citations:
                continue
            answers.add(answer)
            kept.append(item)
            total += len(item["citations"])
    return kept


def write_markdown(path: Path, items: list[dict]) -> int:
    """The items grouped by answer: the question and the shown triples once, then each sentence to label."""
    lines: list[str] = []
    answer = None
    for item in items:
        key = item["item_id"].split("-")[0]
        if key != answer:
            answer = key
            lines += [f"# Answer {key} ({item['answer_id']})", "", f"Question: {item['question']}", "",
                      "Shown triples (what the graph holds):", ""]
            lines += _triple_lines([t for t in item["shown"] if not t.get("context")]) or ["- (none)"]
            context = [t for t in item["shown"] if t.get("context")]
            if context:
                lines += ["", "Also in the graph (where the shown places lie; others' family triples naming the "
                          "persons):", "", *_triple_lines(context)]
            lines.append("")
        lines += [f"## {item['item_id']}", ""]
        if item["previous_sentence"]:
            lines += [f"Previous sentence: {item['previous_sentence']}", ""]
        lines += [f"Sentence: {item['sentence']}", ""]
        lines += [f"- citation {c['index']}: {c['subject']} ({c['qid']}) — {c['relation']} — {c['value']}"
                  for c in item["citations"]]
        if item["citations"]:
            lines.append("")
        lines += ["Labels: " + ", ".join([f"citation {c['index']} (0/1/2)" for c in item["citations"]]
                                         + ["full (0/1)"]
                                         + (["contradicted (0/1)"] if not item["citations"] else [])), ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def _triple_lines(triples: list[dict]) -> list[str]:
    """Triples grouped by subject, then relation, as markdown list lines."""
    by_subject: dict[tuple[str, str], dict[str, list[str]]] = {}
    for t in triples:
        by_subject.setdefault((t["subject"], t["qid"]), {}).setdefault(t["relation"], []).append(t["value"])
    lines = []
    for (subject, qid), relations in by_subject.items():
        lines.append(f"- {subject} ({qid})")
        lines += [f"  - {relation}: {'; '.join(values)}" for relation, values in relations.items()]
    return lines


def counts(items: list[dict], sources: tuple[str, ...] | list[str] = SOURCES) -> dict[str, dict[str, dict[str, int]]]:
    out: dict[str, dict[str, dict[str, int]]] = {}
    for source in sources:
        for split in ("dev", "test"):
            chosen = [i for i in items if i["source"] == source and i["split"] == split]
            out.setdefault(source, {})[split] = {
                "answers": len({i["answer_id"] for i in chosen}), "sentences": len(chosen),
                "citations": sum(len(i["citations"]) for i in chosen)}
    return out


README = """# Verifier labelled sets, version 2 (issue 44): items to label

Made by `python bench/verifier_label_export_v2.py` (read its docstring for how). The labels come from two
independent annotation passes; this folder holds the items, not the labels.

## Sources

| source | what | dev answers / sentences / citations | test answers / sentences / citations |
|---|---|---:|---:|
{rows}

- `grounded-dev`: cited sentences of the grounded strategy's answers to the paper's own questions of the development
  set (index < 500; `bench/results/question_facts/dev/runs/grounded-270d21d`).
- `attribute-first-dev`: the same for the attribute-first strategy (`.../runs/attribute-first`).
- `chatbot`: every sentence of 40 chatbot-style answers without citations (`chatbot_answers.jsonl`) about persons
  the bundled graph holds, checked with `kalma-graph verify` (2–5 sentences each).

Splits are by answer (a seeded hash of its id; one question's answers of the two cited sources share a split): `dev`
(55 % of answers) may be used for tuning; `test` (45 %) is held out and scored once, at the end. No answer has
sentences in both. Of each cited source, whole answers in hash order are taken until about 120 citations per split;
all 40 chatbot answers are taken (18 in `test`).

## Files

- `items.jsonl`: one sentence a line: `item_id`, `source`, `split`, `run`, `answer_id`, `question`,
  `previous_sentence`, `sentence`, `sentence_with_marks`, `citations` [`index`, `qid`, `subject`, `relation`,
  `value`] (empty for `chatbot`), `shown` [`qid`, `subject`, `relation`, `value`] and, for `chatbot`, `persons`
  (the persons whose triples are shown).
- `items_<source>_<split>.md`: the same, readable, grouped by answer (the question and the shown triples once per
  answer, then each sentence to label, in order).
- `chatbot_answers.jsonl`: the chatbot answers (`id`, `question`, `answer`).
- **Do not open** (annotators): `chatbot_planted.json` (the author's private note) and `chatbot_verify.json` (the
  verifier's own output, which these labels are meant to measure).

## How to label

The rules are `../shared/docs/alignment-labels.md` (the path is relative to the repository's root). Judge by the
sentence's meaning, not by what is true in the world.

- **`grounded-dev`, `attribute-first-dev`** (cited sentences): per citation its `support` (2 supported, 1 partly,
  0 not), and per sentence `full` (1 when every factual claim of the sentence is supported by the union of its
  citations, 0 otherwise), as in the rules. `shown` is context: what else the graph held about the cited subjects.
- **`chatbot`** (no citations): per sentence only
  - `full`: 1 = every factual claim of the sentence is held by the shown triples; 0 otherwise (a date, place, title,
    relationship or evaluation they do not hold; a parent region of a held place; a claim only a namesake's or
    another person's triple holds);
  - `contradicted`: 1 = some claim of the sentence is contradicted by a shown triple: another value of a
    single-valued relation (place or date of birth or death, father, mother) for the same person, or a relation
    the shown triples make false; 0 otherwise (a claim the graph simply lacks is not contradicted).
  The shown triples are those of every person the verify run linked, so they may include a namesake (another
  person of the same name); a triple of someone else does not hold a claim about this person.

## Label files

One file per annotation pass, `labels_<pass>.csv` (e.g. `labels_A.csv`, `labels_B.csv`), columns
`item_id,citation,label`: `citation` is a citation's index (`0`, `1`, …; label 0/1/2), `full` (label 0/1) or, for
`chatbot` items only, `contradicted` (label 0/1). One row per citation and per sentence label; every item of
`items.jsonl` gets its rows.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results/verifier/labels_v2")
    parser.add_argument("--test-share", type=float, default=0.45)
    parser.add_argument("--citations", type=int, default=120,
                        help="citations per split and cited source: whole answers in hash order until this many "
                             "(0: all)")
    parser.add_argument("--chatbot", default=None, help="chatbot answers [default: OUT/chatbot_answers.jsonl]")
    parser.add_argument("--verify", default=None, help="the verify run's output [default: OUT/chatbot_verify.json]")
    parser.add_argument("--store", default=None, help="the store the verify run used (embedded[:PATH] or bolt://…)")
    parser.add_argument("--cited", action="append", metavar="SOURCE=RUN",
                        help="a cited source and its run folder (repeatable) [default: the v2 sources]")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--chatbot-only", action="store_true", help="no cited source: the chatbot answers alone (v12)")
    only.add_argument("--cited-only", action="store_true", help="no chatbot answers: the cited sources alone (v14)")
    parser.add_argument("--skip", type=Path, action="append", default=[],
                        help="an items.jsonl already labelled: its sentences (with their marks) are not exported again")
    parser.add_argument("--context", action="store_true",
                        help="show chatbot items where the shown places lie and others' family triples naming the "
                             "persons (`graph_context`; v28 on)")
    parser.add_argument("--readme", action=argparse.BooleanOptionalAction, default=True,
                        help="write the v2 README.md (a later set writes its own)")
    args = parser.parse_args()
    out = Path(args.out)
    cited = {} if args.chatbot_only else dict(c.split("=", 1) for c in args.cited) if args.cited else CITED
    labelled = {json.loads(line)["sentence_with_marks"] for path in args.skip for line in path.open(encoding="utf-8")}
    seen: set[str] = set()
    items = []
    for source, run in cited.items():
        fresh = [i for i in cited_items(source, Path(run), args.test_share, seen)
                 if i["sentence_with_marks"] not in labelled]
        items += select(fresh, args.citations or None)
    if not args.cited_only:
        items += [i for i in chatbot_items(Path(args.chatbot or out / "chatbot_answers.jsonl"),
                                           Path(args.verify or out / "chatbot_verify.json"), args.store,
                                           args.test_share, seen, args.context)
                  if i["sentence_with_marks"] not in labelled]
    for item in items:
        if item["source"] != CHATBOT:
            dev_only(item["answer_id"])
    assert len({i["item_id"] for i in items}) == len(items)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    sources = list(dict.fromkeys(i["source"] for i in items))
    table = counts(items, sources)
    for source in sources:
        for split in ("dev", "test"):
            chosen = [i for i in items if i["source"] == source and i["split"] == split]
            if not chosen:
                continue
            lines = write_markdown(out / f"items_{source}_{split}.md", chosen)
            c = table[source][split]
            print(f"{source} {split}: {c['answers']} answers, {c['sentences']} sentences, {c['citations']} citations; "
                  f"items_{source}_{split}.md {lines} lines")
    if not args.readme:
        return
    what = {"grounded-dev": "grounded strategy, development questions",
            "attribute-first-dev": "attribute-first strategy, development questions",
            CHATBOT: "hand-written chatbot answers, no citations"}
    rows = "\n".join(f"| `{s}` | {what[s]} | " + " | ".join(
        f"{table[s][sp]['answers']} / {table[s][sp]['sentences']} / {table[s][sp]['citations']}"
        for sp in ("dev", "test"))
        + " |" for s in SOURCES)
    (out / "README.md").write_text(README.replace("{rows}", rows), encoding="utf-8")


if __name__ == "__main__":
    main()
