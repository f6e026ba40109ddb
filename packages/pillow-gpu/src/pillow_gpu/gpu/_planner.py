"""Graph -> :class:`Plan`: admission against the route table and device limits, then lowering.

Plan API (the batch executor builds on it)::

    plan = plan_graph(image)          # admission + lowering; no device, no decode
    plan.gpu_bytes, plan.host_bytes   # conservative reservations (the spec's credit table)
    plan.mode, plan.size, plan.output_nbytes, plan.staging_nbytes, plan.sources
    plan.dispatch_count, plan.shader_work   # submission bounds (see gpu._work)
    plan.allocate(device)             # decode sources, create buffers, queue uploads
    plan.encode(encoder, staging, offset)   # dispatches + terminal copy; offset % 256 == 0
    image = plan.build(mapped[offset:offset + plan.terminal_nbytes])   # copies the bytes
    plan.release()                    # give the buffers back to the pool (idempotent)

Reservations: ``gpu_bytes`` charges every working image buffer (one u32 per pixel per node,
uploads included, plus the packed upload buffer an L/LA/P/1/I;16* leaf is widened from), host
tables (LUTs, index and coefficient tables), one parameter block per dispatch (each rounded up
to 256 bytes) and the terminal staging range. ``host_bytes`` charges per source its decode
temporary, upload bytes (``Upload.nbytes``: Pillow's stored bytes) and encoded bytes, plus the
terminal copy, the output CPU pixels (4 bytes per pixel) and the metadata (measured as the
executor's snapshot measures it, running no code of the caller's ``info`` values). Pass
``limits=device.limits`` to check the device's binding/buffer/workgroup limits too. The
staging buffer passed to ``encode`` needs ``MAP_READ | COPY_DST`` usage and at least
``offset + staging_nbytes`` bytes.
``allocate`` raises ``DecodeError`` (kind ``"Decode"``) when a source fails to decode.

``plan_graph`` walks the graph inputs-first and checks every node's (operation, mode,
parameters) against the route table (:mod:`pillow_gpu.gpu.lowering`) and the device limits
before anything is decoded or allocated; an unproven context or one whose total shader work
exceeds the per-submission bound (:mod:`pillow_gpu.gpu._work`) raises
:class:`~pillow_gpu.errors.Unsupported` and a size or device bound raises
:class:`~pillow_gpu.errors.Limit` (stage ``"admission"``). Completed (cached) nodes are
uploaded as leaves; their inputs are not replayed. ``Image.new`` leaves are filled on the
device. Each node gets its own buffers and each dispatch its own parameters.
"""

from __future__ import annotations

from math import isqrt
from typing import Any

from pillow_gpu._empty import is_empty
from pillow_gpu._graph import Node, load_failure, undecoded_file, walk
from pillow_gpu.errors import Limit
from pillow_gpu.gpu._aliasing import alias
from pillow_gpu.gpu._device import DeviceLimits
from pillow_gpu.gpu._layout import (
    INDEXED_MODES,
    LIMITED_MODES,
    NATIVE_MODES,
    PACKED_UPLOADS,
    PALETTE_ALPHA_MODES,
    WIDE_MODES,
    ink,
    terminal_nbytes,
    upload_nbytes,
)
from pillow_gpu.gpu._packed_l import (
    grid,
    lower_into_packed,
    lower_packed,
    lower_widened,
    writes_packed,
)
from pillow_gpu.gpu._plan import Plan, Upload, record_terminal, record_upload, undecodable
from pillow_gpu.gpu._program import WORKGROUP, Program
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK, over_bound
from pillow_gpu.gpu.kernels import fill, unpack
from pillow_gpu.gpu.lowering import LOWERINGS
from pillow_gpu.gpu.lowering._admission import CPU_ONLY, unsupported
from pillow_gpu.gpu.lowering.indexed import (
    INDEX_ROUTES_TEXT,
    check_consumer,
    check_palette_alpha,
    check_palette_alpha_root,
    check_root,
    indexed_operation,
)
from pillow_gpu.gpu.lowering.limited import check_limited
from pillow_gpu.gpu.lowering.wide import check_wide

__all__ = ["MAX_PIXELS", "MAX_PIXELS_TEXT", "plan_graph"]

#: Peak pixels of any image in a graph (the spec's workspace bound): 8192 x 8192 = 2**26, so a
#: 24, 48 or 61 MP camera photo is planned. Every size-dependent proof (the sums of ``sum_l``,
#: ``histogram`` bins, ``equalize_lut``, the Contrast mean) is written for this bound; the
#: device's buffer limits may refuse smaller images first (lavapipe binds 128 MiB: 2**25 words).
MAX_PIXELS = 8192 * 8192
#: The bound as the errors name it.
MAX_PIXELS_TEXT = f"{isqrt(MAX_PIXELS)} x {isqrt(MAX_PIXELS)}"


def _check_image(node: Node, limits: DeviceLimits | None, *, empty: bool = False) -> None:
    uploaded = node.is_leaf or node.cache.get() is not None
    if node.op in CPU_ONLY and not uploaded:
        raise unsupported(node, CPU_ONLY[node.op])
    if node.mode in INDEXED_MODES and not uploaded and not indexed_operation(node):
        raise unsupported(
            node,
            f"a mode {node.mode} result of {node.op!r} is not a native GPU layout (P and 1 "
            f"images are admitted as uploads and as results of {INDEX_ROUTES_TEXT})",
            fix="convert to RGB/RGBA/L instead, or evaluate with to_pil()",
        )
    layouts = (*NATIVE_MODES, *LIMITED_MODES, *INDEXED_MODES, *PALETTE_ALPHA_MODES, *WIDE_MODES)
    if node.mode not in layouts:
        raise unsupported(
            node,
            f"mode {node.mode} is not a native GPU layout ({', '.join(layouts)})",
            fix="convert to a native mode first or evaluate with to_pil()",
        )
    check_limited(node, limits)
    width, height = node.size
    if (width <= 0 or height <= 0) and not empty:
        raise unsupported(
            node,
            "an empty image is planned only as a graph's result made by Image.new, from_pil "
            "or Pillow (the lazy API completes an operation on an empty image when it is "
            f"recorded, where its result fits the pixel bound of {MAX_PIXELS_TEXT}; an opened "
            "file's empty image is never decoded on this route)",
        )
    if width * height > MAX_PIXELS:
        raise Limit(
            f"the image exceeds the per-graph pixel bound ({MAX_PIXELS_TEXT})",
            observed=f"{width}x{height} = {width * height} pixels in operation {node.op!r}",
            fix="split the image into tiles or evaluate it with to_pil()",
            stage="admission",
        )
    if limits is not None:
        nbytes = width * height * 4
        binding = min(limits.max_storage_buffer_binding_size, limits.max_buffer_size)
        groups = max(-(-width // WORKGROUP), -(-height // WORKGROUP))
        if nbytes > binding or groups > limits.max_compute_workgroups_per_dimension:
            raise Limit(
                "the image exceeds this device's buffer or workgroup limits",
                observed=f"{nbytes} bytes (binding limit {binding}), {groups} workgroups per "
                f"dimension (limit {limits.max_compute_workgroups_per_dimension})",
                fix="use a smaller image or a device with larger limits",
                stage="admission",
            )


def _check_loop_steps(root: Node, program: Program, limits: DeviceLimits | None) -> None:
    """Refuse a dispatch whose invocations loop longer than the adapter runs loops."""
    bound = None if limits is None else limits.max_loop_steps
    if bound is None:
        return
    for dispatch in program.dispatches:
        if dispatch.loop_steps > bound:
            width, height = root.size
            raise Limit(
                "this adapter ends shader loops early, and a kernel of the graph loops longer",
                observed=f"{dispatch.shader} runs up to {dispatch.loop_steps} loop steps per "
                f"invocation for a {root.mode} {width}x{height} graph; the adapter runs at "
                f"most {bound}",
                fix="reduce or resize in smaller steps (e.g. reduce() by a smaller factor "
                "first), run on a hardware GPU adapter, or evaluate with to_pil()",
                stage="admission",
            )


def _leaf_host_bytes(node: Node) -> int:
    pixels = node.size[0] * node.size[1]
    encoded = node.params["encoded_nbytes"] if node.op == "open" else 0
    decoded = pixels * 4 if undecoded_file(node) else 0
    upload = upload_nbytes(node.mode, node.size)  # Pillow's stored bytes, padded
    return decoded + upload + encoded  # decode temporary, upload bytes, encoded bytes


class _Buffers:
    """Each node's buffer: one word per pixel (``words``) and/or packed L (``packed``)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.words: dict[int, int] = {}
        self.packed: dict[int, int] = {}

    def unpacked(self, node: Node) -> int:
        """The one-word-per-pixel buffer of ``node``, widened from packed L once if needed."""
        if id(node) not in self.words:
            kind = PACKED_UPLOADS["L"][1]
            self.words[id(node)] = unpack.unpack(
                self.program, self.packed[id(node)], node.size, kind
            )
        return self.words[id(node)]


def _admit(node: Node, limits: DeviceLimits | None, *, empty: bool = False) -> None:
    """Every check of one node against the route table and the device (before lowering)."""
    failed = load_failure(node)
    if failed is not None:  # a sought frame Pillow could not load
        raise undecodable(failed) from failed
    check_consumer(node)
    check_palette_alpha(node)
    check_wide(node)
    _check_image(node, limits, empty=empty)


def _admit_root(root: Node) -> None:
    """The checks of a P, 1 or PA result (its palette must be known before it runs)."""
    if root.mode in INDEXED_MODES:
        check_root(root)
    if root.mode in PALETTE_ALPHA_MODES:
        check_palette_alpha_root(root)


#: Leaves whose pixels need no decoder (an empty one is planned as an empty result).
_MADE_LEAVES = ("new", "pil")


def _plan_empty(root: Node, limits: DeviceLimits | None) -> Plan:
    """The plan of an empty result (:mod:`pillow_gpu._empty`): no upload and no dispatch. Its
    terminal copy moves one zero word, since a staging range is never empty, and the result is
    built from none of those bytes."""
    _admit(root, limits, empty=True)
    _admit_root(root)
    program = Program()
    terminal = program.words(1)
    from pillow_gpu.executor._metadata import info_nbytes  # the executor imports the planner

    return Plan(
        root=root,
        program=program,
        uploads=(),
        terminal=terminal,
        terminal_nbytes=4,
        host_bytes=4 + info_nbytes(root.info),
    )


def plan_graph(
    image: Any, *, limits: DeviceLimits | None = None, max_work: int = MAX_SUBMISSION_WORK
) -> Plan:
    """Admit and lower the graph of ``image`` (a lazy Image or a Node); nothing runs yet.

    A graph whose shader work (:mod:`pillow_gpu.gpu._work`) exceeds ``max_work`` is rejected.
    """
    root: Node = getattr(image, "node", image)
    if is_empty(root.size) and (root.op in _MADE_LEAVES or root.cache.get() is not None):
        return _plan_empty(root, limits)
    program = Program()
    buffers = _Buffers(program)
    uploads: list[Upload] = []
    host_bytes = 0
    nodes = list(walk(root))
    consumers: dict[int, list[Node]] = {}
    for node in nodes:
        for child in node.inputs:
            consumers.setdefault(id(child), []).append(node)
    for node in nodes:
        _admit(node, limits)
        if node.cache.get() is not None or (node.is_leaf and node.op != "new"):
            if node.mode == "L":  # Pillow's bytes, kept packed (gpu._packed_l)
                packed_grid = grid(node.size)
                buffers.packed[id(node)] = program.words(packed_grid[0] * packed_grid[1])
                upload = Upload(buffer=buffers.packed[id(node)], node=node)
            else:
                upload, buffers.words[id(node)] = record_upload(program, node)
            uploads.append(upload)
            host_bytes += _leaf_host_bytes(node)
        elif node.op == "new":
            color = ink(node.mode, node.params["color"])
            buffers.words[id(node)] = fill.fill(program, node.size, color)
        else:
            lowering = LOWERINGS.get(node.op)
            if lowering is None:
                raise unsupported(node, f"operation {node.op!r} has no proven GPU route")
            packed_inputs = [buffers.packed.get(id(child)) for child in node.inputs]
            widened = lower_widened(program, node, packed_inputs)
            if widened is not None:
                buffers.words[id(node)] = widened
                continue
            packed = lower_packed(program, node, packed_inputs)
            if packed is None and writes_packed(node, consumers.get(id(node), ())):
                packed = lower_into_packed(program, node, buffers.unpacked(node.inputs[0]))
            if packed is not None:
                buffers.packed[id(node)] = packed
                continue
            inputs = [(buffers.unpacked(child), child) for child in node.inputs]
            buffers.words[id(node)] = lowering(program, node, inputs)
    _admit_root(root)
    if id(root) in buffers.packed:  # already Pillow's bytes
        terminal = buffers.packed[id(root)]
    else:
        terminal = record_terminal(program, root, buffers.unpacked(root))
    program.prune(terminal)  # inversions a rank filter folded in
    terminal = alias(program, terminal, [upload.buffer for upload in uploads])
    _check_loop_steps(root, program, limits)
    if program.work > max_work:
        raise over_bound(root, program.work, max_work)
    nbytes = terminal_nbytes(root.mode, root.size)
    from pillow_gpu.executor._metadata import info_nbytes  # the executor imports the planner

    metadata = info_nbytes(root.info)  # runs no caller code; the executor validates
    host_bytes += nbytes + root.size[0] * root.size[1] * 4 + metadata
    return Plan(
        root=root,
        program=program,
        uploads=tuple(uploads),
        terminal=terminal,
        terminal_nbytes=nbytes,
        host_bytes=host_bytes,
    )
