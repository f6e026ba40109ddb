"""GPU parity for PA images: uploads, copies, ``convert`` from PA to every mode Pillow converts
it to, ``convert("PA")`` where Pillow's result is a fixed table, ``exif_transpose`` of a PA TIFF
and the executor path.

Every admitted case runs the real kernels and compares mode, size, ``tobytes()``, ``info`` and
(P/PA results) the palette with live Pillow; every refusal is ``Unsupported`` with why and fix.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

ALL_MODES = (
    "1", "P", "L", "LA", "La", "RGB", "RGBA", "RGBa", "RGBX", "CMYK", "YCbCr", "HSV", "LAB",
    "I", "F", "I;16", "I;16B", "I;16L",
)  # fmt: skip
SIZES = ((1, 1), (5, 3), (37, 19))
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
#: Palettes: (rawmode, entries, info["transparency"]).
PALETTES = {
    "rgb256": ("RGB", 256, None),
    "rgb16": ("RGB", 16, None),
    "rgba256": ("RGBA", 256, None),
    "rgb256-trns-int": ("RGB", 256, 7),
    "rgba40-trns-bytes": ("RGBA", 40, bytes(range(0, 256, 8))),
}


def pa_image(size: tuple[int, int], palette: str = "rgb256", seed: int = 0) -> PILImage.Image:
    """A random PA image (every index, random alpha) with one of :data:`PALETTES`."""
    rawmode, entries, transparency = PALETTES[palette]
    rng = np.random.default_rng(seed)
    pixels = size[0] * size[1]
    pairs = np.stack(
        [
            rng.integers(0, 256, pixels, dtype=np.uint8),
            rng.integers(0, 256, pixels, dtype=np.uint8),
        ],
        axis=1,
    )
    image = PILImage.frombytes("PA", size, pairs.tobytes())
    data = rng.integers(0, 256, entries * len(rawmode), dtype=np.uint8).tobytes()
    image.putpalette(data, rawmode)
    if transparency is not None:
        image.info["transparency"] = transparency
    return image


def every_pair_image(palette: str = "rgba256") -> PILImage.Image:
    """A 256 x 256 PA image holding every (index, alpha) pair once."""
    image = pa_image((256, 256), palette)
    index = np.tile(np.arange(256, dtype=np.uint8), 256)
    alpha = np.repeat(np.arange(256, dtype=np.uint8), 256)
    image.im.paste(
        PILImage.frombytes("PA", (256, 256), np.stack([index, alpha], 1).tobytes()).im,
        (0, 0, 256, 256),
    )
    return image


def _expected(source: PILImage.Image, run: Callable[[PILImage.Image], PILImage.Image]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(source)


def assert_same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    """Pillow's bytes, info and (P, PA) palette."""
    assert_image_equal(actual, expected)
    if expected.mode in ("P", "PA"):
        assert actual.getpalette() == expected.getpalette()
    assert actual.info == expected.info


def _info_free(info: dict) -> dict:
    # LAB results carry a freshly stamped ICC profile; compare its presence only
    return {key: value for key, value in info.items() if key != "icc_profile"}


# -- convert from PA ------------------------------------------------------------------------
@pytest.mark.parametrize("target", ALL_MODES)
@pytest.mark.parametrize("palette", PALETTES)
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_convert_from_pa(size: tuple[int, int], palette: str, target: str) -> None:
    source = pa_image(size, palette)
    expected = _expected(source, lambda im: im.convert(target))
    actual = evaluate(Image.from_pil(source).convert(target))
    assert_image_equal(actual, expected)
    if target == "P":
        assert actual.getpalette() == expected.getpalette()
    assert _info_free(actual.info) == _info_free(expected.info)


@pytest.mark.parametrize("target", ALL_MODES)
@pytest.mark.parametrize("palette", ["rgba256", "rgb16"])
def test_convert_from_pa_every_index_and_alpha(palette: str, target: str) -> None:
    source = every_pair_image(palette)
    expected = _expected(source, lambda im: im.convert(target))
    assert_image_equal(evaluate(Image.from_pil(source).convert(target)), expected)


@pytest.mark.parametrize("dither", [None, PILImage.Dither.NONE], ids=["dither-default", "NONE"])
def test_convert_from_pa_to_bilevel_and_p_ignore_dither(dither: PILImage.Dither | None) -> None:
    source = pa_image((37, 19), "rgba256")
    for target in ("1", "P"):
        expected = _expected(source, lambda im, t=target: im.convert(t, dither=dither))
        assert_same(evaluate(Image.from_pil(source).convert(target, dither=dither)), expected)


def test_convert_from_pa_adaptive_raises_pillows_error() -> None:
    source = pa_image((5, 3))
    with pytest.raises(ValueError, match="wrong mode"):
        source.convert("P", palette=PILImage.Palette.ADAPTIVE)
    with pytest.raises(ValueError, match="wrong mode"):  # recorded as Pillow rejects it
        Image.from_pil(source).convert("P", palette=PILImage.Palette.ADAPTIVE)


# -- convert to PA --------------------------------------------------------------------------
def _p_image(palette: str, size: tuple[int, int] = (37, 19)) -> PILImage.Image:
    image = pa_image(size, palette).convert("P")
    image.info = {}
    transparency = PALETTES[palette][2]
    if transparency is not None:
        image.info["transparency"] = transparency
    return image


TO_PA_SOURCES = {
    **{f"P-{name}": (lambda name=name: _p_image(name)) for name in PALETTES},
    "L": lambda: make_image("L", (37, 19)),
    "LA": lambda: make_image("LA", (37, 19)),
    "1": lambda: make_image("L", (37, 19)).convert("1", dither=PILImage.Dither.NONE),
    # Any stored byte, as point() and the chops leave in a 1 image: Pillow reads non-zero as 255.
    "1-stored-bytes": lambda: make_image("L", (37, 19)).point(list(range(256)), "1"),
    **{
        mode: (lambda mode=mode: make_image("RGB", (37, 19)).convert(mode))
        for mode in ("RGB", "RGBX", "RGBa", "CMYK", "YCbCr", "HSV")
    },
    "I;16": lambda: PILImage.frombytes(
        "I;16", (37, 19), np.arange(0, 37 * 19 * 97, 97, dtype="<u2").tobytes()
    ),
    "I": lambda: make_image("L", (37, 19)).convert("I"),
    "F": lambda: make_image("L", (37, 19)).convert("F"),
}


@pytest.mark.parametrize("source_name", TO_PA_SOURCES)
def test_convert_to_pa_without_dither(source_name: str) -> None:
    source = TO_PA_SOURCES[source_name]()
    dither = PILImage.Dither.NONE
    expected = _expected(source, lambda im: im.convert("PA", dither=dither))
    assert_same(evaluate(Image.from_pil(source).convert("PA", dither=dither)), expected)


@pytest.mark.parametrize(
    "source_name", ["L", "LA", "1", "1-stored-bytes", "P-rgb256", "P-rgba40-trns-bytes"]
)
def test_convert_to_pa_default_dither_of_fixed_tables(source_name: str) -> None:
    source = TO_PA_SOURCES[source_name]()
    expected = _expected(source, lambda im: im.convert("PA"))
    assert_same(evaluate(Image.from_pil(source).convert("PA")), expected)


@pytest.mark.parametrize("mode", ["RGB", "CMYK"])
def test_convert_to_pa_floyd_steinberg(mode: str) -> None:
    source = make_image("RGB", (23, 14), seed=5).convert(mode)
    expected = _expected(source, lambda im: im.convert("PA"))
    assert_same(evaluate(Image.from_pil(source).convert("PA")), expected)


@pytest.mark.parametrize(
    ("mode", "dither", "reason"),
    [("RGBA", PILImage.Dither.NONE, "quantize"), ("RGBA", None, "quantize")],
    ids=["RGBA-NONE", "RGBA-default"],
)
def test_convert_to_pa_refusals(mode: str, dither: PILImage.Dither | None, reason: str) -> None:
    lazy = Image.from_pil(make_image("RGB", (5, 3)).convert(mode)).convert("PA", dither=dither)
    with pytest.raises(Unsupported, match=reason) as error:
        plan_graph(lazy)
    assert "fix:" in str(error.value)


# -- copies ---------------------------------------------------------------------------------
COPIES: dict[str, tuple[Callable[[Image.Image], Image.Image], Callable[..., PILImage.Image]]] = {
    **{
        f"transpose-{method.name}": (
            lambda im, m=method: im.transpose(m),
            lambda im, m=method: im.transpose(m),
        )
        for method in PILImage.Transpose
    },
    "crop": (lambda im: im.crop((1, -2, 30, 12)), lambda im: im.crop((1, -2, 30, 12))),
    "expand-index": (
        lambda im: ImageOps.expand(im, (2, 1, 3, 4), fill=9),
        lambda im: PILImageOps.expand(im, (2, 1, 3, 4), fill=9),
    ),
    "expand-index-alpha": (
        lambda im: ImageOps.expand(im, 2, fill=(9, 100)),
        lambda im: PILImageOps.expand(im, 2, fill=(9, 100)),
    ),
    "resize-nearest": (
        lambda im: im.resize((23, 41), PILImage.Resampling.NEAREST),
        lambda im: im.resize((23, 41), PILImage.Resampling.NEAREST),
    ),
    "rotate-30-nearest": (
        lambda im: im.rotate(30, expand=True),
        lambda im: im.rotate(30, expand=True),
    ),
    "transform-affine-fill-index-alpha": (
        lambda im: im.transform((20, 20), PILImage.Transform.AFFINE, (1, 0.5, -3, 0, 1, 2),
                                fillcolor=(3, 200)),
        lambda im: im.transform((20, 20), PILImage.Transform.AFFINE, (1, 0.5, -3, 0, 1, 2),
                                fillcolor=(3, 200)),
    ),
    "transform-quad-nearest-fill": (
        lambda im: im.transform((20, 15), PILImage.Transform.QUAD, (0, 0, 2, 22, 35, 20, 30, 1),
                                fillcolor=(3, 200)),
        lambda im: im.transform((20, 15), PILImage.Transform.QUAD, (0, 0, 2, 22, 35, 20, 30, 1),
                                fillcolor=(3, 200)),
    ),
    "transform-perspective-nearest": (
        lambda im: im.transform((20, 15), PILImage.Transform.PERSPECTIVE,
                                (1.1, 0.2, -1.0, 0.05, 0.9, 2.0, 0.004, -0.003)),
        lambda im: im.transform((20, 15), PILImage.Transform.PERSPECTIVE,
                                (1.1, 0.2, -1.0, 0.05, 0.9, 2.0, 0.004, -0.003)),
    ),
}  # fmt: skip


def _pasted(im: Image.Image | PILImage.Image) -> Image.Image | PILImage.Image:
    out = im.copy()
    out.paste(im.crop((0, 0, 10, 6)), (3, 4))
    out.putpixel((0, 0), 17)
    out.putpixel((2, 1), (40, 90))
    return out


COPIES["paste-putpixel"] = (_pasted, _pasted)  # type: ignore[assignment]


@pytest.mark.parametrize("then", ["PA", "RGBA", "L"])
@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("palette", ["rgb256", "rgba40-trns-bytes"])
def test_copies_of_pa(palette: str, copy: str, then: str) -> None:
    source = pa_image((37, 19), palette)
    lazy_op, pil_op = COPIES[copy]
    expected = pil_op(source)
    lazy = lazy_op(Image.from_pil(source))
    if then != "PA":
        expected, lazy = expected.convert(then), lazy.convert(then)
    assert_same(evaluate(lazy), expected)


@pytest.mark.parametrize(
    ("name", "build", "reason"),
    [
        ("resize-bilinear", lambda im: im.resize((9, 9), PILImage.Resampling.BILINEAR), "NEAREST"),
        ("expand-rgb-fill", lambda im: ImageOps.expand(im, 1, fill=(1, 2, 3)), "palette"),
        ("putpixel-rgb", lambda im: _putpixel(im, (1, 2, 3)), "palette"),
        ("reduce", lambda im: im.reduce(2), "PA images are admitted only"),
        ("crop-then-blur", lambda im: im.crop((0, 0, 4, 4)).reduce(2), "PA images are admitted"),
    ],
)
def test_other_operations_on_pa_are_refused(
    name: str, build: Callable[[Image.Image], Image.Image], reason: str
) -> None:
    # 16 entries: room for a colour (into a full palette whose pixels use every index,
    # Pillow's expand and putpixel raise ValueError themselves).
    lazy = build(Image.from_pil(pa_image((7, 5), "rgb16")))
    with pytest.raises(Unsupported, match=reason) as error:
        plan_graph(lazy)
    assert "fix:" in str(error.value), name


#: Interpolating transforms of PA: Pillow filters the (index, alpha) pairs as two bands (an La
#: image's filter, no premultiplication) and keeps the palette.
INTERPOLATED = {
    "rotate-expand": lambda im, r, f: im.rotate(30, r, expand=True, fillcolor=f),
    "quad": lambda im, r, f: im.transform(
        (20, 15), PILImage.Transform.QUAD, (0, 0, 2, 22, 35, 20, 30, 1), r, fillcolor=f
    ),
    "perspective": lambda im, r, f: im.transform(
        (20, 15),
        PILImage.Transform.PERSPECTIVE,
        (1.1, 0.2, -1.0, 0.05, 0.9, 2.0, 0.004, -0.003),
        r,
        fillcolor=f,
    ),
    "affine-stretch": lambda im, r, f: im.transform(
        (40, 20), PILImage.Transform.AFFINE, (0.5, 0.1, 0, 0, 1, 0), r, fillcolor=f
    ),
}


@pytest.mark.parametrize("fill", [None, 9, (3, 200)], ids=["no-fill", "index", "index-alpha"])
@pytest.mark.parametrize(
    "resample", [PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC], ids=["BL", "BC"]
)
@pytest.mark.parametrize("name", list(INTERPOLATED))
@pytest.mark.parametrize("palette", ["rgb256", "rgba40-trns-bytes"])
def test_interpolated_transforms_of_pa(
    palette: str, name: str, resample: int, fill: int | tuple[int, int] | None
) -> None:
    source = pa_image((37, 19), palette)
    warp = INTERPOLATED[name]
    expected = warp(source, resample, fill)
    assert_same(evaluate(warp(Image.from_pil(source), resample, fill)), expected)
    assert_same(evaluate(warp(Image.from_pil(source), resample, fill).convert("RGBA")),
                expected.convert("RGBA"))  # fmt: skip


def _putpixel(im: Image.Image, value: tuple[int, ...]) -> Image.Image:
    out = im.copy()
    out.putpixel((0, 0), value)
    return out


# -- files: a PA TIFF written by Pillow ----------------------------------------------------
def _pa_tiff(tmp_path: Path, palette: str, seed: int = 0) -> Path:
    path = tmp_path / f"pa-{palette}-{seed}.tif"
    pa_image((37, 19), palette, seed).save(path)
    return path


@pytest.mark.parametrize("then", ["PA", "RGBA", "RGB", "P"])
@pytest.mark.parametrize("palette", ["rgb256", "rgb16"])
def test_pa_tiff_file_copies_and_convert(tmp_path: Path, palette: str, then: str) -> None:
    """The file leaf (palette from the TIFF header) through copies, returned or converted."""
    path = _pa_tiff(tmp_path, palette)

    def chain(im):  # the same calls on a PIL and a lazy image
        im = ImageOps.exif_transpose(im) if isinstance(im, Image.Image) else im
        return im.transpose(PILImage.Transpose.ROTATE_90).crop((2, 3, 17, 30))

    with PILImage.open(path) as opened:
        assert opened.mode == "PA"
        expected = chain(PILImageOps.exif_transpose(opened))
        expected = expected if then == "PA" else expected.convert(then)
    lazy = chain(Image.open(path))
    assert_same(evaluate(lazy if then == "PA" else lazy.convert(then)), expected)


@pytest.mark.parametrize("then", ["PA", "RGBA", "RGB"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_transpose_of_pa(tmp_path: Path, orientation: int, then: str) -> None:
    """A PA TIFF read by Pillow, carrying an EXIF orientation: exif_transpose -> convert.

    (The image is copied out of the TIFF first: Pillow's TIFF plugin would transpose it while
    loading, so this exercises the lazy transpose itself.)
    """
    with PILImage.open(_pa_tiff(tmp_path, "rgb256", orientation)) as opened:
        opened.load()
        source = opened.copy()
    exif = PILImage.Exif()
    exif[0x0112] = orientation
    source.info["exif"] = exif.tobytes()
    expected = PILImageOps.exif_transpose(source)
    expected = expected if then == "PA" else expected.convert(then)
    lazy = ImageOps.exif_transpose(Image.from_pil(source))
    actual = evaluate(lazy if then == "PA" else lazy.convert(then))
    assert_image_equal(actual, expected)
    if then == "PA":
        assert actual.getpalette() == expected.getpalette()


# -- executor -------------------------------------------------------------------------------


def test_batch_executor_runs_pa_files(tmp_path: Path, executor: GpuBatchExecutor) -> None:
    jobs = []
    expected = {}
    for palette in ("rgb256", "rgb16"):
        path = _pa_tiff(tmp_path, palette, seed=5)
        for mode in ("PA", "RGBA", "L", "P"):
            with PILImage.open(path) as opened:
                expected[f"{palette}-{mode}"] = opened.rotate(90).convert(mode)
            jobs.append((f"{palette}-{mode}", Image.open(path).rotate(90).convert(mode)))
    results = {result.input_key: result.image for result in executor.run(jobs)}
    assert set(results) == set(expected)
    for key, image in expected.items():
        assert_image_equal(results[key], image)
        if image.mode in ("P", "PA"):
            assert results[key].getpalette() == image.getpalette()
