"""GPU parity for resize with BOX, BILINEAR, HAMMING, BICUBIC and LANCZOS (resample kernel)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import _run as run_plan
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._layout import terminal_nbytes
from pillow_gpu.gpu._plan import Plan, record_terminal, record_upload
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import premultiply
from pillow_gpu.gpu.kernels.resample import BLOCK, blocked_windows
from pillow_gpu.gpu.kernels.resample_coeffs import precompute

pytestmark = pytest.mark.usefixtures("device")

R = PILImage.Resampling
FILTERS = [R.BOX, R.BILINEAR, R.HAMMING, R.BICUBIC, R.LANCZOS]
SOURCES = [*SIZES, (640, 480)]
_Size = tuple[int, int]
# target size from the source size: upscale, non-integer and integer downscale, 1xN, same
TARGETS = {
    "up": lambda w, h: (2 * w + 1, h * 3 // 2 + 1),
    "down-fractional": lambda w, h: (max(1, w * 2 // 3), max(1, h * 3 // 5)),
    "down-integer": lambda w, h: (max(1, w // 4 if w % 4 == 0 else w // 2), max(1, h // 2)),
    "1xN": lambda w, h: (1, h + 5),
    "same": lambda w, h: (w, h),
}


def _fractional_box(w: int, h: int) -> tuple[float, float, float, float]:
    return (w * 0.13 + 0.1, h * 0.21, w * 0.87, h * 0.93 - 0.05)


def _check(mode: str, src: _Size, size: _Size, method: int, box: object) -> None:
    source = make_image(mode, src)
    expected = source.resize(size, method, box)  # type: ignore[arg-type]
    lazy = Image.from_pil(source).resize(size, method, box)  # type: ignore[arg-type]
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("boxed", [False, True], ids=["whole", "fractional-box"])
@pytest.mark.parametrize("method", FILTERS, ids=[f.name for f in FILTERS])
@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("src", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_resize_matches_pillow(
    mode: str, src: _Size, target: str, method: int, boxed: bool
) -> None:
    box = _fractional_box(*src) if boxed else None
    _check(mode, src, TARGETS[target](*src), method, box)


@pytest.mark.parametrize("boxed", [False, True], ids=["whole", "fractional-box"])
@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize(
    ("mode", "method"),
    [
        ("L", R.LANCZOS),
        ("RGB", R.BILINEAR),
        ("RGBA", R.BICUBIC),
        ("LA", R.BOX),
        ("CMYK", R.HAMMING),
    ],
    ids=["L-LANCZOS", "RGB-BILINEAR", "RGBA-BICUBIC", "LA-BOX", "CMYK-HAMMING"],
)
def test_resize_640x480_matches_pillow(mode: str, method: int, target: str, boxed: bool) -> None:
    box = _fractional_box(640, 480) if boxed else None
    _check(mode, (640, 480), TARGETS[target](640, 480), method, box)


# Live Pillow 13 runs the vertical pass first when ysize < in.ysize and
# 2 * (in.xsize - xsize) < in.ysize - ysize; the two sides of that boundary, and both-pass
# cases with boxes that need one pass only or none.
PASS_ORDER = {
    "h-first-at-boundary": ((16, 16), (12, 8), None),
    "v-first-past-boundary": ((16, 16), (13, 8), None),
    "v-first-upscale-x": ((33, 70), (56, 42), None),
    "h-first-upscale-y": ((8, 8), (16, 9), None),
    "v-first-with-box": ((40, 89), (56, 59), (20.1, 3.3, 40.0, 8.4)),
    "vertical-only-box": ((19, 17), (19, 9), (0, 2.5, 19, 15)),
    "horizontal-only-box": ((19, 17), (9, 17), (1.5, 0, 17.25, 17)),
    "no-pass-f32-zero-box": ((19, 17), (19, 17), (1e-46, 0, 19, 17)),
    "integer-box-same-size": ((19, 17), (5, 6), (2, 3, 7, 9)),
}


@pytest.mark.parametrize("case", list(PASS_ORDER.values()), ids=list(PASS_ORDER))
@pytest.mark.parametrize("method", [R.BILINEAR, R.LANCZOS], ids=["BILINEAR", "LANCZOS"])
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_pass_order_and_pass_selection(
    mode: str, method: int, case: tuple[_Size, _Size, object]
) -> None:
    _check(mode, case[0], case[1], method, case[2])


def _convert_on_gpu(
    device: SharedDevice, mode: str, pairs: PILImage.Image, *, unpremultiply: bool
) -> PILImage.Image:
    """Run only the premultiply kernel on ``pairs`` (stored as ``mode``)."""
    leaf = Image.from_pil(pairs).node
    program = Program()
    upload, working = record_upload(program, leaf)  # LA: Pillow's bytes, widened on the device
    out = premultiply.lower(program, working, leaf.size, mode, unpremultiply=unpremultiply)
    plan = Plan(
        root=leaf,
        program=program,
        uploads=(upload,),
        terminal=record_terminal(program, leaf, out),  # LA: packed back to Pillow's bytes
        terminal_nbytes=terminal_nbytes(mode, leaf.size),
        host_bytes=0,
    )
    try:
        return run_plan(device, plan)
    finally:
        plan.release()


@pytest.mark.parametrize("unpremultiply", [False, True], ids=["premultiply", "unpremultiply"])
@pytest.mark.parametrize("mode", ["LA", "RGBA"])
def test_premultiply_every_value_alpha_pair(
    device: SharedDevice, mode: str, unpremultiply: bool
) -> None:
    value, alpha = np.meshgrid(np.arange(256, dtype=np.uint8), np.arange(256, dtype=np.uint8))
    bands = [value, alpha] if mode == "LA" else [value, 255 - value, value // 3 + 7, alpha]
    pairs = np.stack(bands, axis=-1)
    premultiplied = {"LA": "La", "RGBA": "RGBa"}[mode]
    if unpremultiply:  # arbitrary premultiplied input, read back as the plain mode
        expected = PILImage.frombytes(premultiplied, (256, 256), pairs.tobytes()).convert(mode)
    else:
        expected_pm = PILImage.frombytes(mode, (256, 256), pairs.tobytes()).convert(premultiplied)
        expected = PILImage.frombytes(mode, (256, 256), expected_pm.tobytes())
    source = PILImage.frombytes(mode, (256, 256), pairs.tobytes())
    got = _convert_on_gpu(device, mode, source, unpremultiply=unpremultiply)
    assert_image_equal(got, expected)


@pytest.mark.parametrize(
    ("src", "size", "method", "match"),
    [
        ((8, 6), (4, 4), R.MKS2013, "MKS2013 is not proven"),
        ((8, 6), (4, 4), R.MKS2021, "MKS2021 is not proven"),
        ((1, 1), (4_000_000, 1), R.LANCZOS, "coefficient table"),
    ],
    ids=["MKS2013", "MKS2021", "table-over-bound"],
)
def test_unproven_filters_and_oversized_tables_are_unsupported(
    src: _Size, size: _Size, method: int, match: str
) -> None:
    with pytest.raises(Unsupported, match=match):
        plan_graph(Image.new("RGB", src).resize(size, method))


# Blocked windows (resample.wgsl) against the long-window kernel (resample_long.wgsl): a pass
# whose table fits one uniform binding runs as one dispatch, a longer one as several (chunks of
# blocks), and one whose block window outgrows the binding or needs more than MAX_CHUNKS
# dispatches falls back to resample_long.
WINDOW_LAYOUTS = {
    "one-dispatch": ((1024, 3), (256, 3), R.BICUBIC, {"resample": 1}),
    "chunked": ((4096, 2), (1024, 2), R.BICUBIC, {"resample": 2}),
    "long-window": ((4096, 2), (5, 2), R.BICUBIC, {"resample_long": 1}),
    "over-max-chunks": ((34_000, 1), (340, 1), R.BICUBIC, {"resample_long": 1}),
    "both-passes": ((300, 200), (37, 190), R.LANCZOS, {"resample": 2}),
}


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
@pytest.mark.parametrize("case", list(WINDOW_LAYOUTS.values()), ids=list(WINDOW_LAYOUTS))
def test_window_layouts_match_pillow(
    mode: str, case: tuple[_Size, _Size, int, dict[str, int]]
) -> None:
    src, size, method, kernels = case
    source = make_image(mode, src)
    lazy = Image.from_pil(source).resize(size, method)
    shaders = [dispatch.shader for dispatch in plan_graph(lazy).program.dispatches]
    assert {name: shaders.count(name) for name in kernels} == kernels
    assert not {"resample", "resample_long"} - set(kernels) & set(shaders)
    assert_image_equal(evaluate(lazy), source.resize(size, method))


@pytest.mark.parametrize(
    ("in_size", "out_size"),
    [(1024, 256), (7, 3), (640, 427), (5, 17), (4096, 5), (3, 1)],
    ids=["quarter", "tiny", "fractional", "up", "long", "to-one"],
)
@pytest.mark.parametrize("method", FILTERS, ids=[f.name for f in FILTERS])
def test_blocked_windows_weigh_each_input_as_pillow(
    method: int, in_size: int, out_size: int
) -> None:
    coefficients = precompute(method, in_size, 0.0, float(in_size), out_size)
    windows = blocked_windows(coefficients, shift=0)
    for output, (first, taps) in enumerate(coefficients.bounds):
        block, lane = divmod(output, BLOCK)
        start, count = windows.headers[block, :2]
        dense = np.zeros(in_size, dtype=np.int64)
        dense[start : start + count] = windows.weights[block, :count, lane]
        expected = np.zeros(in_size, dtype=np.int64)
        expected[first : first + taps] = coefficients.weights[output, :taps]
        np.testing.assert_array_equal(dense, expected, err_msg=f"output {output}")
    assert windows.span == windows.headers[:, 1].max()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    mode=st.sampled_from(["L", "RGB", "RGBA", "LA"]),
    src=st.tuples(st.integers(1, 300), st.integers(1, 300)),
    scale=st.tuples(st.floats(0.02, 3.0), st.floats(0.02, 3.0)),
    method=st.sampled_from(FILTERS),
    boxed=st.booleans(),
)
def test_random_resizes_match_pillow(
    mode: str,
    src: _Size,
    scale: tuple[float, float],
    method: int,
    boxed: bool,
) -> None:
    size = (max(1, round(src[0] * scale[0])), max(1, round(src[1] * scale[1])))
    _check(mode, src, size, method, _fractional_box(*src) if boxed else None)
