"""GPU parity for ``Image.rotate`` and ``Image.transform(AFFINE)`` with NEAREST.

Pillow's NEAREST affine has an integer-exact 16.16 fixed-point path and a scale path with
index tables; both are checked against live Pillow here, through ``gpu.evaluate`` and
``GpuBatchExecutor.run``. The double-precision fallback and the other transform methods are
rejected at admission (the CPU path still replays them); BILINEAR, BICUBIC, QUAD and EXTENT
are in test_pgpu_parity_generic_transform.py.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import MODES, SIZES, assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu.lowering.affine import fixed_constants

pytestmark = pytest.mark.usefixtures("device")

AFFINE = PILImage.Transform.AFFINE
ROTATE_SIZES = (*SIZES, (320, 240))
ANGLES = (0, 90, 180, 270, 12.5, -33, 45, 123.4, 359.9)
PLACEMENTS: dict[str, dict[str, Any]] = {
    "centred": {},
    "center-3-4": {"center": (3, 4)},
    "center-and-translate": {"center": (0.5, 7.25), "translate": (-4, 1)},
}
FILLS: dict[str, Any] = {"no-fill": None, "red": "red", "tuple": (9, 80, 160)}


def _fill(mode: str, fill: Any) -> Any:
    # A tuple colour must fit the mode's bands (L takes an int; LA a pair).
    if isinstance(fill, tuple) and mode == "L":
        return fill[0]
    if isinstance(fill, tuple) and mode == "LA":
        return fill[:2]
    return fill


@pytest.mark.parametrize("expand", [False, True], ids=["same-size", "expand"])
@pytest.mark.parametrize("angle", ANGLES, ids=[f"deg{a}" for a in ANGLES])
@pytest.mark.parametrize("size", ROTATE_SIZES, ids=[f"{w}x{h}" for w, h in ROTATE_SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_rotate(mode: str, size: tuple[int, int], angle: float, expand: bool) -> None:
    source = make_image(mode, size)
    lazy = Image.from_pil(source)
    large = size[0] * size[1] > 10_000
    cases = (
        [("centred", "no-fill"), ("center-and-translate", "red")]
        if large
        else [(placement, fill) for placement in PLACEMENTS for fill in FILLS]
    )
    for placement, fill in cases:
        kwargs = {**PLACEMENTS[placement], "fillcolor": _fill(mode, FILLS[fill])}
        expected = source.rotate(angle, expand=expand, **kwargs)
        result = lazy.rotate(angle, expand=expand, **kwargs)
        assert result.size == expected.size, (placement, fill)
        try:
            assert_image_equal(evaluate(result), expected)
        except AssertionError as error:
            raise AssertionError(f"{placement}, {fill}: {error}") from error


@pytest.mark.parametrize(
    ("angle", "expand", "op"),
    [
        (0, False, "pil"),
        (180, False, "transpose"),
        (90, True, "transpose"),
        (270, False, "transform"),
    ],
    ids=["zero-copy", "180-transpose", "90-expand-transpose", "270-non-square-affine"],
)
def test_rotate_records_pillows_shortcuts(angle: int, expand: bool, op: str) -> None:
    lazy = Image.from_pil(make_image("RGB", (5, 3)))
    assert lazy.rotate(angle, expand=expand).node.op == op
    assert lazy.rotate(angle, center=(1, 1)).node.op == "transform"  # no shortcut off-centre


def _matrices(count: int, seed: int) -> list[tuple[str, tuple[float, ...]]]:
    rng = random.Random(seed)
    kinds = ("scale", "shear", "general", "integer")
    out = []
    for i in range(count):
        kind = kinds[i % 4]
        if kind == "scale":  # a[1] == a[3] == 0: Pillow's ImagingScaleAffine
            data = (
                rng.uniform(-3, 3),
                0,
                rng.uniform(-30, 30),
                0,
                rng.uniform(-3, 3),
                rng.uniform(-30, 30),
            )
        elif kind == "shear":
            data = (
                rng.choice([0.5, 1, 2, 1 / 3]),
                rng.uniform(-1, 1),
                rng.randint(-5, 5),
                rng.uniform(-1, 1),
                rng.choice([0.5, 1, 1.25]),
                rng.randint(-5, 5),
            )
        elif kind == "general":
            data = tuple(rng.uniform(-2, 2) for _ in range(6))
        else:
            a, b, d, e = (float(rng.randint(-2, 2)) for _ in range(4))
            data = (a, b, rng.randint(-9, 9), d, e, rng.randint(-9, 9))  # ints as Pillow takes
        out.append((kind, data))
    return out


SCALES = {
    "third-walk": (1 / 3, 0, 0.1, 0, 0.7, -0.2),
    "upscale-7": (1 / 7, 0, 0, 0, 1 / 7, 0),
    "mirror-scale": (-1.5, 0, 19, 0, 1, 0),
    "integer-offsets": (2, 0, -3, 0, 1, 4),
    "zero-scale": (0, 0, 5.5, 0, 0, 2.5),
}


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", MODES)
def test_transform_affine_random_matrices(mode: str, size: tuple[int, int]) -> None:
    source = make_image(mode, size)
    lazy = Image.from_pil(source)
    rng = random.Random(7)
    cases = [*_matrices(24, seed=size[0] * 100 + size[1]), *SCALES.items()]
    for kind, data in cases:
        out = (rng.randint(1, 70), rng.randint(1, 40))
        fill = _fill(mode, rng.choice(list(FILLS.values())))
        expected = source.transform(out, AFFINE, data, fillcolor=fill)
        try:
            assert_image_equal(
                evaluate(lazy.transform(out, AFFINE, data, fillcolor=fill)), expected
            )
        except AssertionError as error:
            raise AssertionError(f"{kind} {data} -> {out}, fill {fill!r}: {error}") from error


def test_fixed_point_corner_bound() -> None:
    # Corners at |v| just under 32768 take the fixed-point path, where 16.16 values near 2**31
    # must wrap/shift exactly as Pillow's int arithmetic does.
    source = make_image("RGBA", (19, 17))
    for data in ((1, 0.001, 32700.5, 0, 1, 0), (-1, 0.25, 32760, 0.5, -1, -32700)):
        assert fixed_constants(data, (7, 5)) is not None  # Pillow's affine_fixed path
        expected = source.transform((7, 5), AFFINE, data)
        assert_image_equal(
            evaluate(Image.from_pil(source).transform((7, 5), AFFINE, data)), expected
        )


def test_executor_runs_rotations_like_pillow() -> None:
    sources = {mode: make_image(mode, (65, 33), seed=3) for mode in MODES}
    jobs, expected = [], {}
    for index, (mode, source) in enumerate(sources.items()):
        angle = (12.5, -33, 45, 123.4, 359.9, 270)[index]
        key = f"{mode}-{angle}"
        expected[key] = source.rotate(angle, expand=index % 2 == 0, fillcolor=_fill(mode, "red"))
        jobs.append(
            (
                key,
                Image.from_pil(source).rotate(
                    angle, expand=index % 2 == 0, fillcolor=_fill(mode, "red")
                ),
            )
        )
    expected["shear"] = sources["RGB"].transform((40, 30), AFFINE, (1, 0.3, -2, 0.2, 1, 1))
    jobs.append(
        (
            "shear",
            Image.from_pil(sources["RGB"]).transform((40, 30), AFFINE, (1, 0.3, -2, 0.2, 1, 1)),
        )
    )
    with GpuBatchExecutor() as executor:
        results = {result.input_key: result.image for result in executor.run(jobs)}
    for key, image in expected.items():
        assert_image_equal(results[key], image)


REJECTED = {
    "double-fallback": lambda im: im.transform((8, 8), AFFINE, (1, 0.5, 40000, 0, 1, 0)),
    "fix-overflow": lambda im: im.transform((1, 1), AFFINE, (60000, 0.5, -30000, 0, 1, 0)),
    "mesh": lambda im: im.transform(
        (8, 8), PILImage.Transform.MESH, [((0, 0, 8, 8), (0, 0, 0, 8, 8, 8, 8, 0))]
    ),
}


@pytest.mark.parametrize("build", list(REJECTED.values()), ids=list(REJECTED))
def test_unproven_transforms_are_rejected_with_reason(build: Any) -> None:
    source = make_image("RGB", (12, 9))
    lazy = build(Image.from_pil(source))
    with pytest.raises(Unsupported) as caught:
        plan_graph(lazy)
    error = caught.value
    assert error.stage == "admission"
    assert error.why
    assert "transform" in error.observed
    assert error.fix
    assert_image_equal(lazy.to_pil(), build(source))  # the CPU path replays Pillow
