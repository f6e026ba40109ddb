"""Large memory copies, split across a few threads where that copies faster on this machine.

One thread's ``memmove`` is bound by the cache misses one core keeps in flight. On some hosts
that is a fraction of what several cores move together: the NVIDIA H200 machine's host copied
4 MiB images at roughly 6-9 GB/s per thread (from its benchmark's per-step times), where this
project's 2-core runners copy at about 30. ``ctypes.memmove`` releases the GIL, so chunks
handed to worker threads are copied truly in parallel.

Whether splitting pays is measured on the copies themselves: the first :data:`_TRIALS` copies
of at least :data:`MIN_SPLIT_BYTES` alternate between one thread and :data:`_WAYS` threads,
and the faster per byte (by the median, splitting only when it is at least 20 % faster) is
used from then on. A process that may run on fewer than three CPUs never splits.

A split copy returns only when every chunk is done, even if an exception (KeyboardInterrupt)
arrives meanwhile: the caller may free either buffer as soon as it returns or raises.
"""

from __future__ import annotations

import ctypes
import os
import statistics
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from pillow_gpu._cpus import usable_cpus

__all__ = ["MIN_SPLIT_BYTES", "copy_memory", "split_ways"]

#: Copies smaller than this are one ``memmove`` (handing out chunks costs tens of us).
MIN_SPLIT_BYTES = 1 << 20
#: Threads a split copy uses (the calling thread copies one chunk itself).
_WAYS = 4
#: Copies timed before the choice (alternating one thread and a split).
_TRIALS = 8
#: How much faster per byte a split must be to be chosen.
_MARGIN = 1.2
_PAGE = 4096

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_chosen: int | None = None
_trials: dict[int, list[float]] = {1: [], _WAYS: []}


def split_ways() -> int:
    """Threads a large copy uses now: 1 until the trials chose, or where splitting lost."""
    return _chosen if _chosen is not None else 1


def _reset_after_fork() -> None:
    # A forked child has none of the pool's threads, and the lock may have been held.
    global _pool, _lock  # noqa: PLW0603
    _pool = None
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_reset_after_fork)


def _next_ways() -> int:
    """The thread count for the next large copy (1 or :data:`_WAYS` while trials run)."""
    global _chosen  # noqa: PLW0603 - a once-per-process choice
    if _chosen is not None:
        return _chosen
    if usable_cpus() < 3:
        _chosen = 1
        return 1
    with _lock:
        ones, splits = _trials[1], _trials[_WAYS]
        if len(ones) + len(splits) >= _TRIALS:
            faster = statistics.median(ones) > _MARGIN * statistics.median(splits)
            _chosen = _WAYS if faster else 1
            return _chosen
        return 1 if len(ones) <= len(splits) else _WAYS


def _split(target: int, source: int, nbytes: int, ways: int) -> None:
    global _pool  # noqa: PLW0603 - created on first use
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(ways - 1, thread_name_prefix="pillow-gpu-copy")
    chunk = -(-nbytes // ways // _PAGE) * _PAGE
    futures: list[Future[object]] = [
        _pool.submit(ctypes.memmove, target + start, source + start, min(chunk, nbytes - start))
        for start in range(chunk, nbytes, chunk)
    ]
    interrupted: BaseException | None = None
    try:
        ctypes.memmove(target, source, min(chunk, nbytes))
    except BaseException as error:  # re-raised once every chunk is done
        interrupted = error
    for future in futures:
        while True:
            try:
                future.result()
                break
            except BaseException as error:  # the chunk may still be copying: wait again
                interrupted = interrupted or error
                if future.done():
                    break
    if interrupted is not None:
        raise interrupted


def copy_memory(target: int, source: int, nbytes: int) -> None:
    """Copy ``nbytes`` from address ``source`` to address ``target`` (the ranges must not
    overlap, and the caller keeps both alive during the call)."""
    if nbytes < MIN_SPLIT_BYTES:
        ctypes.memmove(target, source, nbytes)
        return
    ways = _next_ways()
    trial = _chosen is None
    started = time.perf_counter()
    if ways == 1:
        ctypes.memmove(target, source, nbytes)
    else:
        _split(target, source, nbytes, ways)
    if trial:
        per_byte = (time.perf_counter() - started) / nbytes
        with _lock:
            _trials[ways].append(per_byte)
