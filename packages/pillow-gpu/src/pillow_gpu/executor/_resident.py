"""Resident outputs: :class:`GpuImage` handles and the lease that owns their reservation.

A lease owns one resident buffer (the terminal bytes), one reserved download workspace
(a mappable staging buffer) and the credits for them plus one CPU pixel copy and the
metadata snapshot. Handles (``copy.copy`` gives a clone) share the lease; when the last
handle is dropped the credits are returned and the buffers go to the device's pool of idle
pairs (:mod:`pillow_gpu.gpu._resident_pool`; destroyed past its bound), even after the
executor was closed. Downloads from clones serialize on the lease's lock. A lease owns its
buffers only once the executor has armed its :class:`LeaseRecord` (in the same step that
records the result): a lease dropped unarmed, because an interrupt landed while it was being
built, leaves the buffers to the job, which builds a new lease on retry.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

from PIL import Image as PILImage

from pillow_gpu._palette_state import PaletteState
from pillow_gpu.executor._credits import ARMED, Credits, LeaseRecord
from pillow_gpu.executor._errors import ExecutionError
from pillow_gpu.executor._fence import MapFence, device_lost
from pillow_gpu.executor._metadata import InfoSnapshot
from pillow_gpu.gpu._device import SharedDevice, forked_device_error
from pillow_gpu.gpu._layout import image_from_terminal
from pillow_gpu.gpu._mapped import read_view

__all__ = ["GpuImage", "ResidentLease"]


def _release(
    resident: Any, workspace: Any, shared: SharedDevice, credits: Credits, record: LeaseRecord
) -> None:
    # Never handed out (the job still owns the buffers), or the device of the process this one
    # was forked from (no GPU call completes here; the buffers are that process's).
    if record.state != ARMED or shared.forked_from is not None:
        credits.give_lease(record)
        return
    pool = shared.resident_pool
    try:
        if workspace.map_state == "mapped":
            workspace.unmap()
        # Idle once its last download returned: kept for the next resident job of its size,
        # unless a download was cut short with its map still pending.
        if workspace.map_state != "unmapped" or not pool.give(resident, workspace):
            resident.destroy()  # never mapped (COPY_SRC | COPY_DST)
            workspace.destroy()
    finally:
        credits.give_lease(record)


class ResidentLease:
    """The GPU and host reservation behind one resident output."""

    __slots__ = (
        "__weakref__",
        "_finalizer",
        "_lock",
        "_resident",
        "_shared",
        "_timeout",
        "_workspace",
        "info",
        "mode",
        "palette",
        "size",
        "terminal_nbytes",
    )

    def __init__(
        self,
        *,
        shared: SharedDevice,
        resident: Any,
        workspace: Any,
        mode: str,
        size: tuple[int, int],
        terminal_nbytes: int,
        info: InfoSnapshot,
        palette: PaletteState | PILImage.Image | None = None,
        credits: Credits,
        record: LeaseRecord,
        timeout: float,
    ) -> None:
        self._shared = shared
        self._resident = resident
        self._workspace = workspace
        self.mode = mode
        self.size = size
        self.terminal_nbytes = terminal_nbytes
        self.info = info
        self.palette = palette
        self._timeout = timeout
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(
            self, _release, resident, workspace, shared, credits, record
        )

    def download(self) -> PILImage.Image:
        """Copy the resident bytes through the reserved workspace into a new PIL image."""
        with self._lock:
            if self._shared.forked_from is not None:
                raise forked_device_error(self._shared, "GpuImage.download()", ExecutionError)
            if device_lost():
                raise ExecutionError(
                    "a resident output needs a healthy device to download",
                    observed="wgpu logged that the device was lost",
                    fix="recompute the image on a new device",
                    stage="download",
                )
            encoder = self._shared.device.create_command_encoder()
            encoder.copy_buffer_to_buffer(
                self._resident, 0, self._workspace, 0, self.terminal_nbytes
            )
            self._shared.queue.submit([encoder.finish()])
            MapFence(self._workspace, self._shared.device).wait(time.monotonic() + self._timeout)
            try:
                view = read_view(self._workspace)
                image = image_from_terminal(self.mode, self.size, view, self.palette)
            finally:
                self._workspace.unmap()
        image.info.update(self.info.copy())
        return image


class GpuImage:
    """An opaque, immutable handle on an executor output that stays in GPU memory.

    It exposes ``mode``, ``size`` and :meth:`download`. It holds GPU and host credits of the
    executor that produced it until the last handle (``copy.copy`` makes clones) is dropped.
    """

    __slots__ = ("_lease",)

    def __init__(self, lease: ResidentLease) -> None:
        self._lease = lease

    @property
    def mode(self) -> str:
        """Pillow mode of the image."""
        return self._lease.mode

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the image."""
        return self._lease.size

    def download(self) -> PILImage.Image:
        """Copy the pixels into a new ``PIL.Image.Image`` (with its own copy of ``info``)."""
        return self._lease.download()

    def __copy__(self) -> GpuImage:
        return GpuImage(self._lease)

    def __deepcopy__(self, memo: dict[int, Any]) -> GpuImage:
        return GpuImage(self._lease)

    def __reduce__(self) -> tuple[Any, ...]:
        msg = (
            "why: a GpuImage is a handle on GPU memory of the process that ran its executor, "
            f"which has no pickled form; observed: {self!r}; fix: pickle image.download(), or "
            "run with output='cpu'"
        )
        raise TypeError(msg)

    def __repr__(self) -> str:
        return f"<pillow_gpu.GpuImage mode={self.mode} size={self.size[0]}x{self.size[1]}>"
