"""Explicit GPU batching and streaming of lazy pillow-gpu graphs (``GpuBatchExecutor``).

See ``docs/executor.md``. Modules: credits (``_credits``), job identity (``_identity``),
metadata snapshots (``_metadata``), jobs (``_job``), submissions and staging arenas
(``_submission``), completion fences (``_fence``), result streams and result/failure items
(``_results``), resident handles (``_resident``), the work queues and the steps that move
jobs through them (``_queues``), the executor on top of them (``_executor``) and its errors
(``_errors``).
"""

from pillow_gpu.executor._errors import (
    BatchDecodeError,
    BatchError,
    BatchLimit,
    BatchUnsupported,
    ExecutionError,
    QueueFull,
    ResultBackpressure,
    StateError,
)
from pillow_gpu.executor._executor import GpuBatchExecutor
from pillow_gpu.executor._identity import MAX_JOB_ID
from pillow_gpu.executor._resident import GpuImage
from pillow_gpu.executor._results import BatchFailure, BatchResult, Results

__all__ = [
    "MAX_JOB_ID",
    "BatchDecodeError",
    "BatchError",
    "BatchFailure",
    "BatchLimit",
    "BatchResult",
    "BatchUnsupported",
    "ExecutionError",
    "GpuBatchExecutor",
    "GpuImage",
    "QueueFull",
    "ResultBackpressure",
    "Results",
    "StateError",
]
