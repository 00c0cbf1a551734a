"""Which graph facts the paper's own questions ask (issue 43, deliverable 5): the development set and its scorer.

    python bench/question_facts.py export --n 60 --seed 43 --out bench/results/question_facts/dev
    python bench/question_facts.py settle bench/results/question_facts/dev
    python bench/question_facts.py questions bench/results/question_facts/dev   # -> questions.jsonl for `answer`
    python bench/question_facts.py score bench/results/question_facts/dev --answers runs/dev/answers.jsonl

The questions are BioKaLMA's released complex questions (`dumps/biokalma/complex_question_graph.json.gz`) with
**index below 500 only**: indices 500 and above are a held-out test set, never exported, labelled or read here
(`export` refuses them). Each item lists the facts of the question's own records (`f00`, `f01`, …; a record is the
paper's one-hop graph of a person the question names, and `dumps/biokalma_records.jsonl.gz` loads the same facts
into the graph), keyed by (qid, relation, value) so that a shown or cited triple finds its label.

Two annotators label independently by `../shared/docs/question-facts-labels.md` into `labels_A.jsonl` and
`labels_B.jsonl`: per fact 2 = asked, 1 = relevant, 0 = not. `settle` writes `settled.jsonl` (asked when both say
asked; not when both say not; else relevant) and `agreement.json` (Cohen's κ on the three classes and on asked /
not asked). `score` reads an answers file of `kalma-graph answer` against the settled labels:

- **asked recall**: of the settled asked facts, the share the answer cites (a supported citation of that triple);
- **ceiling**: of the settled asked facts, the share among the triples shown to the model (retrieved);
- **citation precision**: of the citations that can be judged (their triple is a labelled fact), the share
  citing a fact settled as asked or relevant;
- **sentences per answer**, **[NA] sentences**, and the questions the facts cannot answer (`answerable` 0 by
  both passes) that got at least one `[NA]` sentence;
- **persons linked**: of the persons the question's records hold and the question names by their full name, the
  share the answer's entity linking found;
- **seconds per answer** (generation).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "dumps" / "biokalma" / "complex_question_graph.json.gz"
HELD_OUT_FROM = 500  # complex_question_graph:500 and above: the held-out test set
SOURCE = "complex_question_graph"
_SKIP_KEYS = {"name", "qid"}


def relation_of(key: str) -> str:
    """A record key as the graph's relation label ("date_of_birth" -> "date of birth")."""
    return key.replace("_", " ")


def load_questions(path: Path = QUESTIONS) -> list[tuple[str, list[dict[str, str]]]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [(q, records) for q, records in json.load(f)]


def facts_of(records: Iterable[dict[str, str]]) -> list[dict[str, str]]:
    """The facts of a question's records in their order: (qid, subject name, relation, value), empty values aside."""
    out = []
    for record in records:
        for key, value in record.items():
            if key in _SKIP_KEYS or not str(value).strip():
                continue
            out.append({"qid": record.get("qid", ""), "subject": record.get("name", ""), "relation": relation_of(key),
                        "value": str(value)})
    return [{"fid": f"f{i:02d}", **fact} for i, fact in enumerate(out)]


def dev_indices(n: int, seed: int) -> list[int]:
    return sorted(random.Random(seed).sample(range(HELD_OUT_FROM), n))


def export(n: int, seed: int, out: Path) -> dict[str, Any]:
    questions = load_questions()
    items = []
    for index in dev_indices(n, seed):
        if index >= HELD_OUT_FROM:  # never: the held-out test set
            raise SystemExit(f"refusing {SOURCE}:{index}: indices {HELD_OUT_FROM} and above are held out")
        question, records = questions[index]
        items.append({"id": f"{SOURCE}:{index}", "index": index, "question": question, "facts": facts_of(records)})
    out.mkdir(parents=True, exist_ok=True)
    with (out / "items.jsonl").open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    lines = [
        f"# Development set: {len(items)} of the paper's complex questions (indices < {HELD_OUT_FROM}, seed {seed})",
        "", "Rules: ../shared/docs/question-facts-labels.md (asked 2 / relevant 1 / not 0; answerable 2/1/0).", ""]
    for item in items:
        lines += [f"## `{item['id']}`", "", f"**{item['question']}**", ""]
        lines += [f"- {f['fid']}: {f['subject']} — {f['relation']} — {f['value']}" for f in item["facts"]]
        if not item["facts"]:
            lines.append("- (no facts)")
        lines.append("")
    (out / "items.md").write_text("\n".join(lines), encoding="utf-8")
    return {"items": len(items), "facts": sum(len(i["facts"]) for i in items), "seed": seed, "out": str(out)}


def read_items(folder: Path) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in map(json.loads, (folder / "items.jsonl").read_text(encoding="utf-8").splitlines())}


def read_labels(path: Path, items: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One pass's labels, checked: every item, every fact, values in {0, 1, 2}; errors name file:line."""
    out: dict[str, dict[str, Any]] = {}
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            item = items[row["id"]]
            labels = {fid: int(v) for fid, v in row["labels"].items()}
            want = {f["fid"] for f in item["facts"]}
            if set(labels) != want or not set(labels.values()) <= {0, 1, 2}:
                raise ValueError(
                    f"labels {sorted(set(labels) ^ want)} differ from the item's facts, or a value is not 0/1/2")
            answerable = int(row["answerable"])
        except (KeyError, ValueError, TypeError) as exc:
            raise SystemExit(f"{path}:{line_no}: {exc!r}") from None
        out[row["id"]] = {"labels": labels, "answerable": answerable, "note": row.get("note", "")}
    missing = sorted(set(items) - set(out))
    if missing:
        raise SystemExit(f"{path}: no labels for {len(missing)} item(s): {', '.join(missing[:5])}")
    return out


def cohen_kappa(a: list[int], b: list[int]) -> float | None:
    """The project's Cohen's kappa (`evaluation.metrics.agreement`), rounded for the report."""
    sys.path.insert(0, str(ROOT))
    from kalma_graph.evaluation.metrics.agreement import cohen_kappa as kappa

    value = kappa(a, b)
    return None if value is None else round(value, 4)


def settle(folder: Path) -> dict[str, Any]:
    items = read_items(folder)
    a, b = (read_labels(folder / f"labels_{p}.jsonl", items) for p in ("A", "B"))
    pairs = [(a[k]["labels"][f["fid"]], b[k]["labels"][f["fid"]]) for k in items for f in items[k]["facts"]]
    with (folder / "settled.jsonl").open("w", encoding="utf-8") as out:
        for k, item in items.items():
            labels = {}
            for f in item["facts"]:
                x, y = a[k]["labels"][f["fid"]], b[k]["labels"][f["fid"]]
                labels[f["fid"]] = 2 if x == y == 2 else 0 if x == y == 0 else 1
            answerable = min(a[k]["answerable"], b[k]["answerable"])
            out.write(json.dumps({"id": k, "labels": labels, "answerable": answerable}, ensure_ascii=False) + "\n")
    three = cohen_kappa([x for x, _ in pairs], [y for _, y in pairs])
    asked = cohen_kappa([int(x == 2) for x, _ in pairs], [int(y == 2) for _, y in pairs])
    report = {"items": len(items), "facts": len(pairs),
              "agreement": round(sum(x == y for x, y in pairs) / len(pairs), 4),
              "kappa_three_classes": three, "kappa_asked": asked,
              "asked_A": sum(x == 2 for x, _ in pairs), "asked_B": sum(y == 2 for _, y in pairs),
              "asked_settled": sum(x == y == 2 for x, y in pairs),
              "answerable_kappa": cohen_kappa([a[k]["answerable"] for k in items], [b[k]["answerable"] for k in items])}
    (folder / "agreement.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _key(qid: str, relation: str, value: str) -> tuple[str, str, str]:
    return qid, relation.casefold(), " ".join(value.casefold().split())


def score(folder: Path, answers: Path, same_as: Path | None = None) -> dict[str, Any]:
    """An answers file against the settled labels (see the module docstring); with `same_as`, only the questions
    that answers file holds too (two runs compared on the questions both answered)."""
    items = read_items(folder)
    if same_as is not None:
        kept = {json.loads(line).get("id") for line in same_as.read_text(encoding="utf-8").splitlines() if line.strip()}
        items = {k: v for k, v in items.items() if k in kept}
    settled = {r["id"]: r for r in map(json.loads, (folder / "settled.jsonl").read_text(encoding="utf-8").splitlines())}
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_id = {r.get("id") or r.get("question_id"): r for r in rows}
    totals: Counter[str] = Counter()
    per_item = []
    for k, item in items.items():
        row = by_id.get(k)
        if row is None:
            continue
        label = {_key(f["qid"], f["relation"], f["value"]): settled[k]["labels"][f["fid"]] for f in item["facts"]}
        asked = {key for key, v in label.items() if v == 2}
        cited = {_key(*c[:3]) for c in _citations(row)}
        shown = {_key(t["subject"], t["label"], t["value"]) for t in row.get("retrieved") or []}
        judged = [c for c in cited if c in label]
        # linking: the persons of the question's records that the answer's entity linking found
        # (persons the question names by their full name; a record may hold a person it does not name)
        folded = item["question"].casefold()
        wanted = {f["qid"] for f in item["facts"] if f["relation"] == "instance of" and f["value"] == "human"
                  and f["subject"] and f["subject"].casefold() in folded}
        linked = {e.get("selected") for e in row.get("entities") or []} & wanted
        sentences = _sentences(row)
        na = sum("[NA]" in s for s in sentences)
        totals.update(asked=len(asked), asked_cited=len(asked & cited), asked_shown=len(asked & shown),
                      judged=len(judged), judged_relevant=sum(label[c] >= 1 for c in judged), cited=len(cited),
                      answers=1, sentences=len(sentences), na_sentences=na, persons=len(wanted),
                      persons_linked=len(linked), seconds=round((row.get("timings") or {}).get("generation_s", 0.0)))
        if settled[k]["answerable"] == 0:
            totals.update(unanswerable=1, unanswerable_with_na=int(na > 0))
        per_item.append({"id": k, "asked": len(asked), "asked_cited": len(asked & cited), "judged": len(judged),
                         "judged_relevant": sum(label[c] >= 1 for c in judged), "sentences": len(sentences), "na": na})

    def share(a: str, b: str) -> float | None:
        return round(totals[a] / totals[b], 4) if totals[b] else None

    return {"answers": totals["answers"], "of_items": len(items), "asked_recall": share("asked_cited", "asked"),
            "asked_ceiling_shown": share("asked_shown", "asked"),
            "citation_precision_vs_labels": share("judged_relevant", "judged"),
            "judged_share_of_citations": share("judged", "cited"),
            "sentences_per_answer": share("sentences", "answers"),
            "na_sentences_per_answer": share("na_sentences", "answers"),
            "unanswerable": totals["unanswerable"], "unanswerable_with_na": totals["unanswerable_with_na"],
            "persons_linked": share("persons_linked", "persons"), "seconds_per_answer": share("seconds", "answers"),
            "totals": dict(totals), "per_item": per_item}


def plan_score(folder: Path) -> dict[str, Any]:
    """The grounded plan (`pipeline.grounded.plan_answer`, no model) against the settled labels: of the asked
    facts, the share the plan says first (asked tier) and at all (asked or relevant); of the planned facts, the
    share labelled asked or relevant. The records' facts stand in for the shown triples."""
    sys.path.insert(0, str(ROOT))
    from kalma_graph.kg.triples import Entity, Triple
    from kalma_graph.pipeline.grounded import plan_answer

    items = read_items(folder)
    settled = {r["id"]: r for r in map(json.loads, (folder / "settled.jsonl").read_text(encoding="utf-8").splitlines())}
    totals: Counter[str] = Counter()
    per_item = []
    for k, item in items.items():
        facts = item["facts"]
        triples = {f["fid"]: Triple(f["qid"], "", f["relation"], f["value"]) for f in facts}
        entities = list({f["qid"]: Entity(id=f["qid"], name=f["subject"]) for f in facts}.values())
        plan = plan_answer(item["question"], entities, list(triples.values()))
        first = {(t.subject, t.label, t.value) for target in plan.asked + plan.links for t in target}
        later = {(t.subject, t.label, t.value) for target in plan.relevant for t in target}
        label = {(t.subject, t.label, t.value): settled[k]["labels"][fid] for fid, t in triples.items()}
        asked = {key for key, v in label.items() if v == 2}
        planned = first | later
        totals.update(asked=len(asked), asked_first=len(asked & first), asked_planned=len(asked & planned),
                      planned=len(planned), planned_relevant=sum(label.get(t, 0) >= 1 for t in planned),
                      first=len(first), first_relevant=sum(label.get(t, 0) >= 1 for t in first),
                      unanswerable=int(settled[k]["answerable"] == 0), na_parts=len(plan.unanswered),
                      unanswerable_with_na_part=int(settled[k]["answerable"] == 0 and bool(plan.unanswered)))
        per_item.append({"id": k, "asked": len(asked), "asked_planned": len(asked & planned),
                         "missed": sorted(f"{t[1]}: {t[2]}" for t in asked - planned),
                         "unasked_planned": sorted(f"{t[1]}: {t[2]}" for t in planned if label.get(t, 0) == 0),
                         "na_parts": [p["lead"] for p in plan.unanswered]})

    def share(a: str, b: str) -> float | None:
        return round(totals[a] / totals[b], 4) if totals[b] else None

    return {"asked_said_first": share("asked_first", "asked"), "asked_planned": share("asked_planned", "asked"),
            "planned_precision": share("planned_relevant", "planned"),
            "first_precision": share("first_relevant", "first"), "totals": dict(totals), "per_item": per_item}


def _citations(row: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(c["qid"], c["prop"], c["value"]) for s in row.get("sentences") or [] for c in s.get("citations") or []]


def _sentences(row: dict[str, Any]) -> list[str]:
    return [s["text"] for s in row.get("sentences") or []]


def table(folder: Path) -> str:
    """The development set's table for docs/results.md: one row per strategy run under `folder/runs/` (its
    `score.json`, and its `evaluation/results.json` from `kalma-graph evaluate` when present)."""
    def pct(x: Any) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}"

    rows = [
        "| strategy | answers | asked recall (ceiling: retrieved) | citation precision vs labels | sentences / answer "
        "| [NA] sentences / answer | cited sentences fully supported (verifier) | alignment (MiniLM NLI, "
        "places nothing) | persons linked | s / answer |", "|" + "---|" * 10]
    for run in sorted((folder / "runs").glob("*/score.json")):
        sc = json.loads(run.read_text(encoding="utf-8"))
        ev_path = run.parent / "evaluation" / "results.json"
        ev = json.loads(ev_path.read_text(encoding="utf-8"))["summary"] if ev_path.exists() else {}
        rows.append(
            f"| {run.parent.name} | {sc['answers']} | {pct(sc['asked_recall'])} ({pct(sc['asked_ceiling_shown'])}) "
            f"| {pct(sc['citation_precision_vs_labels'])} | {sc['sentences_per_answer']:.2f} "
            f"| {sc['na_sentences_per_answer']:.2f} | {pct(ev.get('fully_supported_share'))} "
            f"| {pct(ev.get('alignment_nli_micro'))} | {pct(sc['persons_linked'])} | "
            f"{sc['seconds_per_answer']:.1f} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export")
    ex.add_argument("--n", type=int, default=60)
    ex.add_argument("--seed", type=int, default=43)
    ex.add_argument("--out", type=Path, required=True)
    st = sub.add_parser("settle")
    st.add_argument("folder", type=Path)
    sc = sub.add_parser("score")
    sc.add_argument("folder", type=Path)
    sc.add_argument("--answers", type=Path, required=True)
    sc.add_argument("--out", type=Path)
    sc.add_argument("--same-as", type=Path, help="score only the questions this answers file holds too")
    tb = sub.add_parser("table", help="the runs' figures as a Markdown table (docs/results.md)")
    tb.add_argument("folder", type=Path)
    qs = sub.add_parser("questions", help="the items' questions as JSON lines for `kalma-graph answer --questions`")
    qs.add_argument("folder", type=Path)
    pl = sub.add_parser("plan", help="the grounded plan against the labels (no model)")
    pl.add_argument("folder", type=Path)
    pl.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.command == "table":
        print(table(args.folder))
        return
    if args.command == "export":
        result = export(args.n, args.seed, args.out)
    elif args.command == "settle":
        result = settle(args.folder)
    elif args.command == "questions":
        items = read_items(args.folder)
        with (args.folder / "questions.jsonl").open("w", encoding="utf-8") as f:
            for item in items.values():
                f.write(json.dumps({"id": item["id"], "question": item["question"]}, ensure_ascii=False) + "\n")
        result = {"questions": len(items), "out": str(args.folder / "questions.jsonl")}
    elif args.command == "plan":
        result = plan_score(args.folder)
        if args.out:
            args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        result = {k: v for k, v in result.items() if k != "per_item"}
    else:
        result = score(args.folder, args.answers, args.same_as)
        if args.out:
            args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        result = {k: v for k, v in result.items() if k != "per_item"}
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
