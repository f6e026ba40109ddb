"""Job identity: monotonic unsigned 64-bit job IDs, run() inputs and input-key validation."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import cast

from pillow_gpu.executor._errors import BatchLimit

__all__ = ["MAX_JOB_ID", "JobIds", "job_pair", "validate_key"]

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


def job_pair(item: object) -> tuple[object, object]:
    """Return one ``run()`` input as its ``(input_key, lazy_image)``; raise TypeError otherwise."""
    if type(item) is tuple and len(item) == 2:  # the common input, returned as it is
        return item
    try:
        key, image = cast("Iterable[object]", item)
    except (TypeError, ValueError):
        msg = (
            "why: run() reads (input_key, lazy_image) pairs; "
            f"observed an input of type {type(item).__name__}; "
            "fix: pass pairs, e.g. executor.run(enumerate(images)) or "
            "executor.run(zip(names, images))"
        )
        raise TypeError(msg) from None
    return key, image


def validate_key(key: object) -> str | int:
    """Return ``key`` as an exact ``str`` or an unsigned 64-bit exact ``int``; raise otherwise.

    One rule for every key: subclasses are normalized to their base value (a ``StrEnum`` member
    comes back as its ``str``, an ``IntEnum`` member as its ``int``), and NumPy integer scalars
    (``numpy.uint64`` included) are accepted as the ``int`` they hold. ``bool`` (also
    ``numpy.bool_``) and every other type raise ``TypeError``; integers outside
    ``0 .. 2**64 - 1`` raise ``ValueError``. The caller's object is never returned.
    """
    if type(key) is int and 0 <= key <= MAX_JOB_ID:  # the common key, returned as it is
        return key
    if isinstance(key, str):
        return str.__str__(key)  # an exact str, whatever the subclass overrides
    if isinstance(key, bool) or not _is_integer(key):
        msg = (
            "why: input keys must be str or unsigned 64-bit int; "
            f"observed {type(key).__name__}; "
            "fix: use a path/name string or an integer index as the key"
        )
        raise TypeError(msg)
    value = int.__index__(key) if isinstance(key, int) else operator.index(key)  # type: ignore[arg-type]
    if not 0 <= value <= MAX_JOB_ID:
        msg = (
            "why: integer input keys must fit an unsigned 64-bit integer; "
            f"observed {value}; fix: use a key in 0 .. 2**64 - 1 or a string"
        )
        raise ValueError(msg)
    return value


def _is_integer(key: object) -> bool:
    if isinstance(key, int):
        return True
    kind = type(key)
    # NumPy integer scalars are not int subclasses; accept them (and only them) by __index__.
    return (
        kind.__module__ == "numpy"
        and kind.__name__.startswith(("int", "uint"))
        and hasattr(kind, "__index__")
    )
