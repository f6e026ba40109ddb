"""GPU parity for BILINEAR and BICUBIC transforms of the 16-bit modes (I;16, I;16L, I;16B).

Pillow picks a transform's filter by the source's storage, and the 2-byte modes keep 8-bit
rows: its 8-bit filters read pixel x of a row as the row's stored byte x and write one byte,
the output pixel's first stored byte, over ``Image.new``'s fill. So a 16-bit scan rotated with
BICUBIC is not a 16-bit interpolation, and the GPU route must give exactly those bytes: the L
route over the stored bytes (``kernels.wide16_bytes``). Sources are 16-bit noise (every byte
value in both bytes), odd and even widths; cases cover ``rotate`` (expand, centre and
translate), ``transform`` with AFFINE matrices, QUAD and PERSPECTIVE, fills whose two bytes
differ, a stacked batch through the executor and hypothesis rotations; the probe of live
Pillow is shown to fail on another behaviour.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.lowering import _platform

pytestmark = pytest.mark.usefixtures("device")

MODES = ("I;16", "I;16L", "I;16B")
FILTERS = [PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC]
FILTER_IDS = [f.name for f in FILTERS]
SIZES = ((1, 1), (2, 3), (17, 9), (40, 31))
#: None (0), one byte set, both bytes set and different (the kept byte shows).
FILLS: dict[str, int | None] = {"no-fill": None, "low": 7, "two-bytes": 0x12F4}


def _noise(mode: str, size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    rng = np.random.default_rng(seed * 1000 + size[0] * 37 + size[1])
    values = rng.integers(0, 65536, (size[1], size[0]))
    order = ">u2" if mode == "I;16B" else "<u2"
    return PILImage.frombytes(mode, size, values.astype(order).tobytes())


def _warps(size: tuple[int, int]) -> dict[str, Any]:
    """Transforms of a source of ``size`` (each a function of an image, a filter, a fill)."""
    w, h = size
    quad = (0.5, 0.25, -1.0, h + 1.5, w + 0.75, h - 0.5, w - 1.0, -1.25)
    tilt = (1.1, 0.1, -2.0, 0.05, 0.9, 1.0, 0.001, 0.002)
    return {
        "rotate-expand": lambda im, r, f: im.rotate(12.5, r, expand=True, fillcolor=f),
        "rotate-centre": lambda im, r, f: im.rotate(
            -33, r, center=(2, 3), translate=(1.5, -2), fillcolor=f
        ),
        "rotate-small": lambda im, r, f: im.rotate(0.001, r, fillcolor=f),
        "half-scale": lambda im, r, f: im.transform(
            (2 * w + 1, h), PILImage.Transform.AFFINE, (0.5, 0, 0, 0, 1, 0), r, fillcolor=f
        ),
        "shear": lambda im, r, f: im.transform(
            (w + 3, h + 2),
            PILImage.Transform.AFFINE,
            (1.3, 0.2, -3.7, -0.15, 0.9, 2.25),
            r,
            fillcolor=f,
        ),
        "quad": lambda im, r, f: im.transform(
            (w + 3, h + 1), PILImage.Transform.QUAD, quad, r, fillcolor=f
        ),
        "perspective": lambda im, r, f: im.transform(
            (w, h), PILImage.Transform.PERSPECTIVE, tilt, r, fillcolor=f
        ),
    }


WARP_NAMES = list(_warps((1, 1)))


@pytest.mark.parametrize("resample", FILTERS, ids=FILTER_IDS)
@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("warp", WARP_NAMES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_filtered_warps_match_pillow(
    mode: str, size: tuple[int, int], warp: str, fill: str, resample: int
) -> None:
    source = _noise(mode, size)
    transform = _warps(size)[warp]
    expected = transform(source, resample, FILLS[fill])
    assert_image_equal(evaluate(transform(Image.from_pil(source), resample, FILLS[fill])), expected)


@pytest.mark.parametrize("mode", MODES)
def test_a_stacked_batch_matches_pillow(mode: str) -> None:
    """Same-shaped jobs share one dispatch per kernel, a lane each."""
    sources = [_noise(mode, (23, 14), seed) for seed in range(6)]
    bicubic = PILImage.Resampling.BICUBIC
    jobs = [
        (i, Image.from_pil(s).rotate(7.5, bicubic, expand=True, fillcolor=0x0102 * i))
        for i, s in enumerate(sources)
    ]
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    for i, source in enumerate(sources):
        assert_image_equal(found[i], source.rotate(7.5, bicubic, expand=True, fillcolor=0x0102 * i))


@settings(max_examples=25, deadline=None)
@given(
    mode=st.sampled_from(MODES),
    angle=st.floats(-360, 360, allow_nan=False),
    center=st.tuples(st.floats(-4, 20), st.floats(-4, 20)),
    expand=st.booleans(),
    fill=st.none() | st.integers(0, 65535),
    resample=st.sampled_from(FILTERS),
)
def test_any_rotation_matches_pillow(
    mode: str,
    angle: float,
    center: tuple[float, float],
    expand: bool,
    fill: int | None,
    resample: int,
) -> None:
    source = _noise(mode, (13, 10))
    kwargs = {"center": center, "expand": expand, "fillcolor": fill}
    expected = source.rotate(angle, resample, **kwargs)
    assert_image_equal(evaluate(Image.from_pil(source).rotate(angle, resample, **kwargs)), expected)


def test_the_probe_of_live_pillow_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _platform.filters_16bit_bytes()
    # a replay that puts the result byte in the other half disagrees with live Pillow
    monkeypatch.setattr(
        _platform, "_first_bytes", lambda image, fill: (np.asarray(image).ravel() << 8).tolist()
    )
    assert not _platform.filters_16bit_bytes.__wrapped__()


def test_a_pillow_that_filters_otherwise_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from pillow_gpu.gpu.lowering import affine

    monkeypatch.setattr(affine, "filters_16bit_bytes", lambda: False)
    lazy = Image.from_pil(_noise("I;16", (9, 7))).rotate(30, PILImage.Resampling.BILINEAR)
    with pytest.raises(Unsupported) as refused:
        plan_graph(lazy)
    assert "stored bytes" in refused.value.why
    assert "to_pil()" in refused.value.fix
