"""`caqa build`: query collection → extension → grounding and edits → verbalisation → JSONL.

    summary = build(store, BuildConfig(out="runs/caqa", kgqa=["dumps/kgqa/…"], paths=300, trees=300))

Output directory (`config.out`):

| file | what |
|---|---|
| `samples.jsonl` | one `Sample` per line; the samples of one query are written together |
| `queries.jsonl` | the collected queries, in processing order (written once, reused on resume) |
| `skipped.jsonl` | queries that produced no sample, with the reason |
| `meta.json` | config, verbaliser (model hash, prompt versions), collection report |
| `stats.json`, `stats.md` | Table 4-style statistics (category × split, complexity × split) and more |

Deterministic: every random choice for a query uses an RNG seeded by (seed, query key), so a
sample does not depend on which queries came before it or on resuming. Resumable: a re-run with
the same config skips the queries already in `samples.jsonl` or `skipped.jsonl` (a group cut short
by a crash is dropped and redone); a different config is refused unless `fresh=True`.

Train/test split by entity: an entity is *held out* when a hash of (seed, id) falls below
`test_entity_rate`; a query whose samples mention a held-out entity (in any of its four subgraphs)
goes to the test split, every other query to train — so no held-out entity ever appears in
training.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from kalma_graph.caqa import edits
from kalma_graph.caqa.extension import ExtensionProbs, extend
from kalma_graph.caqa.graph import GraphView
from kalma_graph.caqa.kgqa import CollectedQuery, CollectionReport, read_kgqa
from kalma_graph.caqa.model import (
    CATEGORIES,
    CATEGORY_SHORT,
    COMPLEXITIES,
    PARTIAL,
    Fact,
    Grounding,
    Query,
    Sample,
    entities_of,
)
from kalma_graph.caqa.sampler import rng_for, sample_queries
from kalma_graph.caqa.verbalise import TemplateVerbaliser
from kalma_graph.errors import BadInputError
from kalma_graph.files import (
    JsonlAppender,
    atomic_write_json,
    atomic_write_text,
    file_sha256,
    read_jsonl,
    refuse_other_settings,
)
from kalma_graph.lines import json_lines
from kalma_graph.store.base import GraphStore

ProgressFn = Callable[[int, int], None]
SCHEMA_VERSION = 1


class BuildError(BadInputError, RuntimeError):
    """The output directory holds a build with a different configuration (or is unreadable)."""


@dataclass
class BuildConfig:
    out: str
    kgqa: list[str] = field(default_factory=list)  # "PATH" or "FORMAT=PATH"
    kbs: tuple[str, ...] = ("wikidata", "freebase")
    paths: int = 0  # sampled path-like queries per knowledge base
    trees: int = 0  # sampled tree-like queries per knowledge base
    singles: int = 0  # sampled union-ready single-triple queries per knowledge base
    seed: int = 0
    test_entity_rate: float = 0.02
    extension: ExtensionProbs = field(default_factory=ExtensionProbs)
    limit: int | None = None  # process at most this many queries (the rest stay for a later run)

    def fingerprint(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("out")
        d.pop("limit")
        d["kbs"] = list(self.kbs)
        d["kgqa"] = [_describe_kgqa(spec) for spec in self.kgqa]
        d["extension"] = {"single": list(self.extension.single), "multi": list(self.extension.multi)}
        return d


def _describe_kgqa(spec: str) -> dict[str, str]:
    fmt, path = _split_spec(spec)
    return {"format": fmt or "auto", "file": Path(path).name, "sha256": file_sha256(path)}


def _split_spec(spec: str) -> tuple[str | None, str]:
    head, sep, tail = spec.partition("=")
    if sep and head in ("sq-wikidata", "sq-freebase", "mintaka"):
        return head, tail
    return None, spec


# --- the split --------------------------------------------------------------------------------


def held_out(entity_id: str, seed: int, rate: float) -> bool:
    digest = hashlib.blake2b(f"{seed}\x1f{entity_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64 < rate


def split_for(entity_ids: Iterable[str], seed: int, rate: float) -> str:
    return "test" if any(held_out(e, seed, rate) for e in entity_ids) else "train"


# --- output directory -------------------------------------------------------------------------


@dataclass
class OutputPaths:
    root: Path

    @property
    def samples(self) -> Path:
        return self.root / "samples.jsonl"

    @property
    def queries(self) -> Path:
        return self.root / "queries.jsonl"

    @property
    def skipped(self) -> Path:
        return self.root / "skipped.jsonl"

    @property
    def meta(self) -> Path:
        return self.root / "meta.json"

    @property
    def stats_json(self) -> Path:
        return self.root / "stats.json"

    @property
    def stats_md(self) -> Path:
        return self.root / "stats.md"


def read_samples(path: str | Path) -> list[dict]:
    """Samples of a `samples.jsonl` (or of a build directory). Read-only, so it may run beside a
    build: a torn last line is left out (not trimmed); a corrupt line inside raises
    `CorruptJsonlError` naming `file:line`. Groups cut short by a crash are only dropped on resume."""
    path = Path(path)
    if path.is_dir():
        path = path / "samples.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    return read_jsonl(path).records


def open_samples(path: Path) -> tuple[JsonlAppender, set[str]]:
    """The samples log opened for appending, and the query keys whose samples are all in it.

    A torn last line is trimmed (by the appender). The samples of one query are written with one
    write, so a crash can also cut a group after any of its lines: such a group is incomplete
    (fewer lines than its `group_size`) and is removed from the file, so its query is redone whole."""
    out = JsonlAppender(path)
    rows = out.records
    groups: Counter[str] = Counter(r["query_key"] for r in rows)
    incomplete = {r["query_key"] for r in rows if r["group_size"] != groups[r["query_key"]]}
    if incomplete:
        out.close()
        kept = [r for r in rows if r["query_key"] not in incomplete]
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
        out = JsonlAppender(path)
    return out, {k for k in groups if k not in incomplete}


def _grounding_to_dict(g: Grounding) -> dict:
    return {"query": g.query.as_dict(), "chains": [[f.as_dict() for f in chain] for chain in g.chains]}


def _grounding_from_dict(d: dict) -> Grounding:
    return Grounding(Query.from_dict(d["query"]), tuple(tuple(Fact.from_dict(f) for f in c) for c in d["chains"]))


def _query_to_line(q: CollectedQuery) -> str:
    return json.dumps({"key": q.key, "source": q.source, "kb": q.kb, "question": q.question,
                       "grounding": _grounding_to_dict(q.grounding), "provenance": q.provenance},
                      ensure_ascii=False) + "\n"


def _query_from_dict(d: dict) -> CollectedQuery:
    return CollectedQuery(d["key"], d["source"], d["kb"], d["question"], _grounding_from_dict(d["grounding"]),
                          d.get("provenance") or {})


# --- collection --------------------------------------------------------------------------------


def collect_queries(view: GraphView, config: BuildConfig, report: CollectionReport) -> Iterator[CollectedQuery]:
    """KGQA questions first (file order), then the sampler's queries per knowledge base."""
    seen: set[str] = set()
    for spec in config.kgqa:
        fmt, path = _split_spec(spec)
        for q in read_kgqa(view, path, fmt, report):
            if q.kb in config.kbs and q.key not in seen:
                seen.add(q.key)
                yield q
    counts = {"path": config.paths, "tree": config.trees, "single": config.singles}
    for kb in config.kbs:
        for q in sample_queries(view, kb, counts, seed=config.seed):
            report.read[q.source] += 1
            report.kept[q.source] += 1
            yield q


# --- one query --------------------------------------------------------------------------------


def make_samples(view: GraphView, cq: CollectedQuery, verbaliser,
                 config: BuildConfig) -> tuple[list[Sample], str | None]:
    """The samples of one collected query (up to one per category), or ([], why not)."""
    rng = rng_for(config.seed, "build", cq.key)
    ext = extend(view, cq.grounding, rng, config.extension)
    g = ext.grounding
    support = edits.supportive(view, g)
    if support is None:
        return [], "the grounded subgraph is not in the graph"
    all_answers = view.answers(g.query) | set(g.answers)
    made = [support]
    for make in (
        lambda: edits.partial(view, g, support, rng_for(config.seed, "partial", cq.key)),
        lambda: edits.contradictory(view, g, support, all_answers, rng_for(config.seed, "contradictory", cq.key)),
        lambda: edits.irrelevant(view, g, support, all_answers, rng_for(config.seed, "irrelevant", cq.key)),
    ):
        edit = make()
        if edit is not None:
            made.append(edit)

    text_rng = rng_for(config.seed, "text", cq.key)
    question = cq.question or verbaliser.question(cq.grounding, text_rng)
    extended = None
    if ext.applied in ("head", "answer"):
        extended = verbaliser.question(g, text_rng)
    answers = g.answer_names()
    statement = verbaliser.answer_statement(extended or question, g, answers, text_rng)
    split = split_for(set().union(*(entities_of(e.facts) for e in made)), config.seed, config.test_entity_rate)
    base_prov = {"source": cq.source, **cq.provenance, **ext.provenance(), "verbaliser": verbaliser.name,
                 "seed": config.seed}
    samples = []
    for edit in made:
        citation = verbaliser.citation(edit.facts, rng_for(config.seed, "cite", cq.key, edit.category))
        samples.append(Sample(
            id=f"{cq.key}#{edit.category}",
            query_key=cq.key,
            kb=cq.kb,
            split=split,
            question=question,
            extended_question=extended,
            answer=answers,
            answer_ids=list(g.answers),
            answer_statement=statement,
            citation=citation,
            category=edit.category,
            complexity=g.query.complexity,
            triples=[list(f.triple()) for f in edit.facts],
            facts=[f.as_dict() for f in edit.facts],
            query=g.query.as_dict(),
            group_size=len(made),
            supportive_facts=[f.as_dict() for f in support.facts] if edit.category == PARTIAL else None,
            deleted_facts=[f.as_dict() for f in edit.deleted] if edit.category == PARTIAL else None,
            provenance={**base_prov, **({"edit": edit.info} if edit.info else {})},
        ))
    return samples, None


# --- the build ---------------------------------------------------------------------------------


def build(
    store: GraphStore,
    config: BuildConfig,
    *,
    verbaliser=None,
    fresh: bool = False,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    verbaliser = verbaliser or TemplateVerbaliser()
    paths = OutputPaths(Path(config.out))
    paths.root.mkdir(parents=True, exist_ok=True)
    if fresh:
        for p in (paths.samples, paths.queries, paths.skipped, paths.meta, paths.stats_json, paths.stats_md):
            p.unlink(missing_ok=True)
    meta = {"schema": SCHEMA_VERSION, "config": config.fingerprint(), "verbaliser": verbaliser.describe(),
            "store": store.uri}
    if paths.meta.exists():
        old = json.loads(paths.meta.read_text(encoding="utf-8"))
        refuse_other_settings(paths.root,
                              {**(old.get("config") or {}), "verbaliser": _model_identity(old.get("verbaliser"))},
                              {**meta["config"], "verbaliser": _model_identity(meta["verbaliser"])}, what="a build",
                              hint="use another --out or --fresh", error=BuildError)
        meta["collection"] = old.get("collection")
    view = GraphView(store)
    t0 = time.perf_counter()

    if paths.queries.exists() and meta.get("collection"):
        queries = [_query_from_dict(d) for _, d in json_lines(paths.queries, what="queries file", error=BuildError,
                                                              hint="; rebuild with --fresh")]
    else:
        report = CollectionReport()
        queries = list(collect_queries(view, config, report))
        atomic_write_text(paths.queries, "".join(_query_to_line(q) for q in queries))
        meta["collection"] = report.as_dict()
    atomic_write_json(paths.meta, meta, default=None)
    collect_s = time.perf_counter() - t0

    out, done = open_samples(paths.samples)
    with out, JsonlAppender(paths.skipped, ensure_ascii=True) as skip_out:
        skipped: dict[str, str] = {row["key"]: row["reason"] for row in skip_out.records}
        todo = [q for q in queries if q.key not in done and q.key not in skipped]
        if config.limit is not None:
            todo = todo[: config.limit]
        total = len(todo)
        written = 0
        t1 = time.perf_counter()
        for i, cq in enumerate(todo):
            samples, why = make_samples(view, cq, verbaliser, config)
            if samples:
                out.append_many(s.as_dict() for s in samples)  # one write: a group is cut only by a crash
                written += len(samples)
            else:
                skip_out.append({"key": cq.key, "reason": why})
                skipped[cq.key] = why or ""
            if progress:
                progress(i + 1, total)
    build_s = time.perf_counter() - t1

    all_samples = read_samples(paths.samples)
    stats = statistics(all_samples)
    stats["skipped"] = dict(Counter(skipped.values()))
    stats["collection"] = meta.get("collection")
    stats["verbaliser_counts"] = dict(verbaliser.counts)
    remaining = sum(1 for q in queries if q.key not in skipped) - len({s["query_key"] for s in all_samples})
    stats["run"] = {
        "queries_collected": len(queries),
        "queries_processed_this_run": total,
        "queries_remaining": remaining,
        "samples_written_this_run": written,
        "collect_seconds": round(collect_s, 2),
        "build_seconds": round(build_s, 2),
        "samples_per_minute": round(written / build_s * 60, 1) if build_s > 0 and written else None,
        "graph_calls": view.calls,
    }
    atomic_write_json(paths.stats_json, stats, default=None)
    atomic_write_text(paths.stats_md, stats_markdown(stats))
    return {"out": str(paths.root), "samples": str(paths.samples), **stats}


def _model_identity(v: dict | None) -> Any:
    """What must match for a resume: the verbaliser kind, model hash and prompt versions."""
    if not v:
        return None
    llm = v.get("llm") or {}
    return (v.get("verbaliser"), llm.get("model_sha256"), json.dumps(v.get("prompts"), sort_keys=True),
            json.dumps(v.get("generation"), sort_keys=True))


# --- statistics (Table 4) -----------------------------------------------------------------------


def statistics(samples: list[dict]) -> dict[str, Any]:
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"train": 0, "test": 0, "total": 0})

    def add(row: str, split: str) -> None:
        table[row][split] += 1
        table[row]["total"] += 1

    by_kb: dict[str, Counter] = defaultdict(Counter)
    by_source: dict[str, Counter] = defaultdict(Counter)
    cat_x_comp: dict[str, Counter] = defaultdict(Counter)
    lengths = []
    for s in samples:
        add("total", s["split"])
        add(s["category"], s["split"])
        add(s["complexity"], s["split"])
        by_kb[s["kb"]][s["category"]] += 1
        by_source[s["provenance"].get("source", "?")][s["category"]] += 1
        cat_x_comp[s["complexity"]][s["category"]] += 1
        lengths.append(len(s["citation"].split()))
    lengths.sort()
    present: dict[str, set[str]] = defaultdict(set)
    complexity_of: dict[str, str] = {}
    for s in samples:
        present[s["query_key"]].add(s["category"])
        complexity_of[s["query_key"]] = s["complexity"]
    missing: Counter = Counter()
    for key, cats in present.items():
        for c in CATEGORIES:
            if c not in cats and not (c == PARTIAL and complexity_of[key] == "single"):
                missing[c] += 1
    return {
        "samples": len(samples),
        "queries": len({s["query_key"] for s in samples}),
        "table4": {k: table[k] for k in ("total", *CATEGORIES, *COMPLEXITIES) if k in table},
        "category_by_complexity": {c: dict(cat_x_comp[c]) for c in COMPLEXITIES if c in cat_x_comp},
        "by_kb": {k: dict(v) for k, v in sorted(by_kb.items())},
        "by_source": {k: dict(v) for k, v in sorted(by_source.items())},
        "queries_without": dict(missing),  # an edit had nothing to work with (partial/single excepted)
        "citation_words": {
            "mean": round(sum(lengths) / len(lengths), 1) if lengths else None,
            "median": lengths[len(lengths) // 2] if lengths else None,
            "max": lengths[-1] if lengths else None,
        },
    }


def stats_markdown(stats: dict[str, Any]) -> str:
    t = stats["table4"]
    names = {"total": "Total", **CATEGORY_SHORT, "single": "Single", "concatenation": "Concatenation",
             "union": "Union", "intersection": "Intersection"}
    lines = ["| Classes | | Train | Test | Total |", "|---|---|---:|---:|---:|"]
    for key in ("total", *CATEGORIES, *COMPLEXITIES):
        if key not in t:
            continue
        group = "" if key == "total" else ("Category" if key in CATEGORIES else "Complexity")
        row = t[key]
        lines.append(f"| {group} | {names[key]} | {row['train']:,} | {row['test']:,} | {row['total']:,} |")
    lines.append("")
    comps = [c for c in COMPLEXITIES if c in stats["category_by_complexity"]]
    lines.append("| Category \\ Complexity | " + " | ".join(names[c] for c in comps) + " |")
    lines.append("|---|" + "---:|" * len(comps))
    for cat in CATEGORIES:
        lines.append(f"| {CATEGORY_SHORT[cat]} | " + " | ".join(
            f"{stats['category_by_complexity'][c].get(cat, 0):,}" for c in comps) + " |")
    lines.append("")
    lines.append("| Source | " + " | ".join(CATEGORY_SHORT[c] for c in CATEGORIES) + " |")
    lines.append("|---|" + "---:|" * len(CATEGORIES))
    for source, counts in stats["by_source"].items():
        lines.append(f"| {source} | " + " | ".join(f"{counts.get(c, 0):,}" for c in CATEGORIES) + " |")
    return "\n".join(lines) + "\n"
