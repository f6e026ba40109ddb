"""The Pillow baselines: sequential Pillow, and Pillow spread over all CPU cores.

The multi-core baseline is what a user would otherwise do: a ``multiprocessing`` pool (spawned
once per benchmark run) whose workers rebuild the same deterministic sources, run the chain and
produce the output's bytes in the worker. Only a small digest comes back, so the baseline does
not pay for shipping pixels between processes (a conservative choice for the GPU lanes).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image as PILImage

from pillow_gpu.bench._workloads import WORKLOADS, Workload, job_sources, make_sources

__all__ = ["CorePool", "sequential_window"]


def sequential_window(
    workload: Workload, mode: str, sources: Sequence[PILImage.Image], batch: int
) -> Callable[[], int]:
    """A window that runs ``batch`` jobs one after another with Pillow."""

    def window() -> int:
        for index in range(batch):
            workload.pillow(mode, job_sources(workload, sources, index)).tobytes()
        return batch

    return window


@lru_cache(maxsize=1)
def _worker_sources(mode: str, edge: int, count: int, seed: int) -> list[PILImage.Image]:
    return make_sources(mode, edge, count, seed)


def _pool_job(task: tuple[str, str, int, int, int, int, bool]) -> str:
    name, mode, edge, count, seed, index, digest = task
    workload = WORKLOADS[name]
    sources = _worker_sources(mode, edge, count, seed)
    data = workload.pillow(mode, job_sources(workload, sources, index)).tobytes()
    return hashlib.sha256(data).hexdigest() if digest else str(len(data))


class CorePool:
    """A spawned process pool with one worker per CPU core (created once, closed by ``close``)."""

    def __init__(self, processes: int | None = None) -> None:
        self.processes = processes or os.cpu_count() or 1
        context = multiprocessing.get_context("spawn")
        self._pool: Any = context.Pool(self.processes)

    def run(
        self,
        workload: Workload,
        mode: str,
        case: tuple[int, int, int],
        batch: int,
        *,
        digest: bool = False,
    ) -> list[str]:
        """Run ``batch`` jobs over the pool; ``case`` is (edge, source count, seed)."""
        edge, count, seed = case
        tasks = [(workload.name, mode, edge, count, seed, i, digest) for i in range(batch)]
        chunks = max(1, batch // (4 * self.processes))
        result: list[str] = self._pool.map(_pool_job, tasks, chunksize=chunks)
        return result

    def window(
        self, workload: Workload, mode: str, case: tuple[int, int, int], batch: int
    ) -> Callable[[], int]:
        """A timed window: ``batch`` jobs spread over every worker."""
        return lambda: len(self.run(workload, mode, case, batch))

    def close(self) -> None:
        """Stop the workers."""
        self._pool.close()
        self._pool.join()

    def __enter__(self) -> CorePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
