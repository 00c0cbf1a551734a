"""Answers from memory by a local GGUF model: the unverified chatbot answers `kalma-graph verify` is for.

    python bench/closed_book_answers.py --questions QUESTIONS.jsonl --out ANSWERS.jsonl \
        --model qwen2.5-coder-1.5b-q4km --threads 2

No graph, no knowledge, no citations: the system prompt of `kalma_graph/prompts/chatbot/closed_book.json`, then
the question; greedy decoding. Writes one `kalma_graph.records.AnswerRecord` a line (`id`, `question`, `answer`, the
model's file and sha256 under `model`, the prompt and sampling under `params`, `finish_reason`, `truncated`,
`timings`): the labelled sets' `chatbot_answers.jsonl`, which `kalma-graph verify` reads. Re-running with the same
--out resumes: answered ids are skipped, and a file made with another model or prompt is refused.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.files import JsonlAppender, read_jsonl, refuse_other_settings  # noqa: E402
from kalma_graph.models.llm import GenerationParams, load_llm  # noqa: E402
from kalma_graph.prompts import load_prompt  # noqa: E402
from kalma_graph.records import AnswerRecord  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, required=True, help='JSON lines {"id", "question"}')
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-q4km")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=320)
    args = ap.parse_args(argv)

    prompt = load_prompt("chatbot/closed_book")
    questions = read_jsonl(args.questions).records
    llm = load_llm(args.model, n_threads=args.threads, reuse_prefix=True)
    header = llm.header()
    model = {"model_file": header["model_file"], "model_sha256": header["model_sha256"]}
    params = GenerationParams(max_tokens=args.max_tokens, temperature=0.0)
    settings = {"prompt": prompt["name"], "prompt_sha256": prompt["sha256"], "max_tokens": params.max_tokens,
                "temperature": params.temperature}
    with JsonlAppender(args.out) as log:
        if log.records:
            first = log.records[0]
            refuse_other_settings(args.out, {**(first.get("model") or {}), **(first.get("params") or {})},
                                  {**model, **settings}, what="answers", hint="use another --out", error=SystemExit)
        done = {str(r["id"]) for r in log.records}
        todo = [q for q in questions if str(q["id"]) not in done]
        print(f"{len(done)} answered, {len(todo)} to answer with {model['model_file']}", file=sys.stderr)
        for n, q in enumerate(todo, 1):
            start = time.perf_counter()
            messages = [{"role": "system", "content": prompt["system"]},
                        {"role": "user", "content": prompt["user_template"].format(question=q["question"])}]
            out = llm.chat(messages, params)
            seconds = round(time.perf_counter() - start, 2)
            record = AnswerRecord(id=q["id"], question=q["question"], answer=out.text.strip(), model=model,
                                  params=settings, finish_reason=out.finish_reason, truncated=out.truncated,
                                  timings={"seconds": seconds})
            log.append(record.to_json_dict())
            print(f"[{n}/{len(todo)}] {q['id']} {seconds} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
