"""Errors of the batch executor: one base, :class:`BatchError`, and a class per ``kind``.

``BatchError`` is a ``RuntimeError`` (as pillow-rs's is), so ``except RuntimeError`` written
for that executor still catches every error of this one.

Every error carries ``job_id``, ``input_key``, ``stage`` and ``kind`` (``None`` identity for
executor-wide errors). Planner errors of a job are re-raised as the matching subclass, which
also derives from the planner's class (``BatchUnsupported`` is an ``errors.Unsupported``).
"""

from __future__ import annotations

from collections.abc import Hashable

from pillow_gpu.errors import DecodeError, DeviceError, GpuError, Limit, Unsupported

__all__ = [
    "BatchDecodeError",
    "BatchError",
    "BatchLimit",
    "BatchUnsupported",
    "ExecutionError",
    "QueueFull",
    "ResultBackpressure",
    "StateError",
    "for_job",
]


class BatchError(GpuError, RuntimeError):
    """Base of every error the batch executor raises itself or attributes to a job."""

    kind = "Batch"


class QueueFull(BatchError):
    """A valid job does not fit beside live work now; drain with ``join()`` and retry."""

    kind = "QueueFull"


class ResultBackpressure(BatchError):
    """Caller-held resident outputs fill the budget; release handles and call ``next()`` again."""

    kind = "ResultBackpressure"


class BatchUnsupported(BatchError, Unsupported):
    """A job's graph has a context the GPU planner has not proven (or invalid metadata)."""

    kind = "Unsupported"


class BatchLimit(BatchError, Limit):
    """A job exceeds a hard cap, a device bound, or the job-ID space."""

    kind = "Limit"


class BatchDecodeError(BatchError, DecodeError):
    """A job's encoded source could not be decoded when its plan was allocated."""

    kind = "Decode"


class StateError(BatchError):
    """The executor is closed, failed, or already driven by another caller."""

    kind = "State"


class ExecutionError(BatchError, DeviceError):
    """GPU execution failed: device loss, a submission timeout, or a failed command."""

    kind = "Execution"


_BY_KIND: dict[type[GpuError], type[BatchError]] = {
    Unsupported: BatchUnsupported,
    Limit: BatchLimit,
    DecodeError: BatchDecodeError,
    DeviceError: ExecutionError,
}


def for_job(error: GpuError, job_id: int | None, input_key: Hashable | None) -> BatchError:
    """Return ``error`` as the matching :class:`BatchError` naming its job."""
    cls: type[BatchError] = BatchError
    for base, batch_cls in _BY_KIND.items():
        if isinstance(error, base):
            cls = batch_cls
            break
    if isinstance(error, BatchError):
        cls = type(error)
    converted = cls(
        error.why,
        observed=error.observed,
        fix=error.fix,
        stage=error.stage,
        job_id=job_id,
        input_key=input_key,
    )
    if cls is BatchError:  # a planner error class this module does not know: keep its kind
        converted.kind = error.kind
    converted.__cause__ = error.__cause__ or error
    return converted
