"""Answer throughput and citation form per citation strategy, with a plain llama.cpp baseline.

    python bench/answer_throughput.py --ingest                       # 30 BioKaLMA questions, SmolLM2, CPU
    python bench/answer_throughput.py --ingest --model qwen2.5-coder-1.5b-q4km --limit 5 --threads 2 \
        --modes constrained,attribute-first --decoding default,no-prefix-reuse,prompt-lookup
    python bench/answer_throughput.py --limit 10 --max-tokens 128 --model PATH.gguf --n-gpu-layers -1
    python bench/answer_throughput.py --store embedded:PATH --model qwen2.5-coder-1.5b-q4km --threads 2 --limit 4 \
        --modes constrained,attribute-first,grounded --decoding default,no-grammar-first --server llama_cpp,kalma

Modes: unconstrained; constrained (the citation grammar: marks must be [NA] or retrieved triples);
every_sentence (the grammar also requires a mark in every sentence); attribute-first (each sentence
starts with its mark, `--cite attribute-first`); posthoc (`--cite posthoc`, needs `--nli`). Decodings:
default (KV cache of the shared prompt prefix reused across questions), no-prefix-reuse (the cache is
dropped before each question), prompt-lookup (drafts copied from the prompt, `--lookup N` tokens),
no-grammar-first (llama-cpp-python's sampler chain filters the whole vocabulary at every constrained token; the default
checks the greedy token first, `kalma_graph.models.grammar_first`).

The same questions are answered with `kalma_graph.pipeline.answer.answer_questions` per mode and
decoding; the bench reports questions/s, seconds per question, prompt and generated tokens, generated
tokens/s, and the share of answers with at least one parsable citation, with a citation of a retrieved
triple, with an `[NA]`, and truncated. The raw baseline is plain llama.cpp on the same model and
threads (a ~500-token prompt, then 128 greedy tokens without grammar): prompt tokens/s and generation
tokens/s; each mode's generated tokens/s is also given as a ratio to it, and its model time as a ratio to the
llama.cpp bound (prompt tokens not in the KV cache / prompt tok/s + generated tokens / generation tok/s, per
call, `ratio_to_llama_bound`; issue 34 asks for at most 1.2). Figures are printed and
appended to bench/results/answer_throughput.jsonl; nothing here is asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kalma_graph.files import append_jsonl
from kalma_graph.models.llm import GenerationParams, load_llm  # noqa: E402
from kalma_graph.models.ner import load_ner  # noqa: E402
from kalma_graph.pipeline.answer import answer_questions, load_questions  # noqa: E402
from sample_store import open_sample_store  # noqa: E402  (bench/sample_store.py)

REPO = Path(__file__).resolve().parents[1]
# mode -> (answer_questions' constrain, cite)
MODES = {
    "unconstrained": (False, "model"),
    "constrained": ("marks", "model"),
    "every_sentence": ("every_sentence", "model"),
    "attribute-first": (False, "attribute-first"),
    "posthoc": (False, "posthoc"),
    "grounded": (False, "grounded"),
}
DECODINGS = ("default", "no-prefix-reuse", "prompt-lookup", "no-grammar-first")


class Measured:
    """The loaded model, with each generation call's prompt tokens, prompt tokens llama.cpp found in its KV cache
    (the common prefix with the previous call's tokens), generated tokens and seconds recorded: what the llama.cpp
    bound of a question is computed from."""

    def __init__(self, llm) -> None:
        self.llm = llm
        self.calls: list[dict] = []

    def __getattr__(self, name):
        return getattr(self.llm, name)

    def _measured(self, call, *args, **kwargs):
        before = list(self.llm._llm._input_ids)  # bench only: llama-cpp-python's record of the cached tokens
        started = time.perf_counter()
        out = call(*args, **kwargs)
        seconds = time.perf_counter() - started
        prompt = list(self.llm._llm._input_ids[: out.prompt_tokens])
        cached = 0
        for a, b in zip(before, prompt):
            if a != b:
                break
            cached += 1
        self.calls.append({"prompt": out.prompt_tokens, "cached": min(cached, max(out.prompt_tokens - 1, 0)),
                           "generated": out.completion_tokens, "seconds": seconds})
        return out

    def chat(self, *args, **kwargs):
        return self._measured(self.llm.chat, *args, **kwargs)

    def complete(self, *args, **kwargs):
        return self._measured(self.llm.complete, *args, **kwargs)


def llama_bound(calls: list[dict], raw: dict) -> dict:
    """Seconds llama.cpp itself would need for these calls: prompt tokens not already in the KV cache at its
    prompt speed, plus generated tokens at its generation speed (both measured by `raw_llama` in the same run)."""
    bound = sum((c["prompt"] - c["cached"]) / raw["prompt_tokens_per_s"]
                + c["generated"] / raw["generation_tokens_per_s"]
                for c in calls)
    spent = sum(c["seconds"] for c in calls)
    return {"calls": len(calls), "prompt_tokens": sum(c["prompt"] for c in calls),
            "cached_prompt_tokens": sum(c["cached"] for c in calls),
            "generated_tokens_counted": sum(c["generated"] for c in calls),
            "model_seconds": round(spent, 3), "llama_bound_seconds": round(bound, 3),
            "ratio_to_llama_bound": round(spent / bound, 3) if bound else None}


def raw_llama(llm, n_prompt: int = 500, n_gen: int = 128) -> dict:
    """Plain llama.cpp on the loaded model, cache dropped first: prompt tokens/s (time to the first
    token) and generation tokens/s (greedy, no grammar, from the first token to the last)."""
    base = llm._llm
    words = ("The knowledge graph lists people, places, dates and works of art with their relations. " * 60)
    tokens = base.tokenize(words.encode("utf-8"), add_bos=True)[:n_prompt]
    base.reset()
    started = time.perf_counter()
    first = None
    generated = 0
    for _ in base.generate(tokens, temp=0.0, reset=True):
        if first is None:
            first = time.perf_counter()
        generated += 1
        if generated > n_gen:
            break
    done = time.perf_counter()
    base.reset()
    return {"prompt_tokens": len(tokens), "prompt_tokens_per_s": round(len(tokens) / (first - started), 2),
            "generated_tokens": generated - 1, "generation_tokens_per_s": round((generated - 1) / (done - first), 2)}


def server_throughput(args, store, ner, questions, params, nli, kind: str = "llama_cpp") -> dict:
    """The same questions through a server on this machine (same GGUF and threads, started here on a loopback port),
    one request at a time and with 2 and 4 in flight: llama-cpp-python's own (`llama_cpp`) or `kalma-graph serve`
    (`kalma`: the in-process decoding, grammar-first and prefix reuse, behind HTTP)."""
    import socket
    import subprocess

    import httpx

    from kalma_graph.models.llm import resolve_model_path
    from kalma_graph.models.server import ServerLLM

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if kind == "kalma":
        command = [sys.executable, "-m", "kalma_graph.cli.main", "serve", "--model",
                   str(resolve_model_path(args.model)), "--port", str(port), "--n-ctx", str(args.n_ctx), "--quiet"]
        command += ["--threads", str(args.threads)] if args.threads else []
    else:
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(resolve_model_path(args.model)), "--host",
                   "127.0.0.1", "--port", str(port), "--n_ctx", str(args.n_ctx)]
        command += ["--n_threads", str(args.threads)] if args.threads else []
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    out: dict = {"server": "kalma-graph serve" if kind == "kalma" else "llama_cpp.server", "concurrency": {}}
    try:
        for _ in range(240):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        llm = ServerLLM(f"http://127.0.0.1:{port}/v1")
        for mode in args.modes.split(","):
            constrain, cite = MODES[mode]
            for concurrency in (1, 2, 4):
                summary = answer_questions(store, llm, ner, questions, variant=args.variant, params=params,
                                           constrain=constrain, cite=cite, nli=nli, concurrency=concurrency)
                n = summary["written"]
                out["concurrency"][f"{mode}/{concurrency}"] = {
                    "answers": n, "failed": len(summary["failed"]), "seconds": summary["seconds"],
                    "seconds_per_question": round(summary["seconds"] / n, 2) if n else None,
                    "questions_per_s": summary["questions_per_s"]}
                print(f"server {kind:9s} {mode:15s} concurrency {concurrency}  {n} answers  "
                      f"{out['concurrency'][f'{mode}/{concurrency}']['seconds_per_question']} s/q")
        llm.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return out


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
        tokens += llm.count_tokens(r.get("raw_answer") or r["answer"])
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
    parser.add_argument("--model", default=None, help="registry name or GGUF path (default: packaged SmolLM2-135M)")
    parser.add_argument("--nli", default=None, help="NLI model for the posthoc mode")
    parser.add_argument("--decoding", default="default", help=f"comma-separated, of {', '.join(DECODINGS)}")
    parser.add_argument("--lookup", type=int, default=10, help="draft tokens for prompt-lookup decoding")
    parser.add_argument("--no-raw", action="store_true", help="skip the plain llama.cpp baseline")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--n-gpu-layers", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--modes", default="unconstrained,constrained,every_sentence")
    parser.add_argument("--server", nargs="?", const="llama_cpp", default=None,
                        help="also answer through servers on this machine at concurrency 1, 2 and 4: comma-separated, "
                             "of llama_cpp (llama-cpp-python's server; the default with a bare --server) and kalma "
                             "(`kalma-graph serve`)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "answer_throughput.jsonl"))
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory() if args.ingest else None
    store = open_sample_store(args.store, tmp.name if tmp else None)
    ner = load_ner()
    nli = None
    if "posthoc" in args.modes.split(","):
        from kalma_graph.models.nli import load_nli

        nli = load_nli(args.nli)
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
        "python": platform.python_version(),
        "machine": platform.machine(),
        "modes": {},
    }
    for decoding in args.decoding.split(","):
        if decoding not in DECODINGS:
            raise SystemExit(f"--decoding takes {', '.join(DECODINGS)}, not {decoding!r}")
        llm = load_llm(args.model, n_ctx=args.n_ctx, n_gpu_layers=args.n_gpu_layers, n_threads=args.threads,
                       reuse_prefix=decoding != "no-prefix-reuse",
                       prompt_lookup=args.lookup if decoding == "prompt-lookup" else 0,
                       grammar_first=decoding != "no-grammar-first")
        row["model"] = llm.header()
        if not args.no_raw and "raw" not in row:
            row["raw"] = raw_llama(llm)
            print(f"raw llama.cpp  prompt {row['raw']['prompt_tokens_per_s']} tok/s  "
                  f"generation {row['raw']['generation_tokens_per_s']} tok/s  ({llm.header()['device']})")
        for mode in args.modes.split(","):
            constrain, cite = MODES[mode]
            cpu0 = time.process_time()
            measured = Measured(llm)
            summary = answer_questions(store, measured, ner, questions, variant=args.variant, params=params,
                                       constrain=constrain, cite=cite, nli=nli)
            cpu_s = time.process_time() - cpu0
            fig = figures(summary["records"], llm)
            gen_tps = round(fig["generated_tokens"] / summary["generation_s"], 2) if summary["generation_s"] else None
            fig.update({
                "decoding": decoding,
                "questions_per_s": summary["questions_per_s"],
                "seconds": summary["seconds"],
                "seconds_per_question": round(summary["seconds"] / fig["answers"], 2) if fig["answers"] else None,
                # CPU seconds of this process per question: less sensitive than wall time to other
                # programs sharing the cores (load average is recorded too).
                "cpu_s_per_question": round(cpu_s / fig["answers"], 3) if fig["answers"] else None,
                "load_average": [round(x, 2) for x in os.getloadavg()],
                "retrieval_s": summary["retrieval_s"],
                "generation_s": summary["generation_s"],
                "generated_tokens_per_s": gen_tps,
                "ratio_to_raw_generation": round(gen_tps / row["raw"]["generation_tokens_per_s"], 3)
                if gen_tps and row.get("raw") else None,
                "failed": summary["failed"],
                **(llama_bound(measured.calls, row["raw"]) if row.get("raw") else {}),
            })
            row["modes"][f"{mode}/{decoding}"] = fig
            print(f"{mode:15s} {decoding:16s} {fig['answers']} answers  {fig['seconds_per_question']} s/q  "
                  f"{fig['cpu_s_per_question']} cpu-s/q  {gen_tps} tok/s (x{fig['ratio_to_raw_generation']} raw)  "
                  f"parsable citation {fig['share_with_parsable_citation']:.0%}  "
                  f"retrieved citation {fig['share_with_retrieved_citation']:.0%}  [NA] {fig['share_with_na']:.0%}  "
                  f"truncated {fig['share_truncated']:.0%}  ratio to the llama.cpp bound "
                  f"{fig.get('ratio_to_llama_bound')}  ({llm.header()['device']})")
        llm.close()
    if args.server:
        row["servers"] = {kind: server_throughput(args, store, ner, questions, params, nli, kind)
                          for kind in args.server.split(",")}
    print(f"appended to {append_jsonl(args.out, [row])}")
    store.close()
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
