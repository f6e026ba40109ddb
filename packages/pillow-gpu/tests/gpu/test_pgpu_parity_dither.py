"""GPU parity of Floyd-Steinberg dithering (``kernels.dither``): Pillow's default for
``convert("1")`` and ``convert("P")``.

The kernel runs an image's rows as a wavefront, ROWS (16, 64 or 256) rows of a workgroup at
once, and splits tall images into dispatches that hand the error line on. The shapes below
cross each of those edges: one row or column, the workgroup sizes and one past them, widths
below and above two rows' lead (the wavefront's period is max(width + 1, 2 ROWS)), and images
split into several dispatches, with Pillow's own budget and with a tiny one. The contents
saturate the error terms (stripes of 0 and 255, the 128 threshold, ramps) as well as noise.
Every result equals live Pillow's bytes (and palette and info, for P).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import _stack, evaluate, plan_graph
from pillow_gpu.gpu.kernels import dither

pytestmark = pytest.mark.usefixtures("device")

#: name -> (source mode, target mode)
KINDS = {"L->1": ("L", "1"), "RGB->1": ("RGB", "1"), "RGB->P": ("RGB", "P")}
SHAPES = ((1, 1), (1, 300), (300, 1), (2, 2), (31, 17), (64, 257), (513, 65), (1500, 40))


def _content(kind: str, size: tuple[int, int], seed: int) -> np.ndarray:
    """(height, width, 4) bytes of one of the contents below."""
    width, height = size
    rng = np.random.default_rng(seed + 31 * width + height)
    if kind == "noise":
        return rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
    x = np.arange(width)[None, :, None]
    y = np.arange(height)[:, None, None]
    if kind == "ramp":
        values = (x * 7 + y * 3 + np.arange(4) * 50) % 256
    elif kind == "stripes":  # 0 and 255 columns and rows: the largest errors
        values = np.where((x // 2 + y) % 2 == 0, 0, 255) + 0 * np.arange(4)
    else:  # "threshold": 128 and its neighbours, where > 128 decides
        values = 127 + (x + 2 * y + np.arange(4)) % 3
    return np.broadcast_to(values, (height, width, 4)).astype(np.uint8)


def _source(mode: str, quads: np.ndarray) -> PILImage.Image:
    size = (quads.shape[1], quads.shape[0])
    if mode == "L":
        return PILImage.frombytes("L", size, np.ascontiguousarray(quads[..., 0]).tobytes())
    return PILImage.frombytes(mode, size, quads.tobytes(), "raw", "RGBX" if mode == "RGB" else mode)


def _assert_same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    assert (actual.mode, actual.size) == (expected.mode, expected.size)
    got, want = (
        np.frombuffer(im.tobytes("raw", "L") if im.mode == "1" else im.tobytes(), np.uint8)
        for im in (actual, expected)
    )
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, f"{wrong.size} of {want.size} pixels differ, first at {wrong[:5]}"
    assert actual.info == expected.info
    if expected.mode == "P":
        assert actual.getpalette() == expected.getpalette()


def _dispatches(lazy: Any) -> int:
    return sum(d.shader == "dither" for d in plan_graph(lazy).program.dispatches)


@pytest.mark.parametrize("content", ["noise", "ramp", "stripes", "threshold"])
@pytest.mark.parametrize("size", SHAPES, ids=[f"{w}x{h}" for w, h in SHAPES])
@pytest.mark.parametrize("kind", list(KINDS))
def test_dithered_exact(kind: str, size: tuple[int, int], content: str) -> None:
    mode, target = KINDS[kind]
    image = _source(mode, _content(content, size, seed=1))
    lazy = Image.from_pil(image).convert(target)
    assert _dispatches(lazy) == 1
    _assert_same(evaluate(lazy), image.convert(target))


@pytest.mark.parametrize("kind", list(KINDS))
def test_tall_image_splits_into_dispatches_that_carry_the_error_line(kind: str) -> None:
    # 4000 columns: a dispatch holds three rounds of 256 rows within the step budget.
    mode, target = KINDS[kind]
    image = _source(mode, _content("noise", (4000, 800), seed=2))
    lazy = Image.from_pil(image).convert(target)
    assert _dispatches(lazy) == 2
    _assert_same(evaluate(lazy), image.convert(target))


#: (size, workgroup rows, step budget): one round of rows per dispatch; several rounds per
#: dispatch with the width above two rows' lead (period width + 1) and below it (period
#: 2 ROWS, so rows of a dispatch idle between rounds).
SPLITS = [((17, 90), 4, 8), ((19, 91), 4, 200), ((5, 301), 16, 200), ((40, 33), 16, 8)]


SPLIT_IDS = [f"{w}x{h}-rows{r}-budget{b}" for (w, h), r, b in SPLITS]


@pytest.mark.parametrize(("size", "rows", "budget"), SPLITS, ids=SPLIT_IDS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_many_dispatches_equal_one(
    kind: str, size: tuple[int, int], rows: int, budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Smaller workgroups and budgets than the kernel picks for these sizes (the sizes are used
    # by no other test, so no plan made with the defaults is reused from the plan cache).
    monkeypatch.setattr(dither, "_ROWS", (rows,))
    monkeypatch.setattr(dither, "STEP_BUDGET", budget)
    mode, target = KINDS[kind]
    image = _source(mode, _content("noise", size, seed=3))
    lazy = Image.from_pil(image).convert(target)
    width, height = size
    period = max(width + 1, 2 * rows)
    rounds = max(1, (budget - width - 1 - 2 * (rows - 1)) // period + 1)
    assert _dispatches(lazy) == -(-height // (rounds * rows)) > 1
    _assert_same(evaluate(lazy), image.convert(target))


#: Sources that reach the kernel through Pillow's other steps, with their dithered targets.
ROUTES: dict[str, tuple[Callable[[], PILImage.Image], str]] = {
    "LA->1": (lambda: _source("RGBA", _content("noise", (33, 20), 4)).convert("LA"), "1"),
    "RGBA->1": (lambda: _source("RGBA", _content("noise", (33, 20), 4)), "1"),
    "RGBX->P": (lambda: _source("RGBX", _content("noise", (33, 20), 4)), "P"),
    "RGBa->P": (lambda: _source("RGBa", _content("noise", (33, 20), 4)), "P"),
    "CMYK->P": (lambda: _source("CMYK", _content("noise", (33, 20), 4)), "P"),
    "YCbCr->1": (lambda: _source("RGB", _content("ramp", (33, 20), 4)).convert("YCbCr"), "1"),
    "HSV->P": (lambda: _source("RGB", _content("noise", (33, 20), 4)).convert("HSV"), "P"),
    "RGB->PA": (lambda: _source("RGB", _content("noise", (33, 20), 4)), "PA"),
    "I->1": (
        lambda: PILImage.fromarray(
            np.random.default_rng(5).integers(-300, 600, (20, 33), dtype=np.int32), "I"
        ),
        "1",
    ),
    "I;16->1": (
        lambda: PILImage.frombytes(
            "I;16", (33, 20), np.random.default_rng(6).integers(0, 400, 660, np.uint16).tobytes()
        ),
        "1",
    ),
    "F->1": (
        lambda: PILImage.fromarray(
            np.random.default_rng(7).uniform(-50, 300, (20, 33)).astype(np.float32), "F"
        ),
        "1",
    ),
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_other_sources_dither_as_pillow_converts_them(route: str) -> None:
    make, target = ROUTES[route]
    image = make()
    lazy = Image.from_pil(image).convert(target)
    assert _dispatches(lazy) == 1
    _assert_same(evaluate(lazy), image.convert(target))


CHAINS: dict[str, Callable[[Any], Any]] = {
    "1-to-L-resized": lambda im: im.convert("1").convert("L").resize((20, 9)),
    "P-rotated-to-RGB": lambda im: im.convert("P").rotate(90, expand=True).convert("RGB"),
    "gray-then-dither": lambda im: im.convert("L").convert("1"),
    "thumbnail-then-dither": lambda im: im.resize((30, 17)).convert("P"),
}


@pytest.mark.parametrize("chain", list(CHAINS))
def test_dithered_results_chain_with_other_gpu_work(chain: str) -> None:
    image = _source("RGB", _content("noise", (41, 23), seed=8))
    lazy = CHAINS[chain](Image.from_pil(image))
    _assert_same(evaluate(lazy), CHAINS[chain](image))


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_stack_of_same_shaped_jobs_dithers_each_lane_alone(kind: str) -> None:
    mode, target = KINDS[kind]
    sources = [_source(mode, _content("noise", (23, 19), seed)) for seed in range(5)]
    program = plan_graph(Image.from_pil(sources[0]).convert(target)).program
    assert all(_stack._stacked(program, dispatch) for dispatch in program.dispatches)
    executor = GpuBatchExecutor(max_jobs=8, max_in_flight=1)
    try:
        jobs = [(key, Image.from_pil(source).convert(target)) for key, source in enumerate(sources)]
        found = {item.input_key: item.image for item in executor.run(jobs)}
        stats = dict(executor.stats)
    finally:
        executor.close()
    assert stats["submissions"] == 1
    assert stats["dispatch_calls"] == len(program.dispatches)
    for index, source in enumerate(sources):
        _assert_same(found[index], source.convert(target))


def test_rows_longer_than_the_kernel_takes_are_refused_with_the_fix() -> None:
    # A dispatch's steps grow with the row length whatever the adapter (each row is serial).
    image = _source("L", _content("noise", (dither.MAX_WIDTH + 1, 2), seed=9))
    with pytest.raises(Unsupported, match="runs each row serially") as refused:
        plan_graph(Image.from_pil(image).convert("1"))
    assert "dither=Image.Dither.NONE" in refused.value.fix
    widest = _source("L", _content("noise", (dither.MAX_WIDTH, 2), seed=9))
    lazy = Image.from_pil(widest).convert("1")
    assert max(d.loop_steps for d in plan_graph(lazy).program.dispatches) <= 65_535
    _assert_same(evaluate(lazy), widest.convert("1"))


@pytest.mark.parametrize(
    ("size", "rows"), [((1, 300), 16), ((100, 300), 64), ((600, 300), 256), ((600, 40), 64)]
)
def test_workgroups_hold_the_rows_that_work_together(size: tuple[int, int], rows: int) -> None:
    # About (width + 1) / 2 rows are at work at once (each starts two steps after the one
    # above); a workgroup holds them, or the whole image when it has fewer rows.
    lazy = Image.from_pil(_source("L", _content("ramp", size, seed=0))).convert("1")
    pipelines = {d.pipeline for d in plan_graph(lazy).program.dispatches if d.shader == "dither"}
    assert pipelines == {f"dither?KIND=0&ROWS={rows}"}


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(list(KINDS)),
    width=st.integers(1, 90),
    height=st.integers(1, 90),
    content=st.sampled_from(["noise", "ramp", "stripes", "threshold"]),
    seed=st.integers(0, 2**16),
)
def test_any_shape_and_content_dithers_as_pillow(
    kind: str, width: int, height: int, content: str, seed: int
) -> None:
    mode, target = KINDS[kind]
    image = _source(mode, _content(content, (width, height), seed))
    _assert_same(evaluate(Image.from_pil(image).convert(target)), image.convert(target))
