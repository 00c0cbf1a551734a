"""Model calls in flight (`--concurrency N`, issue 34): one helper for every stage that calls a model once per
item — answers, G-Eval judgements, the CAQA and SCK LLM judges, BioKaLMA entries.

`in_order(fn, items, concurrency)` yields `(item, result)` thunks in the items' order while up to `concurrency`
calls of `fn` run on threads: a model server answers them in parallel, an in-process `LocalLLM` takes them one
at a time (its lock), so N > 1 pays off with a server. Items are drawn lazily, in the calling thread, only as a
call slot frees up — so work that must stay in that thread (retrieval: the store and the NER model are not shared)
can be done by the iterator itself. Results come back in order, so what a run writes is the sequential run's.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Callable, Generator, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_order(fn: Callable[[T], R], items: Iterable[T],
             concurrency: int = 1) -> Generator[tuple[T, Callable[[], R]], None, None]:
    """`(item, result)` for each item in order, `result()` returning `fn(item)` or raising what it raised.

    With `concurrency` 1 nothing runs ahead: `result()` makes the call. Closing the iterator early (a consumer's
    break, error or Ctrl-C) cancels the calls not started and does not wait for those running.

    >>> [(x, get()) for x, get in in_order(lambda x: x * x, [3, 1, 2], concurrency=2)]
    [(3, 9), (1, 1), (2, 4)]
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if concurrency == 1:
        for item in items:
            yield item, partial(fn, item)
        return
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="model-call")
    in_flight: deque[tuple[T, Future]] = deque()
    finished = False
    try:
        for item in items:
            in_flight.append((item, pool.submit(fn, item)))
            while len(in_flight) >= concurrency or (in_flight and in_flight[0][1].done()):
                first, future = in_flight.popleft()
                yield first, future.result
        while in_flight:
            first, future = in_flight.popleft()
            yield first, future.result
        finished = True
    finally:
        pool.shutdown(wait=finished, cancel_futures=True)

