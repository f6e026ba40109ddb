"""Stacked allocations: same-shaped jobs of a submission share buffers and dispatches, exactly.

Every test runs real kernels on the shared device and compares each job's bytes with live
Pillow: the stacked dispatch (every lane at once), the per-lane dispatch of a kernel that is
not lane-aware, partial runs, pooled reuse, mixed shapes, a failing job inside a run and runs
split by the stack bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import wgpu  # type: ignore[import-untyped]
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import (
    BatchFailure,
    GpuBatchExecutor,
    Image,
    ImageChops,
    ImageEnhance,
    ImageFilter,
    ImageOps,
)
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import _stack, plan_graph
from pillow_gpu.gpu._device import SharedDevice, shader_source
from pillow_gpu.gpu._layout import upload_nbytes
from pillow_gpu.gpu._upload_belt import UploadBatch

Chain = tuple[Callable[[Any], Any], Callable[[PILImage.Image], PILImage.Image]]


def _same(chain: Callable[[Any], Any]) -> Chain:
    """A chain of method calls that reads the same on a lazy image and on Pillow's."""
    return chain, chain


#: (lazy chain, Pillow chain) by id: every lane-aware kernel, plus kernels that are not.
def _on_canvas(image: Any) -> Any:
    canvas = (Image if isinstance(image, Image.Image) else PILImage).new(
        image.mode, (24, 20), "white"
    )
    canvas.paste(image, (5, 7))
    return canvas


CHAINS: dict[str, Chain] = {
    "chops_invert": (ImageChops.invert, PILImageChops.invert),
    "solarize_gray": (  # a lookup after a conversion (output L)
        lambda im: ImageOps.solarize(ImageOps.grayscale(im), 100),
        lambda im: PILImageOps.solarize(PILImageOps.grayscale(im), 100),
    ),
    "point": _same(lambda im: im.point(lambda v: v // 3 + 7)),
    "median3": (
        lambda im: im.filter(ImageFilter.MedianFilter(3)),
        lambda im: im.filter(PILImageFilter.MedianFilter(3)),
    ),
    "invert_median3": (
        lambda im: ImageChops.invert(im).filter(ImageFilter.MedianFilter(3)),
        lambda im: PILImageChops.invert(im).filter(PILImageFilter.MedianFilter(3)),
    ),
    "min3": (
        lambda im: im.filter(ImageFilter.MinFilter(3)),
        lambda im: im.filter(PILImageFilter.MinFilter(3)),
    ),
    "rank3_2": (
        lambda im: im.filter(ImageFilter.RankFilter(3, 2)),
        lambda im: im.filter(PILImageFilter.RankFilter(3, 2)),
    ),
    "median5": (
        lambda im: im.filter(ImageFilter.MedianFilter(5)),
        lambda im: im.filter(PILImageFilter.MedianFilter(5)),
    ),
    "gaussian2": (
        lambda im: im.filter(ImageFilter.GaussianBlur(2)),
        lambda im: im.filter(PILImageFilter.GaussianBlur(2)),
    ),
    "multiply_self": (
        lambda im: ImageChops.multiply(im, ImageChops.invert(im)),
        lambda im: PILImageChops.multiply(im, PILImageChops.invert(im)),
    ),
    "equalize": (  # a lookup of a table built on the device: the lookup once per lane
        lambda im: ImageOps.equalize(im.convert("RGB") if im.mode == "RGBA" else im),
        lambda im: PILImageOps.equalize(im.convert("RGB") if im.mode == "RGBA" else im),
    ),
    "to_la_invert": (  # widening of packed L, a conversion, the two-byte terminal pack
        lambda im: ImageChops.invert(im.convert("LA")),
        lambda im: PILImageChops.invert(im.convert("LA")),
    ),
    "resize": (  # both resampling passes (and RGBA's premultiply and unpremultiply)
        lambda im: im.resize((9, 5), Image.Resampling.LANCZOS),
        lambda im: im.resize((9, 5), PILImage.Resampling.LANCZOS),
    ),
    "reduce": _same(lambda im: im.reduce(2)),
    # the nearest-neighbour affine kernel
    "rotate": _same(lambda im: im.rotate(30, expand=True)),
    "resize_nearest": (
        lambda im: im.resize((9, 5), Image.Resampling.NEAREST),
        lambda im: im.resize((9, 5), PILImage.Resampling.NEAREST),
    ),
    "sharpen": (
        lambda im: im.filter(ImageFilter.SHARPEN()),
        lambda im: im.filter(PILImageFilter.SHARPEN()),
    ),
    "unsharp": (
        lambda im: im.filter(ImageFilter.UnsharpMask(2, 150, 3)),
        lambda im: im.filter(PILImageFilter.UnsharpMask(2, 150, 3)),
    ),
    "autocontrast": (  # the same, with a cutoff and Pillow's pair table shared by every lane
        lambda im: ImageOps.autocontrast(im.convert("RGB") if im.mode == "RGBA" else im, cutoff=2),
        lambda im: PILImageOps.autocontrast(
            im.convert("RGB") if im.mode == "RGBA" else im, cutoff=2
        ),
    ),
    "contrast": (  # a device sum of the L conversion, then the blend with its mean
        lambda im: ImageEnhance.Contrast(im).enhance(1.7),
        lambda im: PILImageEnhance.Contrast(im).enhance(1.7),
    ),
    "transpose_invert": (
        lambda im: ImageChops.invert(im.transpose(Image.Transpose.ROTATE_90)),
        lambda im: PILImageChops.invert(im.transpose(PILImage.Transpose.ROTATE_90)),
    ),
    "pad": (  # the resized image with borders (an expand)
        lambda im: ImageOps.pad(im, (24, 24)),
        lambda im: PILImageOps.pad(im, (24, 24)),
    ),
    "canvas": _same(_on_canvas),  # a filled canvas, the image pasted on it
    # an RGB -> L matrix conversion
    "matrix": _same(lambda im: im.convert("RGB").convert("L", (0.2, 0.5, 0.3, 4))),
    "ycbcr": _same(lambda im: im.convert("RGB").convert("YCbCr").convert("RGB")),
    # L -> F -> L (RGB -> F divides in float32 and is refused)
    "wide": _same(lambda im: im.convert("L").convert("F").convert("L")),
    # to_indexed (the web palette), then the palette lookup
    "palette": _same(
        lambda im: im.convert("RGB").convert("P", dither=PILImage.Dither.NONE).convert("RGB")
    ),
    # a resident table of Pillow's rgb2hsv, shared by every lane
    "hsv": _same(lambda im: im.convert("RGB").convert("HSV")),
    "mode3": (
        lambda im: im.filter(ImageFilter.ModeFilter(3)),
        lambda im: im.filter(PILImageFilter.ModeFilter(3)),
    ),
    "merge_reversed": (  # split bands merged in another order (bands kernel, four sources)
        lambda im: Image.merge(im.mode, im.split()[::-1]),
        lambda im: PILImage.merge(im.mode, im.split()[::-1]),
    ),
}

MODES = ("L", "RGB", "RGBA")
# 12x7 packs L as three words of seven rows: the packed median's pair and row edges per lane.
SIZES = ((17, 11), (64, 8), (12, 7))


def _run(executor: GpuBatchExecutor, graphs: list[Any], errors: str = "raise") -> dict[int, Any]:
    found: dict[int, Any] = {}
    with executor.run(enumerate(graphs), errors=errors) as results:
        for item in results:
            found[item.input_key] = item if isinstance(item, BatchFailure) else item.image
    return found


def _batch(graphs: list[Any], errors: str = "raise") -> tuple[dict[int, Any], dict[str, int]]:
    """Every result (or failure) by input index, and the stats of the one executor run."""
    executor = GpuBatchExecutor(max_jobs=8, max_in_flight=1)
    try:
        return _run(executor, graphs, errors), dict(executor.stats)
    finally:
        executor.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chain", list(CHAINS))
def test_a_stack_of_same_shaped_jobs_equals_pillow_per_job(
    device: SharedDevice, chain: str, mode: str, size: tuple[int, int]
) -> None:
    lazy, pil = CHAINS[chain]
    sources = [make_image(mode, size, seed) for seed in range(5)]
    found, stats = _batch([lazy(Image.from_pil(source)) for source in sources])
    for index, source in enumerate(sources):
        assert_image_equal(found[index], pil(source))
    program = plan_graph(lazy(Image.from_pil(sources[0]))).program
    assert stats["submissions"] == 1
    assert stats["dispatches"] == 5 * len(program.dispatches)
    stacked = sum(_stack._stacked(program, dispatch) for dispatch in program.dispatches)
    assert stats["dispatch_calls"] == stacked + 5 * (len(program.dispatches) - stacked)


def test_lane_aware_kernels_stack_their_dispatches(device: SharedDevice) -> None:
    # Guards the test above from passing vacuously: these chains record one call per dispatch.
    for chain in ("chops_invert", "invert_median3", "gaussian2", "multiply_self", "rank3_2"):
        program = plan_graph(CHAINS[chain][0](Image.from_pil(make_image("L", (16, 8))))).program
        assert all(_stack._stacked(program, dispatch) for dispatch in program.dispatches), chain
    # an L width that is not a multiple of four: the row copies (pad_l) stack too
    program = plan_graph(CHAINS["gaussian2"][0](Image.from_pil(make_image("L", (17, 8))))).program
    assert all(_stack._stacked(program, dispatch) for dispatch in program.dispatches)
    # the upload widening, conversions and terminal packs (unpack, convert, pack_l, pack16),
    # resampling with RGBA's premultiply, reduce, the affine kernel, the kernel filters and
    # unsharp masking
    lane_aware = [("RGB", "solarize_gray"), ("L", "to_la_invert"), ("RGBA", "to_la_invert")]
    filters = ("resize", "resize_nearest", "reduce", "rotate", "sharpen", "unsharp")
    filters += ("transpose_invert", "pad", "canvas")
    lane_aware += [(mode, chain) for mode in MODES for chain in filters]
    lane_aware += [("RGB", "merge_reversed"), ("RGBA", "merge_reversed")]
    conversions = ("matrix", "ycbcr", "wide", "palette", "hsv", "mode3")
    lane_aware += [(mode, chain) for mode in MODES for chain in conversions]
    for mode, chain in lane_aware:
        program = plan_graph(CHAINS[chain][0](Image.from_pil(make_image(mode, (16, 8))))).program
        assert all(_stack._stacked(program, dispatch) for dispatch in program.dispatches), chain
    shaders = {
        dispatch.shader
        for mode, chain in lane_aware
        for dispatch in plan_graph(
            CHAINS[chain][0](Image.from_pil(make_image(mode, (16, 8))))
        ).program.dispatches
    }
    expected = {"unpack", "convert", "pack_l", "pack16", "resample", "premultiply", "convolve"}
    expected |= {"reduce", "affine_nearest", "unsharp", "remap", "bands", "fill", "paste"}
    expected |= {"convert_matrix", "convert_ycbcr", "convert_wide", "to_indexed"}
    expected |= {"convert_table", "modefilter", "resize_nearest"}
    assert expected <= shaders
    # the per-image reductions and the tables built from them stack; the lookup that reads
    # such a table through a uniform binding runs once per lane
    for mode in MODES:
        for chain in ("equalize", "autocontrast", "contrast"):
            program = plan_graph(
                CHAINS[chain][0](Image.from_pil(make_image(mode, (16, 8))))
            ).program
            for dispatch in program.dispatches:
                assert _stack._stacked(program, dispatch) == (dispatch.shader != "lut"), chain


WIDE_AFFINE: dict[str, Callable[[Any], Any]] = {  # I;16: a host table (kinds 2 and 0)
    "rotate": lambda im: im.rotate(30),
    "resize_nearest": lambda im: im.resize((9, 5), PILImage.Resampling.NEAREST),
}


@pytest.mark.parametrize("name", list(WIDE_AFFINE))
def test_a_stack_of_16_bit_affine_jobs_equals_pillow_per_job(
    device: SharedDevice, name: str
) -> None:
    """The 16-bit modes' table-driven affine kernel and their widening and packing, stacked."""
    rng = np.random.default_rng(3)
    sources = [
        PILImage.frombytes(
            "I;16", (17, 11), rng.integers(0, 65536, 17 * 11).astype("<u2").tobytes()
        )
        for _ in range(5)
    ]
    transform = WIDE_AFFINE[name]
    program = plan_graph(transform(Image.from_pil(sources[0]))).program
    assert [dispatch.shader for dispatch in program.dispatches] == [
        "unpack",
        "affine_nearest",
        "pack16",
    ]
    assert all(_stack._stacked(program, dispatch) for dispatch in program.dispatches)
    found, stats = _batch([transform(Image.from_pil(source)) for source in sources])
    for index, source in enumerate(sources):
        assert_image_equal(found[index], transform(source))
    assert stats["dispatch_calls"] == len(program.dispatches)


WIDE_RESAMPLES: dict[str, tuple[str, Callable[[Any], Any], list[str]]] = {
    mode: (mode, lambda im: im.resize((9, 15), PILImage.Resampling.BICUBIC), [])
    for mode in ("I;16", "I;16B", "I")
}
WIDE_RESAMPLES["I-reduce"] = (
    "I",
    lambda im: im.reduce((2, 3)).resize((5, 2), PILImage.Resampling.BICUBIC),
    ["reduce_wide"],
)


@pytest.mark.parametrize("name", list(WIDE_RESAMPLES))
def test_a_stack_of_wide_resamples_equals_pillow_per_job(device: SharedDevice, name: str) -> None:
    """resample_wide's two passes and reduce_wide (software doubles), stacked: each lane
    reads and writes its own image only."""
    mode, transform, others = WIDE_RESAMPLES[name]
    rng = np.random.default_rng(4)
    dtype = {"I;16": "<u2", "I;16B": ">u2", "I": "<i4"}[mode]
    info = np.iinfo(dtype)
    sources = [
        PILImage.frombytes(
            mode,
            (17, 11),
            rng.integers(info.min, info.max, 17 * 11, endpoint=True).astype(dtype).tobytes(),
        )
        for _ in range(5)
    ]
    program = plan_graph(transform(Image.from_pil(sources[0]))).program
    shaders = [dispatch.shader for dispatch in program.dispatches]
    assert shaders.count("resample_wide") == 2
    assert set(others) <= set(shaders)
    assert all(_stack._stacked(program, dispatch) for dispatch in program.dispatches)
    found, stats = _batch([transform(Image.from_pil(source)) for source in sources])
    for index, source in enumerate(sources):
        assert_image_equal(found[index], transform(source))
    assert stats["dispatch_calls"] == len(program.dispatches)


def test_per_lane_bindings_are_whole_lanes(
    device: SharedDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A dispatch that is not stacked binds each lane's range of a stacked buffer. The range is
    # the whole 256-byte lane, so a kernel of vec4 words reads and writes an image's last
    # partial vector inside it (a 3x2 RGB image is 24 bytes: one and a half vectors).
    seen: list[tuple[str, dict[str, Any]]] = []
    original = _stack._bind_group

    def recording(shared: Any, dispatch: Any, resources: Any, pipeline: str = "") -> Any:
        bound = [resources[index] for index in dispatch.bindings]
        seen.extend((dispatch.shader, resource) for resource in bound if "offset" in resource)
        return original(shared, dispatch, resources, pipeline)

    monkeypatch.setattr(_stack, "_bind_group", recording)
    lazy, pil = CHAINS["equalize"]
    sources = [make_image("RGB", (3, 2), seed) for seed in range(3)]
    found, _ = _batch([lazy(Image.from_pil(source)) for source in sources])
    for index, source in enumerate(sources):
        assert_image_equal(found[index], pil(source))
    lookups = [resource for shader, resource in seen if shader == "lut"]
    assert len(lookups) == 3 * 3  # source, output and table of each of the three lanes
    images = [resource for resource in lookups if resource["size"] != 4096]  # not the tables
    assert [resource["size"] for resource in images] == [256] * 6
    assert sorted({resource["offset"] for resource in images}) == [0, 256, 512]


def test_a_pooled_stack_is_cleared_and_reused(device: SharedDevice) -> None:
    lazy, pil = CHAINS["gaussian2"]
    executor = GpuBatchExecutor(max_jobs=4, max_in_flight=1)
    try:
        first = [make_image("RGB", (19, 13), seed) for seed in range(4)]
        _run(executor, [lazy(Image.from_pil(source)) for source in first])
        created = device.buffers_created
        second = [make_image("RGB", (19, 13), seed) for seed in range(10, 14)]
        found = _run(executor, [lazy(Image.from_pil(source)) for source in second])
        assert device.buffers_created == created  # the whole stack came from the pool
    finally:
        executor.close()
    for index, source in enumerate(second):
        assert_image_equal(found[index], pil(source))


#: Sizes whose lanes are written one ``write_buffer`` each (at least JOIN_LANE_BYTES: exactly
#: the bound, and above it with a gap to the 256-byte lane stride) or staged together (under
#: it: the executor's submissions copy them through a pooled staging buffer).
UPLOAD_SIZES = {
    "L-512x256-apart": ("L", (512, 256)),
    "L-363x363-apart-gap": ("L", (363, 363)),
    "RGB-182x181-apart-gap": ("RGB", (182, 181)),
    "L-256x256-staged": ("L", (256, 256)),
    "L-255x255-staged-gap": ("L", (255, 255)),
}


@pytest.mark.parametrize("case", list(UPLOAD_SIZES))
def test_uploads_are_written_apart_or_staged_by_lane_size(
    device: SharedDevice, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mode, size = UPLOAD_SIZES[case]
    lazy, pil = CHAINS["gaussian2"]
    writes: list[int] = []
    staged: list[tuple[int, int]] = []
    queue = device.queue
    real = queue.write_buffer
    real_add = UploadBatch.add

    def counting(buffer: Any, offset: int, data: Any, *args: Any) -> None:
        writes.append(memoryview(data).nbytes)
        real(buffer, offset, data, *args)

    def counting_add(batch: UploadBatch, target: Any, lanes: Any, stride: int) -> None:
        staged.append((len(lanes), stride))
        real_add(batch, target, lanes, stride)

    monkeypatch.setattr(queue, "write_buffer", counting)
    monkeypatch.setattr(UploadBatch, "add", counting_add)
    executor = GpuBatchExecutor(max_jobs=4, max_in_flight=1)
    try:
        rounds = []
        for first_seed in (0, 20):  # the second round reuses the pooled stack and staging
            sources = [make_image(mode, size, seed) for seed in range(first_seed, first_seed + 4)]
            writes.clear()
            staged.clear()
            found = _run(executor, [lazy(Image.from_pil(s)) for s in sources])
            rounds.append((sources, found, list(writes), list(staged)))
    finally:
        executor.close()
    for sources, found, _, _ in rounds:
        for index, source in enumerate(sources):
            assert_image_equal(found[index], pil(source))
    plan = plan_graph(lazy(Image.from_pil(make_image(mode, size))))
    (upload,) = plan.uploads
    stride = _stack.aligned(plan.program.buffers[upload.buffer].nbytes)
    payload = upload_nbytes(mode, size)
    apart = stride >= _stack.JOIN_LANE_BYTES
    assert apart == ("apart" in case)
    assert (stride > payload) == ("gap" in case)
    for _, _, written, staged_runs in rounds:
        assert [n for n in written if n >= payload] == ([payload] * 4 if apart else []), written
        assert staged_runs == ([] if apart else [(4, stride)])


def test_mixed_shapes_form_separate_runs(device: SharedDevice) -> None:
    lazy, pil = CHAINS["invert_median3"]
    sources = [
        make_image("L", (20, 9), 1),
        make_image("L", (20, 9), 2),
        make_image("RGB", (20, 9), 3),
        make_image("L", (20, 9), 4),
        make_image("L", (33, 7), 5),
        make_image("L", (20, 9), 6),
    ]
    found, stats = _batch([lazy(Image.from_pil(source)) for source in sources])
    calls = stats["dispatch_calls"]
    for index, source in enumerate(sources):
        assert_image_equal(found[index], pil(source))

    def dispatches(index: int) -> int:
        return len(plan_graph(lazy(Image.from_pil(sources[index]))).program.dispatches)

    # Runs: L L (stacked) | RGB | L | L 33x7 | L, one lane each after the first.
    assert calls == sum(dispatches(index) for index in (0, 2, 3, 4, 5))


def test_one_stack_may_hold_images_of_several_sizes(device: SharedDevice) -> None:
    # An inverted L image runs as flat words: its program is keyed by the padded word count,
    # so these three sizes share one stack, and each lane must copy out its own bytes.
    sources = [
        make_image("L", size, seed) for seed, size in enumerate([(61, 82), (86, 83), (89, 88)])
    ]
    graphs = [ImageOps.invert(Image.from_pil(source)) for source in sources]
    keys = {repr(_stack.slot_key(plan_graph(graph))) for graph in graphs}
    assert len(keys) == 1
    found, stats = _batch(graphs)
    for index, source in enumerate(sources):
        assert_image_equal(found[index], PILImageOps.invert(source))
    assert stats["dispatch_calls"] == 1


def test_a_failing_job_inside_a_run_leaves_the_others_exact(
    device: SharedDevice, tmp_path: Path
) -> None:
    lazy, pil = CHAINS["median3"]
    sources = [make_image("RGB", (24, 16), seed) for seed in range(4)]
    whole = tmp_path / "whole.png"
    sources[0].save(whole)
    truncated = tmp_path / "truncated.png"
    truncated.write_bytes(whole.read_bytes()[: whole.stat().st_size * 3 // 5])
    graphs = [lazy(Image.from_pil(source)) for source in sources]
    graphs.insert(2, lazy(Image.open(truncated)))
    found, stats = _batch(graphs, errors="deliver")
    calls = stats["dispatch_calls"]
    assert isinstance(found[2], BatchFailure)
    assert found[2].kind == "Decode"
    for index, source in zip((0, 1, 3, 4), sources, strict=True):
        assert_image_equal(found[index], pil(source))
    assert calls == 1  # the four decodable jobs still form one stack


def test_runs_are_split_at_the_stack_bound(
    device: SharedDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    lazy, pil = CHAINS["invert_median3"]
    sources = [make_image("RGBA", (16, 16), seed) for seed in range(5)]
    lane = plan_graph(lazy(Image.from_pil(sources[0]))).program.image_bytes()
    monkeypatch.setattr(_stack, "STACK_BYTES", 2 * lane)
    found, stats = _batch([lazy(Image.from_pil(source)) for source in sources])
    calls = stats["dispatch_calls"]
    for index, source in enumerate(sources):
        assert_image_equal(found[index], pil(source))
    assert calls == 3  # stacks of 2, 2 and 1


@pytest.mark.parametrize("chain", ["invert_median3", "gaussian2", "transpose_invert"])
def test_a_partial_run_dispatches_its_lanes_alone(device: SharedDevice, chain: str) -> None:
    # Encoding only some lanes of a stack (the executor's per-job retry after a failed
    # recording) runs each of them over its own ranges.
    lazy, pil = CHAINS[chain]
    sources = [make_image("L", (12, 10), seed) for seed in range(3)]
    plans = [plan_graph(lazy(Image.from_pil(source))) for source in sources]
    assert _stack.allocate_together(plans, device) == []
    assert plans[0]._slot is plans[2]._slot
    staging = device.device.create_buffer(
        size=2 * plans[0].staging_nbytes,
        usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST,
    )
    encoder = device.device.create_command_encoder()
    chosen = (plans[2], plans[0])
    _stack.encode_together(
        encoder, [(plan, staging, k * plan.staging_nbytes) for k, plan in enumerate(chosen)]
    )
    device.queue.submit([encoder.finish()])
    staging.map_sync(wgpu.MapMode.READ)
    try:
        stride = plans[0].staging_nbytes
        mapped = staging.read_mapped(copy=True)
        images = [plan.build(mapped[k * stride :]) for k, plan in enumerate(chosen)]
    finally:
        staging.unmap()
        staging.destroy()
        for plan in plans:
            plan.release()
    assert_image_equal(images[0], pil(sources[2]))
    assert_image_equal(images[1], pil(sources[0]))


def test_the_slot_goes_to_the_pool_with_its_last_lane(device: SharedDevice) -> None:
    sources = [make_image("L", (8, 8), seed) for seed in (1, 2)]
    plans = [plan_graph(ImageChops.invert(Image.from_pil(source))) for source in sources]
    assert _stack.allocate_together(plans, device) == []
    slot, key = plans[0]._slot, plans[0]._key
    plans[0].release()
    assert device.slots.take(key) is None  # lane 1 still holds it
    plans[1].release()
    assert device.slots.take(key) is slot
    device.slots.give(key, slot)


def test_every_lane_aware_kernel_offsets_by_lane_and_no_other_does() -> None:
    kernels = resources.files("pillow_gpu.gpu.kernels")
    shaders = sorted(path.name[:-5] for path in kernels.iterdir() if path.name.endswith(".wgsl"))
    for shader in shaders:
        source = shader_source(shader)  # includes spliced in (stacked.wgsli, rank_lanes.wgsli)
        lane_aware = bool(re.search(r"@builtin\(num_workgroups\)", source))
        assert lane_aware == (shader in _stack.STACKED_SHADERS), shader
        if lane_aware:
            assert "lane_start(arrayLength(&" in source, shader
            assert source.count("override STACKED: u32 = 0u;") == 1, shader
