"""The result types and the :class:`Results` stream that drives an executor.

A stream yields :class:`BatchResult` items; with ``errors="deliver"`` it also yields a
:class:`BatchFailure` in the place of each job that failed at admission or decode. Both have
``job_id``, ``input_key`` and ``ok``, so a loop can branch on ``result.ok`` or ``isinstance``.
Both are named tuples of three, as pillow-rs's ``BatchResult`` is, so
``for job_id, key, image in results`` and ``result[2]`` work too.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from PIL import Image as PILImage

from pillow_gpu.executor._errors import BatchError
from pillow_gpu.executor._job import Job
from pillow_gpu.executor._resident import GpuImage

if TYPE_CHECKING:
    from pillow_gpu.executor._executor import GpuBatchExecutor

__all__ = ["ERRORS", "BatchFailure", "BatchResult", "Results", "Stream"]

#: The values of ``run(errors=...)`` and ``join(errors=...)``.
ERRORS = ("raise", "deliver")


class BatchResult(NamedTuple):
    """One completed job: its ID, the caller's input key (None for ``submit``) and the image.

    ``image`` is a ``PIL.Image.Image`` for ``output="cpu"`` and a :class:`GpuImage` for
    ``output="gpu"``. A named tuple ``(job_id, input_key, image)``.
    """

    job_id: int
    input_key: str | int | None
    image: PILImage.Image | GpuImage

    @property
    def ok(self) -> Literal[True]:
        """Always True: the job completed (a :class:`BatchFailure` has ``ok`` False)."""
        return True


class BatchFailure(NamedTuple):
    """One job that failed, delivered in its place by a stream with ``errors="deliver"``.

    ``job_id`` and ``input_key`` name the job as a :class:`BatchResult` would; ``error`` is
    the job's :class:`BatchError` (``BatchUnsupported``, ``BatchLimit`` or
    ``BatchDecodeError``) with its ``why``, ``observed`` and ``fix``; ``raise result.error``
    turns it back into the default mode's exception. It has no ``image``: a named tuple
    ``(job_id, input_key, error)``.
    """

    job_id: int
    input_key: str | int | None
    error: BatchError

    @property
    def ok(self) -> Literal[False]:
        """Always False: the job failed (see ``error``)."""
        return False

    @property
    def kind(self) -> str:
        """The error's ``kind``: ``"Unsupported"``, ``"Limit"`` or ``"Decode"``."""
        return self.error.kind

    @property
    def stage(self) -> str:
        """Where the job failed: ``"admission"``, ``"decode"``, ``"allocation"``, ..."""
        return self.error.stage


def _no_image(self: BatchFailure, name: str) -> Any:
    """``BatchFailure.__getattr__``: a failure's missing ``image`` says why it is missing."""
    if name == "image":
        msg = (
            f"why: job {self.job_id} (input {self.input_key!r}) failed, so it has no "
            f"image; observed: {self.kind} at {self.stage}: {self.error.why}; "
            "fix: check result.ok (or isinstance(result, BatchFailure)) before "
            "using result.image"
        )
        raise AttributeError(msg, name=name, obj=self)
    raise AttributeError(
        f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
    )


# Set after the class is made: a NamedTuple body holds fields and methods only, and type
# checkers would report ``image`` as present if they saw a ``__getattr__``.
setattr(BatchFailure, "__getattr__", _no_image)  # noqa: B010


class Stream:
    """The state of one ``join()``/``run()`` stream; the executor holds it while it is open.

    The executor references this object, never the :class:`Results` wrapping it, so the
    caller's ``Results`` can be collected (and cancel in ``__del__``) even inside a cycle.
    """

    __slots__ = ("errors", "finished", "item", "lookahead", "orphaned", "output", "source")

    def __init__(self, source: Iterator[Any] | None, output: str, errors: str = "raise") -> None:
        #: Input iterator; None once exhausted, failed or for ``join()``.
        self.source = source
        #: A pulled ``(key, image)`` item whose planning was interrupted (planned again).
        self.item: Any = None
        #: A planned input that is waiting for credits (never more than one).
        self.lookahead: Job | None = None
        self.output = output
        #: ``"raise"`` or ``"deliver"`` (job failures become :class:`BatchFailure` items).
        self.errors = errors
        self.finished = False
        #: Set when the Results was dropped while the executor was busy: the executor
        #: cancels at its next call instead.
        self.orphaned = False


class Results[R: BatchResult | BatchFailure]:
    """An iterator of :class:`BatchResult` in completion order; it owns its executor.

    ``R`` is ``BatchResult`` for the default ``errors="raise"`` and
    ``BatchResult | BatchFailure`` for ``errors="deliver"``.

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

    def __iter__(self) -> Results[R]:
        return self

    def __next__(self) -> R:
        if self._stream.finished:
            raise StopIteration
        return self._executor._advance(self._stream)  # type: ignore[return-value]

    def close(self) -> None:
        """Cancel the executor unless this stream is exhausted (idempotent)."""
        self._executor._close_stream(self._stream)

    def __enter__(self) -> Results[R]:
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
