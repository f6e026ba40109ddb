"""The result type and the :class:`Results` stream that drives an executor."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from PIL import Image as PILImage

from pillow_gpu.executor._errors import BatchError
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._resident import GpuImage

if TYPE_CHECKING:
    from pillow_gpu.executor._executor import GpuBatchExecutor

__all__ = ["BatchResult", "Results"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchResult:
    """One completed job: its ID, the caller's input key (None for ``submit``) and the image.

    ``image`` is a ``PIL.Image.Image`` for ``output="cpu"`` and a :class:`GpuImage` for
    ``output="gpu"``.
    """

    job_id: int
    input_key: str | int | None
    image: PILImage.Image | GpuImage


class Results:
    """An iterator of :class:`BatchResult` in completion order; it owns its executor.

    Iteration pulls inputs lazily (keeping at most one lookahead), submits and completes GPU
    work, and yields one result at a time. Exhausting it releases the executor for another
    stream; closing it, leaving its ``with`` block early, or dropping it unfinished cancels
    the executor (the input iterator's own ``close()`` is not called).
    """

    def __init__(
        self, executor: GpuBatchExecutor, source: Iterator[Any] | None, output: str
    ) -> None:
        self._executor = executor
        #: Input iterator; None once exhausted, failed or for ``join()``.
        self.source = source
        #: A planned input that is waiting for credits (never more than one).
        self.lookahead: Job | None = None
        self.output = output
        self.finished = False

    def __iter__(self) -> Results:
        return self

    def __next__(self) -> BatchResult:
        if self.finished:
            raise StopIteration
        return self._executor._advance(self)

    def close(self) -> None:
        """Cancel the executor unless this stream is exhausted (idempotent)."""
        if not self.finished:
            self.finished = True
            self.lookahead = None
            self._executor._cancel_stream(self)

    def __enter__(self) -> Results:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "finished", True):
            with contextlib.suppress(BatchError):  # e.g. dropped while its executor is busy
                self.close()
