"""Job identity: monotonic unsigned 64-bit job IDs and input-key validation."""

from __future__ import annotations

from pillow_gpu.executor._errors import BatchLimit

__all__ = ["MAX_JOB_ID", "JobIds", "validate_key"]

#: Largest job ID (and largest integer input key): unsigned 64-bit.
MAX_JOB_ID = (1 << 64) - 1


class JobIds:
    """Hands out job IDs 0, 1, 2, ...; running past ``MAX_JOB_ID`` raises instead of wrapping."""

    __slots__ = ("_next",)

    def __init__(self, start: int = 0) -> None:
        self._next = start

    @property
    def next_id(self) -> int:
        """The ID the next admission will receive."""
        return self._next

    def take(self) -> int:
        """Consume and return the next ID."""
        job_id = self._next
        if job_id > MAX_JOB_ID:
            raise BatchLimit(
                "the executor has used every unsigned 64-bit job ID",
                observed=f"next job ID would be {job_id} (> {MAX_JOB_ID})",
                fix="create a new GpuBatchExecutor",
                stage="admission",
            )
        self._next = job_id + 1
        return job_id


def validate_key(key: object) -> str | int:
    """Return ``key`` if it is a ``str`` or an unsigned 64-bit ``int``; raise otherwise.

    ``bool`` (an ``int`` subclass) and every other type raise ``TypeError``; integers outside
    ``0 .. 2**64 - 1`` raise ``ValueError``.
    """
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        msg = (
            "why: input keys must be str or unsigned 64-bit int; "
            f"observed {type(key).__name__} {key!r}; "
            "fix: use a path/name string or an integer index as the key"
        )
        raise TypeError(msg)
    if isinstance(key, int) and not 0 <= key <= MAX_JOB_ID:
        msg = (
            "why: integer input keys must fit an unsigned 64-bit integer; "
            f"observed {key}; fix: use a key in 0 .. 2**64 - 1 or a string"
        )
        raise ValueError(msg)
    return key
