"""Quality checks of a built BioKaLMA dataset.

- **in graph**: share of minimum-set triples `(qid, property, value)` (with their PID) that are
  statements of the graph — must be 1.0, since every triple is taken from the knowledge pool;
- **set sizes**: mean / median / min / max and the histogram (paper, §2.3: 6.8 on average);
- **relations**: how often each property is in the sets (all, and those chosen by eq. 1);
- **generation**: rounds whose sentence is the template (the model's did not mention the value),
  fallback questions, truncated generations;
- **question and gold** (`question_gold`): what the specific question asks (`verification.asked`: a relation
  it names, of a person it names, in its direction) against the gold set — `question_gold_consistent_share`
  (every asked fact has a gold triple of that subject and relation, in that direction, and the question names
  each person exactly once), `gold_asked_share` (gold triples the question asks, micro);
- **relevance** (with an NLI model): does the final paragraph entail each triple? Premise = each
  sentence of the paragraph (the best one counts), hypothesis = the triple's template sentence
  (`templates.verbalise`); entailed when P(entailment) ≥ `threshold`. Micro over triples, macro over entries,
  and per source (`link` / `annotation` / `eq1`, eq1 split by whether the model's sentence or the template was used).
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any, Iterable, Sequence

from kalma_graph.kg.hypothesis import pos_sentence
from kalma_graph.kg.knowledge import is_unlabelled
from kalma_graph.store.base import GraphStore

from .consistency import gold_triples, question_gold
from .evolve import persons_named_in, split_sentences


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def triples_in_graph(store: GraphStore, entries: Sequence[dict]) -> dict:
    subjects = sorted({g["qid"] for e in entries for g in e["minimum_knowledge_set"]})
    known: set[tuple] = set()
    for subject in subjects:
        known.update((t.subject, t.pid, t.label, t.value) for t in store.one_hop(subject))
    total = missing = 0
    missing_rows: list[list[str]] = []
    unlabelled_rows: list[list[str]] = []
    for entry in entries:
        for g, triple in zip(entry["minimum_knowledge_set"], gold_triples(entry)):
            total += 1
            if (g["qid"], g["pid"], g["property"], g["value"]) not in known:
                missing += 1
                missing_rows.append([entry["id"], g["qid"], g["property"], g["value"]])
            if is_unlabelled(triple):
                # a gold triple no knowledge block shows cannot be cited: it only lowers recall
                unlabelled_rows.append([entry["id"], g["qid"], g["property"], g["value"]])
    return {"triples": total, "in_graph": total - missing, "share": _ratio(total - missing, total),
            "missing": missing_rows[:20], "unlabelled": len(unlabelled_rows), "unlabelled_rows": unlabelled_rows[:20]}


def set_sizes(entries: Sequence[dict]) -> dict:
    sizes = [len(e["minimum_knowledge_set"]) for e in entries]
    if not sizes:
        return {"entries": 0}
    return {
        "entries": len(sizes),
        "mean": statistics.fmean(sizes),
        "median": statistics.median(sizes),
        "min": min(sizes),
        "max": max(sizes),
        "histogram": {str(k): v for k, v in sorted(Counter(sizes).items())},
        "paper_mean": 6.8,
    }


def relations_used(entries: Sequence[dict], top: int = 25) -> dict:
    every = Counter(g["property"] for e in entries for g in e["minimum_knowledge_set"])
    chosen = Counter(g["property"] for e in entries for g in e["minimum_knowledge_set"] if g["source"] == "eq1")
    return {
        "distinct": len(every),
        "distinct_eq1": len(chosen),
        "all": dict(every.most_common(top)),
        "eq1": dict(chosen.most_common(top)),
    }


def generation_figures(entries: Sequence[dict]) -> dict:
    rounds = [r for e in entries for r in e["rounds"]]
    questions = [q for e in entries for q in e["questions"].values()]
    return {
        "rounds": len(rounds),
        "template_sentences": sum(r["sentence_source"] == "template" for r in rounds),
        "template_sentence_share": _ratio(sum(r["sentence_source"] == "template" for r in rounds), len(rounds)),
        "questions": len(questions),
        "fallback_questions": sum(q["source"] == "fallback" for q in questions),
        "fallback_question_share": _ratio(sum(q["source"] == "fallback" for q in questions), len(questions)),
        "truncated": sum(e["stats"]["truncated"] for e in entries),
        "mean_candidates": _ratio(sum(r["candidates"] for r in rounds), len(rounds)),
    }


def persons_named(entries: Sequence[dict]) -> dict:
    """How many of the entry's two persons each question names (`evolve.persons_named_in`: a word of
    the person's name the other's lacks — a shared surname names neither). Answering retrieves the persons a
    question names, so a question naming one person leaves the other's gold triples out of reach of a KaLMA-style
    pipeline."""
    out: dict[str, dict] = {}
    for kind in ("general", "specific"):
        named = Counter(persons_named_in(e[f"{kind}_question"], e["names"]) for e in entries)
        out[kind] = {"both": named[2], "one": named[1], "none": named[0],
                     "both_share": _ratio(named[2], len(entries))}
    return out


def question_gold_consistency(store: GraphStore | None, entries: Sequence[dict], kind: str = "specific") -> dict:
    """`question_gold` over a dataset: the headline shares and the entries that fail, with why."""
    # the persons' graphs, read in one query
    hops = store.one_hop_many(sorted({q for e in entries for q in e["qids"]})) if store is not None else {}
    rows = [question_gold(e, [t for q in e["qids"] for t in hops.get(q, [])], kind) for e in entries]
    gold = sum(r["gold"] for r in rows)
    return {
        "question_gold_consistent_share": _ratio(sum(r["consistent"] for r in rows), len(rows)),
        "gold_asked_share": _ratio(sum(r["gold_asked"] for r in rows), gold),
        "asks_nothing_known": sum(not r["facts"] for r in rows),
        "asks_what_gold_lacks": sum(bool(r["unheld"]) for r in rows),
        "names_a_person_not_once": sum(any(n != 1 for n in r["named"].values()) for r in rows),
        "failing": [{k: r[k] for k in ("id", "unheld", "named")} | {"asked": r["facts"]} for r in rows
                    if not r["consistent"]][:50],
    }


def relevance(entries: Sequence[dict], nli: Any, threshold: float = 0.5) -> dict:
    """NLI of each triple (as its template sentence) against the entry's final paragraph: the best
    entailment probability over the paragraph's sentences (a small NLI model trained on sentence
    pairs misjudges a five-sentence premise: with the whole paragraph as premise, template sentences
    copied verbatim into it were "entailed" only half of the time)."""
    premises: list[str] = []
    hypotheses: list[str] = []
    owners: list[int] = []
    kinds: list[tuple[int, str]] = []
    for i, entry in enumerate(entries):
        names = dict(zip(entry["qids"], entry["names"]))
        sources = {tuple(r["triple"]): r["sentence_source"] for r in entry["rounds"]}
        sentences = split_sentences(entry["paragraph"])
        for g in entry["minimum_knowledge_set"]:
            hypothesis = pos_sentence(names.get(g["qid"], g["qid"]), g["property"], g["value"])
            kind = g["source"]
            if kind == "eq1":
                kind = f"eq1/{sources.get((g['qid'], g['property'], g['value']), 'llm')}"
            for sentence in sentences:
                premises.append(sentence)
                hypotheses.append(hypothesis)
                owners.append(len(kinds))
            kinds.append((i, kind))
    if not kinds:
        return {"pairs": 0}
    probs = nli.entailment_prob(premises, hypotheses)
    best = [0.0] * len(kinds)
    for owner, p in zip(owners, probs):
        best[owner] = max(best[owner], float(p))
    entailed = [p >= threshold for p in best]
    per_entry: dict[int, list[bool]] = {}
    per_source: dict[str, list[bool]] = {}
    for (i, kind), ok in zip(kinds, entailed):
        per_entry.setdefault(i, []).append(ok)
        per_source.setdefault(kind, []).append(ok)
    return {
        "pairs": len(kinds),
        "threshold": threshold,
        "premise": "the paragraph sentence with the highest P(entailment)",
        "hypothesis": "template sentence of the triple",
        "entailed_micro": sum(entailed) / len(entailed),
        "entailed_macro": statistics.fmean(sum(v) / len(v) for v in per_entry.values()),
        "mean_entailment_prob": statistics.fmean(best),
        "per_source": {k: {"pairs": len(v), "entailed": sum(v) / len(v)} for k, v in sorted(per_source.items())},
        "model": nli.describe().get("name_or_path") if hasattr(nli, "describe") else None,
    }


def check_dataset(store: GraphStore, entries: Iterable[dict], nli: Any | None = None, threshold: float = 0.5) -> dict:
    entries = list(entries)
    report = {
        "entries": len(entries),
        "in_graph": triples_in_graph(store, entries),
        "set_sizes": set_sizes(entries),
        "relations": relations_used(entries),
        "generation": generation_figures(entries),
        "persons_named": persons_named(entries),
        "question_gold": question_gold_consistency(store, entries),
    }
    report["relevance"] = relevance(entries, nli, threshold) if nli is not None else None
    return report


def reader_sample(entries: Sequence[dict], n: int = 10, seed: int = 0) -> str:
    """`n` entries drawn at random (seeded) as Markdown: the paragraph with each sentence's source,
    both questions with theirs, and the gold minimum knowledge set, so a person can judge whether
    the questions make sense and the gold is what the paragraph states (issue 13's reader's check).

    >>> entry = {"id": "e1", "names": ["A B", "C D"], "relation": {"label": "child"},
    ...          "seed_sentence": "A B was the father of C D.", "rounds": [],
    ...          "paragraph": "A B was the father of C D.", "general_question": "Who were A B and C D?",
    ...          "specific_question": "Was A B the father of C D?", "questions": {},
    ...          "minimum_knowledge_set": [{"qid": "Q1", "property": "child", "value": "C D", "round": 1,
    ...                                     "source": "link"}]}
    >>> print(reader_sample([entry], n=1))  # doctest: +NORMALIZE_WHITESPACE
    ### 1. A B — C D (child) `e1`
    <BLANKLINE>
    - seed: A B was the father of C D.
    <BLANKLINE>
    **General question** (llm): Who were A B and C D?
    <BLANKLINE>
    **Specific question** (llm): Was A B the father of C D?
    <BLANKLINE>
    **Gold** (1 triples): `Q1` child: C D *(round 1, link)*
    """
    import random

    chosen = sorted(random.Random(seed).sample(range(len(entries)), min(n, len(entries))))
    blocks = []
    for i, index in enumerate(chosen, 1):
        e = entries[index]
        lines = [f"### {i}. {e['names'][0]} — {e['names'][1]} ({e['relation']['label']}) `{e['id']}`", "",
                 f"- seed: {e['seed_sentence']}"]
        for r in e.get("rounds", []):
            lines.append(
                f"- round {r['round']} ({r['sentence_source']}; {r['triple'][1]}: {r['triple'][2]}): {r['sentence']}")
        for kind in ("general", "specific"):
            source = (e.get("questions", {}).get(kind) or {}).get("source", "llm")
            lines += ["", f"**{kind.capitalize()} question** ({source}): {e[kind + '_question']}"]
        gold = "; ".join(f"`{g['qid']}` {g['property']}: {g['value']} *(round {g['round']}, {g['source']})*"
                         for g in e["minimum_knowledge_set"])
        lines += ["", f"**Gold** ({len(e['minimum_knowledge_set'])} triples): {gold}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def time_breakdown(entries: Sequence[dict], timings: Sequence[dict]) -> dict:
    """Where a build's time goes, from the entries and their timings sidecar rows
    (`{"id", "seconds", "scoring", "writing", "questions", "scored_tokens"}`): seconds per entry,
    each phase's share, candidates scored per round, tokens per scored candidate and model calls
    per question. Rows without phases (older builds) count in `seconds_per_entry` only.

    >>> e = {"id": "e", "rounds": [{"candidates": 10}, {"candidates": 6}],
    ...      "questions": {"general": {"attempts": 3}, "specific": {"attempts": 1}}}
    >>> time_breakdown([e], [{"id": "e", "seconds": 60, "scoring": 30, "writing": 20, "questions": 10,
    ...                      "scored_tokens": 192}])["shares"]
    {'scoring': 0.5, 'writing': 0.333, 'questions': 0.167}
    """
    rows = {row["id"]: row for row in timings}
    timed = [rows[e["id"]] for e in entries if e["id"] in rows]
    phased = [(e, rows[e["id"]]) for e in entries if "scoring" in rows.get(e["id"], {})]
    total = sum(float(r["seconds"]) for _, r in phased)
    candidates = [r["candidates"] for e, _ in phased for r in e["rounds"]]
    attempts = [q.get("attempts", 1) for e, _ in phased for q in e.get("questions", {}).values()]
    return {
        "timed_entries": len(timed),
        "seconds_per_entry": round(sum(float(r["seconds"]) for r in timed) / len(timed), 2) if timed else None,
        "entries_per_minute": round(60 * len(timed) / sum(float(r["seconds"]) for r in timed), 3) if timed else None,
        "shares": {k: round(sum(float(r[k]) for _, r in phased) / total, 3)
                   for k in ("scoring", "writing", "questions")}
        if total else None,
        "candidates_per_round": round(statistics.mean(candidates), 2) if candidates else None,
        "tokens_per_candidate": round(sum(r["scored_tokens"] for _, r in phased) / sum(candidates), 2)
        if candidates else None,
        "calls_per_question": round(statistics.mean(attempts), 2) if attempts else None,
    }
