"""Decoding admitted jobs' files on worker threads while earlier jobs are planned and run.

A job's source files are decoded when its submission is allocated, in the thread that drives
the executor; for a batch of photos that decode is most of the work, on one core, while the
GPU waits. :class:`DecodePrefetch` starts the decode of every undecoded file of a job as soon
as the job is admitted (its credits, which count the decoded pixels, are taken then), on a
small pool of threads: Pillow's decoders release the GIL, so files decode on several cores at
once. The decode is the one the launch would run (``_cpu.decode_leaf``: the same ``draft``,
the result cached on the file's node), so the launch finds the pixels and checks them as
before; a decode that fails on a worker is run again by the launch, which reports the error as
it always has. When a launch reaches a job whose decode has not started, it takes the decode
back and runs it itself, so the driving thread never idles behind a busy pool.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for

from pillow_gpu._cpu import decode_leaf
from pillow_gpu._cpus import usable_cpus
from pillow_gpu._graph import Node
from pillow_gpu.executor._job import Job

__all__ = ["DecodePrefetch", "decode_threads"]

#: Most worker threads the default picks (decoders scale with cores; memory is bounded by the
#: host credits, which count each admitted job's decoded pixels).
_DEFAULT_MOST = 8
#: Modes whose files decode at their launch (see :meth:`DecodePrefetch.start`).
_PALETTE_MODES = ("P", "PA")


def decode_threads(value: object, *, cpu_adapter: bool = False) -> int:
    """The worker count ``GpuBatchExecutor(decode_threads=value)`` asks for, checked. None is
    the default: one fewer than the CPUs this process may use, at most 8; none on a CPU adapter
    (lavapipe), whose kernels run on those same cores (2 cores: 0.93-1.00x without workers)."""
    if value is None:
        return 0 if cpu_adapter else _default_threads()
    if isinstance(value, bool) or not isinstance(value, int):
        msg = (
            f"why: decode_threads must be an int or None; observed {type(value).__name__} "
            f"{value!r}; fix: pass a thread count, 0 to decode each file at its submission, "
            "or None for the default"
        )
        raise TypeError(msg)
    if value < 0:
        msg = f"why: decode_threads must be at least 0; observed {value}; fix: pass 0 or more"
        raise ValueError(msg)
    return value


def _default_threads() -> int:
    return max(0, min(_DEFAULT_MOST, usable_cpus() - 1))


def _decode(node: Node) -> None:
    with contextlib.suppress(Exception):  # the launch decodes again and reports the error
        decode_leaf(node)


class DecodePrefetch:
    """Starts admitted jobs' decodes on ``threads`` workers (none: the launch decodes)."""

    def __init__(self, threads: int) -> None:
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None
        # One decode per file node however many jobs share it (a photo and its crops).
        self._started: dict[int, tuple[Node, Future[None]]] = {}

    def start(self, job: Job) -> None:
        """Start decoding ``job``'s undecoded files (at admission)."""
        if not self.threads or job.plan is None:
            return
        # A P or PA file's GPU tables and result palette are planned from its header, and the
        # launch checks the decoded palette against the header only while the file is still
        # undecoded then: those files decode at their launch, as without workers.
        sources = [node for node in job.plan.sources if node.mode not in _PALETTE_MODES]
        if not sources:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="pillow-gpu-decode")
        decoding = []
        for node in sources:
            started = self._started.get(id(node))
            if started is None:
                started = self._started[id(node)] = (node, self._pool.submit(_decode, node))
            decoding.append(started[1])
        job.decoding = decoding

    def settle(self, jobs: Iterable[Job]) -> None:
        """Before ``jobs`` are allocated: wait for their decodes in progress and take back the
        ones not started (the launch then decodes those itself)."""
        for job in jobs:
            decoding = job.decoding
            if not decoding:
                continue
            running = [future for future in decoding if not future.cancel()]
            wait_for(running)
            job.decoding = ()
        self._started = {
            key: started for key, started in self._started.items() if not started[1].done()
        }

    def close(self) -> None:
        """Cancel decodes not started; running ones finish on their own (idempotent)."""
        pool, self._pool = self._pool, None
        self._started = {}
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
