"""Waiting for mapped staging buffers without blocking the whole queue.

wgpu-py has no public non-blocking completion check, so this module relies on two private
parts of ``wgpu.GPUPromise`` (0.31.x): the ``_thread_event`` set by the device's poll thread
and the ``"READ_NOSYNC"`` map mode (which skips the empty submit that ``READ`` inserts).
:func:`check_wgpu_internals` verifies them once per process with a real map, so a future
wgpu that changes them fails loudly at executor start-up instead of misbehaving later.

The map callback is a cffi callback, and wgpu-native often fires it on the main thread (from
inside a later ``queue.submit``); the executor defers SIGINT around ``queue.submit`` for this
reason. A KeyboardInterrupt raised inside the callback by other means is swallowed by cffi
("Exception ignored from cffi callback"). If the callback had already recorded its result,
:meth:`MapFence.wait` completes the wait; if not, the map stays pending and the wait ends with
the documented submission-timeout ``ExecutionError`` (and ``close()`` returns every credit).
It never guesses that a map completed: forging the callback's result on a slow submission made
a later read of an unmapped buffer abort the process.

The callback normally fires from the device's poll thread (or from a later ``queue.submit``).
So that a wait never depends on that thread alone (a stalled or dead poll thread, or a missed
wake-up, would otherwise leave the map pending until the timeout whenever no later submit
comes), a wait that has not resolved after :data:`_SELF_POLL_AFTER_S` also polls the device
itself without blocking (``wgpuDevicePoll(wait=False)``, as the poll thread does first), which
fires the callbacks of completed work in the waiting thread.

Device loss is only logged by wgpu; :func:`device_lost` watches the ``wgpu`` logger for it.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from pillow_gpu.executor._errors import ExecutionError

__all__ = ["MapFence", "check_wgpu_internals", "device_lost"]

_checked = False
_check_lock = threading.Lock()
_POLL_S = 0.05
#: A wait that has not resolved after this long also polls the device itself, every _POLL_S.
_SELF_POLL_AFTER_S = 0.5


class _LossWatch(logging.Handler):
    #: Set (once, never cleared) when wgpu logs the loss: a plain flag, read on every result.
    seen = False

    def emit(self, record: logging.LogRecord) -> None:
        if "device was lost" in record.getMessage().lower():
            _LossWatch.seen = True


def device_lost() -> bool:
    """True once wgpu has logged that the device was lost."""
    return _LossWatch.seen


def _internals_error(observed: str) -> ExecutionError:
    import wgpu  # type: ignore[import-untyped]

    return ExecutionError(
        "the executor relies on private wgpu-py promise internals "
        "(GPUPromise._thread_event and map mode 'READ_NOSYNC') that this wgpu does not have",
        observed=f"wgpu {wgpu.__version__}: {observed}",
        fix="install the pinned wgpu version (pillow-gpu requires wgpu>=0.31.1,<0.32)",
        stage="startup",
    )


def check_wgpu_internals(device: Any) -> None:
    """Map a small buffer once per process and verify the promise internals used here."""
    global _checked  # noqa: PLW0603 - a once-per-process check
    with _check_lock:
        if _checked:
            return
        import wgpu

        buffer = device.create_buffer(
            size=256, usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
        )
        try:
            try:
                promise = buffer.map_async("READ_NOSYNC")
            except (ValueError, KeyError, TypeError) as error:
                raise _internals_error(f"map_async('READ_NOSYNC') raised {error!r}") from error
            event = getattr(promise, "_thread_event", None)
            if not isinstance(event, threading.Event):
                raise _internals_error(f"GPUPromise has no _thread_event ({type(promise)!r})")
            if not event.wait(10.0):
                raise _internals_error("a map of an idle buffer did not resolve in 10 s")
            promise.sync_wait()
            if getattr(promise, "_state", None) != "fulfilled":
                raise _internals_error("GPUPromise has no _state")
            if buffer.map_state != "mapped":
                raise _internals_error(f"map_state is {buffer.map_state!r} after the wait")
            buffer.unmap()
        finally:
            buffer.destroy()
        logging.getLogger("wgpu").addHandler(_LossWatch(level=logging.ERROR))
        _checked = True


class MapFence:
    """The pending map of one staging buffer written by already-submitted copies."""

    __slots__ = ("_device", "_promise", "_started")

    def __init__(self, buffer: Any, device: Any) -> None:
        self._device = device
        self._started = time.monotonic()
        self._promise = buffer.map_async("READ_NOSYNC")

    def _finish_interrupted_callback(self) -> None:
        """Complete the wait when the callback recorded its result but was cut off after."""
        promise = self._promise
        if promise._state != "pending":
            promise._thread_event.set()

    def _poll_device(self) -> None:
        """Poll the device once without blocking; completed maps' callbacks fire here."""
        try:
            self._device._poll(False)
        except Exception as error:
            raise ExecutionError(
                "polling the GPU device failed while a submission was in flight",
                observed=f"{type(error).__name__}: {error}",
                fix="the device is likely lost; create a new executor in a new process",
                stage="execution",
            ) from error

    def _poll_thread_state(self) -> str:
        poller = getattr(self._device, "_poller", None)
        if poller is None:
            return "wgpu's poll thread is gone"
        return "wgpu's poll thread is " + ("alive" if poller.is_alive() else "dead")

    def is_done(self) -> bool:
        """True once the map has resolved (the submission's copies completed)."""
        return bool(self._promise._thread_event.is_set())

    def wait(self, deadline: float, *, jobs: int = 0, timeout: float = 0.0) -> None:
        """Wait until the buffer is mapped or ``deadline`` (``time.monotonic()``) passes.

        ``jobs`` and ``timeout`` (the submission's size and timeout) only word the error.
        """
        event: threading.Event = self._promise._thread_event
        self_poll_at = time.monotonic() + _SELF_POLL_AFTER_S
        polls = 0
        while not event.wait(_POLL_S):
            self._finish_interrupted_callback()
            if not event.is_set() and time.monotonic() >= self_poll_at:
                self._poll_device()
                polls += 1
                self._finish_interrupted_callback()
            if event.is_set():
                break
            if device_lost():
                raise ExecutionError(
                    "the GPU device was lost while work was in flight",
                    observed="wgpu logged 'The WGPU device was lost'",
                    fix="create a new executor in a new process; results were not replayed",
                    stage="execution",
                )
            now = time.monotonic()
            if now > deadline:
                raise ExecutionError(
                    "a GPU submission did not complete within the submission timeout",
                    observed=f"the map of a submission of {jobs} job(s) was still pending "
                    f"{now - self._started:.1f} s after its submit (submission_timeout "
                    f"{timeout:g} s); this wait polled the device itself {polls} time(s); "
                    f"{self._poll_thread_state()}",
                    fix="under heavy CPU contention (a software GPU such as lavapipe shares "
                    "the CPU) raise submission_timeout; otherwise submit smaller graphs",
                    stage="execution",
                )
        try:
            self._promise.sync_wait()
        except Exception as error:
            raise ExecutionError(
                "mapping a staging buffer failed after its submission",
                observed=f"{type(error).__name__}: {error}",
                fix="the device is likely lost; create a new executor",
                stage="execution",
            ) from error
