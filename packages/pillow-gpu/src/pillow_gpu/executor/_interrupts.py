"""Keeping the executor's books whole when KeyboardInterrupt (or any BaseException) lands.

CPython raises a signal handler's exception (``KeyboardInterrupt`` for SIGINT) only in the
main thread and only at its check points: a function's entry, a backward jump, and right after
a call returns. Plain attribute stores and the C code of one call therefore run as a unit. The
executor uses two tools on top of that:

- Per-job state changes (admission, delivery) are ordered so that an interrupt leaves the job
  where a retry finds it: the stores that move a job come last, in one run without check
  points, and a retry skips the steps already done (``Job.charged``, ``Job.credited``,
  ``Job.result``).
- Per-submission bookkeeping (grouping, settling a launch, retiring a completed submission)
  runs inside :class:`deferred_sigint`, which holds a SIGINT that arrives meanwhile and
  re-raises it at the end. It calls ``_signal``, the C module under ``signal`` (without its
  enum conversions a block costs about 1.5 us against 10), and is still never used per job.
  Long waits and decodes are never wrapped: Ctrl-C interrupts them at once.

Whatever still slips through (an exception raised by another signal's handler at an unlucky
point), :meth:`Credits.settle` at ``close()`` returns every credit that no live resident
handle holds.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # signal's C module, untyped
import signal
import threading
from types import FrameType, TracebackType

__all__ = ["deferred_sigint"]

_MAIN = threading.main_thread()
_SIGINT = int(signal.SIGINT)


class _Hold:
    """A SIGINT handler that only records that the signal arrived."""

    __slots__ = ("caught",)

    def __init__(self) -> None:
        self.caught = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.caught = True


class deferred_sigint:
    """Hold SIGINT for the duration of a short block, then deliver it to the real handler.

    A no-op outside the main thread (signals are handled only there), inside another
    ``deferred_sigint`` block, and when the SIGINT handler was not installed from Python.
    """

    __slots__ = ("_hold", "_previous")

    def __enter__(self) -> deferred_sigint:
        self._previous: object = None
        if threading.current_thread() is not _MAIN:
            return self
        previous = _signal.getsignal(_SIGINT)
        if previous is None or isinstance(previous, _Hold):
            return self
        self._hold = _Hold()
        self._previous = _signal.signal(_SIGINT, self._hold)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        previous = self._previous
        if previous is None:
            return
        self._previous = None
        _signal.signal(_SIGINT, previous)
        if self._hold.caught:
            signal.raise_signal(signal.SIGINT)  # the real handler runs now
