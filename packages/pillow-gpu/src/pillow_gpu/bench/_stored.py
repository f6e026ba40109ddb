"""Pillow's stored bytes, and a batch runner for the direct-wgpu lanes (reference, transfer).

Pillow stores L with one byte per pixel and RGB/RGBA with four (RGB keeps a padding byte). The
reference and transfer lanes move exactly those bytes: no widening of L to one word per pixel.
:class:`SlotBatch` holds ``slots`` jobs' worth of device buffers and one staging buffer; a window
writes every job's inputs, records the lane's dispatches for the whole chunk into one compute
pass, copies each job's result into staging, submits once, maps and copies the bytes out. With
``stacked=True`` each named buffer is one device buffer holding every slot's copy (slot ``k`` at
``k * stride(name)``), so a kernel can take the whole chunk in one dispatch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image as PILImage

__all__ = ["SlotBatch", "from_stored", "padded", "slot_stride", "stored_bytes", "stored_nbytes"]

#: Staging offsets of consecutive jobs are aligned like the planner's (copy alignment).
_ALIGN = 256


def stored_nbytes(mode: str, size: tuple[int, int]) -> int:
    """Bytes Pillow stores for an image of ``mode`` and ``size`` (L: 1 per pixel, else 4)."""
    width, height = size
    return width * height * (1 if mode == "L" else 4)


def stored_bytes(image: PILImage.Image) -> bytes:
    """``image``'s stored bytes: L as is, RGB as RGBX, RGBA as is; other modes are refused."""
    if image.mode in {"L", "RGBA"}:
        return image.tobytes()
    if image.mode == "RGB":
        return image.tobytes("raw", "RGBX")
    msg = f"the direct-wgpu lanes handle L, RGB and RGBA; observed mode {image.mode!r}"
    raise ValueError(msg)


def from_stored(mode: str, size: tuple[int, int], data: bytes) -> PILImage.Image:
    """The image whose stored bytes are ``data`` (the inverse of :func:`stored_bytes`)."""
    if mode == "RGB":
        return PILImage.frombytes("RGB", size, data, "raw", "RGBX")
    return PILImage.frombytes(mode, size, data)


def padded(nbytes: int) -> int:
    """``nbytes`` rounded up to whole u32 words (buffer writes and copies need that)."""
    return -(-nbytes // 4) * 4


def slot_stride(nbytes: int) -> int:
    """Bytes between consecutive jobs' copies of an ``nbytes`` buffer (staging, stacked)."""
    return -(-padded(nbytes) // _ALIGN) * _ALIGN


#: ``record(compute_pass, k)``: the dispatches of the job in slot ``k``; for a stacked batch,
#: of the first ``k`` slots together.
Recorder = Callable[[Any, int], None]


class SlotBatch:
    """Preallocated buffers of ``slots`` jobs plus one staging buffer (see the module doc).

    ``buffers`` names each job's device buffers and their sizes; ``inputs`` lists per job the
    (buffer name, offset) each input's stored bytes go to; ``result`` is the buffer whose first
    ``result_nbytes`` bytes come back. ``stacked``: see the module docstring (``self.buffers``
    then has one entry, and ``strides`` gives each name's per-slot stride in bytes).
    """

    def __init__(
        self,
        *,
        buffers: dict[str, int],
        inputs: Sequence[tuple[str, int]],
        result: str,
        result_nbytes: int,
        batch: int,
        byte_budget: int,
        stacked: bool = False,
    ) -> None:
        import wgpu  # type: ignore[import-untyped]

        from pillow_gpu.gpu._device import get_device

        self.shared = get_device()
        device = self.shared.device
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        per_job = sum(padded(size) for size in buffers.values())
        self.batch = batch
        self.slots = max(1, min(batch, byte_budget // max(1, per_job)))
        self.submits_per_window = -(-batch // self.slots)
        self.stacked = stacked
        self.strides = {name: slot_stride(size) for name, size in buffers.items()}
        if stacked:
            self.buffers: list[dict[str, Any]] = [
                {
                    name: device.create_buffer(size=self.strides[name] * self.slots, usage=usage)
                    for name in buffers
                }
            ]
        else:
            self.buffers = [
                {
                    name: device.create_buffer(size=padded(size), usage=usage)
                    for name, size in buffers.items()
                }
                for _ in range(self.slots)
            ]
        self._inputs = list(inputs)
        self._result = result
        self.result_nbytes = result_nbytes
        self._copy = padded(result_nbytes)
        self._stride = slot_stride(result_nbytes)
        self._staging = device.create_buffer(
            size=self._stride * self.slots,
            usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST,
        )

    def run(
        self, job_inputs: Callable[[int], Sequence[bytes]], record: Recorder | None
    ) -> list[bytes]:
        """Run every job; ``job_inputs(index)`` gives its inputs' (padded) stored bytes."""
        import wgpu

        queue = self.shared.queue
        outputs: list[bytes] = []
        for first in range(0, self.batch, self.slots):
            count = min(self.slots, self.batch - first)
            for slot in range(count):
                data = job_inputs(first + slot)
                for (name, offset), payload in zip(self._inputs, data, strict=True):
                    buffer, start = self._place(slot, name)
                    queue.write_buffer(buffer, start + offset, payload)
            encoder = self.shared.device.create_command_encoder()
            if record is not None:
                compute = encoder.begin_compute_pass()
                for slot in [count] if self.stacked else range(count):
                    record(compute, slot)
                compute.end()
            for slot in range(count):
                buffer, start = self._place(slot, self._result)
                encoder.copy_buffer_to_buffer(
                    buffer, start, self._staging, slot * self._stride, self._copy
                )
            queue.submit([encoder.finish()])
            self._staging.map_sync(wgpu.MapMode.READ)
            try:
                mapped = self._staging.read_mapped(0, self._stride * count, copy=False)
                outputs.extend(
                    bytes(mapped[k * self._stride : k * self._stride + self.result_nbytes])
                    for k in range(count)
                )
            finally:
                self._staging.unmap()
        return outputs

    def _place(self, slot: int, name: str) -> tuple[Any, int]:
        """The device buffer and byte offset of slot ``slot``'s buffer ``name``."""
        if self.stacked:
            return self.buffers[0][name], slot * self.strides[name]
        return self.buffers[slot][name], 0

    def close(self) -> None:
        """Destroy every buffer."""
        for slot in self.buffers:
            for buffer in slot.values():
                buffer.destroy()
        self._staging.destroy()
