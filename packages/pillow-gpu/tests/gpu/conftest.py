"""Fixtures of the GPU parity tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pillow_gpu import GpuBatchExecutor
from pillow_gpu.gpu._device import SharedDevice


@pytest.fixture
def executor(device: SharedDevice) -> Iterator[GpuBatchExecutor]:
    """A batch executor for one test, closed after it with every GPU credit returned."""
    executor = GpuBatchExecutor()
    yield executor
    executor.close()
    assert executor.stats["gpu_bytes"] == 0
