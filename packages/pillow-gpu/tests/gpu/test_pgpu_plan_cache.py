"""The shape cache of plans: a hit equals a fresh ``plan_graph`` and runs Pillow's bytes; every
part of the key matters; uncacheable and refused graphs are planned every time."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.errors import GpuError, Limit, Unsupported
from pillow_gpu.gpu import _run, evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._plan import Plan
from pillow_gpu.gpu._plan_cache import PlanCache
from pillow_gpu.gpu._stack import slot_key

pytestmark = pytest.mark.usefixtures("device")


def _program_rows(plan: Plan) -> tuple[list[tuple[Any, ...]], list[Any]]:
    buffers = [(b.index, b.nbytes, b.role, b.data, b.name) for b in plan.program.buffers]
    return buffers, list(plan.program.dispatches)


def _facts(plan: Plan) -> tuple[Any, ...]:
    """Everything a Plan tells its users, its program included."""
    return (
        _program_rows(plan),
        [(u.buffer, u.node, u.nbytes) for u in plan.uploads],
        plan.root,
        plan.terminal,
        plan.terminal_nbytes,
        plan.host_bytes,
        plan.gpu_bytes,
        plan.staging_nbytes,
        plan.output_nbytes,
        plan.sources,
        plan.dispatch_count,
        plan.shader_work,
        plan.mode,
        plan.size,
        slot_key(plan),
        sorted(vars(plan)),  # a plan of a stored shape has every attribute a fresh one has
    )


def _gpu(device: SharedDevice, plan: Plan) -> PILImage.Image:
    try:
        return _run(device, plan)
    finally:
        plan.release()


# -- property: random chains planned twice, over different leaf pixels ----------------------

_KINDS = [
    "chops_invert",
    "invert",
    "transpose",
    "crop",
    "expand",
    "resize",
    "brightness",
    "box",
    "median",
    "kernel",
    "point",
    "blend_self",
    "contrast",
    "autocontrast",
    "rotate",
    "convert",
    "getchannel",
]
_FILTERS = [PILImage.Resampling.NEAREST, PILImage.Resampling.BILINEAR, PILImage.Resampling.LANCZOS]


@st.composite
def _step(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(_KINDS))
    arg: Any = None
    if kind == "transpose":
        arg = draw(st.sampled_from(list(PILImage.Transpose)))
    elif kind == "crop":
        x, y = draw(st.integers(-3, 3)), draw(st.integers(-3, 3))
        arg = (x, y, x + draw(st.integers(1, 10)), y + draw(st.integers(1, 10)))
    elif kind == "expand":
        arg = (draw(st.integers(0, 3)), draw(st.integers(0, 255)))
    elif kind == "resize":
        arg = (
            (draw(st.integers(1, 16)), draw(st.integers(1, 16))),
            draw(st.sampled_from(_FILTERS)),
        )
    elif kind in ("brightness", "box", "point", "blend_self", "contrast"):
        arg = draw(st.floats(-1 if kind in ("blend_self", "contrast") else 0, 3, allow_nan=False))
    elif kind == "median":
        arg = draw(st.sampled_from([1, 3, 5]))
    elif kind == "kernel":
        arg = PILImageFilter.Kernel((3, 3), [draw(st.integers(-3, 5)) for _ in range(9)], None)
    elif kind == "autocontrast":
        arg = draw(st.sampled_from([0, 2, (1, 10), 0.5]))
    elif kind == "rotate":
        arg = (draw(st.floats(-360, 360, allow_nan=False)), draw(st.booleans()))
    elif kind == "convert":
        arg = draw(st.sampled_from(["L", "LA", "RGB", "RGBA"]))
    elif kind == "getchannel":
        arg = draw(st.integers(0, 3))
    return kind, arg


def _apply(ours: bool, image: Any, step: tuple[str, Any]) -> Any:
    """Apply ``step`` with pillow_gpu (ours) or with live Pillow."""
    kind, arg = step
    ops, enhance = (ImageOps, ImageEnhance) if ours else (PILImageOps, PILImageEnhance)
    if kind == "chops_invert":
        return (ImageChops if ours else PILImageChops).invert(image)
    if kind in ("invert", "autocontrast") and image.mode not in ("L", "RGB"):
        return image  # Pillow's ImageOps tables apply to L and RGB only
    if kind == "invert":
        return ops.invert(image)
    if kind == "transpose":
        return image.transpose(arg)
    if kind == "crop":
        return image.crop(arg)
    if kind == "expand":
        return ops.expand(image, *arg)
    if kind == "resize":
        return image.resize(*arg)
    if kind == "brightness":
        return enhance.Brightness(image).enhance(arg)
    if kind == "contrast":
        return enhance.Contrast(image).enhance(arg)
    if kind == "box":
        return image.filter((ImageFilter if ours else PILImageFilter).BoxBlur(arg))
    if kind == "median":
        return image.filter((ImageFilter if ours else PILImageFilter).MedianFilter(arg))
    if kind == "kernel":
        return image.filter(arg)
    if kind == "point":  # a callable: tabulated when recorded on the 8-bit modes
        return image.point(lambda v: v * (arg - 1.5) + 30)
    if kind == "blend_self":
        chops = ImageChops if ours else PILImage
        return chops.blend(image, (ImageChops if ours else PILImageChops).invert(image), arg)
    if kind == "autocontrast":
        return ops.autocontrast(image, arg)
    if kind == "rotate":
        return image.rotate(arg[0], expand=arg[1])
    if kind == "convert":
        return image.convert(arg)
    return image.getchannel(arg % len(image.getbands()))


_Chain = tuple[str, tuple[int, int], tuple[int, int], list[tuple[str, Any]]]


@st.composite
def _chains(draw: st.DrawFn) -> _Chain:
    mode = draw(st.sampled_from(MODES))
    size = (draw(st.integers(1, 20)), draw(st.integers(1, 20)))
    first = draw(st.integers(0, 1000))
    seeds = (first, draw(st.integers(0, 1000).filter(lambda s: s != first)))
    return mode, size, seeds, draw(st.lists(_step(), min_size=1, max_size=4))


def _build(ours: bool, source: PILImage.Image, steps: list[tuple[str, Any]]) -> Any:
    return _steps(ours, Image.from_pil(source) if ours else source, steps)


def _steps(ours: bool, image: Any, steps: list[tuple[str, Any]]) -> Any:
    for step in steps:
        image = _apply(ours, image, step)
    return image


@settings(max_examples=30, deadline=None, derandomize=True)
@given(_chains())
def test_cached_plan_equals_a_fresh_plan_and_pillow(device: SharedDevice, chain: _Chain) -> None:
    mode, size, seeds, steps = chain
    cache = PlanCache()
    sources = [make_image(mode, size, seed) for seed in seeds]
    first, second = (_build(True, source, steps) for source in sources)
    try:
        planned = cache.plan(first, limits=device.limits)
    except GpuError as error:  # refused: refused again, and never stored
        with pytest.raises(type(error)):
            cache.plan(second, limits=device.limits)
        assert (len(cache), cache.hits) == (0, 0)
        return
    planned.release()
    hit = cache.plan(second, limits=device.limits)
    assert (cache.hits, cache.misses, cache.uncacheable) == (1, 1, 0)
    assert hit.program is planned.program
    fresh = plan_graph(second, limits=device.limits)
    assert _facts(hit) == _facts(fresh)
    before = _program_rows(hit)
    assert_image_equal(_gpu(device, hit), _build(False, sources[1], steps))
    assert _program_rows(planned) == before  # running a plan leaves its program unchanged


# -- every part of the key matters: each pair plans twice (a miss), both exact --------------

_L = make_image("L", (21, 13), seed=1)
_L2 = make_image("L", (21, 13), seed=2)
_RGBA = make_image("RGBA", (21, 13), seed=3)


def _with_info(image: PILImage.Image, **info: Any) -> PILImage.Image:
    copy = image.copy()
    copy.info.update(info)
    return copy


def _brightness(factor: float) -> Callable[[bool], Any]:
    def build(ours: bool) -> Any:
        if ours:
            return ImageEnhance.Brightness(Image.from_pil(_RGBA)).enhance(factor)
        return PILImageEnhance.Brightness(_RGBA).enhance(factor)

    return build


def _transparent(value: int) -> Callable[[bool], Any]:
    source = _with_info(_L, transparency=value)
    return lambda ours: (Image.from_pil(source) if ours else source).convert("RGBA")


def _sized(size: tuple[int, int]) -> Callable[[bool], Any]:
    source = make_image("RGB", size, seed=4)
    chops = (ImageChops, PILImageChops)
    return lambda ours: chops[not ours].invert(Image.from_pil(source) if ours else source)


def _blend(shared: bool) -> Callable[[bool], Any]:
    def build(ours: bool) -> Any:
        if ours:
            left = Image.from_pil(_L)
            right = left if shared else Image.from_pil(_L2)
            return ImageChops.blend(ImageChops.invert(left), right, 0.25)
        return PILImage.blend(PILImageChops.invert(_L), _L if shared else _L2, 0.25)

    return build


def _merged(repeat_second: bool) -> Callable[[bool], Any]:
    # walk order [a, invert(a), b, merge] either way: only the input positions differ
    def build(ours: bool) -> Any:
        image, chops, a = (
            (Image, ImageChops, Image.from_pil(_L)) if ours else (PILImage, PILImageChops, _L)
        )
        b = Image.from_pil(_L2) if ours else _L2
        return image.merge("RGB", [chops.invert(a), b if repeat_second else a, b])

    return build


def _completed(done: bool) -> Callable[[bool], Any]:
    def build(ours: bool) -> Any:
        if not ours:
            return PILImageChops.invert(_L).filter(PILImageFilter.MedianFilter(3))
        inverted = ImageChops.invert(Image.from_pil(_L))
        if done:
            evaluate(inverted)  # completed: uploaded as a leaf, its inputs not replayed
        return inverted.filter(ImageFilter.MedianFilter(3))

    return build


def _filtered(instance: Any) -> Callable[[bool], Any]:
    return lambda ours: (Image.from_pil(_L) if ours else _L).filter(instance)


def _cutoff(cutoff: Any) -> Callable[[bool], Any]:
    ops = (ImageOps, PILImageOps)
    return lambda ours: ops[not ours].autocontrast(Image.from_pil(_L) if ours else _L, cutoff)


MISSES = [
    pytest.param(_brightness(1.5), _brightness(1.25), id="brightness-1.5-vs-1.25"),
    pytest.param(_brightness(-0.0), _brightness(0.0), id="brightness-minus-zero-vs-zero"),
    pytest.param(_transparent(5), _transparent(7), id="info-transparency-5-vs-7"),
    pytest.param(_sized((21, 13)), _sized((13, 21)), id="size-21x13-vs-13x21"),
    pytest.param(_blend(True), _blend(False), id="diamond-shared-leaf-vs-two-leaves"),
    pytest.param(_merged(False), _merged(True), id="same-walk-other-input-positions"),
    pytest.param(_completed(False), _completed(True), id="intermediate-pending-vs-completed"),
    pytest.param(
        _filtered(PILImageFilter.MedianFilter(3)),
        _filtered(PILImageFilter.MaxFilter(3)),
        id="filter-median-vs-max",
    ),
    pytest.param(
        _filtered(PILImageFilter.BLUR),
        _filtered(PILImageFilter.SMOOTH),
        id="builtin-blur-vs-smooth",
    ),
    pytest.param(_cutoff(1), _cutoff(1.0), id="cutoff-int-vs-float"),
    pytest.param(
        _filtered(PILImageFilter.GaussianBlur(1)),
        _filtered(PILImageFilter.GaussianBlur(1.0)),
        id="filter-radius-int-vs-float",
    ),
    pytest.param(
        _filtered(PILImageFilter.GaussianBlur(-0.0)),
        _filtered(PILImageFilter.GaussianBlur(0.0)),
        id="filter-radius-minus-zero-vs-zero",
    ),
    pytest.param(
        _filtered(PILImageFilter.BoxBlur((1, 2))),
        _filtered(PILImageFilter.BoxBlur((1.0, 2))),
        id="filter-radii-int-vs-float-in-tuple",
    ),
    pytest.param(
        _filtered(PILImageFilter.BoxBlur((1, 2))),
        _filtered(PILImageFilter.BoxBlur([1, 2])),
        id="radii-tuple-vs-list",
    ),
]


@pytest.mark.parametrize(("first", "second"), MISSES)
def test_each_key_part_makes_a_miss(
    device: SharedDevice, first: Callable[[bool], Any], second: Callable[[bool], Any]
) -> None:
    cache = PlanCache()
    for build, misses in ((first, 1), (second, 2)):
        plan = cache.plan(build(True), limits=device.limits)
        assert (cache.hits, cache.misses, len(cache)) == (0, misses, misses)
        assert_image_equal(_gpu(device, plan), build(False))
    # and each shape, planned again over the same kind of graph, is a hit
    for build in (first, second):
        lazy = build(True)
        hit = cache.plan(lazy, limits=device.limits)
        assert _facts(hit) == _facts(plan_graph(lazy, limits=device.limits))
        assert_image_equal(_gpu(device, hit), build(False))
    assert cache.hits == 2


def test_limits_and_max_work_are_part_of_the_key(device: SharedDevice) -> None:
    cache = PlanCache()
    lazy = ImageChops.invert(Image.from_pil(_L)).filter(ImageFilter.MedianFilter(3))
    cache.plan(lazy, limits=device.limits).release()
    work = plan_graph(lazy).shader_work
    for _ in range(2):  # a stored shape never lets a refused graph through
        with pytest.raises(Unsupported, match="shader work"):
            cache.plan(lazy, limits=device.limits, max_work=work - 1)
        tiny = replace(device.limits, max_buffer_size=64)
        with pytest.raises(Limit, match="buffer or workgroup limits"):
            cache.plan(lazy, limits=tiny)
    assert (cache.hits, len(cache)) == (0, 1)
    cache.plan(lazy).release()  # limits=None is a shape of its own
    assert (cache.hits, cache.misses, len(cache)) == (0, 6, 2)


def test_a_refused_graph_is_refused_every_time() -> None:
    cache = PlanCache()
    for seed in range(3):
        lazy = Image.from_pil(make_image("L", (9, 9), seed)).resize(
            (4, 4), Image.Resampling.MKS2013
        )
        with pytest.raises(Unsupported, match="MKS2013"):
            plan_graph(lazy)
        with pytest.raises(Unsupported, match="MKS2013"):
            cache.plan(lazy)
    assert (cache.hits, cache.misses, len(cache)) == (0, 3, 0)


# -- uncacheable graphs fall back to plan_graph every time ----------------------------------


def _palette(ours: bool) -> Any:
    source = make_image("L", (17, 9)).convert("P")
    return (Image.from_pil(source) if ours else source).convert("RGB")


def _bilevel(ours: bool) -> Any:
    source = make_image("L", (17, 9)).convert("1")
    return (Image.from_pil(source) if ours else source).transpose(Image.Transpose.ROTATE_90)


def _nan_factor(ours: bool) -> Any:
    enhance = ImageEnhance if ours else PILImageEnhance
    return enhance.Brightness(Image.from_pil(_RGBA) if ours else _RGBA).enhance(float("nan"))


def _object_info(ours: bool) -> Any:
    source = _with_info(_L, transparency=object())  # the info entry planning reads
    return (ImageChops if ours else PILImageChops).invert(
        Image.from_pil(source) if ours else source
    )


UNCACHEABLE = [
    pytest.param(_palette, id="P-leaf-convert"),
    pytest.param(
        lambda ours: _bilevel(ours).convert("L"), id="1-leaf-transpose-convert"
    ),  # the 1 result is converted, as the GPU returns no mode 1 image
    pytest.param(_nan_factor, id="nan-brightness-factor"),
    pytest.param(_object_info, id="object-in-info-transparency"),
]


@pytest.mark.parametrize("build", UNCACHEABLE)
def test_uncacheable_graphs_are_planned_every_time(
    device: SharedDevice, build: Callable[[bool], Any]
) -> None:
    cache = PlanCache()
    for count in (1, 2):
        lazy = build(True)
        plan = cache.plan(lazy, limits=device.limits)
        assert (cache.uncacheable, cache.hits, cache.misses, len(cache)) == (count, 0, 0, 0)
        assert _facts(plan) == _facts(plan_graph(lazy, limits=device.limits))
        assert_image_equal(_gpu(device, plan), build(False))


def test_callable_point_is_tabulated_on_8_bit_modes_and_kept_on_wide_ones() -> None:
    cache = PlanCache()
    for seed in (1, 2):  # L: the callable became a table when recorded, so the shape repeats
        cache.plan(Image.from_pil(make_image("L", (8, 8), seed)).point(lambda v: 255 - v))
    assert (cache.hits, cache.misses, cache.uncacheable) == (1, 1, 0)
    wide = Image.from_pil(make_image("L", (8, 8)).convert("I")).point(lambda v: v * 2)
    for count in (1, 2):  # I: the callable itself is recorded (and no GPU route reads it)
        with pytest.raises(Unsupported, match="'point' on a mode I image"):
            cache.plan(wide)
        assert (cache.uncacheable, len(cache)) == (count, 1)


# -- info other than "transparency" is metadata: not in the key ---------------------------

#: Metadata real files carry, different from photo to photo, and an object no key can hold.
_METADATA: list[dict[str, Any]] = [
    {},
    {"exif": b"Exif\x00\x00MM\x00*first", "icc_profile": b"\x01" * 40, "dpi": (72.0, 72.0)},
    {"exif": b"Exif\x00\x00II*\x00second", "xmp": b"<x:xmpmeta/>", "dpi": (300, 300)},
    {"comment": b"scanned", "Software": "GIMP 2.10", "gamma": 0.45455, "duration": 40},
    {"timestamp": 120, "loop": 0, "jfif_density": (1, 1), "marker": object()},
]


def _same_program_whatever_the_metadata(
    device: SharedDevice, mode: str, size: tuple[int, int], build: Callable[[Any], Any]
) -> None:
    """``build`` (a lazy graph from a lazy source) plans to the same program over a source
    carrying each of :data:`_METADATA`, or is refused with each (by the planner, or by
    Pillow where it has no such conversion)."""
    plans, refusals = [], []
    for info in _METADATA:
        source = _with_info(make_image(mode, size, seed=5), **info)
        try:
            plans.append(plan_graph(build(Image.from_pil(source)), limits=device.limits))
        except (GpuError, ValueError) as error:  # the GPU's refusal, or Pillow's own
            refusals.append(f"{info}: {error}")
    assert not plans or not refusals, f"refused with some metadata only: {refusals}"
    for plan in plans[1:]:
        assert _program_rows(plan) == _program_rows(plans[0])
        assert (plan.terminal_nbytes, plan.staging_nbytes, plan.output_nbytes, slot_key(plan)) == (
            plans[0].terminal_nbytes,
            plans[0].staging_nbytes,
            plans[0].output_nbytes,
            slot_key(plans[0]),
        )
    for plan in plans:
        plan.release()


@settings(max_examples=30, deadline=None, derandomize=True)
@given(_chains())
def test_a_program_does_not_depend_on_metadata(device: SharedDevice, chain: _Chain) -> None:
    mode, size, _, steps = chain
    _same_program_whatever_the_metadata(
        device, mode, size, lambda image: _steps(True, image, steps)
    )


_TARGETS = ["L", "LA", "RGB", "RGBA", "CMYK", "RGBX", "YCbCr", "HSV", "La", "RGBa", "I", "P"]


@pytest.mark.parametrize("target", _TARGETS)
@pytest.mark.parametrize("mode", MODES)
def test_a_conversion_does_not_depend_on_metadata(
    device: SharedDevice, mode: str, target: str
) -> None:
    # conversions are the routes that read info (its "transparency")
    _same_program_whatever_the_metadata(device, mode, (7, 5), lambda image: image.convert(target))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_graphs_differing_only_in_metadata_share_a_plan_and_keep_their_own_info(
    device: SharedDevice, mode: str
) -> None:
    cache = PlanCache()
    for index, info in enumerate(_METADATA):
        source = _with_info(make_image(mode, (19, 13), seed=index), **info)
        lazy = ImageOps.expand(Image.from_pil(source), 2, fill=7).rotate(90)
        plan = cache.plan(lazy, limits=device.limits)
        assert (cache.hits, cache.misses) == (index, 1)
        assert _facts(plan) == _facts(plan_graph(lazy, limits=device.limits))
        result = _gpu(device, plan)
        expected = PILImageOps.expand(source, 2, fill=7).rotate(90)
        assert_image_equal(result, expected)
        assert result.info == expected.info


def test_opened_photos_with_their_own_exif_plan_once_in_a_batch(tmp_path: Any) -> None:
    from pillow_gpu import GpuBatchExecutor
    from pillow_gpu.gpu._plan_cache import SHARED_PLAN_CACHE

    paths = []
    for index in range(12):
        exif = PILImage.Exif()
        exif[0x0132] = f"2026:12:07 10:{index:02d}:00"  # DateTime: each photo its own
        exif[0x010F] = "Camera"
        path = tmp_path / f"photo-{index}.jpg"
        make_image("RGB", (40, 30), seed=index).save(path, quality=90, exif=exif.tobytes())
        paths.append(path)
    misses = SHARED_PLAN_CACHE.misses
    jobs = ((str(path), ImageOps.invert(Image.open(path)).resize((20, 15))) for path in paths)
    with GpuBatchExecutor() as executor:
        results = {result.input_key: result.image for result in executor.run(jobs)}
    assert SHARED_PLAN_CACHE.misses - misses <= 1  # one shape (none if planned before)
    for path in paths:
        with PILImage.open(path) as pillow:
            expected = PILImageOps.invert(pillow).resize((20, 15))
        assert_image_equal(results[str(path)], expected)
        assert results[str(path)].info == expected.info


# -- host reservations are this graph's, the cache is bounded and thread-safe ---------------


def test_a_hit_charges_its_own_encoded_bytes() -> None:
    cache = PlanCache()
    files = []
    for source in (make_image("RGB", (23, 11)), PILImage.new("RGB", (23, 11), (1, 2, 3))):
        buffer = io.BytesIO()
        source.save(buffer, "PNG")  # random pixels compress far less than a flat image
        files.append(ImageChops.invert(Image.open(io.BytesIO(buffer.getvalue()))))
    first, second = (cache.plan(lazy) for lazy in files)
    assert cache.hits == 1
    assert first.host_bytes != second.host_bytes  # different encoded sizes
    assert _facts(second) == _facts(plan_graph(files[1]))
    assert second.sources == (files[1].node.inputs[0],)


def test_the_cache_keeps_at_most_max_shapes_and_max_bytes() -> None:
    cache = PlanCache(max_shapes=2)
    graphs = [
        Image.from_pil(make_image("L", (size, 4))).filter(ImageFilter.BoxBlur(1))
        for size in (3, 4, 5)
    ]
    for lazy in graphs:
        cache.plan(lazy)
    assert len(cache) == 2
    cache.plan(graphs[0])  # the oldest shape was evicted
    assert (cache.hits, cache.misses) == (0, 4)
    cache.plan(graphs[0])
    assert cache.hits == 1
    small = PlanCache(max_bytes=64)  # no program fits: nothing is stored
    small.plan(graphs[0])
    small.plan(graphs[0])
    assert (len(small), small.hits, small.nbytes) == (0, 0, 0)


def test_threads_planning_one_shape_get_their_own_exact_plans(device: SharedDevice) -> None:
    cache = PlanCache()
    sources = [make_image("RGB", (15, 9), seed) for seed in range(16)]
    graphs = [
        ImageChops.invert(Image.from_pil(s)).filter(ImageFilter.MedianFilter(3)) for s in sources
    ]
    plans: dict[int, Plan] = {}

    def worker(index: int) -> None:
        for i in range(index, len(graphs), 4):
            plans[i] = cache.plan(graphs[i], limits=device.limits)

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.hits + cache.misses == 16
    assert cache.hits >= 12
    for i, source in enumerate(sources):
        assert _facts(plans[i]) == _facts(plan_graph(graphs[i], limits=device.limits))
        expected = PILImageChops.invert(source).filter(PILImageFilter.MedianFilter(3))
        assert_image_equal(_gpu(device, plans[i]), expected)
