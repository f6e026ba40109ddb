"""The device-independent program of one plan: virtual buffers and ordered dispatches.

Kernel lowering functions append to a :class:`Program`; nothing here touches the GPU. Every
dispatch gets its own parameter block (at its own 256-byte-aligned range of the plan's
constants buffer, written once), so no later queued write can change an earlier dispatch's
uniforms. Buffer binding order is: 0 = parameters, then ``bindings`` in order.

Every dispatch also states its shader work (see :mod:`pillow_gpu.gpu._work`): the kernel's
inner-loop iterations per invocation, a required argument of :meth:`Program.dispatch`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._work import INVOCATION_OVERHEAD

__all__ = [
    "CONSTANTS_ALIGNMENT",
    "WORKGROUP",
    "BufferSpec",
    "Dispatch",
    "Program",
    "aligned",
    "parse_specialized",
    "specialized",
]

#: Kernels that record a lookup (``Program.lookups``): their bindings start (source, output).
_LOOKUP_SHADERS = frozenset({"lut", "invert"})

#: Workgroup edge of every 2-D kernel (16 x 16 invocations).
WORKGROUP = 16

#: Offset alignment of each parameter block and table in a plan's constants buffer (WebGPU's
#: default minUniformBufferOffsetAlignment and minStorageBufferOffsetAlignment).
CONSTANTS_ALIGNMENT = 256


def aligned(nbytes: int) -> int:
    """``nbytes`` rounded up to :data:`CONSTANTS_ALIGNMENT` (WebGPU's offset and allocation
    granule: buffer charges, binding offsets, staging ranges)."""
    return -(-nbytes // CONSTANTS_ALIGNMENT) * CONSTANTS_ALIGNMENT


def specialized(shader: str, constants: Mapping[str, int] | None) -> str:
    """The pipeline name of ``shader`` with its WGSL ``override`` constants set.

    Lavapipe runs every branch of a shader, even one every invocation of a dispatch skips, so
    a kernel with variants (a pixel packing, an operation code) takes them as ``override``
    constants: each combination compiles to its own pipeline with the dead branches removed.
    The name, e.g. ``"rank?PACKING=2"``, keys the pipeline, its bind group layout and slots.
    """
    if not constants:
        return shader
    pairs = sorted(constants.items())
    return shader + "?" + "&".join(f"{key}={int(value)}" for key, value in pairs)


def parse_specialized(name: str) -> tuple[str, dict[str, int]]:
    """``(shader, constants)`` of a name made by :func:`specialized`."""
    shader, _, query = name.partition("?")
    pairs = (item.split("=") for item in query.split("&") if item)
    return shader, {key: int(value) for key, value in pairs}


@dataclass(frozen=True, slots=True, kw_only=True)
class BufferSpec:
    """One virtual buffer: a working image, a host table, a parameter block, or a resident.

    A ``"resident"`` buffer is a per-device read-only table (``name``, built once by
    ``build``) that the device keeps for every plan; plans bind it but neither own nor
    charge it (see :meth:`Program.resident`). A ``"pruned"`` buffer was the output of a
    dispatch :meth:`Program.prune` dropped, an ``"aliased"`` one an image that shares another's
    buffer (:mod:`pillow_gpu.gpu._aliasing`): nothing binds either, so no plan creates or
    charges them.
    """

    index: int
    nbytes: int
    role: str  # "image", "table", "params", "resident", "pruned" or "aliased"
    data: bytes | None = None
    name: str = ""
    build: Callable[[], bytes] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Dispatch:
    """One compute dispatch of kernel ``shader`` over ``groups`` workgroups.

    ``work`` is its shader-work estimate: invocations x (overhead + inner-loop units);
    ``pipeline`` names the pipeline it runs (the kernel with its ``override`` constants);
    ``loop_steps`` bounds the loop iterations of one invocation (checked against adapters
    that end long loops early, :attr:`~pillow_gpu.gpu._device.DeviceLimits.max_loop_steps`).
    """

    shader: str
    params: int
    bindings: tuple[int, ...]
    groups: tuple[int, int]
    work: int
    pipeline: str
    loop_steps: int  # loop iterations one invocation runs, all loops together (a bound)


@dataclass(slots=True, kw_only=True)
class Program:
    """The buffers and dispatches a plan records, in execution order."""

    buffers: list[BufferSpec] = field(default_factory=list)
    dispatches: list[Dispatch] = field(default_factory=list)
    #: Output buffer of each per-byte lookup (inversions included) -> (its source buffer, its
    #: (4, 256) table), so a following lookup composes the tables and reads the source, and a
    #: consumer that commutes with an inversion (a rank filter) reads the inversion's source.
    lookups: dict[int, tuple[int, npt.NDArray[np.int64]]] = field(default_factory=dict)
    _constants: tuple[bytes, dict[int, int], tuple[object, ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _totals: tuple[int, int, int] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def changed(self) -> None:
        """Forget the memos (constants, totals): a buffer or dispatch was added or dropped."""
        self._constants = None
        self._totals = None

    def totals(self) -> tuple[int, int, int]:
        """``(work, constant bytes, charged bytes)``, computed once per unchanged program (the
        plans of one cached shape share it, and the executor reads them for every job)."""
        if self._totals is None:
            self._totals = (
                sum(dispatch.work for dispatch in self.dispatches),
                sum(spec.nbytes for spec in self.buffers if spec.role in ("table", "params")),
                sum(
                    aligned(spec.nbytes)
                    for spec in self.buffers
                    # per-device tables are outside every plan's reservation; pruned and
                    # aliased ones are never made
                    if spec.role not in ("resident", "pruned", "aliased")
                ),
            )
        return self._totals

    @property
    def constant_nbytes(self) -> int:
        """Bytes of the parameter blocks and host tables (uploaded once per allocation)."""
        return self.totals()[1]

    @property
    def charged_nbytes(self) -> int:
        """Bytes a plan of this program charges for its buffers, each rounded up to 256."""
        return self.totals()[2]

    def constants(self) -> tuple[bytes, dict[int, int], tuple[object, ...]]:
        """``(blob, offsets, key)``: every parameter block and host table back to back, each
        at a :data:`CONSTANTS_ALIGNMENT`-aligned offset (buffer index -> offset), and the
        program's part of a slot key (:mod:`pillow_gpu.gpu._slots`). Computed once per
        program: the plans of one cached shape share it."""
        if self._constants is None:
            alignment = CONSTANTS_ALIGNMENT
            blob = bytearray()
            offsets: dict[int, int] = {}
            for spec in self.buffers:
                if spec.role in ("params", "table"):
                    offsets[spec.index] = len(blob)
                    blob += (spec.data or b"").ljust(spec.nbytes, b"\0")
                    blob += bytes(-len(blob) % alignment)
            key = (
                tuple((spec.role, spec.nbytes, spec.name) for spec in self.buffers),
                tuple((d.pipeline, d.params, d.bindings) for d in self.dispatches),
            )
            self._constants = (bytes(blob), offsets, key)
        return self._constants

    def _add(self, nbytes: int, role: str, data: bytes | None = None) -> int:
        self.changed()
        index = len(self.buffers)
        self.buffers.append(BufferSpec(index=index, nbytes=max(4, nbytes), role=role, data=data))
        return index

    def image(self, size: tuple[int, int]) -> int:
        """A working image buffer: one little-endian u32 (4 stored bytes) per pixel."""
        return self._add(size[0] * size[1] * 4, "image")

    def words(self, count: int) -> int:
        """A working buffer of ``count`` u32 words (e.g. packed terminal bytes, a sum).

        Like every working buffer it holds zeros when the plan's dispatches start, on each
        run: fresh buffers are zero-initialised by WebGPU and a reused slot is cleared in the
        same submission (``Plan.encode``), so atomic accumulators need no clear dispatch.
        """
        return self._add(count * 4, "image")

    def table(self, values: npt.ArrayLike, dtype: str = "<u4") -> int:
        """A read-only host-built table (u32 by default; ``"<f4"`` for float tables)."""
        data = np.ascontiguousarray(np.asarray(values).astype(dtype)).tobytes()
        return self._add(len(data), "table", data)

    def resident(self, name: str, nbytes: int, build: Callable[[], bytes]) -> int:
        """A per-device resident read-only table ``name`` of ``nbytes`` (``build()``'s bytes).

        The device creates it on first use and keeps it (``SharedDevice.resident``), like its
        pipelines; plans bind it without owning it, so it is outside their reservations.
        """
        index = len(self.buffers)
        spec = BufferSpec(index=index, nbytes=nbytes, role="resident", name=name, build=build)
        self.buffers.append(spec)
        return index

    def dispatch(
        self,
        shader: str,
        *,
        words: tuple[int, ...],
        bindings: tuple[int, ...],
        grid: tuple[int, int],
        invocation_work: int,
        linear: bool = False,
        constants: Mapping[str, int] | None = None,
        loop_steps: int | None = None,
    ) -> None:
        """Record one dispatch; ``words`` are i32 parameters, ``grid`` the threads wanted.

        ``constants`` set the kernel's WGSL ``override`` constants (see :func:`specialized`).

        2-D kernels cover ``grid`` = (width, height) with 16x16 workgroups. ``linear`` kernels
        cover ``grid[0]`` items with 256-wide workgroups laid out on a 2-D grid (x up to 256
        groups), so large images stay within the per-dimension workgroup limit.
        ``invocation_work`` is what one invocation of the kernel does, in shader-work units
        (:mod:`pillow_gpu.gpu._work`): its inner-loop sample steps, 1 for straight-line code.
        ``loop_steps`` bounds the loop iterations of one invocation, all its loops together; it
        defaults to ``invocation_work`` (about one unit per iteration). Kernels whose loops grow
        with their parameters (reduce, resample) state their own; the others loop over at most
        a few thousand steps.
        """
        if isinstance(invocation_work, bool) or not isinstance(invocation_work, int):
            msg = f"invocation_work must be an int; observed {invocation_work!r}"
            raise TypeError(msg)
        if invocation_work < 1:
            msg = f"invocation_work must be at least 1; observed {invocation_work}"
            raise ValueError(msg)
        threads = grid[0] if linear else grid[0] * grid[1]
        if linear:
            groups_total = -(-grid[0] // 256)
            gx = min(groups_total, 256)
            groups = (gx, -(-groups_total // gx))
            words = (*words, gx)
        else:
            groups = (-(-grid[0] // WORKGROUP), -(-grid[1] // WORKGROUP))
        self.changed()
        padded = tuple(words) + (0,) * (-len(words) % 4)
        params = self._add(
            4 * len(padded),
            "params",
            struct.pack(f"<{len(padded)}I", *(w & 0xFFFFFFFF for w in padded)),
        )
        self.dispatches.append(
            Dispatch(
                shader=shader,
                pipeline=specialized(shader, constants),
                params=params,
                bindings=bindings,
                groups=groups,
                work=threads * (INVOCATION_OVERHEAD + invocation_work),
                loop_steps=invocation_work if loop_steps is None else loop_steps,
            )
        )

    def prune(self, keep: int) -> None:
        """Drop lookup dispatches whose output no other dispatch reads and ``keep`` is not.

        A consumer that folded a lookup in (a following lookup composing the tables, a rank
        filter reading an inversion's source) leaves it unread: its dispatch goes, and its
        output image buffer becomes ``"pruned"`` (never created, cleared or charged). Its
        parameter block and table stay in the plan's constants (a few hundred bytes).
        """
        for dst, (src, _) in self.lookups.items():
            if dst == keep:
                continue
            own = [
                d
                for d in self.dispatches
                if d.shader in _LOOKUP_SHADERS and d.bindings[:2] == (src, dst)
            ]
            if not any(dst in d.bindings for d in self.dispatches if d not in own):
                self.dispatches = [d for d in self.dispatches if d not in own]
                spec = self.buffers[dst]
                if spec.role == "image":
                    self.buffers[dst] = BufferSpec(index=dst, nbytes=spec.nbytes, role="pruned")
                self.changed()

    @property
    def work(self) -> int:
        """Shader-work estimate of every dispatch together (:mod:`pillow_gpu.gpu._work`)."""
        return self.totals()[0]

    def bytes_of(self, role: str) -> int:
        """Total bytes of the buffers with ``role``."""
        return sum(spec.nbytes for spec in self.buffers if spec.role == role)

    def image_bytes(self) -> int:
        """Bytes of the working images, each rounded up to 256 (one lane of a stack)."""
        return sum(aligned(spec.nbytes) for spec in self.buffers if spec.role == "image")
