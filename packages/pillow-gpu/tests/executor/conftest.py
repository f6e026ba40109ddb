"""Executor fixtures: executors that must return every credit to zero after each test."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pillow_gpu import GpuBatchExecutor

ZERO_KEYS = ("gpu_bytes", "host_bytes", "live_jobs", "in_flight")


def credits_now(executor: GpuBatchExecutor) -> dict[str, int]:
    """The live credit counters of ``executor``."""
    return {key: executor.stats[key] for key in ZERO_KEYS}


@pytest.fixture
def make_executor(device: Any) -> Iterator[Callable[..., GpuBatchExecutor]]:
    """Create executors; after the test each is closed and must hold zero credits."""
    created: list[GpuBatchExecutor] = []

    def factory(**kwargs: Any) -> GpuBatchExecutor:
        executor = GpuBatchExecutor(**kwargs)
        created.append(executor)
        return executor

    yield factory
    gc.collect()  # drop any GpuImage handles the test left in cycles
    for executor in created:
        if executor._failed is None:
            executor.close()
        assert credits_now(executor) == dict.fromkeys(ZERO_KEYS, 0)
