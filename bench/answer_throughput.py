"""Answer throughput and citation form, with and without the citation grammar.

    python bench/answer_throughput.py --ingest                       # 30 BioKaLMA questions, SmolLM2, CPU
    python bench/answer_throughput.py --limit 10 --max-tokens 128 --model PATH.gguf --n-gpu-layers -1

For each mode — unconstrained; constrained (the citation grammar: marks must be [NA] or retrieved
triples); every_sentence (the grammar also requires a mark in every sentence) — the same questions
are answered with
`kalma_graph.pipeline.answer.answer_questions` and the bench reports questions/s, generated
tokens/s, and the share of answers with at least one parsable citation (a complete
`[QID, property: value]` the shared parser reads), with at least one citation of a retrieved triple,
with an `[NA]`, and truncated at --max-tokens. Figures are printed and appended to
bench/results/answer_throughput.jsonl; nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.models.llm import GenerationParams, load_llm  # noqa: E402
from kalma_graph.models.ner import load_ner  # noqa: E402
from kalma_graph.pipeline.answer import answer_questions, load_questions  # noqa: E402
from sample_store import open_sample_store  # noqa: E402  (bench/sample_store.py)

REPO = Path(__file__).resolve().parents[1]
MODES = {"unconstrained": False, "constrained": "marks", "every_sentence": "every_sentence"}


def figures(records: list[dict], llm) -> dict:
    n = len(records)
    parsable = correct = with_na = truncated = tokens = citations = 0
    for r in records:
        retrieved = {(t["subject"], t["label"], t["value"]) for t in r["retrieved"]}
        cites = [c for s in r["sentences"] for c in s["citations"]]
        complete = [c for c in cites if c["qid"] and c["prop"] and c["value"]]
        citations += len(cites)
        parsable += bool(complete)
        correct += any((c["qid"], c["prop"], c["value"]) in retrieved for c in complete)
        with_na += any(s["na"] for s in r["sentences"])
        truncated += r["truncated"]
        tokens += llm.count_tokens(r["answer"])
    share = (lambda k: round(k / n, 4) if n else None)  # noqa: E731
    return {
        "answers": n,
        "share_with_parsable_citation": share(parsable),
        "share_with_retrieved_citation": share(correct),
        "share_with_na": share(with_na),
        "share_truncated": share(truncated),
        "citations_per_answer": round(citations / n, 3) if n else None,
        "generated_tokens": tokens,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default=None)
    parser.add_argument("--ingest", action="store_true", help="load the dumps into a throwaway embedded store first")
    parser.add_argument("--questions", default=str(REPO / "dumps/biokalma/simple_question_graph.json.gz"))
    parser.add_argument("--variant", default="general", choices=["general", "specific"])
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--model", default=None, help="GGUF path (default: packaged SmolLM2-135M)")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--n-gpu-layers", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--modes", default="unconstrained,constrained,every_sentence")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "answer_throughput.jsonl"))
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory() if args.ingest else None
    store = open_sample_store(args.store, tmp.name if tmp else None)
    ner = load_ner()
    llm = load_llm(args.model, n_ctx=args.n_ctx, n_gpu_layers=args.n_gpu_layers, n_threads=args.threads)
    questions = load_questions(args.questions)[: args.limit]
    params = GenerationParams(max_tokens=args.max_tokens)
    row = {
        "bench": "answer_throughput",
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "questions": args.questions,
        "limit": args.limit,
        "variant": args.variant,
        "max_tokens": args.max_tokens,
        "threads": args.threads,
        "model": llm.header(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "modes": {},
    }
    for mode in args.modes.split(","):
        cpu0 = time.process_time()
        summary = answer_questions(store, llm, ner, questions, variant=args.variant, params=params,
                                   constrain=MODES[mode])
        cpu_s = time.process_time() - cpu0
        fig = figures(summary["records"], llm)
        fig.update({
            "questions_per_s": summary["questions_per_s"],
            "seconds": summary["seconds"],
            # CPU seconds of this process per question: less sensitive than wall time to other
            # programs sharing the cores (load average is recorded too).
            "cpu_s_per_question": round(cpu_s / fig["answers"], 3) if fig["answers"] else None,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "retrieval_s": summary["retrieval_s"],
            "generation_s": summary["generation_s"],
            "generated_tokens_per_s": round(fig["generated_tokens"] / summary["generation_s"], 2) if summary["generation_s"] else None,
            "failed": summary["failed"],
        })
        row["modes"][mode] = fig
        print(f"{mode:14s} {fig['answers']} answers  {fig['questions_per_s']:.3f} q/s  {fig['cpu_s_per_question']} cpu-s/q  "
              f"{fig['generated_tokens_per_s']} tok/s  parsable citation {fig['share_with_parsable_citation']:.0%}  "
              f"retrieved citation {fig['share_with_retrieved_citation']:.0%}  [NA] {fig['share_with_na']:.0%}  "
              f"truncated {fig['share_truncated']:.0%}  ({llm.header()['device']})")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"appended to {out}")
    llm.close()
    store.close()
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
