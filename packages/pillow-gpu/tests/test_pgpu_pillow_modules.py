"""What code written for Pillow reaches through Pillow's modules besides operations, against
live Pillow: ``Image``'s settings, constants, registry and creators; Pillow's own modules
reached as ``pillow_gpu.<name>`` (``ImageFile.LOAD_TRUNCATED_IMAGES``); ``ImageStat``;
``ImageTransform`` objects, transform handlers, ``ImageOps.deform`` and ``Color3DLUT``.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFile as PILImageFile
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL import ImageStat as PILImageStat
from PIL import ImageTransform as PILImageTransform
from pillow_gpu import Image, ImageFile, ImageFilter, ImageOps, ImageStat, ImageTransform
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

MODES = ("L", "LA", "RGB", "RGBA", "P", "I", "F")
SIZES = {"13x9": (13, 9), "64x48": (64, 48)}


def _source(mode: str, size: tuple[int, int]) -> PILImage.Image:
    if mode == "P":
        return make_image("RGB", size).quantize(7)
    if mode in ("I", "F"):  # values past 255 and fractions where the mode holds them
        return make_image("L", size).convert(mode).point(lambda value: value * 37.25 - 900)
    return make_image(mode, size)


# -- Image: settings, constants, registry and creators -------------------------------------


@pytest.fixture
def pixel_limit() -> Iterator[None]:
    before = PILImage.MAX_IMAGE_PIXELS
    yield
    PILImage.MAX_IMAGE_PIXELS = before


@pytest.fixture
def png_file(tmp_path: Path) -> Path:
    path = tmp_path / "photo.png"
    make_image("RGB", (64, 48)).save(path)
    return path


@pytest.mark.usefixtures("pixel_limit")
@pytest.mark.parametrize("limit", [1000, 2000], ids=["error", "warning"])
def test_max_image_pixels_set_here_is_the_limit_open_checks(png_file: Path, limit: int) -> None:
    Image.MAX_IMAGE_PIXELS = limit  # 64 x 48 = 3,072 pixels: over 2x 1,000, under 2x 2,000
    assert PILImage.MAX_IMAGE_PIXELS == limit == Image.MAX_IMAGE_PIXELS
    if limit == 1000:
        with pytest.raises(Image.DecompressionBombError) as ours:
            Image.open(png_file)
        with pytest.raises(PILImage.DecompressionBombError) as theirs:
            PILImage.open(png_file)
        assert str(ours.value) == str(theirs.value)
    else:
        with pytest.warns(Image.DecompressionBombWarning):
            assert Image.open(png_file).size == (64, 48)


@pytest.mark.usefixtures("pixel_limit")
def test_max_image_pixels_none_turns_the_check_off(png_file: Path) -> None:
    PILImage.MAX_IMAGE_PIXELS = 10
    assert Image.MAX_IMAGE_PIXELS == 10  # read through as well
    Image.MAX_IMAGE_PIXELS = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_image_equal(Image.open(png_file).to_pil(), PILImage.open(png_file))
    assert "MAX_IMAGE_PIXELS" in dir(Image)


def _limited_use(image: Any, use: str, ops: Any) -> Any:
    """``use`` of an opened ``image`` (``ops``: the ImageOps module of its library)."""
    if use == "copy":
        return image.copy()
    if use == "exif_transpose":
        return ops.exif_transpose(image)
    if use == "convert":
        return image.convert("L")
    image.load()
    return image


@pytest.mark.usefixtures("pixel_limit")
@pytest.mark.parametrize("use", ["copy", "exif_transpose", "convert", "load"])
@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "GIF", "BMP", "PPM", "TIFF"])
def test_a_limit_lowered_after_open_is_not_checked_again(
    tmp_path: Path, fmt: str, use: str
) -> None:
    # Pillow checks the size against MAX_IMAGE_PIXELS in open only (and in crop): copying,
    # converting or loading an opened image later raises nothing and warns nothing, but
    # where its plugin's load checks again (TIFF), which raises the same error here.
    path = tmp_path / f"image.{fmt.lower()}"
    make_image("P" if fmt == "GIF" else "RGB", (64, 48)).save(path, fmt)
    ours = Image.open(path)
    with PILImage.open(path) as theirs, warnings.catch_warnings():
        Image.MAX_IMAGE_PIXELS = 1000  # 64 x 48 = 3,072 pixels: over twice the limit
        warnings.simplefilter("error")
        try:
            expected = _limited_use(theirs, use, PILImageOps)
            expected.load()
        except PILImage.DecompressionBombError:
            with pytest.raises(PILImage.DecompressionBombError):
                _limited_use(ours, use, ImageOps).to_pil()
            assert fmt == "TIFF"
            return
        assert_image_equal(_limited_use(ours, use, ImageOps).to_pil(), expected)


def test_warn_possible_formats_is_pillows(tmp_path: Path) -> None:
    before = PILImage.WARN_POSSIBLE_FORMATS
    try:
        Image.WARN_POSSIBLE_FORMATS = not before
        assert PILImage.WARN_POSSIBLE_FORMATS is (not before) is Image.WARN_POSSIBLE_FORMATS
    finally:
        PILImage.WARN_POSSIBLE_FORMATS = before


ENUM_NAMES = [
    (enum.__name__, member.name)
    for enum in (
        PILImage.Transpose,
        PILImage.Transform,
        PILImage.Resampling,
        PILImage.Dither,
        PILImage.Palette,
        PILImage.Quantize,
    )
    for member in enum
]


@pytest.mark.parametrize(("enum", "name"), ENUM_NAMES, ids=[name for _, name in ENUM_NAMES])
def test_module_level_enum_names_are_pillows(enum: str, name: str) -> None:
    assert getattr(Image, name) == getattr(PILImage, name) == getattr(PILImage, enum)[name]


@pytest.mark.parametrize(
    "name", ["ID", "OPEN", "MIME", "SAVE", "SAVE_ALL", "EXTENSION", "DECODERS", "ENCODERS"]
)
def test_plugin_registry_is_pillows(name: str) -> None:
    assert getattr(Image, name) is getattr(PILImage, name)


def test_a_format_registered_here_opens_and_saves(tmp_path: Path) -> None:
    """A plugin registered through this module opens and saves files with Pillow's own open
    and save (the registry is Pillow's)."""

    class _Raw8(PILImageFile.ImageFile):  # b"RAW8", width, height, then the L pixels
        format = "RAW8TEST"
        format_description = "a test format"

        def _open(self) -> None:
            header = self.fp.read(6)
            self._mode, self._size = "L", (header[4], header[5])
            self.tile = [PILImageFile._Tile("raw", (0, 0, *self.size), 6, ("L", 0, 1))]

    def _accept(prefix: bytes) -> bool:
        return prefix[:4] == b"RAW8"

    def _save(image: PILImage.Image, fp: Any, filename: Any) -> None:
        fp.write(b"RAW8" + bytes(image.size) + image.tobytes())

    Image.register_open("RAW8TEST", _Raw8, _accept)
    Image.register_save("RAW8TEST", _save)
    Image.register_extension("RAW8TEST", ".raw8test")
    try:
        path = tmp_path / "picture.raw8test"
        ImageOps.invert(Image.from_pil(make_image("L", (5, 3)))).save(path)
        assert path.read_bytes()[:6] == b"RAW8\x05\x03"
        reopened = Image.open(path)
        assert_image_equal(reopened.to_pil(), PILImageOps.invert(make_image("L", (5, 3))))
        assert Image.registered_extensions()[".raw8test"] == "RAW8TEST"
    finally:
        for registry in (PILImage.OPEN, PILImage.SAVE):
            registry.pop("RAW8TEST", None)
        PILImage.ID.remove("RAW8TEST")
        PILImage.EXTENSION.pop(".raw8test", None)


CREATORS: dict[str, Callable[[Any], Any]] = {
    "effect_mandelbrot": lambda module: module.effect_mandelbrot((40, 30), (-2, -1, 1, 1), 50),
    "linear_gradient": lambda module: module.linear_gradient("L"),
    "radial_gradient": lambda module: module.radial_gradient("L"),
}


@pytest.mark.parametrize("creator", CREATORS)
def test_creators_are_lazy_leaves_with_pillows_pixels(creator: str) -> None:
    lazy = ImageOps.invert(CREATORS[creator](Image))
    assert isinstance(lazy, Image.Image)
    expected = PILImageOps.invert(CREATORS[creator](PILImage))
    assert_image_equal(evaluate(lazy), expected)
    assert_image_equal(lazy.to_pil(), expected)


def test_effect_noise_is_a_lazy_leaf() -> None:
    noise = Image.effect_noise((40, 30), 20)  # drawn at random: its own pixels, kept
    assert isinstance(noise, Image.Image)
    assert (noise.mode, noise.size) == ("L", (40, 30))
    assert_image_equal(evaluate(ImageOps.invert(noise)), PILImageOps.invert(noise.to_pil()))


# -- Pillow's own modules ---------------------------------------------------------------------


@pytest.fixture
def truncated_jpeg() -> bytes:
    written = io.BytesIO()
    make_image("RGB", (64, 48)).save(written, "JPEG", quality=90)
    return written.getvalue()[:-200]


@pytest.mark.parametrize("route", ["cpu", "gpu"])
def test_load_truncated_images_set_here_reaches_the_decoder(
    truncated_jpeg: bytes, route: str
) -> None:
    def complete(image: Image.Image) -> PILImage.Image:
        return evaluate(image) if route == "gpu" else image.to_pil()

    with pytest.raises(OSError, match="truncated") as refused:
        complete(Image.open(io.BytesIO(truncated_jpeg)))
    with pytest.raises(OSError, match="truncated") as theirs:
        PILImage.open(io.BytesIO(truncated_jpeg)).load()
    assert str(theirs.value) in str(refused.value)  # the GPU route says why and how to fix
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    try:
        expected = PILImage.open(io.BytesIO(truncated_jpeg))
        expected.load()
        assert_image_equal(complete(Image.open(io.BytesIO(truncated_jpeg))), expected)
    finally:
        PILImageFile.LOAD_TRUNCATED_IMAGES = False


# -- ImageStat ----------------------------------------------------------------------------------

STATISTICS = ("extrema", "count", "sum", "sum2", "mean", "median", "rms", "var", "stddev")


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "P", "I", "F"])
@pytest.mark.parametrize("masked", [False, True], ids=["whole", "masked"])
def test_stat_of_a_lazy_image_is_pillows(mode: str, size: tuple[int, int], masked: bool) -> None:
    source = _source(mode, size)
    mask = make_image("L", size).point(lambda value: 255 * (value > 100)) if masked else None
    lazy_mask = None if mask is None else Image.from_pil(mask)
    lazy = ImageOps.flip(Image.from_pil(source))
    ours: list[Callable[[], Any]] = [
        lambda: ImageStat.Stat(lazy, lazy_mask),
        lambda: ImageStat.Stat(PILImageOps.flip(source), lazy_mask),
        lambda: ImageStat.Global(lazy.to_pil(), mask),
    ]
    try:
        expected = PILImageStat.Stat(PILImageOps.flip(source), mask)
    except ValueError as error:  # Pillow has no masked histogram of I and F images
        for stat in ours:
            with pytest.raises(ValueError, match=str(error)):
                stat()
        return
    for stat in [*ours, lambda: ImageStat.Stat(lazy.histogram(lazy_mask))]:
        actual = stat()
        for name in STATISTICS:
            assert getattr(actual, name) == getattr(expected, name), name


def test_stat_refuses_what_pillow_refuses() -> None:
    with pytest.raises(TypeError, match="first argument must be image or list"):
        ImageStat.Stat((1, 2, 3))  # type: ignore[arg-type]


# -- transforms: ImageTransform objects, handlers, deform, Color3DLUT --------------------------


class _Shear(PILImage.ImageTransformHandler):
    """A caller's own handler: Pillow hands it the image and the options."""

    def transform(self, size: tuple[int, int], image: Any, **options: Any) -> Any:
        return image.transform(size, PILImage.Transform.AFFINE, (1, 0.3, -2, 0.1, 1, 1), **options)


def _pulled(x: int, step: int, height: int) -> tuple[int, ...]:
    return (x, 2, x, height, x + step, height - 2, x + step, 0)


class _Wave:
    """A deformer: one quad per column band, its corners pulled up and down."""

    def getmesh(self, image: Any) -> list[Any]:
        width, height = image.size
        step = max(width // 4, 1)
        return [
            (
                (x, 0, min(x + step, width), height),
                (x, 2, x, height, x + step, height - 2, x + step, 0),
            )
            for x in range(0, width, step)
        ]


TRANSFORMS: dict[str, Callable[[Any, Any], Any]] = {
    "affine-object": lambda module, image: image.transform(
        (31, 23), module.AffineTransform((1, 0.2, 3, -0.1, 1, 2))
    ),
    "extent-object": lambda module, image: image.transform(
        (31, 23), module.ExtentTransform((2, 1, 11, 8)), PILImage.Resampling.BILINEAR
    ),
    "quad-object": lambda module, image: image.transform(
        (31, 23), module.QuadTransform((0, 0, 1, 8, 12, 9, 11, 1)), PILImage.Resampling.BICUBIC
    ),
    "mesh-object": lambda module, image: image.transform(
        (31, 23), module.MeshTransform([((0, 0, 31, 23), (0, 0, 0, 9, 13, 9, 13, 0))])
    ),
    "handler-nearest": lambda module, image: image.transform((31, 23), _Shear()),
    "handler-bilinear": lambda module, image: image.transform(
        (31, 23), _Shear(), resample=PILImage.Resampling.BILINEAR, fillcolor=None
    ),
}


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_transform_objects_and_handlers_record_as_pillow_transforms(
    transform: str, mode: str, size: tuple[int, int]
) -> None:
    source = _source(mode, size)
    expected = TRANSFORMS[transform](PILImageTransform, source)
    lazy = TRANSFORMS[transform](ImageTransform, Image.from_pil(source))
    assert isinstance(lazy, Image.Image)
    assert (lazy.mode, lazy.size, lazy.info) == (expected.mode, expected.size, expected.info)
    assert_image_equal(lazy.to_pil(), expected)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("resample", [PILImage.Resampling.NEAREST, PILImage.Resampling.BILINEAR])
def test_deform_is_pillows(mode: str, size: tuple[int, int], resample: int) -> None:
    source = _source(mode, size)
    expected = PILImageOps.deform(source, _Wave(), resample)
    lazy = ImageOps.deform(Image.from_pil(source), _Wave(), resample)
    assert_image_equal(lazy.to_pil(), expected)
    assert_image_equal(ImageOps.deform(source, _Wave(), resample).to_pil(), expected)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES)
@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
@pytest.mark.parametrize("channels", [3, 4])
def test_color_3d_lut_is_pillows(mode: str, size: tuple[int, int], channels: int) -> None:
    assert ImageFilter.Color3DLUT is PILImageFilter.Color3DLUT
    table = PILImageFilter.Color3DLUT.generate(
        5, lambda r, g, b: (r * 0.9, g, b * 1.1, 0.5)[:channels], channels=channels
    )
    source = make_image(mode, size)
    outcome = []
    for run in (
        lambda: source.filter(table),
        lambda: Image.from_pil(source).filter(table).to_pil(),
    ):
        try:
            outcome.append(run())
        except ValueError as error:  # Pillow's refusal (an L image, a 4-channel table on RGB)
            outcome.append(str(error))
    if isinstance(outcome[0], str):
        assert outcome[1] == outcome[0]
    else:
        assert_image_equal(outcome[1], outcome[0])
