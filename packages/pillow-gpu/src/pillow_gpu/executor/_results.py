"""The result type and the :class:`Results` stream that drives an executor."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from PIL import Image as PILImage

from pillow_gpu.executor._job import Job
from pillow_gpu.executor._resident import GpuImage

if TYPE_CHECKING:
    from pillow_gpu.executor._executor import GpuBatchExecutor

__all__ = ["BatchResult", "Results", "Stream"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchResult:
    """One completed job: its ID, the caller's input key (None for ``submit``) and the image.

    ``image`` is a ``PIL.Image.Image`` for ``output="cpu"`` and a :class:`GpuImage` for
    ``output="gpu"``.
    """

    job_id: int
    input_key: str | int | None
    image: PILImage.Image | GpuImage


class Stream:
    """The state of one ``join()``/``run()`` stream; the executor holds it while it is open.

    The executor references this object, never the :class:`Results` wrapping it, so the
    caller's ``Results`` can be collected (and cancel in ``__del__``) even inside a cycle.
    """

    __slots__ = ("finished", "item", "lookahead", "orphaned", "output", "source")

    def __init__(self, source: Iterator[Any] | None, output: str) -> None:
        #: Input iterator; None once exhausted, failed or for ``join()``.
        self.source = source
        #: A pulled ``(key, image)`` item whose planning was interrupted (planned again).
        self.item: Any = None
        #: A planned input that is waiting for credits (never more than one).
        self.lookahead: Job | None = None
        self.output = output
        self.finished = False
        #: Set when the Results was dropped while the executor was busy: the executor
        #: cancels at its next call instead.
        self.orphaned = False


class Results:
    """An iterator of :class:`BatchResult` in completion order; it owns its executor.

    Iteration pulls inputs lazily (keeping at most one lookahead), submits and completes GPU
    work, and yields one result at a time. Exhausting it releases the executor for another
    stream; closing it, leaving its ``with`` block early, or dropping it unfinished (also
    inside a reference cycle) cancels the executor (the input iterator's own ``close()`` is
    not called).

    Only the thread that drives the executor can close it: ``close()`` while another call is
    driving it (from a second thread, or from the input producer) raises ``StateError`` and
    changes nothing.

    Interrupts: when ``next()`` raises KeyboardInterrupt (or any other ``BaseException`` that
    is not an ``Exception``), the stream stays open and consistent. Calling ``next()`` again
    resumes it: no admitted job is lost or delivered twice, an input whose planning was
    interrupted is planned again, and the input iterator is pulled again (a generator that was
    interrupted inside its own code has ended, which ends the inputs). ``close()`` instead
    cancels every job still undelivered and returns every credit. A result that ``next()`` had
    already handed over when the interrupt was raised on its way out counts as delivered.
    """

    def __init__(self, executor: GpuBatchExecutor, stream: Stream) -> None:
        self._executor = executor
        self._stream = stream

    @property
    def finished(self) -> bool:
        """True once the stream is exhausted, closed or cancelled."""
        return self._stream.finished

    def __iter__(self) -> Results:
        return self

    def __next__(self) -> BatchResult:
        if self._stream.finished:
            raise StopIteration
        return self._executor._advance(self._stream)

    def close(self) -> None:
        """Cancel the executor unless this stream is exhausted (idempotent)."""
        self._executor._close_stream(self._stream)

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
        stream = getattr(self, "_stream", None)
        if stream is not None and not stream.finished:
            self._executor._drop_stream(stream)
