"""`verify` (and, optionally, `answer`) over a large graph of people, on either store (issue 46, deliverable 2).

    python bench/scale.py --statements 10000000 --stores embedded            # ingest, then verify 10,000 answers
    python bench/scale.py --statements 1000000 --stores embedded,neo4j-import
    python bench/scale.py --statements 1000000 --answer-model qwen2.5-coder-1.5b-q4km --questions 40

A people-shaped Wikidata dump is generated reproducibly (seed 7) in the bundled dumps' shape: persons with a
name, an alias ("J. Surname"), `instance of: human`, sex, dates and places of birth and death, citizenship,
occupations, schools, employers and awards, and kinship (father, mother, spouse, children, siblings) among
themselves; places, occupations, schools, employers and awards are entities of their own with names. About 14
statements per person. It is then ingested (`embedded`: the default store; `neo4j-import`: `kalma-graph neo4j
import` into a throwaway home, the fast path for a dump this size; `neo4j`: the driver, slow at 10M), and
10,000 chatbot-style answers about random persons (three or four sentences each, no citations, a fifth of them
with one value swapped for another person's) are checked as `kalma-graph verify` checks them: the persons found by
their names in the store, the one-hop graph retrieved, every claim judged. Prints and appends to
bench/results/scale.jsonl one line per store: ingest statements/s and the ingesting process's peak resident
memory, then, in a process of its own (as a user runs `verify`), one-hop p50/p95 and verify answers/s with p50/p95
per answer, how many swapped values were caught, and that process's peak resident memory.

With `--answer-model`, `kalma-graph answer`'s path (NER, linking, retrieval, grounded generation, verification)
also runs over `--questions` generated questions on each store: seconds per question p50/p95. No timing here is
asserted anywhere.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import _neo4j_uri, one_hop_latency  # noqa: E402
from kalma_graph.store import open_store  # noqa: E402

GIVEN = ["Anna", "Bruno", "Clara", "David", "Elena", "Felix", "Greta", "Hugo", "Ida", "Jonas", "Karin", "Lukas",
         "Maria", "Nils", "Olga", "Paul", "Rosa", "Stefan", "Tilde", "Viktor", "Wanda", "Xaver", "Yara", "Zeno"]
KINDS = {"place": 2000, "occupation": 300, "school": 800, "employer": 1500, "award": 400, "country": 60}
# values' own syllables (no person's surname is a place's name)
VALUE_SYLLABLES = ["ux", "iv", "oz", "aq", "ek", "ym", "ot", "uv", "ix", "az", "eb", "ug", "oj", "iq", "af", "uz",
                   "ep", "ov", "ik", "ud", "ax", "ey", "ob", "ij", "uk", "ew", "oq", "ib", "ac", "ut"]
VALUE_FORMS = {"place": "{Word}", "occupation": "{word}ist", "school": "{Word} College",
               "employer": "{Word} Company", "award": "{Word} Prize", "country": "{Word}ia"}
FIXED = {5: "human", 6581097: "male", 6581072: "female"}  # Wikidata's own ids, named in the dump
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


SYLLABLES = ["ab", "bel", "cor", "dan", "el", "fer", "gal", "har", "is", "jor", "kel", "lan", "mor", "nor", "ol",
             "per", "quin", "ros", "sel", "tor", "ul", "ven", "wil", "yar", "zan", "brun", "cas", "dor", "em", "fal",
             "gor", "hel", "ing", "jas", "kor", "lin", "mar", "nes", "or", "pel"]


def person_name(i: int) -> str:
    """A distinct name per person: a given name, a middle name and a two-syllable surname (921,600 in all)."""
    g = len(GIVEN)
    surname = SYLLABLES[(i // (g * g)) % 40].capitalize() + SYLLABLES[(i // (g * g * 40)) % 40]
    return f"{GIVEN[i % g]} {GIVEN[(i // g) % g]} {surname}"


def _item(pid: str, qid: int) -> dict:
    return {"mainsnak": {"snaktype": "value", "property": pid, "datavalue": {
        "value": {"entity-type": "item", "numeric-id": qid, "id": f"Q{qid}"}, "type": "wikibase-entityid"}},
        "type": "statement", "rank": "normal"}


def _time(pid: str, year: int, month: int, day: int) -> dict:
    return {"mainsnak": {"snaktype": "value", "property": pid, "datavalue": {
        "value": {"time": f"+{year}-{month:02d}-{day:02d}T00:00:00Z", "precision": 11}, "type": "time"}},
        "type": "statement", "rank": "normal"}


def _entity(qid: int, label: str, claims: dict, alias: str | None = None) -> dict:
    return {"type": "item", "id": f"Q{qid}", "labels": {"en": {"language": "en", "value": label}},
            "aliases": {"en": [{"language": "en", "value": alias}]} if alias else {}, "claims": claims}


class People:
    """The generated graph's layout: value entities first (Q1…), then persons; each person's facts are a pure
    function of its number, so the answers and questions are drawn without reading the dump back."""

    def __init__(self, statements: int, seed: int = 7) -> None:
        self.seed = seed
        self.first_kind: dict[str, int] = {}
        start = 10  # Q5 is `human`; Q1-Q9 are left to the fixed values (`FIXED`)
        for kind, n in KINDS.items():
            self.first_kind[kind] = start
            start += n
        self.first_person = start
        self.persons = min(max(100, statements // 12), len(GIVEN) ** 2 * 40 * 40)

    def value(self, kind: str, rng: random.Random) -> int:
        return self.first_kind[kind] + int(rng.paretovariate(1.1)) % KINDS[kind]

    def value_name(self, qid: int) -> str:
        """A name of the value's kind, of words without digits (a digit reads as a number, not a name)."""
        kind = max((k for k in KINDS if self.first_kind[k] <= qid), key=lambda k: self.first_kind[k])
        k = qid - self.first_kind[kind]
        syllables = VALUE_SYLLABLES
        word = syllables[k % 30] + syllables[(k // 30) % 30] + (syllables[k // 900] if k >= 900 else "")
        return VALUE_FORMS[kind].format(word=word, Word=word.capitalize())

    def person(self, i: int) -> int:
        return self.first_person + i

    def facts(self, i: int) -> dict:
        """Person i's facts: (property, value qid or date) lists, and its kin by person number."""
        rng = random.Random(self.seed * 1_000_003 + i)
        family = i - i % 4  # families of four: two parents (0, 1) and their two children (2, 3)
        role = i % 4
        born = 1700 + (family // 4) % 280 + (25 if role >= 2 else 0)
        f: dict = {"sex": 6581097 if role in (0, 2) else 6581072,
                   "born": (born, rng.randint(1, 12), rng.randint(1, 28)),
                   "died": (born + rng.randint(40, 90), rng.randint(1, 12), rng.randint(1, 28)),
                   "P19": self.value("place", rng), "P20": self.value("place", rng),
                   "P27": self.value("country", rng), "P106": [self.value("occupation", rng)],
                   "P69": self.value("school", rng), "P108": self.value("employer", rng),
                   "P166": self.value("award", rng)}
        if rng.random() < 0.5:
            f["P106"].append(self.value("occupation", rng))
        if role < 2:
            f["P26"] = [family + 1 - role]
            f["P40"] = [family + 2, family + 3] if family + 3 < self.persons else []
        else:
            f["P22"], f["P25"] = [family], [family + 1]
            f["P3373"] = [family + 5 - role] if family + 5 - role < self.persons else []
        return f


def generate(path: Path, people: People) -> int:
    """Write the dump (array form, one entity per line); the number of statements."""
    written = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        out.write("[\n")
        for qid, label in FIXED.items():
            out.write(json.dumps(_entity(qid, label, {})) + ",\n")
        for kind, n in KINDS.items():
            for k in range(n):
                qid = people.first_kind[kind] + k
                out.write(json.dumps(_entity(qid, people.value_name(qid), {})) + ",\n")
        for i in range(people.persons):
            f = people.facts(i)
            claims: dict[str, list] = {"P31": [_item("P31", 5)], "P21": [_item("P21", f["sex"])],
                                       "P569": [_time("P569", *f["born"])], "P570": [_time("P570", *f["died"])]}
            for pid in ("P19", "P20", "P27", "P69", "P108", "P166"):
                claims[pid] = [_item(pid, f[pid])]
            claims["P106"] = [_item("P106", q) for q in f["P106"]]
            for pid in ("P22", "P25", "P26", "P40", "P3373"):
                if f.get(pid):
                    claims[pid] = [_item(pid, people.person(k)) for k in f[pid]]
            written += sum(len(v) for v in claims.values())
            name = person_name(i)
            alias = f"{name[0]}. {name.rsplit(' ', 1)[1]}"
            last = i == people.persons - 1
            out.write(json.dumps(_entity(people.person(i), name, claims, alias)) + ("\n" if last else ",\n"))
        out.write("]\n")
    return written


def chatbot_answer(people: People, i: int, rng: random.Random) -> tuple[str, str, bool]:
    """(question, answer, swapped): three or four sentences about person i as a chatbot writes them, without
    citations; one answer in five has one value swapped for another person's."""
    f = people.facts(i)
    name, he = person_name(i), "He" if f["sex"] == 6581097 else "She"
    other = people.facts(rng.randrange(people.persons))
    swapped = rng.random() < 0.2
    birth_place = other["P19"] if swapped and other["P19"] != f["P19"] else f["P19"]
    y, m, d = f["born"]
    sentences = [f"{name} was born in {people.value_name(birth_place)} on {MONTHS[m - 1]} {d}, {y}.",
                 f"{he} worked as a {people.value_name(f['P106'][0])} for {people.value_name(f['P108'])}.",
                 f"{he} studied at {people.value_name(f['P69'])} and received the {people.value_name(f['P166'])}."]
    if f.get("P22"):
        sentences.append(f"{he.replace('He', 'His').replace('She', 'Her')} father was {person_name(f['P22'][0])}.")
    return f"Who was {name}?", " ".join(sentences), swapped and birth_place != f["P19"]


def verify_rate(store, people: People, answers: int, seed: int = 13) -> dict:
    """`verify`'s path over `answers` generated answers: answers/s, p50/p95 per answer, swapped values caught."""
    from kalma_graph.evaluation.verify import text_input
    from kalma_graph.verification import Verifier

    rng = random.Random(seed)
    verifier = Verifier(store)
    timings, caught, swapped_total, contradicted_false = [], 0, 0, 0
    started = time.perf_counter()
    for n in range(answers):
        question, answer, swapped = chatbot_answer(people, rng.randrange(people.persons), rng)
        t0 = time.perf_counter()
        check = verifier.verify(text_input(answer, question=question, store=store, answer_id=f"a{n}"))
        timings.append((time.perf_counter() - t0) * 1000)
        flagged = any(c.status == "contradicted" for s in check.sentences[:1] for c in s.claims)
        swapped_total += swapped
        caught += swapped and flagged
        contradicted_false += flagged and not swapped
        if n and n % 1000 == 0:
            print(f"  verify: {n}/{answers}", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    timings.sort()
    return {"verify_answers": answers, "verify_answers_per_s": round(answers / seconds, 1),
            "verify_p50_ms": round(statistics.median(timings), 2),
            "verify_p95_ms": round(timings[int(0.95 * len(timings)) - 1], 2),
            "swapped_birthplaces": swapped_total, "swapped_caught": caught,
            "unswapped_flagged": contradicted_false}


def answer_rate(store_uri: str, people: People, questions: int, model: str, tmp: Path, seed: int = 17) -> dict:
    """`kalma-graph answer`'s path over `questions` generated questions (one process, the model loaded once)."""
    from click.testing import CliRunner

    from kalma_graph.cli.main import cli

    rng = random.Random(seed)
    qfile, out = tmp / "questions.jsonl", tmp / "answers.jsonl"
    with qfile.open("w", encoding="utf-8") as f:
        for n in range(questions):
            i = rng.randrange(people.persons)
            f.write(json.dumps({"id": f"q{n}", "question": f"Who were {person_name(i)}'s parents, and where was "
                                                             f"{'he' if i % 4 in (0, 2) else 'she'} born?"}) + "\n")
    result = CliRunner().invoke(cli, ["answer", "--questions", str(qfile), "--store", store_uri, "--model", model,
                                      "--threads", "2", "--out", str(out), "--no-progress"], catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(result.output)
    timings = [json.loads(line).get("timings") or {} for line in out.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    total = sorted(sum(t.get(k, 0.0) for k in ("retrieval_s", "generation_s", "citing_s")) for t in timings if t)
    retrieval = sorted(t.get("retrieval_s", 0.0) for t in timings if t)
    if not total:
        return {}
    return {"answer_questions": len(total), "answer_p50_s": round(statistics.median(total), 2),
            "answer_p95_s": round(total[int(0.95 * len(total)) - 1], 2),
            "answer_retrieval_p50_s": round(statistics.median(retrieval), 3)}


def _ingest(kind: str, dump: Path, tmp: Path, stack: ExitStack) -> tuple[Any, str, dict]:
    """The store `kind` loaded with `dump`: (open store, its URI, ingest figures)."""
    from kalma_graph.ingest import ingest

    tmp.mkdir(parents=True, exist_ok=True)
    if kind == "neo4j-import":
        from kalma_graph.ingest.neo4j_import import import_files
        from kalma_graph.neo4j_server import free_port, stop, throwaway_home

        home = throwaway_home(tmp / "neo4j-import")
        stack.callback(stop, home)
        summary = import_files(home, [dump], start_options={"bolt_port": free_port(), "http_port": free_port(),
                                                              "auth": False})
        store = open_store(summary["store"])
        return store, summary["store"], {"statements": summary["stats"]["statements"],
                                         "ingest_seconds": summary["seconds"]}
    uri = f"embedded:{tmp / 'graph.lbdb'}" if kind == "embedded" else _neo4j_uri(stack)
    store = open_store(uri)
    if kind != "embedded":
        store.clear()
    summary = ingest(store, [dump])
    return store, uri, {"statements": summary["totals"]["statements_created"], "ingest_seconds": summary["seconds"]}


def _peak_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _own_peak_mb() -> int:
    """This process's own peak resident memory since it started its program: `VmHWM` of /proc/self/status. Not
    `ru_maxrss`, which a spawned child inherits from the parent it was forked from (the 8 GB of the load, once)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024)
    return _peak_mb()  # not Linux: the portable figure, an upper bound


def _measure(uri: str, statements: int, answers: int) -> dict:
    """One-hop latency and `verify` over `answers` answers, in the process that runs it (its peak memory)."""
    people = People(statements)
    store = open_store(uri)
    try:
        row = one_hop_latency(store, people.first_person + people.persons - 1)
        row |= verify_rate(store, people, answers)
    finally:
        store.close()
    return row | {"verify_process_peak_rss_mb": _own_peak_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--statements", type=int, default=10_000_000)
    parser.add_argument("--stores", default="embedded", help="embedded, neo4j-import, neo4j (comma-separated)")
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--answer-model", default=None, help="also time `answer` with this model")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--answer-stores", default="embedded", help="the stores `answer` runs on (comma-separated)")
    parser.add_argument("--out", type=Path, default=Path("bench/results/scale.jsonl"))
    args = parser.parse_args()
    people = People(args.statements)
    with tempfile.TemporaryDirectory(prefix="kalma-scale-") as tmp_name:
        tmp = Path(tmp_name)
        dump = tmp / "people.json.gz"
        t0 = time.perf_counter()
        statements = generate(dump, people)
        print(f"generated {statements:,} statements of {people.persons:,} persons in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)
        for kind in args.stores.split(","):
            with ExitStack() as stack:
                store, uri, row = _ingest(kind, dump, tmp / kind, stack)
                store.close()  # the embedded store admits one process: the measuring one opens it
                row["ingest_statements_per_s"] = round(row["statements"] / row["ingest_seconds"])
                row["ingest_peak_rss_mb"] = _peak_mb()
                # `verify` as a user runs it: a process of its own, so its peak memory is its own
                with multiprocessing.get_context("spawn").Pool(1) as pool:
                    row |= pool.apply(_measure, (uri, args.statements, args.answers))
                if args.answer_model and kind in args.answer_stores.split(","):
                    row |= answer_rate(uri, people, args.questions, args.answer_model, tmp / kind)
                row = {"store": kind, "persons": people.persons, **row, "peak_rss_mb": _peak_mb(),
                       "machine": f"{platform.machine()}, {os.cpu_count()} cores",
                       "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                print(json.dumps(row))
                with args.out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
