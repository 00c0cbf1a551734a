"""One run split across machines (issue 34): `--shard I/N` does the work of the items whose id hashes to shard I
of N, and `kalma-graph merge` joins what the shards wrote into what one unsharded run writes.

- **answers** (`answer --shard`): `merge_answers` joins the answers files in question order (only the per-answer
  timings differ, as between any two runs);
- **directories** (`experiment --shard`, `evaluate --shard`): `merge_directories` joins every `answers.jsonl` of
  the shards' trees at the same relative path, and unites their model caches (`*.sqlite`: NLI and G-Eval
  results keyed by their exact inputs); the unsharded command run on the merged directory then resumes: it
  answers nothing and asks the models only what no shard asked (its reports are computed there, whole);
- **BioKaLMA builds** (`build biokalma --shard`): `biokalma.build.merge_builds` keeps the first `limit` entries
  that were not dropped, in the plan's order (`<out>.plan.json`, which every shard writes), as the unsharded
  build does.

The hash is blake2b of the id, so an item's shard does not depend on the file's order, on N's other shards or
on the machine; every shard's output is an ordinary resumable file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence, TypeVar

from kalma_graph.errors import BadInputError
from kalma_graph.files import atomic_write_json, atomic_write_text, read_jsonl

T = TypeVar("T")


class ShardError(BadInputError, ValueError):
    """A malformed `--shard`, or shard files that do not make one run; the message says which."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """
        >>> Shard.parse("2/4")
        Shard(index=2, count=4)
        >>> try:
        ...     Shard.parse("5/4")
        ... except ShardError as exc:
        ...     print(exc)
        --shard 5/4: I must be between 1 and N (give I/N, e.g. 1/4)
        """
        try:
            index, count = (int(part) for part in text.split("/"))
        except ValueError:
            raise ShardError(f"--shard {text}: give I/N, e.g. 1/4") from None
        if count < 1 or not 1 <= index <= count:
            raise ShardError(f"--shard {text}: I must be between 1 and N (give I/N, e.g. 1/4)")
        return cls(index, count)

    def holds(self, item_id: str) -> bool:
        return shard_number(item_id, self.count) == self.index

    def select(self, items: Iterable[T], id_of=lambda item: item.id) -> list[T]:
        return [item for item in items if self.holds(str(id_of(item)))]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_number(item_id: str, count: int) -> int:
    """The 1-based shard of an id among `count`: a stable hash, the same on every machine and Python.

    >>> [shard_number(f"q{i}", 3) for i in range(6)]
    [1, 3, 2, 3, 1, 1]
    """
    digest = hashlib.blake2b(item_id.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count + 1


def merge_answers(question_ids: Sequence[str], shard_files: Sequence[str | Path], out: str | Path) -> dict:
    """Join answers files of one run's shards into `out`, in the questions' order. Refuses ids that are not
    questions or that two files both hold (two shards of different runs); reports the questions no shard has
    answered yet (the merge can be run again once they are)."""
    order = {qid: i for i, qid in enumerate(question_ids)}
    records: dict[str, dict] = {}
    where: dict[str, str] = {}
    for path in shard_files:
        for record in read_jsonl(path).records:
            rid = record.get("id")
            if rid not in order:
                raise ShardError(f"{path}: answer {rid!r} is not one of the questions; are these shards of this run?")
            if rid in records:
                raise ShardError(f"{path} and {where[rid]} both answer {rid!r}: shards of one run never overlap")
            records[rid] = record
            where[rid] = str(path)
    ordered = sorted(records, key=order.__getitem__)
    atomic_write_text(out, "".join(json.dumps(records[rid], ensure_ascii=False) + "\n" for rid in ordered))
    headers = [Path(f"{p}.header.json") for p in shard_files]
    if headers and headers[0].is_file():
        header = json.loads(headers[0].read_text(encoding="utf-8"))
        header["merged_from"] = [str(p) for p in shard_files]
        header.pop("last_run", None)
        atomic_write_json(f"{out}.header.json", header)
    missing = [qid for qid in question_ids if qid not in records]
    return {"out": str(out), "merged": len(ordered), "questions": len(question_ids), "missing": len(missing),
            "missing_ids": missing[:20], "shards": [str(p) for p in shard_files]}


def merge_directories(question_ids: Sequence[str] | None, shard_dirs: Sequence[str | Path], out: str | Path) -> dict:
    """Join the trees that `experiment --shard` / `evaluate --shard` wrote into `out`: each `answers.jsonl`
    (by relative path) with `merge_answers`, each `*.sqlite` model cache by uniting its rows. Reports are not
    merged: the unsharded command run on `out` computes them from the merged answers and caches."""
    roots = [Path(d) for d in shard_dirs]
    out = Path(out)
    if out.resolve() in {r.resolve() for r in roots}:
        raise ShardError(f"--out {out} is one of the shards: merge into a new directory")
    answers = sorted({p.relative_to(r) for r in roots for p in r.rglob("answers.jsonl")})
    caches = sorted({p.relative_to(r) for r in roots for p in r.rglob("*.sqlite")})
    if not answers and not caches:
        raise ShardError(f"no answers.jsonl and no *.sqlite cache under {', '.join(map(str, roots))}: "
                         "are these the directories of `experiment --shard` or `evaluate --shard` runs?")
    if answers and question_ids is None:
        raise ShardError("the shards hold answers files: give --questions (the questions file they answered)")
    settings = []
    for rel in answers:
        files = [r / rel for r in roots if (r / rel).is_file()]
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        done = merge_answers(question_ids or [], files, out / rel)
        settings.append({"answers": str(rel), "merged": done["merged"], "missing": done["missing"],
                         "shards": len(files)})
    united = []
    for rel in caches:
        rows = unite_sqlite([r / rel for r in roots if (r / rel).is_file()], out / rel)
        united.append({"cache": str(rel), "rows": rows})
    return {"out": str(out), "shards": [str(r) for r in roots], "answers": settings, "caches": united,
            "missing": sum(s["missing"] for s in settings)}


def unite_sqlite(sources: Sequence[Path], target: Path) -> int:
    """Copy every table's rows of `sources` into `target` (created with their schema), keeping a row already
    there: the caches are keyed by their exact inputs, so two shards' rows for one key are the same result.
    Returns the rows `target` holds."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(str(target)) as conn:
        for i, source in enumerate(sources):
            alias = f"shard{i}"
            conn.execute(f"ATTACH DATABASE ? AS {alias}", (str(source),))
            try:
                tables = conn.execute(f"SELECT name, sql FROM {alias}.sqlite_master WHERE type = 'table'").fetchall()
                for name, sql in tables:
                    conn.execute(sql.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1))
                    conn.execute(f'INSERT OR IGNORE INTO main."{name}" SELECT * FROM {alias}."{name}"')
                conn.commit()
            finally:
                conn.execute(f"DETACH DATABASE {alias}")
        tables = [n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return sum(conn.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0] for n in tables)
