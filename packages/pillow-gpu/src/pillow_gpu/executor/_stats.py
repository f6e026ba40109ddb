"""The executor's cumulative counters (no per-job history is kept)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["Counters", "Outcomes"]


@dataclass(slots=True, kw_only=True)
class Counters:
    """Running totals since the executor was created."""

    submitted_jobs: int = 0  # jobs admitted (IDs of rejected admissions are not counted)
    submissions: int = 0  # queue.submit calls
    dispatches: int = 0  # compute dispatches of the jobs' programs
    dispatch_calls: int = 0  # dispatch calls recorded (a stacked one runs several jobs)
    shader_work: int = 0  # shader-work units recorded (pillow_gpu.gpu._work)
    upload_bytes: int = 0  # host -> device bytes: leaf pixels, tables and parameters
    readback_bytes: int = 0  # terminal bytes copied into delivered CPU results
    largest_submission: int = 0  # most jobs in one queue.submit
    largest_submission_work: int = 0  # most shader-work units in one queue.submit

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return asdict(self)


@dataclass(slots=True)
class Outcomes:
    """How admitted jobs ended (private: the interrupt tests check that they add up).

    ``submitted_jobs == delivered + failed + cancelled`` once the executor is closed.
    """

    delivered: int = 0  # results handed out by next()
    failed: int = 0  # job errors (raised by next()/submit(), or discarded by close())
    cancelled: int = 0  # discarded by close() or an executor failure
