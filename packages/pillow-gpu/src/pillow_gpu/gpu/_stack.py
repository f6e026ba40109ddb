"""Stacks: same-shaped plans of one submission sharing one allocation and, where the kernel
allows, one dispatch.

A batch of graphs of one shape (same chain, mode, size and parameters) lowers to identical
programs. Allocated one by one, every plan has buffers and bind groups of its own and records
its own dispatches and copy: on a software adapter a dispatch costs far more than a small
image's kernel (lavapipe, 2 cores: about 0.2 ms each, whatever its size), and on any device
each dispatch, bind group and copy is host work per job. :func:`allocate_together` gives a run
of consecutive same-shaped plans one :class:`~pillow_gpu.gpu._slots.Slot` with a *lane* per
plan: each working image buffer holds every lane's image, lane ``j`` at ``j * stride`` (the
image's size rounded up to 256 bytes, the storage-offset alignment), while parameter blocks,
host tables and resident tables are shared. :func:`encode_together` then records, for a run
whose every lane is in the submission:

* a dispatch of a lane-aware kernel (:data:`STACKED_SHADERS`) once, with one workgroup layer
  per lane along z: compiled with its pipeline constant ``STACKED = 1``, the kernel offsets
  each image binding by ``z * arrayLength / lanes`` (unstacked dispatches compile without it);
* any other dispatch once per lane, over a bind group of that lane's ranges;
* the terminal copies of adjacent lanes as one copy where their staging ranges are adjacent.

No lane reads another's range, so a stack computes exactly what separate plans compute. A run
is at most :data:`STACK_BYTES` of working images: large images gain nothing from stacking
(their kernels dwarf a dispatch, and on lavapipe a stacked 1024x1024 RGB median measured about
20 % slower than one dispatch per image) and would make pooled slots too big to keep.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pillow_gpu.errors import DeviceError
from pillow_gpu.gpu._device import SharedDevice, get_device
from pillow_gpu.gpu._program import (
    CONSTANTS_ALIGNMENT,
    Dispatch,
    Program,
    aligned,
    parse_specialized,
    specialized,
)
from pillow_gpu.gpu._slots import Slot
from pillow_gpu.gpu._upload_belt import UploadBatch, write_run

if TYPE_CHECKING:
    from pillow_gpu.gpu._plan import Plan

__all__ = [
    "JOIN_LANE_BYTES",
    "STACKED_SHADERS",
    "STACK_BYTES",
    "allocate_together",
    "encode_together",
    "lane_buffer",
    "slot_key",
    "stacked_pipeline",
]

#: Lane-aware kernels -> how many of their bindings (after the parameters) are images the
#: kernel offsets by lane. A dispatch runs stacked only when exactly those bindings are working
#: images; a table or resident binding after them is shared by every lane.
STACKED_SHADERS: Mapping[str, int] = MappingProxyType(
    {
        "affine_nearest": 2,
        "generic_transform": 2,
        "autocontrast_lut": 2,
        "bands": 5,
        "boxblur": 2,
        "chops": 3,
        "composite": 4,
        "contrast": 3,
        "convert": 2,
        "convert_matrix": 2,
        "convert_table": 2,
        "convert_wide": 2,
        "convert_ycbcr": 2,
        "convolve": 2,
        "convolve_wide": 2,
        "dither": 3,
        "equalize_lut": 2,
        "fill": 1,
        "histogram": 3,
        "interleave_l": 2,
        "invert": 2,
        "lut": 2,
        "modefilter": 2,
        "pack16": 2,
        "pack_l": 2,
        "pad_l": 2,
        "paste": 3,
        "premultiply": 2,
        "rank": 2,
        "rank_int": 2,
        "rank_minmax": 2,
        "rank_select": 2,
        "rank_sort9": 2,
        "reduce": 2,
        "remap": 2,
        "resample": 2,
        "resample_long": 2,
        "resample_wide": 2,
        "reduce_wide": 2,
        "resize_nearest": 2,
        "sum_l": 2,
        "to_indexed": 2,
        "unpack": 2,
        "unsharp": 3,
        "wide16_bytes": 2,
        "zero": 1,
    }
)

#: Most bytes of working images one stack holds (a longer run of one shape is split; an image
#: whose working buffers exceed it is never stacked).
STACK_BYTES = 4 << 20

#: Lanes of at least this many bytes are uploaded one ``write_buffer`` each, smaller ones
#: joined into one. Lavapipe, 2 cores, ABBA-paired executor runs, apart against joined:
#: invert -> MedianFilter RGBA 256x256 (256 KiB lanes) 1.03-1.08x, multiply RGB 256x256 1.02x,
#: ImageChops.invert RGBA 181x181 (128 KiB) 1.02x and L 512x512 1.00x; 64 KiB lanes 0.97-0.99x.
JOIN_LANE_BYTES = 128 << 10

_Target = tuple["Plan", Any, int]


def slot_key(plan: Plan) -> Hashable:
    """What plans must share to share a slot: buffers, dispatches, uploads, constant bytes
    (the plans of one cached shape share theirs, :meth:`Plan.shape`)."""
    key = plan.slot_key
    if key is None:
        blob, _, layout = plan.program.constants()
        key = plan.slot_key = (*layout, tuple(upload.buffer for upload in plan.uploads), blob)
    return key


def stacked_pipeline(dispatch: Dispatch) -> str:
    """The pipeline that runs ``dispatch`` over every lane of a stack (``STACKED = 1``)."""
    return _stacked_name(dispatch.pipeline)


@functools.lru_cache(maxsize=1024)
def _stacked_name(pipeline: str) -> str:
    shader, constants = parse_specialized(pipeline)
    return specialized(shader, {**constants, "STACKED": 1})


def _stacked(program: Program, dispatch: Dispatch) -> bool:
    """True when ``dispatch`` can run every lane at once (see :data:`STACKED_SHADERS`)."""
    images = STACKED_SHADERS.get(dispatch.shader)
    if images is None or len(dispatch.bindings) < images:
        return False
    roles = [program.buffers[index].role for index in dispatch.bindings]
    return all(role == "image" for role in roles[:images]) and "image" not in roles[images:]


def allocate_together(
    plans: Sequence[Plan],
    device: SharedDevice | None = None,
    uploads: UploadBatch | None = None,
) -> list[tuple[Plan, Exception]]:
    """Decode ``plans``' sources, take or create their slots and queue their uploads.

    Consecutive plans of one shape share a slot, a lane each. Returns the plans that failed
    with their errors (a decode failure, a plan allocated before); those hold nothing, and the
    others are allocated. With ``uploads``, lanes under :data:`JOIN_LANE_BYTES` go through
    its staging buffer (:mod:`pillow_gpu.gpu._upload_belt`), and the caller submits its
    command buffers first; otherwise every upload is a ``queue.write_buffer``.
    """
    shared = device or get_device()
    most = shared.limits.max_compute_workgroups_per_dimension
    failed: list[tuple[Plan, Exception]] = []
    allocated: list[Plan] = []
    run: list[tuple[Plan, dict[int, bytes | memoryview]]] = []
    key: Hashable = None
    lanes = 1

    def flush() -> None:
        # One run's host pixels at a time: a batch of large images decodes and uploads image
        # by image, as if unstacked.
        if run:
            try:
                _allocate_run(shared, key, run, uploads)
            except Exception as error:
                failed.extend((plan, error) for plan, _ in run)
            else:
                allocated.extend(plan for plan, _ in run)
            run.clear()

    for plan in plans:
        try:
            pixels = plan.upload_pixels()
        except Exception as error:
            failed.append((plan, error))
            continue
        plan_key = slot_key(plan)
        if run and (plan_key != key or len(run) >= lanes):
            flush()
        if not run:
            key = plan_key
            lanes = max(1, min(most, STACK_BYTES // max(1, plan.program.image_bytes())))
        run.append((plan, pixels))
    flush()
    if uploads is not None:
        try:
            uploads.stage()
        except Exception as error:  # the fallback writes failed: the device is likely lost
            failed.extend((plan, error) for plan in allocated)
    return failed


def _allocate_run(
    shared: SharedDevice,
    key: Hashable,
    run: list[tuple[Plan, dict[int, bytes | memoryview]]],
    uploads: UploadBatch | None,
) -> None:
    pool_key = (key, len(run))
    slot = shared.slots.take(pool_key)
    fresh = slot is None
    if slot is None:
        slot = _create_slot(shared, run[0][0].program, len(run), set(run[0][1]))
    try:
        for index in run[0][1]:
            _write_lanes(shared, slot, index, [pixels[index] for _, pixels in run], uploads)
    except BaseException:
        shared.slots.give(pool_key, slot)  # never submitted: its next user writes its own uploads
        raise
    slot.holders = len(run)
    for lane, (plan, _) in enumerate(run):
        plan.assign(shared, slot, lane, pool_key, fresh=fresh)


def _write_lanes(
    shared: SharedDevice,
    slot: Slot,
    index: int,
    lanes: list[bytes | memoryview],
    uploads: UploadBatch | None,
) -> None:
    """Write every lane's upload into buffer ``index`` of ``slot``.

    Lanes under :data:`JOIN_LANE_BYTES` go into ``uploads``' staging buffer, or without it are
    joined (each padded to the lane stride) into one ``write_buffer``: one staging copy for the
    run instead of a call and a staging allocation per job. Larger lanes are written one
    ``write_buffer`` each, straight from the source's memory: joining them would copy every
    byte once more for a call saved per job.
    """
    buffer = slot.resources[index]["buffer"]
    stride = slot.strides[index]
    for lane, data in enumerate(lanes):
        if len(data) > stride:  # pragma: no cover - an upload never exceeds its working buffer
            msg = f"lane {lane} uploads {len(data)} bytes into a {stride}-byte lane"
            raise AssertionError(msg)
    if stride < JOIN_LANE_BYTES and uploads is not None:
        uploads.add(buffer, lanes, stride)
    elif stride < JOIN_LANE_BYTES or len(lanes) == 1:
        write_run(shared.queue, buffer, lanes, stride)
    else:
        for lane, data in enumerate(lanes):
            shared.queue.write_buffer(buffer, lane * stride, data)


def lane_buffer(plan: Plan, index: int) -> tuple[Any, int]:
    """The device buffer holding an allocated ``plan``'s working buffer ``index``, and the byte
    offset of the plan's lane in it (to write new source pixels into a kept allocation)."""
    slot = plan._slot
    if slot is None:
        msg = "lane_buffer() needs an allocated plan; call plan.allocate() first"
        raise ValueError(msg)
    return slot.resources[index]["buffer"], plan._lane * slot.strides[index]


def _create_slot(shared: SharedDevice, program: Program, lanes: int, uploads: set[int]) -> Slot:
    import wgpu  # type: ignore[import-untyped]

    gpu = shared.device
    blob, offsets, _ = program.constants()
    # UNIFORM too: a table a kernel builds on the device is read through a uniform binding
    # by the lookup kernel (lut.wgsl).
    image_usage = (
        wgpu.BufferUsage.STORAGE
        | wgpu.BufferUsage.UNIFORM
        | wgpu.BufferUsage.COPY_SRC
        | wgpu.BufferUsage.COPY_DST
    )
    buffers: list[Any] = []
    resources: list[dict[str, Any]] = []
    clear: list[Any] = []
    strides: dict[int, int] = {}
    for spec in program.buffers:
        if spec.index in offsets or spec.role in ("pruned", "aliased"):  # constants / unbound
            resources.append({})
            continue
        if spec.build is not None:  # a resident table: the device's, bound, never owned
            resources.append({"buffer": shared.resident(spec.name, spec.build)})
            continue
        # Whole 256-byte lanes, a single lane included (as charged): a kernel may read and
        # write an image's last bytes as whole vectors (invert.wgsl).
        strides[spec.index] = aligned(spec.nbytes)
        size = lanes * strides[spec.index]
        buffer = gpu.create_buffer(size=size, usage=image_usage)
        buffers.append(buffer)
        resources.append({"buffer": buffer})
        if spec.index not in uploads:
            clear.append(buffer)
    if offsets:
        arena = gpu.create_buffer_with_data(
            data=blob, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.STORAGE
        )
        buffers.append(arena)
        for index, offset in offsets.items():
            size = program.buffers[index].nbytes
            resources[index] = {"buffer": arena, "offset": offset, "size": size}
    shared.buffers_created += len(buffers)
    bind_groups = [
        _bind_group(shared, dispatch, resources)
        if lanes == 1
        else _bind_group(shared, dispatch, resources, stacked_pipeline(dispatch))
        if _stacked(program, dispatch)
        else None
        for dispatch in program.dispatches
    ]
    return Slot(
        buffers=buffers,
        resources=resources,
        bind_groups=bind_groups,
        clear=tuple(clear),
        nbytes=sum(aligned(buffer.size) for buffer in buffers),
        lanes=lanes,
        strides=strides,
    )


def _bind_group(
    shared: SharedDevice, dispatch: Dispatch, resources: Sequence[Any], pipeline: str = ""
) -> Any:
    """A bind group of ``dispatch`` for ``pipeline`` (its own by default)."""
    entries = [
        {"binding": binding, "resource": resources[index]}
        for binding, index in enumerate((dispatch.params, *dispatch.bindings))
    ]
    layout = shared.bind_group_layout(pipeline or dispatch.pipeline)
    return shared.device.create_bind_group(layout=layout, entries=entries)


def _lane_group(shared: SharedDevice, slot: Slot, program: Program, index: int, lane: int) -> Any:
    """The bind group of dispatch ``index`` over lane ``lane``'s ranges (made once)."""
    if slot.lanes == 1:
        return slot.bind_groups[index]
    found = slot.lane_groups.get((index, lane))
    if found is None:
        resources = list(slot.resources)
        for buffer, stride in slot.strides.items():  # whole lanes: kernels read whole vectors
            whole = resources[buffer]["buffer"]
            resources[buffer] = {"buffer": whole, "offset": lane * stride, "size": stride}
        found = _bind_group(shared, program.dispatches[index], resources)
        slot.lane_groups[(index, lane)] = found
    return found


def _runs(targets: Sequence[_Target]) -> list[list[_Target]]:
    """``targets`` cut into runs of consecutive plans sharing one slot."""
    runs: list[list[_Target]] = []
    for target in targets:
        if runs and target[0]._slot is runs[-1][0][0]._slot:
            runs[-1].append(target)
        else:
            runs.append([target])
    return runs


def encode_together(encoder: Any, targets: Sequence[_Target]) -> int:
    """Record several allocated plans into ``encoder``: each ``(plan, staging, offset)`` runs
    its dispatches and copies its terminal bytes into ``staging`` at ``offset``.

    Every plan shares one compute pass (a pass costs the driver a setup and barriers of its
    own): first every reused slot's clears, then the dispatches (a run of a whole stack
    together, see the module docstring), then the terminal copies. Plans and lanes use
    disjoint buffer ranges, so only the order within a plan matters, and WebGPU orders the
    dispatches of a pass. Returns how many dispatch calls were recorded.
    """
    for plan, _, _ in targets:
        if plan._slot is None:
            raise DeviceError(
                "encode() needs allocated buffers",
                observed="encode() before allocate()",
                fix="call plan.allocate() first",
                stage="encode",
            )
    runs = _runs(targets)
    for run in runs:
        _encode_clears(encoder, run)
    calls = 0
    if any(run[0][0].program.dispatches for run in runs):
        compute = encoder.begin_compute_pass()
        current: list[Any] = [None]
        for run in runs:
            calls += _encode_dispatches(compute, run, current)
        compute.end()
    for run in runs:
        _encode_copies(encoder, run)
    return calls


def _encode_clears(encoder: Any, run: list[_Target]) -> None:
    """Zero a reused slot's working buffers (the lanes in ``run``), as a new slot starts."""
    slot = run[0][0]._slot
    assert slot is not None
    if run[0][0]._fresh:
        return
    if len(run) == slot.lanes:
        for buffer in slot.clear:
            encoder.clear_buffer(buffer)
        return
    strides = {id(slot.resources[index]["buffer"]): s for index, s in slot.strides.items()}
    for plan, _, _ in run:
        lane = plan._lane
        for buffer in slot.clear:
            stride = strides[id(buffer)]
            encoder.clear_buffer(buffer, lane * stride, stride)


def _encode_dispatches(compute: Any, run: list[_Target], current: list[Any]) -> int:
    """Record ``run``'s dispatches; return how many dispatch calls that took."""
    plan = run[0][0]
    slot, shared, program = plan._slot, plan._device, plan.program
    assert slot is not None
    assert shared is not None
    whole = len(run) == slot.lanes
    calls = 0
    for index, dispatch in enumerate(program.dispatches):
        group = slot.bind_groups[index]
        together = whole and group is not None
        name = stacked_pipeline(dispatch) if together and slot.lanes > 1 else dispatch.pipeline
        pipeline = shared.pipeline(name)
        if pipeline is not current[0]:  # a pass keeps its pipeline between dispatches
            compute.set_pipeline(pipeline)
            current[0] = pipeline
        columns, rows = dispatch.groups
        if together:
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(columns, rows, slot.lanes)
            calls += 1
            continue
        for member, _, _ in run:
            group = _lane_group(shared, slot, program, index, member._lane)
            compute.set_bind_group(0, group)
            compute.dispatch_workgroups(columns, rows, 1)
            calls += 1
    return calls


def _encode_copies(encoder: Any, run: list[_Target]) -> None:
    """Copy each plan's terminal bytes to its staging range; adjacent lanes in one copy.

    Plans of one slot may differ in their terminal size (an L image lowered as flat words is
    keyed by its padded word count, not its size), so each copies its own ``terminal_nbytes``;
    lanes whose staging ranges lie one stride apart are one copy (what it copies past a
    lane's terminal bytes lands in that lane's own staging range).
    """
    slot = run[0][0]._slot
    assert slot is not None
    terminal = slot.resources[run[0][0].terminal]["buffer"]
    stride = slot.strides[run[0][0].terminal]
    start = 0
    while start < len(run):
        first, staging, offset = run[start]
        if offset % CONSTANTS_ALIGNMENT:
            msg = f"encode() needs a staging offset that is a multiple of 256; observed {offset}"
            raise ValueError(msg)
        lane = first._lane
        stop = start + 1
        while (
            stop < len(run)
            and run[stop - 1][0].staging_nbytes == stride
            and run[stop][1] is staging
            and run[stop][2] == offset + (stop - start) * stride
            and run[stop][0]._lane == lane + (stop - start)
        ):
            stop += 1
        size = (stop - start - 1) * stride + run[stop - 1][0].terminal_nbytes
        encoder.copy_buffer_to_buffer(terminal, lane * stride, staging, offset, size)
        start = stop
