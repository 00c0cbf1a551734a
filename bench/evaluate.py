"""Evaluate throughput: NLI pairs/s and end-to-end `evaluate` time on 1,085 answers.

    python bench/evaluate.py --ingest --nli ../shared/models/nli-minilm-l6-v1
    python bench/evaluate.py --store embedded:PATH --answers fixed_answers.jsonl --device cuda

The answers file is fixed so that runs compare: unless `--answers` is given, the bench writes (once,
to bench/results/evaluate_answers.jsonl.gz, reused afterwards) one answer per BioKaLMA specific
question (all 1,085), made from the question's real retrieval by the answer pipeline's own
`retrieve` (spaCy NER, linking, one-hop graph) without a language model: up to three sentences that
state and cite a retrieved triple, one in five answers with a citation whose value was swapped for
another triple's (an incorrect citation), one in three with an `[NA]` sentence. Seeded, so the file
is the same on every machine with the same dumps. Its text is plain, so the figures measure the
evaluator, not a model.

Reported (printed, appended to bench/results/evaluate.jsonl; nothing is asserted in tests):
- raw NLI throughput on the file's sentence–citation pairs, batch size as given, no cache;
- `evaluate_file` wall time for all answers with NLI (fresh cache) and again with the warm cache,
  and without NLI; answers/s for each; the time split (parse, citation quality, alignment, [NA]).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.evaluation.evaluate import EvaluateOptions, evaluate_file  # noqa: E402
from kalma_graph.files import append_jsonl
from kalma_graph.kg.citations import known_pairs, known_props, parse_answer  # noqa: E402
from kalma_graph.records import AnswerRecord, CitationRecord, SentenceRecord, TripleRecord  # noqa: E402
from kalma_graph.retrieval.retrieve import linked_dict, retrieve  # noqa: E402
from sample_store import open_sample_store  # noqa: E402  (bench/sample_store.py)

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).parent / "results"


def synthetic_answer(index: int, question, found, names: dict[str, str]) -> AnswerRecord:
    """One answer record in the answers-file schema from a question's real retrieval (see module doc)."""
    rng = random.Random(index)
    triples = [t for t in found.triples if t.value and t.subject in names]
    chosen = rng.sample(triples, min(3, len(triples)))
    sentences = []
    for k, t in enumerate(chosen):
        value = t.value
        if k == 0 and index % 5 == 0 and len(triples) > 1:
            value = rng.choice([o.value for o in triples if o.value != t.value] or [t.value])
        sentences.append(f"{names[t.subject]}'s {t.label} is {t.value} [{t.subject}, {t.label}: {value}].")
    if index % 3 == 0 or not sentences:
        sentences.append("Little else is recorded about this. [NA]")
    text = " ".join(sentences)
    parsed = parse_answer(text, known_props(found.entities, found.triples), known_pairs(found.entities, found.triples))
    return AnswerRecord(
        id=question.id,
        question=question.text,
        variant="specific",
        entities=[linked_dict(lm) for lm in found.linked],
        retrieved=[TripleRecord.model_validate(t, from_attributes=True) for t in found.triples],
        removed=[],
        answer=text,
        sentences=[SentenceRecord(text=s.text, clean_text=s.clean_text, na=s.na,
                                  citations=[CitationRecord(qid=c.qid, prop=c.prop, value=c.value, sloppy=c.sloppy)
                                             for c in s.citations]) for s in parsed.sentences],
        model={"model_file": "synthetic (bench/evaluate.py)"},
    )


def write_answers(store, path: Path, questions_file: Path) -> None:
    from kalma_graph.models.ner import load_ner
    from kalma_graph.pipeline.answer import load_questions

    ner = load_ner()
    questions = load_questions(questions_file)
    t0 = time.perf_counter()
    tmp = path.with_name(path.name + ".part")
    with gzip.open(tmp, "wt", encoding="utf-8") as handle:
        for i, q in enumerate(questions):
            found = retrieve(store, q.text, ner)
            names = {e.id: e.name or e.id for e in found.entities}
            handle.write(json.dumps(synthetic_answer(i, q, found, names).to_json_dict(), ensure_ascii=False) + "\n")
    tmp.replace(path)
    print(f"wrote {len(questions)} answers to {path} in {time.perf_counter() - t0:.1f} s (retrieval included)")


def nli_pairs(answers_path: Path) -> tuple[list[str], list[str]]:
    premises, hypotheses = [], []
    with gzip.open(answers_path, "rt", encoding="utf-8") if answers_path.suffix == ".gz" else answers_path.open() as h:
        for line in h:
            for s in json.loads(line)["sentences"]:
                for c in s["citations"]:
                    if c["prop"] and c["value"]:
                        premises.append(s["clean_text"])
                        hypotheses.append(f"{c['prop']}: {c['value']}")
    return premises, hypotheses


def timed_evaluate(answers: Path, out_dir: Path, nli, store) -> dict:
    t0 = time.perf_counter()
    results = evaluate_file(answers, out_dir=out_dir, nli=nli, store=None, plots=False,
                            options=EvaluateOptions())
    seconds = time.perf_counter() - t0
    n = results.header.answers.records
    return {"seconds": round(seconds, 2), "answers": n, "answers_per_s": round(n / seconds, 1),
            "timings": {k: round(v, 2) for k, v in results.timings.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=None, help="store with the Wikidata sample and BioKaLMA records")
    parser.add_argument("--ingest", action="store_true", help="load the dumps into a throwaway embedded store")
    parser.add_argument("--answers", default=None, help="fixed answers file (default: the bench's own, see doc)")
    parser.add_argument("--questions", default=str(REPO / "dumps/biokalma/complex_question_graph.json.gz"))
    parser.add_argument("--nli", default=os.environ.get("KALMA_NLI_MODEL"), help="NLI model path or hub id")
    parser.add_argument("--device", default=None, help="auto | cpu | cuda")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--out", default=str(RESULTS / "evaluate.jsonl"))
    args = parser.parse_args()
    if not args.nli:
        parser.error("--nli (or KALMA_NLI_MODEL) is required: the bench measures NLI throughput")

    from kalma_graph.models.nli import load_nli

    answers = Path(args.answers) if args.answers else RESULTS / "evaluate_answers.jsonl.gz"
    tmp = tempfile.TemporaryDirectory()
    if not answers.exists():
        store = open_sample_store(args.store, tmp.name if args.ingest else None)
        answers.parent.mkdir(parents=True, exist_ok=True)
        write_answers(store, answers, Path(args.questions))
        store.close()

    premises, hypotheses = nli_pairs(answers)
    nli = load_nli(args.nli, device=args.device, cache=None, batch_size=args.batch_size)
    t0 = time.perf_counter()
    nli.entailment_prob(premises, hypotheses)
    raw_s = time.perf_counter() - t0
    row: dict = {
        "bench": "evaluate",
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "answers_file": str(answers),
        "nli": nli.describe(),
        "nli_raw": {"pairs": len(premises), "seconds": round(raw_s, 2), "pairs_per_s": round(len(premises) / raw_s, 1),
                    "batch_size": args.batch_size},
    }
    print(f"NLI raw: {len(premises)} pairs in {raw_s:.1f} s = {len(premises) / raw_s:.1f} pairs/s "
          f"({row['nli']['device']}, batch {args.batch_size})")

    cache_path = Path(tmp.name) / "nli.sqlite"
    for label, model in (("cold_cache", load_nli(args.nli, device=args.device, cache=cache_path,
                                                 batch_size=args.batch_size)),
                         ("warm_cache", load_nli(args.nli, device=args.device, cache=cache_path,
                                                 batch_size=args.batch_size)),
                         ("no_nli", None)):
        fig = timed_evaluate(answers, Path(tmp.name) / label, model, None)
        row[label] = fig
        print(
            f"evaluate {label:10s}: {fig['answers']} answers in {fig['seconds']} s = {fig['answers_per_s']} answers/s  "
            f"{fig['timings']}")
    print(f"appended to {append_jsonl(args.out, [row])}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
