"""Outputs of ``pillow-gpu apply`` written by worker threads while the GPU runs the next files.

Encoding an output is CPU work the GPU cannot help with: Pillow's PNG writer took 3.8 s of a
5.1 s run of 24 photos (thumbnailed to 1024 pixels) on the 2-core lavapipe VM, all of it on
the thread that drives the executor. Pillow's encoders release the GIL, so an
:class:`OutputQueue` hands each write to a pool of ``threads`` workers and lets that thread
go on. Writes are settled (counted, reported, shown on the progress bar) by the calling
thread, in the order they were queued, so the run reports exactly what a run writing one file
after another reports. At most twice ``threads`` writes (so that a worker finds the next one
waiting), and ``max_bytes`` of their results (one at least), wait or run at a time; a full
queue makes the caller settle its oldest write first. ``threads=0`` writes each output in the
calling thread as it is queued.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from pillow_gpu._cpus import usable_cpus

__all__ = ["OutputQueue", "Settle", "write_threads"]

#: Most write threads by default: more rarely pays, and each holds one result.
_DEFAULT_MOST = 8


def write_threads(value: int | None, *, stop_on_error: bool = False) -> int:
    """The write threads ``--write-threads`` asks for: ``value``, or by default as many as the
    CPUs this process may use, at most 8 (the thread driving the GPU mostly waits; on the
    2-core VM one thread only moved the encoding there: 4.2 s against 4.1, two took 3.2 s);
    none with ``--stop-on-error``, so that no output after a failed write is written."""
    if value is not None:
        return value
    if stop_on_error:
        return 0
    return max(1, min(_DEFAULT_MOST, usable_cpus()))


#: What settles one write: called with its finished (or cancelled) future, in the caller.
Settle = Callable[["Future[Any]"], None]


class OutputQueue:
    """Writes run by ``threads`` workers (none: in the caller), settled in queue order."""

    def __init__(self, threads: int, max_bytes: int) -> None:
        self.threads = threads
        self.max_bytes = max_bytes
        self._pool = (
            ThreadPoolExecutor(threads, thread_name_prefix="pillow-gpu-write") if threads else None
        )
        self._queued: deque[tuple[Future[Any], int, Settle]] = deque()
        self._bytes = 0

    def make_room(self, nbytes: int) -> None:
        """Settle the finished writes, and the oldest ones until a write of ``nbytes`` fits."""
        self.settle_finished()
        while self._queued and (
            len(self._queued) >= max(2 * self.threads, 1) or self._bytes + nbytes > self.max_bytes
        ):
            self._settle_oldest()

    def put(
        self, write: Callable[[], Any], nbytes: int, settle: Settle, *, wait: bool = False
    ) -> None:
        """Queue ``write`` (holding ``nbytes`` of results), settled by ``settle``; with
        ``wait``, return only when it and every earlier write are settled. Call
        :meth:`make_room` first (settling may stop the caller's run)."""
        self.make_room(nbytes)
        if self._pool is None:
            settle(_ran(write))
            return
        self._queued.append((self._pool.submit(write), nbytes, settle))
        self._bytes += nbytes
        if wait:
            self.finish()

    def settle_finished(self) -> None:
        """Settle the oldest writes that are done, up to the first still running."""
        while self._queued and self._queued[0][0].done():
            self._settle_oldest()

    def cancel(self) -> None:
        """Cancel the writes not started yet (each is settled as cancelled, in its turn)."""
        for future, _, _ in self._queued:
            future.cancel()

    def finish(self) -> None:
        """Wait for every queued write and settle each, in order."""
        while self._queued:
            self._settle_oldest()

    def close(self) -> None:
        """Stop the workers (after the writes they run); call :meth:`finish` before."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _settle_oldest(self) -> None:
        future, nbytes, settle = self._queued[0]
        if not future.cancelled():
            future.exception()  # waits for it; its outcome is read by ``settle``
        self._queued.popleft()
        self._bytes -= nbytes
        settle(future)


def _ran(write: Callable[[], Any]) -> Future[Any]:
    """The finished future of ``write`` run here."""
    future: Future[Any] = Future()
    try:
        future.set_result(write())
    except BaseException as error:  # an interrupt too: the caller's settle re-raises it
        future.set_exception(error)
    return future
