"""Small uploads through pooled staging buffers: one host copy of each byte instead of two.

``queue.write_buffer`` copies its data into a staging buffer that wgpu-core allocates for that
call. A submission's small lanes were therefore joined into one ``bytes`` (a copy) and written
in one call (wgpu's copy and a staging allocation). An :class:`UploadBatch` copies each lane
straight into a buffer mapped for writing (``MAP_WRITE | COPY_SRC``), unmaps it, and records one
buffer-to-buffer copy per run of lanes in a command buffer that goes first in the submission's
``queue.submit``. Right after the submit the staging buffer is mapped again (``map_async``,
which completes once the GPU is done with the submission) and goes back to the device's
:class:`StagingPool`, whose next taker finds it mapped.

Lanes are padded as the join padded them: zeros up to the lane stride between lanes, and the
last lane to whole 4-byte words. Where staging cannot be used (no buffer could be mapped, or
wgpu-py lacks its mapped-range view), the runs are written with ``queue.write_buffer`` as
before, so results never depend on the path.

Measured on the 2-core lavapipe VM (64 lanes of 64 KiB a submission): 12.6 us a lane joined
and written, 8.9 through staging.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from typing import Any

from pillow_gpu.gpu._mapped import write_view

__all__ = ["IDLE_STAGING_BUFFERS", "IDLE_STAGING_BYTES", "StagingPool", "UploadBatch", "write_run"]

#: Most idle staging buffers, and bytes of them, a device keeps for later submissions.
IDLE_STAGING_BUFFERS = 8
IDLE_STAGING_BYTES = 64 << 20
#: Staging sizes are rounded up to a power of two of at least this many bytes, so that
#: submissions of slightly different sizes reuse the same buffers.
_MIN_STAGING_BYTES = 256 << 10

#: (target buffer, lanes' bytes, lane stride, first byte of the run in the staging buffer,
#: bytes its copy covers).
_Run = tuple[Any, Sequence[Any], int, int, int]


def _size_class(nbytes: int) -> int:
    return max(_MIN_STAGING_BYTES, 1 << (nbytes - 1).bit_length())


def _run_nbytes(lanes: Sequence[Any], stride: int) -> int:
    """Bytes a run's copy covers: whole strides, then the last lane in whole words."""
    return (len(lanes) - 1) * stride + -(-len(lanes[-1]) // 4) * 4


class StagingPool:
    """Staging buffers (``MAP_WRITE | COPY_SRC``) waiting for reuse, with the promise of each
    one's mapping (thread-safe)."""

    def __init__(
        self, max_buffers: int = IDLE_STAGING_BUFFERS, max_bytes: int = IDLE_STAGING_BYTES
    ) -> None:
        self.max_buffers = max_buffers
        self.max_bytes = max_bytes
        self._idle: list[tuple[Any, Any]] = []  # (buffer, promise of its mapping or None)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._idle)

    def take(self, device: Any, nbytes: int) -> Any:
        """A staging buffer of ``nbytes`` (a size class) mapped for writing: an idle one whose
        mapping completed, or a new one mapped at creation."""
        with self._lock:
            for index, (buffer, promise) in enumerate(self._idle):
                if int(buffer.size) != nbytes:
                    continue
                if promise is not None and not promise._thread_event.is_set():
                    continue  # its submission is still running
                del self._idle[index]
                break
            else:
                buffer = None
        if buffer is not None:
            try:
                if promise is not None:
                    promise.sync_wait()  # resolved already: sets the buffer's map state
                if buffer.map_state == "mapped":
                    return buffer
            except Exception:  # a failed mapping: that buffer is dropped
                pass
        import wgpu  # type: ignore[import-untyped]

        usage = wgpu.BufferUsage.MAP_WRITE | wgpu.BufferUsage.COPY_SRC
        return device.create_buffer(size=nbytes, usage=usage, mapped_at_creation=True)

    def give(self, buffer: Any) -> None:
        """Map a submitted staging buffer again and keep it; past the pool's bounds the
        longest idle buffers are dropped (wgpu frees each once its last submission is done)."""
        nbytes = int(buffer.size)
        if nbytes > self.max_bytes or self.max_buffers < 1:
            return
        try:
            promise = buffer.map_async("WRITE")
        except Exception:  # called right after queue.submit: never raise there
            return
        with self._lock:
            idle = self._idle
            idle.append((buffer, promise))
            while len(idle) > self.max_buffers or (
                sum(int(held.size) for held, _ in idle) > self.max_bytes
            ):
                idle.pop(0)  # the longest idle first

    def clear(self) -> None:
        """Forget every idle buffer."""
        with self._lock:
            self._idle.clear()


class UploadBatch:
    """One submission's small uploads: recorded by :func:`~pillow_gpu.gpu._stack.allocate_together`,
    copied into one staging buffer by :meth:`stage`, encoded first by :meth:`command_buffers`,
    and the staging buffer handed back by :meth:`submitted` (or :meth:`discard`)."""

    def __init__(self, device: Any, queue: Any, pool: StagingPool) -> None:
        self._device = device
        self._queue = queue
        self._pool = pool
        self._runs: list[_Run] = []
        self._nbytes = 0
        self._staging: Any = None

    def add(self, target: Any, lanes: Sequence[Any], stride: int) -> None:
        """Upload ``lanes`` into ``target``, lane ``j`` at ``j * stride``."""
        nbytes = _run_nbytes(lanes, stride)
        self._runs.append((target, lanes, stride, self._nbytes, nbytes))
        self._nbytes += -(-nbytes // 256) * 256

    def stage(self) -> None:
        """Copy every run into a staging buffer, or, where none can be mapped, write each run
        with ``queue.write_buffer`` (raising what that raises)."""
        if not self._runs:
            return
        if not _can_view():
            self._write_runs()
            return
        try:
            staging = self._pool.take(self._device, _size_class(self._nbytes))
            view = write_view(staging, int(staging.size))  # a size class: few view types
            for _target, lanes, stride, start, _nbytes in self._runs:
                _fill(view, start, lanes, stride)
            del view
            staging.unmap()
        except Exception:  # no staging: the runs go through write_buffer
            self._write_runs()
            return
        self._staging = staging

    def command_buffers(self) -> list[Any]:
        """The command buffer of the staged copies (empty when nothing was staged, or when
        they could not be encoded: then the runs were written with ``queue.write_buffer``)."""
        if self._staging is None:
            return []
        try:
            encoder = self._device.create_command_encoder()
            for target, _lanes, _stride, start, nbytes in self._runs:
                encoder.copy_buffer_to_buffer(self._staging, start, target, 0, nbytes)
            return [encoder.finish()]
        except Exception:  # the runs go through write_buffer instead
            self._staging = None
            self._write_runs()
            return []

    def _write_runs(self) -> None:
        """Write every run with ``queue.write_buffer`` instead (raising what that raises)."""
        runs, self._runs = self._runs, []
        for target, lanes, stride, _start, _nbytes in runs:
            write_run(self._queue, target, lanes, stride)

    def submitted(self) -> None:
        """After ``queue.submit``: the staging buffer goes back to the pool."""
        staging, self._staging = self._staging, None
        self._runs.clear()
        if staging is not None:
            self._pool.give(staging)

    def discard(self) -> None:
        """Never submitted: drop the staging buffer (unmapped; it is not reused)."""
        self._staging = None
        self._runs.clear()


@functools.cache
def _can_view() -> bool:
    """Whether this wgpu-py has the writable mapped-range view :func:`write_view` uses."""
    try:
        from wgpu.backends.wgpu_native import GPUBuffer  # type: ignore[import-untyped]
    except ImportError:
        return False
    return callable(getattr(GPUBuffer, "_experimental_get_mapped_range", None))


def _fill(view: memoryview, start: int, lanes: Sequence[Any], stride: int) -> None:
    """Copy one run's lanes into ``view`` from ``start``, padded as :func:`write_run` pads them."""
    last = len(lanes) - 1
    for lane, data in enumerate(lanes):
        at = start + lane * stride
        size = len(data)
        view[at : at + size] = data
        end = at + (stride if lane < last else -(-size // 4) * 4)
        if end > at + size:
            view[at + size : end] = bytes(end - at - size)


def write_run(queue: Any, target: Any, lanes: Sequence[Any], stride: int) -> None:
    """``lanes`` (each at most ``stride`` bytes) written into ``target`` with one
    ``queue.write_buffer``, joined with zeros up to the lane stride between lanes."""
    if len(lanes) == 1:
        queue.write_buffer(target, 0, lanes[0])
        return
    parts: list[Any] = []
    for lane, data in enumerate(lanes):
        parts.append(data)
        gap = stride - len(data)
        if gap and lane < len(lanes) - 1:
            parts.append(bytes(gap))
    queue.write_buffer(target, 0, b"".join(parts))
