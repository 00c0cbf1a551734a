"""`build_biokalma`: the whole construction pipeline, resumable, writing three JSON-lines files.

    pairs (graph or file) ─▶ disambiguation ─▶ knowledge pools ─▶ Count_r over the 2N persons
        ─▶ per entry: evolve (round 1 + rounds 2..R by eq. 1, questions) ─▶ OUT (one line each)
        ─▶ OUT.gold.jsonl, OUT.questions.jsonl, OUT.checks.json

Files, for `--out data/bk.jsonl`:

- `data/bk.jsonl` — one entry per line (`evolve.evolve_entry` + `provenance`);
- `data/bk.gold.jsonl` — `{"id", "gold": [[qid, property, value], ...]}` per entry, what
  `kalma-graph evaluate --gold` reads as minimum knowledge sets;
- `data/bk.questions.jsonl` — `{"id", "question", "variants": {"general", "specific"},
  "reference_qids"}` per entry, what `kalma-graph answer --questions` reads (`--variant` picks the
  general or the specific wording; both share the id and the gold set);
- `data/bk.checks.json` — the quality checks and the run summary.

Resuming: entries whose id is already in OUT are skipped, after checking that OUT was built with the
same settings (seed, α, rounds, model sha256, dataset size, ...). A half-written last line (a crash)
is cut off and that entry built again; a corrupt line inside OUT stops the build with its `file:line`
(nothing is dropped). The side files are rewritten from OUT at the end of every run.
"""

from __future__ import annotations

import json
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from kalma_graph import __version__
from kalma_graph.errors import BadInputError
from kalma_graph.files import (
    JsonlAppender,
    atomic_write_json,
    atomic_write_text,
    json_sha256,
    read_jsonl,
    refuse_other_settings,
)
from kalma_graph.models.calls import in_order
from kalma_graph.models.protocols import Entailer
from kalma_graph.prompts import load_prompt
from kalma_graph.shards import ShardError
from kalma_graph.store.base import GraphStore

from .checks import check_dataset, time_breakdown
from .disambiguation import Resolution, disambiguate
from .evolve import PROMPTS, EvolveConfig, LanguageModel, evolve_entry
from .pairs import HUMAN, PERSON_RELATIONS, PersonPair, pairs_from_graph, read_pairs, shuffled
from .pool import Pool, knowledge_pool
from .scoring import relation_counts

Progress = Callable[[int, int, str], None]  # (done, total, entry id)
MIN_RELATIONS = 2  # a pair is skipped when its pool holds fewer usable relations besides the link


class BuildError(BadInputError, RuntimeError):
    """The build cannot go on (incompatible --out, no pairs); the message says what to do."""


@dataclass(frozen=True)
class BuildOptions:
    limit: int | None = 100  # entries to build (None: every pair that resolves)
    pairs_file: str | None = None  # JSON lines of name pairs; None: pairs from the graph
    relations: tuple[str, ...] = tuple(PERSON_RELATIONS)
    type_id: str = HUMAN
    evolve: EvolveConfig = field(default_factory=EvolveConfig)
    nli_threshold: float = 0.5
    max_new: int | None = None  # build at most this many entries in this run (0: only re-check OUT and
    # rewrite its side files); the dataset's size N, and so eq. 1, do not depend on it
    reserve: int = 0  # pairs resolved beyond `limit` that stand in, in order, for entries dropped by the
    # question check (with `limit`, the build stops once `limit` entries are kept)
    concurrency: int = 1  # entries in flight (`models.calls.in_order`; for a model server writing them)
    shard: Any = None  # a `kalma_graph.shards.Shard`: build only the plan's pairs (reserve included) it holds


def side_paths(out: str | Path) -> dict[str, Path]:
    out = Path(out)
    stem = out.with_suffix("") if out.suffix == ".jsonl" else out
    return {
        "gold": stem.with_name(stem.name + ".gold.jsonl"),
        "questions": stem.with_name(stem.name + ".questions.jsonl"),
        "checks": stem.with_name(stem.name + ".checks.json"),
        # Seconds per entry, kept apart so that the dataset itself stays byte-identical across runs.
        "timings": stem.with_name(stem.name + ".timings.jsonl"),
        # entries built and then dropped (their template question failed the gold check too): kept so that
        # a resumed build neither builds them again nor loses why they are missing
        "dropped": stem.with_name(stem.name + ".dropped.jsonl"),
        # a sharded build's plan (entry ids in order, the limit): where `merge_builds` cuts the shards' entries
        "plan": stem.with_name(stem.name + ".plan.json"),
    }


@dataclass
class Plan:
    resolutions: list[Resolution]
    pools: dict[str, Pool]
    counts: dict[str, int]
    statuses: dict[str, int]
    pairs_considered: int

    @property
    def n(self) -> int:
        return len(self.resolutions)


def plan_dataset(store: GraphStore, options: BuildOptions) -> Plan:
    """Pairs → resolved entries (the first `limit` that resolve, in seeded order) → pools → counts."""
    if options.pairs_file:
        pairs: list[PersonPair] = read_pairs(options.pairs_file)
    else:
        pairs = shuffled(pairs_from_graph(store, options.relations, type_id=options.type_id), options.evolve.seed)
    resolutions: list[Resolution] = []
    statuses = {"resolved": 0, "not_found": 0, "ambiguous": 0, "duplicate": 0, "too_few_relations": 0}
    seen: set[str] = set()
    pools: dict[str, Pool] = {}
    considered = 0
    wanted = None if options.limit is None else options.limit + options.reserve
    for pair in pairs:
        if wanted is not None and len(resolutions) >= wanted:
            break
        considered += 1
        found = disambiguate(store, pair, type_id=options.type_id)
        if not found.ok:
            statuses[found.status] += 1
            continue
        if found.entry_id in seen:
            statuses["duplicate"] += 1
            continue
        seen.add(found.entry_id)
        assert found.a_id is not None and found.b_id is not None  # resolved: both persons found
        pool = knowledge_pool(store, found.a_id, found.b_id)
        if (len({t.pid for t in pool.candidates(pool.link_triples(found), options.evolve.excluded_pids)})
            < MIN_RELATIONS):
            # rounds 2..R would have nothing, or one relation over and over, to add to the link
            statuses["too_few_relations"] += 1
            continue
        statuses["resolved"] += 1
        resolutions.append(found)
        pools[found.entry_id] = pool
    if not resolutions:
        raise BuildError("no person pair could be resolved in the graph: ingest Wikidata persons first "
                         "(kalma-graph ingest dumps/wikidata_sample.jsonl.gz) or check --pairs")
    counts = relation_counts(
        pool.relations_of(person_id) for r in resolutions for pool in [pools[r.entry_id]] for person_id in pool.ids
    )
    return Plan(resolutions, pools, dict(counts), statuses, considered)


def settings_of(options: BuildOptions, plan: Plan, model: dict) -> dict:
    """What must be equal for two runs to write the same dataset (checked on resume)."""
    return {
        "seed": options.evolve.seed,
        "alpha": options.evolve.alpha,
        "rounds": options.evolve.rounds,
        "evolve": options.evolve.as_dict(),
        "dataset_size": plan.n,
        "pairs": options.pairs_file and Path(options.pairs_file).name,
        "relations": list(options.relations),
        "model_file": model.get("model_file"),
        "model_sha256": model.get("model_sha256"),
        "writer_endpoint": model.get("endpoint"),  # None: written in-process
        "prompts": {name: load_prompt(name)["sha256"] for name in PROMPTS},
        "kalma_graph": __version__,
        # the code that reads what a question asks (recorded, not compared: a resumed build may span a fix)
        "question_check": verifier_id(),
    }


def verifier_id() -> str:
    from kalma_graph.verification.lexicon import load_lexicon
    from kalma_graph.verification.verifier import VERIFIER_VERSION

    return f"{VERIFIER_VERSION}:{load_lexicon().sha256}"


def read_entries(path: Path) -> list[dict]:
    """Finished entries of OUT; a half-written last line (a crash) is cut off the file, with a
    `TornLineWarning`; a corrupt line inside raises `CorruptJsonlError` naming `file:line`."""
    return read_jsonl(path, trim=True).records


#: provenance recorded, not compared: a resumed build may span a new release or a fix of the question check
RESUMABLE_CHANGES = ("kalma_graph", "question_check")


def _comparable(settings: dict) -> dict:
    return {k: v for k, v in settings.items() if k not in RESUMABLE_CHANGES}


def build_biokalma(
    store: GraphStore, llm: LanguageModel, out: str | Path, options: BuildOptions = BuildOptions(), *,
    scorer_llm: LanguageModel | None = None, nli: Entailer | None = None, progress: Progress | None = None,
) -> dict:
    """Build (or resume) the dataset into `out`; returns the run summary with the quality checks.

    `llm` writes sentences and questions; `scorer_llm` (default `llm`) computes eq. 1's
    perplexities and must be loaded with `logits=True` — a second instance of the same GGUF keeps the
    chat prompts' cached prefix alive (see `evolve.evolve_entry`). Both must be the same model file."""
    header = _model_header(llm, scorer_llm)
    started = time.perf_counter()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    plan = plan_dataset(store, options)
    settings = settings_of(options, plan, header)
    paths = side_paths(out)
    # The logs fsync each line; opening them trims a line torn by a crash (that entry is built again).
    with JsonlAppender(out) as handle, JsonlAppender(paths["dropped"]) as dropped_log:
        finished = handle.records
        for entry in (finished + dropped_log.records)[:1]:
            refuse_other_settings(out, entry["provenance"], settings, what="entries", ignore=RESUMABLE_CHANGES,
                                  hint="resume with the same options, or write to a new --out", error=BuildError)
        done_ids = {e["id"] for e in finished}
        dropped_ids = {e["id"] for e in dropped_log.records}
        target, mine = _pairs_of_this_run(out, plan, options, settings)
        todo = [r for r in mine if r.entry_id not in done_ids | dropped_ids]
        built = dropped_now = 0
        generation_seconds = 0.0
        if progress:
            progress(len(done_ids), target, "")

        def evolve(resolution: Resolution) -> tuple[dict, float]:
            t0 = time.perf_counter()
            entry = evolve_entry(llm, resolution, plan.pools[resolution.entry_id], plan.counts, plan.n,
                                 options.evolve, scorer_llm=scorer_llm)
            return entry, time.perf_counter() - t0

        def enough() -> bool:
            return len(done_ids) + built >= target or (options.max_new is not None
                                                       and built + dropped_now >= options.max_new)

        # `options.concurrency` entries in flight (a model server writes them in parallel); they are written in
        # plan order and the walk stops where the sequential build stops (entries running past it are not kept)
        calls = in_order(evolve, iter(todo) if not enough() else iter(()), options.concurrency)
        with JsonlAppender(paths["timings"], ensure_ascii=True) as timing, closing(calls):
            for resolution, result in calls:
                entry, seconds = result()
                generation_seconds += seconds
                phases = entry.pop("timings", {})
                entry["provenance"] = settings
                if entry.get("dropped"):
                    dropped_log.append(entry)
                    dropped_now += 1
                else:
                    handle.append(entry)
                    built += 1
                timing.append({"id": entry["id"], "seconds": round(seconds, 2), **phases})
                if progress:
                    progress(len(done_ids) + built, target, resolution.entry_id)
                if enough():
                    break

    dropped = read_entries(paths["dropped"]) if paths["dropped"].is_file() else []
    entries = read_entries(out)
    order = {r.entry_id: i for i, r in enumerate(plan.resolutions)}
    entries.sort(key=lambda e: order.get(e["id"], len(order)))
    write_side_files(entries, paths)
    checks = check_dataset(store, entries, nli=nli, threshold=options.nli_threshold)
    checks["question_gold"]["dropped"] = len(dropped)
    summary = _summary(store, out, paths, plan, options, settings, header, nli, checks,
                       entries=entries, dropped=dropped,
                       built=built, dropped_now=dropped_now, resumed=len(done_ids), started=started,
                       generation_seconds=generation_seconds)
    atomic_write_json(paths["checks"], summary)
    return summary


def _pairs_of_this_run(out: Path, plan: Any, options: BuildOptions, settings: dict) -> tuple[int, list[Resolution]]:
    """How many entries this run keeps, and the plan's pairs it builds (a shard's: all of its pairs)."""
    if options.shard is None:
        return (plan.n if options.limit is None else min(options.limit, plan.n)), list(plan.resolutions)
    # a shard cannot know how many entries the others drop, so it builds all its pairs of the plan, the
    # reserve's too; `kalma-graph merge` keeps the first `limit` kept entries in plan order
    mine = [r for r in plan.resolutions if options.shard.holds(r.entry_id)]
    write_plan(out, plan, options, settings)
    return len(mine), mine


def _model_header(llm: Any, scorer_llm: Any | None) -> dict:
    """The writing model's header; the scoring model's file when a server wrote (it does not say which file it
    serves). The two must be the same GGUF."""
    if scorer_llm is not None and hasattr(llm, "header") and hasattr(scorer_llm, "header"):
        # a model server does not say which file it serves (sha256 None): the scorer's file is recorded instead
        writer_sha = llm.header()["model_sha256"]
        if writer_sha is not None and writer_sha != scorer_llm.header()["model_sha256"]:
            raise BuildError("the writing and the scoring model must be the same GGUF file")
    header = llm.header() if hasattr(llm, "header") else {}
    if header.get("endpoint") and scorer_llm is not None:  # written by a server, scored by this file
        header = {**header, "model_file": scorer_llm.header()["model_file"],
                  "model_sha256": scorer_llm.header()["model_sha256"]}
    return header


def _summary(store: GraphStore, out: Path, paths: dict[str, Path], plan: Any, options: BuildOptions, settings: dict,
             header: dict, nli: Any | None, checks: dict, *, entries: list[dict], dropped: list[dict], built: int,
             dropped_now: int, resumed: int, started: float, generation_seconds: float) -> dict:
    """What `build biokalma` reports and `OUT.checks.json` holds, with the headline figures by name."""
    summary = {
        "out": str(out),
        "gold": str(paths["gold"]),
        "questions": str(paths["questions"]),
        "checks_file": str(paths["checks"]),
        "store": store.uri,
        "entries": len(entries),
        "shard": str(options.shard) if options.shard is not None else None,
        "built_now": built,
        "dropped_now": dropped_now,
        "resumed": resumed,
        "dropped": {"entries": len(dropped), "why": [{"id": e["id"], "why": e["dropped"]} for e in dropped][:50]},
        "pairs_considered": plan.pairs_considered,
        "disambiguation": plan.statuses,
        "dataset_size_N": plan.n,
        "seconds": round(time.perf_counter() - started, 2),
        "generation_seconds": round(generation_seconds, 2),
        "entries_per_minute": round(60 * built / generation_seconds, 3) if generation_seconds else None,
        "settings": settings,
        "model": header,
        "nli": nli.describe() if nli is not None and hasattr(nli, "describe") else None,
        "checks": checks,
    }
    summary["headline"] = headline(summary, entries, read_timings(paths["timings"], {e["id"] for e in entries}))
    return summary


def write_plan(out: Path, plan: Plan, options: BuildOptions, settings: dict) -> None:
    """`<out>.plan.json` of a sharded build: the plan's entry ids in order, the limit, and the settings' hash,
    which `merge_builds` needs to cut the shards' entries where the unsharded build stops."""
    digest = json_sha256(_comparable(settings))
    atomic_write_json(side_paths(out)["plan"], {"order": [r.entry_id for r in plan.resolutions], "limit": options.limit,
                                       "shard": str(options.shard), "settings_sha256": digest})


def read_timings(path: Path, ids: set[str]) -> list[dict]:
    """Timing rows of the finished entries (the last row of each, from every session that built
    some; a torn line is skipped): `{"id", "seconds"}` and, since the per-phase sidecar, `scoring`,
    `writing`, `questions` seconds and `scored_tokens`."""
    rows: dict[str, dict] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if row.get("id") in ids:
                rows[row["id"]] = row
    return list(rows.values())


def headline(summary: dict, entries: Sequence[dict], timings: Sequence[dict]) -> dict:
    """The dataset's quality figures by name (what the gold data must meet, docs/biokalma.md)."""
    checks = summary["checks"]
    relevance = checks.get("relevance") or {}
    return {
        "entries": checks["entries"],
        "persons_named_share": {kind: row["both_share"] for kind, row in checks["persons_named"].items()},
        "template_sentence_share": checks["generation"]["template_sentence_share"],
        "fallback_question_share": checks["generation"]["fallback_question_share"],
        "gold_in_graph_share": checks["in_graph"]["share"],
        "gold_unlabelled": checks["in_graph"].get("unlabelled", 0),  # gold values no knowledge block shows
        "nli_relevance_share": relevance.get("entailed_micro"),
        # the specific questions against their gold sets (issue 33)
        "question_gold_consistent_share": checks["question_gold"]["question_gold_consistent_share"],
        "gold_asked_share": checks["question_gold"]["gold_asked_share"],
        "regenerated": sum(bool(e["stats"].get("regenerated_questions")) for e in entries),
        "dropped": checks["question_gold"].get("dropped", 0),
        "model_file": (summary.get("model") or {}).get("model_file"),
        "model_sha256": (summary.get("model") or {}).get("model_sha256"),
        **time_breakdown(entries, timings),
    }


def write_side_files(entries: Sequence[dict], paths: dict[str, Path]) -> None:
    """The `evaluate --gold` file and the `answer --questions` file, one line per entry: the general
    and the specific question are the two `variants` of one question (answer picks one with
    `--variant`) and share the entry's id and minimum knowledge set."""
    gold: list[str] = []
    questions: list[str] = []
    for entry in entries:
        triples = [[g["qid"], g["property"], g["value"]] for g in entry["minimum_knowledge_set"]]
        gold.append(json.dumps({"id": entry["id"], "gold": triples}, ensure_ascii=False) + "\n")
        questions.append(json.dumps({
            "id": entry["id"],
            "question": entry["general_question"],
            "variants": {"general": entry["general_question"], "specific": entry["specific_question"]},
            "reference_qids": entry["qids"],
        }, ensure_ascii=False) + "\n")
    atomic_write_text(paths["gold"], "".join(gold))
    atomic_write_text(paths["questions"], "".join(questions))


def merge_builds(shard_files: Sequence[str | Path], out: str | Path) -> dict:
    """Join `build biokalma --shard I/N` outputs into the entries file the unsharded build writes: walking the
    plan in order, each pair's entry is taken from the shard that built it, dropped entries are skipped (they go
    to `<out>.dropped.jsonl`), and the walk stops at `limit` kept entries. Refuses shards of different plans. The
    side files (gold, questions, checks) are then written by the build itself run on `out` (nothing is left to
    build: it only checks)."""
    plans = []
    for path in shard_files:
        where = side_paths(path)["plan"]
        if not where.is_file():
            raise ShardError(f"{path}: no {where.name} beside it: not the output of `build biokalma --shard`")
        plans.append(json.loads(where.read_text(encoding="utf-8")))
    first = plans[0]
    for path, plan in zip(shard_files[1:], plans[1:]):
        if ((plan["order"], plan["limit"], plan["settings_sha256"])
            != (first["order"], first["limit"], first["settings_sha256"])):
            raise ShardError(f"{path} and {shard_files[0]} are shards of different builds (plan or settings differ)")
    entries: dict[str, dict] = {}
    dropped: dict[str, dict] = {}
    timings: dict[str, dict] = {}
    for path in shard_files:
        sides = side_paths(path)
        for record in read_jsonl(path).records:
            entries[record["id"]] = record
        if sides["dropped"].is_file():
            dropped.update((r["id"], r) for r in read_jsonl(sides["dropped"]).records)
        if sides["timings"].is_file():
            timings.update((r["id"], r) for r in read_jsonl(sides["timings"], trim=False).records)
    limit = first["limit"] if first["limit"] is not None else len(first["order"])
    kept: list[dict] = []
    skipped: list[dict] = []
    waiting: list[str] = []
    for entry_id in first["order"]:
        if len(kept) >= limit:
            break
        if entry_id in entries:
            kept.append(entries[entry_id])
        elif entry_id in dropped:
            skipped.append(dropped[entry_id])
        else:
            waiting.append(entry_id)
            break  # the entries after it wait for it: it may be kept or dropped
    complete = not waiting and (len(kept) >= limit or len(kept) + len(skipped) >= len(first["order"]))
    out = Path(out)
    sides = side_paths(out)
    if complete:
        atomic_write_text(out, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in kept))
        atomic_write_text(sides["dropped"], "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in skipped))
        atomic_write_text(sides["timings"], "".join(json.dumps(timings[e["id"]], ensure_ascii=True) + "\n"
                                                    for e in kept + skipped if e["id"] in timings))
    return {"out": str(out), "complete": complete, "entries": len(kept), "limit": limit, "dropped": len(skipped),
            "waiting_for": waiting, "shards": [str(p) for p in shard_files],
            "built_beyond_the_cut": len(set(entries) - {e["id"] for e in kept})}
