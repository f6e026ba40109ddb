"""The executor's cumulative counters (no per-job history is kept)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["Counters"]


@dataclass(slots=True, kw_only=True)
class Counters:
    """Running totals since the executor was created."""

    submitted_jobs: int = 0  # jobs admitted (IDs of rejected admissions are not counted)
    submissions: int = 0  # queue.submit calls
    dispatches: int = 0  # compute dispatches recorded
    shader_work: int = 0  # shader-work units recorded (pillow_gpu.gpu._work)
    upload_bytes: int = 0  # host -> device bytes: leaf pixels, tables and parameters
    readback_bytes: int = 0  # terminal bytes copied into delivered CPU results
    largest_submission: int = 0  # most jobs in one queue.submit
    largest_submission_work: int = 0  # most shader-work units in one queue.submit

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return asdict(self)
