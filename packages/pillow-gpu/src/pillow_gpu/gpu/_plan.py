"""A planned graph: its reservations, and the steps that run it on the shared device.

See :mod:`pillow_gpu.gpu._planner` for the life cycle (plan, allocate, encode, build, release).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import _cpu
from pillow_gpu._graph import Node
from pillow_gpu.errors import DecodeError, DeviceError
from pillow_gpu.gpu._device import SharedDevice, get_device
from pillow_gpu.gpu._layout import image_from_terminal, to_words
from pillow_gpu.gpu._program import Program

__all__ = ["STAGING_ALIGNMENT", "Plan", "Upload"]

#: Terminal copies land at staging offsets that are multiples of this.
STAGING_ALIGNMENT = 256


@dataclass(frozen=True, slots=True, kw_only=True)
class Upload:
    """A leaf whose host pixels are written into working buffer ``buffer``."""

    buffer: int
    node: Node


class Plan:
    """Native GPU work for one graph. Planning touches neither the device nor any decoder."""

    def __init__(
        self,
        *,
        root: Node,
        program: Program,
        uploads: tuple[Upload, ...],
        terminal: int,
        terminal_nbytes: int,
        host_bytes: int,
    ) -> None:
        self.root = root
        self.program = program
        self.uploads = uploads
        self.terminal = terminal
        self.terminal_nbytes = terminal_nbytes
        #: Conservative host reservation: decode/upload temporaries, encoded bytes, metadata,
        #: the staging copy and the output CPU pixels.
        self.host_bytes = host_bytes
        self._buffers: list[Any] | None = None
        self._bind_groups: list[Any] = []
        self._device: SharedDevice | None = None

    # -- reservations (no device needed) ------------------------------------------------------
    @property
    def mode(self) -> str:
        """Mode of the output image."""
        return self.root.mode

    @property
    def size(self) -> tuple[int, int]:
        """Size of the output image."""
        return self.root.size

    @property
    def output_nbytes(self) -> int:
        """Length of the output's ``tobytes()``."""
        return self.size[0] * self.size[1] * PILImage.getmodebands(self.mode)

    @property
    def staging_nbytes(self) -> int:
        """Staging bytes this plan's terminal copy needs, rounded up to 256."""
        return -(-self.terminal_nbytes // STAGING_ALIGNMENT) * STAGING_ALIGNMENT

    @property
    def gpu_bytes(self) -> int:
        """Conservative GPU reservation: working buffers, uploads, tables, parameters, staging.

        Every buffer is charged rounded up to 256 bytes (allocation granularity).
        """
        granule = STAGING_ALIGNMENT
        buffers = sum(-(-spec.nbytes // granule) * granule for spec in self.program.buffers)
        return buffers + self.staging_nbytes

    @property
    def sources(self) -> tuple[Node, ...]:
        """Leaves that still need decoding (encoded files not yet completed)."""
        return tuple(
            upload.node
            for upload in self.uploads
            if upload.node.op == "open" and upload.node.cache.get() is None
        )

    @property
    def dispatch_count(self) -> int:
        """Number of compute dispatches (kernels) the plan records."""
        return len(self.program.dispatches)

    # -- device steps ----------------------------------------------------------------------------
    def allocate(self, device: SharedDevice | None = None) -> None:
        """Decode sources, create every buffer and bind group, and queue the uploads."""
        if self._buffers is not None:
            raise DeviceError(
                "a plan can be allocated once",
                observed="allocate() called on an allocated plan",
                fix="plan the graph again for a second run",
                stage="allocation",
            )
        import wgpu  # type: ignore[import-untyped]

        shared = device or get_device()
        gpu = shared.device
        pixels = {upload.buffer: _host_pixels(upload.node) for upload in self.uploads}
        buffers: list[Any] = []
        storage = wgpu.BufferUsage.STORAGE
        for spec in self.program.buffers:
            if spec.role == "params":
                usage = wgpu.BufferUsage.UNIFORM
                buffers.append(gpu.create_buffer_with_data(data=spec.data, usage=usage))
            elif spec.role == "table":
                buffers.append(gpu.create_buffer_with_data(data=spec.data, usage=storage))
            else:
                usage = storage | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
                buffers.append(gpu.create_buffer(size=spec.nbytes, usage=usage))
        shared.buffers_created += len(buffers)
        for index, words in pixels.items():
            shared.queue.write_buffer(buffers[index], 0, words)
        bind_groups = []
        for dispatch in self.program.dispatches:
            layout = shared.pipeline(dispatch.shader).get_bind_group_layout(0)
            entries = [
                {"binding": slot, "resource": {"buffer": buffers[index]}}
                for slot, index in enumerate((dispatch.params, *dispatch.bindings))
            ]
            bind_groups.append(gpu.create_bind_group(layout=layout, entries=entries))
        self._device = shared
        self._buffers = buffers
        self._bind_groups = bind_groups

    def encode(self, encoder: Any, staging: Any, offset: int) -> None:
        """Record every dispatch and the terminal copy into ``staging`` at ``offset``."""
        if self._buffers is None or self._device is None:
            raise DeviceError(
                "encode() needs allocated buffers",
                observed="encode() before allocate()",
                fix="call plan.allocate() first",
                stage="encode",
            )
        if offset % STAGING_ALIGNMENT:
            msg = f"encode() needs a staging offset that is a multiple of 256; observed {offset}"
            raise ValueError(msg)
        if self.program.dispatches:
            compute = encoder.begin_compute_pass()
            for dispatch, group in zip(self.program.dispatches, self._bind_groups, strict=True):
                compute.set_pipeline(self._device.pipeline(dispatch.shader))
                compute.set_bind_group(0, group)
                compute.dispatch_workgroups(dispatch.groups[0], dispatch.groups[1], 1)
            compute.end()
        encoder.copy_buffer_to_buffer(
            self._buffers[self.terminal], 0, staging, offset, self.terminal_nbytes
        )

    def build(self, mapped: memoryview | bytes) -> PILImage.Image:
        """Build the output ``PIL.Image.Image`` from this plan's terminal bytes (copied)."""
        image = image_from_terminal(self.mode, self.size, mapped)
        image.info.update(self.root.info)
        return image

    def release(self) -> None:
        """Destroy this plan's buffers (idempotent)."""
        for buffer in self._buffers or ():
            buffer.destroy()
        self._buffers = []
        self._bind_groups = []


def _host_pixels(node: Node) -> bytes:
    try:
        image = node.cache.get() or _cpu.decode_leaf(node)
    except (OSError, ValueError, SyntaxError) as error:  # Pillow's decoder failures
        raise DecodeError(
            "a source could not be decoded",
            observed=f"{type(error).__name__}: {error}",
            fix="check the file; it was readable when Image.open() read its header",
            stage="decode",
        ) from error
    if image.mode != node.mode or image.size != node.size:
        raise DecodeError(
            "a decoded source does not match the header it was planned from",
            observed=f"{image.mode} {image.size} instead of {node.mode} {node.size}",
            fix="do not change files between Image.open() and evaluation",
            stage="decode",
        )
    return to_words(image).tobytes()
