"""One question from a cold start, the way a user tries it, and the same question through a running model server
(issue 46): the time to the first sentence of the answer and to the whole answer, with what the wait is made of.

    python bench/cold_start.py --store embedded:/tmp/copy.lbdb            # 2 cold runs, then 2 through `serve`
    python bench/cold_start.py --store ... --runs 3 --question "Who was Stephen Crane?"

Cold: `kalma-graph answer --question Q` in a new process each run (model, NER and store loaded every time).
Served: `kalma-graph serve --model M` started once (its own load is reported, not counted), then the same command
with `--model http://127.0.0.1:PORT/v1`: the answering process loads NER and the store, the model stays loaded.

Per run it prints, in seconds: the process's start and imports (the wall time less everything below), each load
`answer` reports (`startup_s`: model check, store, NER, model), linking and retrieval, the wait from the question
to the first sentence (`grounded` writes and checks an answer sentence by sentence: the first is what a reader
sees first), generation, citing, and the wall time. Figures go to bench/results/cold_start.jsonl. A store is read
by one process at a time (the embedded store): give one no other process holds. No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KG = str(Path(sys.executable).parent / "kalma-graph")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_run(question: str, store: str, model: str, threads: int, out: Path) -> dict:
    """`answer --question` in a new process: its wall time and the breakdown it records."""
    out.unlink(missing_ok=True)
    command = [KG, "answer", "--question", question, "--store", store, "--model", model, "--out", str(out),
               "--json", "--no-progress", "--no-resume"]
    if not model.startswith("http"):
        command += ["--threads", str(threads)]
    t0 = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"answer failed ({done.returncode}): {done.stderr[-2000:]}")
    summary = json.loads(done.stdout)
    record = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])
    timings = record["timings"]
    startup = summary.get("startup_s") or {}
    answering = timings["retrieval_s"] + timings["generation_s"] + timings["citing_s"]
    before = wall - answering  # the process's start, imports, loads and writing the record
    return {"wall_s": round(wall, 2), "startup_s": startup,
            "process_and_imports_s": round(before - sum(startup.values()), 2),
            "linking_and_retrieval_s": timings["retrieval_s"], "generation_s": timings["generation_s"],
            "citing_s": timings["citing_s"],
            "first_sentence_s": round(before + timings["first_sentence_s"], 2)
            if "first_sentence_s" in timings else None,
            "sentences": len(record.get("sentences") or []), "answer": record["answer"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", required=True, help="a store no other process holds (embedded:PATH or bolt://)")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-q4km")
    parser.add_argument("--question", default="Who was Stephen Crane?")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-serve", action="store_true", help="cold runs only")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "cold_start.jsonl"))
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kalma-cold-") as tmp:
        answers = Path(tmp) / "answers.jsonl"
        for i in range(args.runs):
            rows.append({"path": "cold", "run": i + 1, **one_run(args.question, args.store, args.model, args.threads,
                                                                  answers)})
            print(json.dumps({k: v for k, v in rows[-1].items() if k != "answer"}), flush=True)
        if not args.no_serve:
            port = _free_port()
            t0 = time.perf_counter()
            server = subprocess.Popen([KG, "serve", "--model", args.model, "--threads", str(args.threads),
                                       "--port", str(port)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            try:
                while True:
                    try:
                        urllib.request.urlopen(f"http://127.0.0.1:{port}/props", timeout=2).read()
                        break
                    except OSError:
                        if server.poll() is not None:
                            raise SystemExit("kalma-graph serve stopped before it answered") from None
                        time.sleep(0.5)
                ready = round(time.perf_counter() - t0, 2)
                print(f"serve ready in {ready} s (once, not counted below)", flush=True)
                for i in range(args.runs):
                    row = one_run(args.question, args.store, f"http://127.0.0.1:{port}/v1", args.threads, answers)
                    rows.append({"path": "serve", "run": i + 1, "serve_ready_s": ready, **row})
                    print(json.dumps({k: v for k, v in rows[-1].items() if k != "answer"}), flush=True)
            finally:
                server.terminate()
                server.wait(timeout=30)
    with open(args.out, "a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({**row, "question": args.question, "model": args.model, "store": args.store,
                                     "machine": f"{platform.machine()} {os.cpu_count()} cores",
                                     "date": time.strftime("%Y-%m-%d"), **({"note": args.note} if args.note else {})},
                                    ensure_ascii=False) + "\n")
    print(f"{'path':<6} {'run':>3} {'imports':>8} {'loads':>7} {'retrieve':>9} {'1st sent.':>9} {'whole':>7}")
    for r in rows:
        print(f"{r['path']:<6} {r['run']:>3} {r['process_and_imports_s']:>8} {sum(r['startup_s'].values()):>7.2f} "
              f"{r['linking_and_retrieval_s']:>9} {r['first_sentence_s']!s:>9} {r['wall_s']:>7}")


if __name__ == "__main__":
    main()
