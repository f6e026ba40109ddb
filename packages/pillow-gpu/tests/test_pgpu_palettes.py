"""``putpalette`` and ``quantize`` on lazy images, and Pillow's attributes a lazy image lacks.

``putpalette`` runs on the GPU for L and P images: a class mask (L values 0..n) coloured by a
palette, or a P image given a new palette, gives Pillow's indices, palette and every
conversion after it. ``quantize`` runs with Pillow and is refused on the GPU with the reason.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL import ImagePalette
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._not_recorded import NOT_RECORDED
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

_RNG = np.random.default_rng(7)
PALETTES: dict[str, tuple[Any, str]] = {
    "five-colours": ([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0], "RGB"),
    "full-bytes": (bytes(_RNG.integers(0, 256, 768, dtype=np.uint8)), "RGB"),
    "rgba": (list(_RNG.integers(0, 256, 1024)), "RGBA"),
    "bgr": (list(_RNG.integers(0, 256, 96)), "BGR"),
    "image-palette": (ImagePalette.ImagePalette("RGB", list(_RNG.integers(0, 256, 768))), "RGB"),
}
SIZES = ((1, 1), (17, 9), (64, 48))
AFTER = {
    "as-is": lambda im: im,
    "to-RGB": lambda im: im.convert("RGB"),
    "to-RGBA": lambda im: im.convert("RGBA"),
    "to-L": lambda im: im.convert("L"),
    "thumbnail": lambda im: (im.thumbnail((8, 8)), im)[1],
    "rotate-expand": lambda im: im.rotate(30, expand=True),
}


def _mask(mode: str, size: tuple[int, int]) -> PILImage.Image:
    """Class indices 0..5 (as a segmentation mask holds them), as L or as a P image."""
    values = np.random.default_rng(size[0] * 31 + size[1]).integers(0, 6, (size[1], size[0]))
    mask = PILImage.fromarray(values.astype(np.uint8), "L")
    return mask if mode == "L" else mask.convert("P")


@pytest.mark.parametrize("after", list(AFTER))
@pytest.mark.parametrize("palette", list(PALETTES))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", ["L", "P"])
def test_putpalette_matches_pillow(
    mode: str, size: tuple[int, int], palette: str, after: str
) -> None:
    data, rawmode = PALETTES[palette]
    expected = _mask(mode, size)
    expected.putpalette(data, rawmode)
    expected = AFTER[after](expected)
    lazy = Image.from_pil(_mask(mode, size))
    assert lazy.putpalette(data, rawmode) is None  # in place, as Pillow's
    assert lazy.mode == "P"
    got = evaluate(AFTER[after](lazy))
    assert_image_equal(got, expected)
    assert got.getpalette() == expected.getpalette()
    assert got.info == expected.info


def test_a_batch_of_coloured_masks_matches_pillow() -> None:
    """The segmentation idiom through the executor: masks coloured, then made RGB."""
    data, rawmode = PALETTES["five-colours"]
    masks = [_mask("L", (40 + i, 30)) for i in range(6)]
    jobs = []
    for i, mask in enumerate(masks):
        lazy = Image.from_pil(mask)
        lazy.putpalette(data, rawmode)
        jobs.append((i, lazy.convert("RGB") if i % 2 else lazy))
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    for i, mask in enumerate(masks):
        expected = mask.copy()
        expected.putpalette(data, rawmode)
        assert_image_equal(found[i], expected.convert("RGB") if i % 2 else expected)


def test_the_palette_is_read_at_the_call() -> None:
    data = [10, 20, 30] * 6
    lazy = Image.from_pil(_mask("L", (5, 4)))
    lazy.putpalette(data)
    data[:3] = [255, 255, 255]
    expected = _mask("L", (5, 4))
    expected.putpalette([10, 20, 30] * 6)
    assert evaluate(lazy).getpalette() == expected.getpalette()


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "I;16", "1"])
def test_putpalette_raises_as_pillow_and_leaves_the_image(mode: str) -> None:
    with pytest.raises(ValueError, match="illegal image mode"):
        PILImage.new(mode, (3, 3)).putpalette([1, 2, 3])
    lazy = Image.from_pil(PILImage.new(mode, (3, 3)))
    with pytest.raises(ValueError, match="illegal image mode"):
        lazy.putpalette([1, 2, 3])
    assert lazy.mode == mode


@pytest.mark.parametrize("mode", ["LA", "PA"])
def test_putpalette_of_an_image_with_alpha_runs_with_pillow(mode: str) -> None:
    """LA and PA keep their alpha beside the index: recorded, refused on the GPU."""
    source = _mask("L", (9, 7)).convert(mode)
    expected = source.copy()
    expected.putpalette(*PALETTES["five-colours"])
    lazy = Image.from_pil(source)
    lazy.putpalette(*PALETTES["five-colours"])
    assert lazy.mode == expected.mode == "PA"
    with pytest.raises(Unsupported) as refused:
        plan_graph(lazy)
    assert "to_pil()" in refused.value.fix
    assert_image_equal(lazy.to_pil(), expected)
    assert lazy.to_pil().getpalette() == expected.getpalette()


def _quantize_cases() -> dict[str, Any]:
    reference = PILImage.new("P", (1, 1))
    reference.putpalette(list(_RNG.integers(0, 256, 48)))
    return {
        "rgb-default": ("RGB", {"colors": 16}),
        "rgb-kmeans": ("RGB", {"colors": 8, "kmeans": 2}),
        "rgb-maxcoverage": ("RGB", {"colors": 12, "method": PILImage.Quantize.MAXCOVERAGE}),
        "rgba-fastoctree": ("RGBA", {"colors": 32}),
        "l-default": ("L", {"colors": 5}),
        "rgb-palette": ("RGB", {"palette": reference}),
        "rgb-palette-nodither": (
            "RGB",
            {"palette": reference, "dither": PILImage.Dither.NONE},
        ),
    }


QUANTIZE = _quantize_cases()


@pytest.mark.parametrize("case", list(QUANTIZE))
def test_quantize_runs_with_pillow_and_is_refused_on_the_gpu(case: str) -> None:
    mode, kwargs = QUANTIZE[case]
    photo = PILImage.fromarray(_RNG.integers(0, 256, (24, 32, 4), dtype=np.uint8), "RGBA")
    source = photo.convert(mode)
    expected = source.quantize(**kwargs)
    lazy = Image.from_pil(source).quantize(**kwargs)
    assert lazy.mode == "P"
    got = lazy.to_pil()
    assert_image_equal(got, expected)
    assert got.getpalette() == expected.getpalette()
    with pytest.raises(Unsupported) as refused:
        evaluate(Image.from_pil(source).quantize(**kwargs).convert("RGB"))
    assert "adaptive palette" in refused.value.why or "quantize" in refused.value.observed


def test_quantize_reads_a_lazy_palette_at_the_call() -> None:
    reference = PILImage.new("P", (2, 2))
    reference.putpalette([0, 0, 0, 250, 250, 250])
    lazy_reference = Image.from_pil(reference)
    source = PILImage.fromarray(_RNG.integers(0, 256, (6, 8, 3), dtype=np.uint8), "RGB")
    got = Image.from_pil(source).quantize(palette=lazy_reference).to_pil()
    assert_image_equal(got, source.quantize(palette=reference))


def test_quantize_raises_pillow_s_argument_errors_at_the_call() -> None:
    rgba = PILImage.new("RGBA", (4, 4))
    with pytest.raises(ValueError, match="Fast Octree"):
        rgba.quantize(method=PILImage.Quantize.MEDIANCUT)
    with pytest.raises(ValueError, match="Fast Octree"):
        Image.from_pil(rgba).quantize(method=PILImage.Quantize.MEDIANCUT)
    with pytest.raises(ValueError, match="kmeans"):
        Image.from_pil(PILImage.new("RGB", (4, 4))).quantize(kmeans=-1)


#: Pillow's calls that quantize: ``quantize`` and ``convert`` to an adaptive palette.
QUANTIZING: dict[str, Any] = {
    "quantize": lambda image: image.quantize(2),
    "convert-adaptive": lambda image: image.convert(
        "P", palette=PILImage.Palette.ADAPTIVE, colors=2
    ),
}


@pytest.mark.parametrize("call", list(QUANTIZING))
@pytest.mark.parametrize("size", [(5, 0), (0, 0), (1, 1)], ids=["no-rows", "empty", "one-pixel"])
@pytest.mark.parametrize("mode", ["RGBX", "CMYK", "LA", "I", "LAB", "RGB"])
def test_quantizing_an_empty_image_is_pillow_s(mode: str, size: tuple[int, int], call: str) -> None:
    """Pillow's C quantize returns an empty P image before it checks the mode."""
    outcomes = []
    for source in (PILImage.new(mode, size), Image.new(mode, size)):
        source.info["dpi"] = (72, 72)
        try:
            result = QUANTIZING[call](source)
        except ValueError as error:
            outcomes.append(str(error))
            continue
        image = result if isinstance(result, PILImage.Image) else result.to_pil()
        outcomes.append((image.mode, image.size, image.getpalette(), image.info))
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("angle", [30, 90])
def test_a_rotation_after_an_adaptive_palette_keeps_pillows_transparency(angle: int) -> None:
    """The transparency index of an adaptive palette depends on the pixels: the conversion
    runs with Pillow when recorded (as Pillow's runs), and the rotation after it, on either
    route, carries the index Pillow's conversion chose."""
    source = PILImage.fromarray(_RNG.integers(0, 256, (20, 30, 3), dtype=np.uint8), "RGB")
    source.info["transparency"] = (255, 127, 0)
    adaptive = {"palette": PILImage.Palette.ADAPTIVE, "colors": 16}
    expected = source.convert("P", **adaptive).rotate(angle, PILImage.Resampling.BILINEAR)
    lazy = Image.from_pil(source).convert("P", **adaptive)
    assert lazy.info == source.convert("P", **adaptive).info  # known before the rotation runs
    rotated = lazy.rotate(angle, PILImage.Resampling.BILINEAR)
    for got in (rotated.to_pil(), evaluate(rotated)):  # the CPU route, then the GPU's
        assert got.info == expected.info
        assert_image_equal(got, expected)


@pytest.mark.parametrize("target", ["L", "RGB"])
@pytest.mark.parametrize("used", [256, 40], ids=["every-index-used", "indices-free"])
@pytest.mark.parametrize("colour", [(218, 109, 37), (3, 3, 3)], ids=["new-colour", "in-palette"])
def test_a_palette_image_with_a_colour_transparency_converts_as_pillow(
    colour: tuple[int, int, int], used: int, target: str
) -> None:
    """Pillow places a colour a P image's transparency names in its full palette at an index
    the histogram shows unused (or drops it): the conversion runs with Pillow when recorded."""
    source = PILImage.new("P", (16, 16))
    source.putpalette([value for index in range(256) for value in (index, index, index)])
    source.putdata([index % used for index in range(256)])
    source.info["transparency"] = colour
    expected = source.convert(target)
    lazy = Image.from_pil(source).convert(target)
    assert lazy.info == expected.info
    assert_image_equal(evaluate(ImageOps.mirror(lazy)), PILImageOps.mirror(expected))


def _enhanced(module: Any, name: str, image: Any) -> Any:
    """``module.<name>(image).enhance(1.5)`` as mode and bytes, or what it raised."""
    try:
        result = getattr(module, name)(image).enhance(1.5)
        pixels = result if isinstance(result, PILImage.Image) else result.to_pil()
        return pixels.mode, pixels.tobytes()
    except Exception as error:  # the error is the answer
        return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("name", ["Brightness", "Color", "Contrast", "Sharpness"])
@pytest.mark.parametrize("used", [256, 40], ids=["every-index-used", "indices-free"])
@pytest.mark.parametrize("colour", [(218, 109, 37), (3, 3, 3)], ids=["new-colour", "in-palette"])
def test_enhancers_of_a_palette_image_with_a_colour_transparency_are_pillow_s(
    colour: tuple[int, int, int], used: int, name: str
) -> None:
    """Pillow's Color and Contrast convert the image to L when made, which for such an image
    depends on its pixels (a full palette raises TypeError): they are made of the completed
    image then, and raise or go on as Pillow's."""
    source = PILImage.new("P", (16, 16))
    source.putpalette([value for index in range(256) for value in (index, index, index)])
    source.putdata([index % used for index in range(256)])
    source.info["transparency"] = colour
    expected = _enhanced(PILImageEnhance, name, source)
    assert _enhanced(ImageEnhance, name, Image.from_pil(source)) == expected


def _put_pixel(image: Any, fill: Any) -> Any:
    out = image.copy()
    out.putpixel((1, 1), fill)
    return out


#: The calls that put a colour into a P image's palette.
COLOURING: dict[str, Callable[[Any, Any, Any], Any]] = {
    "expand": lambda ops, image, fill: ops.expand(image, 2, fill),
    "pad": lambda ops, image, fill: ops.pad(image, (20, 12), color=fill),
    "putpixel": lambda ops, image, fill: _put_pixel(image, fill),
}


def _coloured(ops: Any, call: str, image: Any, fill: Any) -> Any:
    """The result of ``call`` (mode, bytes, palette), or the error of the call itself (a
    lazy result is completed after the call, outside the ``try``)."""
    try:
        result = COLOURING[call](ops, image, fill)
    except Exception as error:  # the error is the answer
        return f"{type(error).__name__}: {error}"
    pixels = result if isinstance(result, PILImage.Image) else result.to_pil()
    return pixels.mode, pixels.tobytes(), pixels.getpalette()


@pytest.mark.parametrize("call", list(COLOURING))
@pytest.mark.parametrize("mode", ["P", "PA"])
@pytest.mark.parametrize("used", [256, 40], ids=["every-index-used", "indices-free"])
@pytest.mark.parametrize(
    "fill",
    [(218, 109, 37), "gold", (3, 3, 3), 7],
    ids=["new-colour", "name", "in-palette", "index"],
)
def test_a_colour_for_a_full_palette_image_is_found_as_pillow_s(
    fill: Any, used: int, mode: str, call: str
) -> None:
    """Pillow's expand, pad and putpixel find or add a colour in a P image's palette, and
    where that is full take an index the pixels leave unused or raise ValueError at the call:
    the recording asks the completed image then."""
    source = PILImage.new("P", (16, 16))
    source.putpalette([value for index in range(256) for value in (index, index, index)])
    source.putdata([index % used for index in range(256)])
    source = source.convert(mode)
    expected = _coloured(PILImageOps, call, source, fill)
    assert _coloured(ImageOps, call, Image.from_pil(source), fill) == expected


def _palette_image(mode: str, entries: int, missing: int | None) -> PILImage.Image:
    """A 16x16 ``mode`` image of a grey palette of ``entries`` entries whose pixels use every
    index but ``missing``."""
    image = PILImage.new("P", (16, 16))
    image.putpalette([value for index in range(entries) for value in (index, index, index)])
    indices = [index for index in range(entries) if index != missing]
    image.putdata([indices[pixel % len(indices)] for pixel in range(256)])
    return image.convert(mode)


@pytest.mark.parametrize("call", list(COLOURING))
@pytest.mark.parametrize("mode", ["P", "PA"])
@pytest.mark.parametrize(
    ("entries", "missing"),
    [(256, 200), (256, 255), (40, None)],
    ids=["full-index-200-unused", "full-index-255-unused", "room-for-more"],
)
@pytest.mark.parametrize(
    "fill",
    [(218, 109, 37), "gold", (3, 3, 3), 7],
    ids=["new-colour", "name", "in-palette", "index"],
)
def test_the_palette_asked_before_evaluation_is_pillow_s(
    fill: Any, entries: int, missing: int | None, mode: str, call: str
) -> None:
    """``getpalette()`` of the lazy result, asked before it runs, is Pillow's: a colour new to
    a full palette goes where the pixels leave an index unused, which only the pixels tell
    (the probe of the palette said index 255 whatever the pixels used)."""
    source = _palette_image(mode, entries, missing)
    try:
        expected = COLOURING[call](PILImageOps, source.copy(), fill)
    except (TypeError, ValueError) as error:  # a name for putpixel; no room for a PA colour
        with pytest.raises(type(error), match=re.escape(str(error))):
            COLOURING[call](ImageOps, Image.from_pil(source), fill)
        return
    lazy = COLOURING[call](ImageOps, Image.from_pil(source), fill)
    assert lazy.getpalette() == expected.getpalette()
    assert lazy.to_pil().getpalette() == expected.getpalette()


#: Operations whose P result's palette is known only once the graph runs.
UNKNOWN_PALETTES: dict[str, Any] = {
    "posterize": lambda ops, image: ops[1].posterize(image, 1),
    "chops-lighter": lambda ops, image: ops[0].lighter(image, image.transpose(0)),
}


@pytest.mark.parametrize(
    "last", ["convert-L", "convert-RGB", "equalize", "convert-LA", "convert-PA", "convert-RGBA"]
)
@pytest.mark.parametrize("made", list(UNKNOWN_PALETTES))
def test_a_transparent_index_of_a_palette_known_later_converts_as_pillow(
    made: str, last: str
) -> None:
    """Pillow's conversion turns a P image's transparent index into that entry's colour, which
    the recording cannot read from a palette known only once the graph runs: the conversion
    runs with Pillow when recorded (``equalize`` converts a P image to RGB first). To LA, PA
    and RGBA Pillow drops the value whatever the palette, and so does the recording."""
    source = PILImage.new("P", (12, 9))
    source.putpalette([value for index in range(256) for value in (index, 255 - index, 7)])
    source.putdata([index * 7 % 256 for index in range(108)])

    def steps(ops: tuple[Any, Any], image: Any) -> Any:
        image = UNKNOWN_PALETTES[made](ops, image)
        image.info["transparency"] = 62
        if last == "equalize":
            return ops[1].equalize(image)
        return image.convert(last.split("-")[1])

    expected = steps((PILImageChops, PILImageOps), source)
    lazy = steps((ImageChops, ImageOps), Image.from_pil(source))
    assert (lazy.mode, lazy.info) == (expected.mode, expected.info)  # before it runs
    try:
        got = evaluate(lazy)
    except Unsupported:  # an ImageChops of P images has no GPU route: the CPU route's result
        got = lazy.to_pil()
    assert got.info == expected.info
    assert_image_equal(got, expected)


@pytest.mark.parametrize("name", sorted(NOT_RECORDED))
def test_pillow_s_unrecorded_attributes_say_why_and_what_to_do(name: str) -> None:
    lazy = Image.from_pil(PILImage.new("RGB", (2, 2)))
    assert hasattr(PILImage.new("RGB", (2, 2)), name)
    assert not hasattr(lazy, name)
    with pytest.raises(AttributeError) as missing:
        getattr(lazy, name)
    text = str(missing.value)
    assert text.startswith(f"why: a lazy image records operations for the GPU, and Pillow's {name}")
    assert "; fix: " in text
    assert ("to_pil()" in text) or ("ImageSequence" in text)


@pytest.mark.parametrize(
    "call",
    [
        lambda image: PILImage.blend(image, image, 0.5),
        lambda image: PILImage.merge("RGB", image.split()),
        lambda image: PILImageChops.add(image, image),
        lambda image: PILImageEnhance.Color(image).enhance(1.5),
    ],
    ids=["Image.blend", "Image.merge", "ImageChops.add", "ImageEnhance.Color"],
)
def test_pillow_s_own_functions_on_a_lazy_image_name_ours(call: Any) -> None:
    lazy = Image.from_pil(PILImage.new("RGB", (2, 2), (9, 8, 7)))
    with pytest.raises(AttributeError) as missing:
        call(lazy)
    text = str(missing.value)
    assert text.startswith("why: Pillow's module functions (PIL.Image.blend, ")
    assert "> has no _new; fix: call pillow_gpu's function of the same name" in text
    assert call(lazy.to_pil()).tobytes() == call(PILImage.new("RGB", (2, 2), (9, 8, 7))).tobytes()


def test_other_missing_attributes_keep_python_s_message() -> None:
    with pytest.raises(AttributeError) as missing:
        getattr(Image.from_pil(PILImage.new("L", (2, 2))), "no_such_thing")  # noqa: B009
    assert str(missing.value) == "'Image' object has no attribute 'no_such_thing'"


# -- the palette object (Image.palette) -------------------------------------------------------
def _palette_file(tmp_path: Any, file_format: str) -> Any:
    """A P file of ``file_format`` with a 16-colour palette and a transparent index."""
    image = PILImage.new("P", (12, 8))
    image.putpalette([(index * 37 + band * 91) % 256 for index in range(16) for band in range(3)])
    image.putdata([index % 16 for index in range(96)])
    path = tmp_path / f"palette.{file_format.lower()}"
    image.save(path, file_format, transparency=2)
    return path


def _reverse(palette: ImagePalette.ImagePalette) -> None:
    palette.palette = bytes(reversed(bytes(palette.palette)))


#: What a caller does with the palette object before using the image.
PALETTE_EDITS: dict[str, Any] = {
    "read": lambda image, palette: None,
    "getcolor": lambda image, palette: palette.getcolor((1, 2, 3)),  # marks it dirty
    "assign-raw": lambda image, palette: setattr(
        image, "palette", ImagePalette.raw("RGB", bytes(range(256)) * 3)
    ),
    "edit-dirty": lambda image, palette: (_reverse(palette), setattr(palette, "dirty", 1)),
    "edit-clean": lambda image, palette: _reverse(palette),
}


def _executed(image: Any) -> PILImage.Image:
    with GpuBatchExecutor() as executor:
        (result,) = executor.run([("job", image)])
    assert isinstance(result.image, PILImage.Image)
    return result.image


PALETTE_ROUTES: dict[str, Any] = {
    "to_pil": lambda image: image.to_pil(),
    "executor": _executed,
}


def _palette_facts(palette: ImagePalette.ImagePalette | None) -> Any:
    if palette is None:
        return None
    return palette.mode, palette.rawmode, bytes(palette.palette), palette.dirty


@pytest.mark.parametrize("route", list(PALETTE_ROUTES))
@pytest.mark.parametrize("edit", list(PALETTE_EDITS))
@pytest.mark.parametrize("file_format", ["GIF", "PNG"])
def test_the_palette_object_is_pillow_s(
    tmp_path: Any, file_format: str, edit: str, route: str
) -> None:
    # Pillow's image keeps one palette object; an opened file's is dirty until it loads, and
    # load() applies a dirty one, edited or given, to the pixels.
    path = _palette_file(tmp_path, file_format)
    found = []
    for module in (PILImage, Image):
        image = module.open(path)
        palette = image.palette
        facts = [palette is image.palette, _palette_facts(palette)]
        PALETTE_EDITS[edit](image, palette)
        converted = image.convert("RGBA")
        result = PALETTE_ROUTES[route](converted) if module is Image else converted
        facts += [result.tobytes(), image.getpalette(), _palette_facts(image.palette)]
        facts.append(image.palette is palette)
        found.append(facts)
        image.close()  # Pillow's multi-frame GIF keeps its file open
    assert found[1] == found[0]


def test_an_unedited_palette_leaves_the_graph_on_the_gpu(tmp_path: Any) -> None:
    # Reading the palette of an opened file (dirty until it loads) changes nothing: the use
    # that applies it finds the file's own palette, and the graph stays the file's.
    path = _palette_file(tmp_path, "GIF")
    image = Image.open(path)
    assert image.palette is not None
    assert image.palette.dirty == 1
    converted = image.convert("RGB")
    assert converted.node.inputs[0].op == "open"
    assert image.palette.dirty == 0  # applied, as Pillow's load() marks it
    with PILImage.open(path) as reference:
        assert_image_equal(_executed(converted), reference.convert("RGB"))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "I;16"])
def test_images_without_a_palette_have_none(mode: str) -> None:
    assert PILImage.new(mode, (2, 2)).palette is None
    assert Image.new(mode, (2, 2)).palette is None


def test_putpalette_hands_out_a_new_palette_object() -> None:
    for module in (PILImage, Image):
        image: Any = module.new("P", (4, 4))
        first = image.palette
        image.putpalette([7] * 768)
        assert image.palette is not first
        assert bytes(image.palette.palette)[:3] == b"\x07\x07\x07"


@pytest.mark.parametrize("second", ["same-palette", "own-palette"])
def test_seek_keeps_or_replaces_the_palette_object_as_pillow(tmp_path: Any, second: str) -> None:
    # Pillow's GIF plugin keeps the image's palette object for a frame of the same palette
    # and for one it turns RGB; the handle's object follows Pillow's reader.
    frames = [PILImage.new("P", (4, 4), index) for index in range(2)]
    for frame in frames:
        frame.putpalette(list(range(256)) * 3)
    if second == "own-palette":
        frames[1].putpalette([255 - value for value in range(256)] * 3)
    written = tmp_path / "two.gif"
    frames[0].save(written, save_all=True, append_images=frames[1:])
    found = []
    for module in (PILImage, Image):
        image: Any = module.open(written)
        before = image.palette
        image.seek(1)
        after = image.palette
        found.append((image.mode, after is before, _palette_facts(after), image.tobytes()))
        image.close()  # Pillow's multi-frame GIF keeps its file open
    assert found[1] == found[0]


#: Operations on a PA image, and whether Pillow's result keeps the palette where
#: ``getpalette()`` reads it (its resampling filters and image filters make the result
#: without it: ``[]``).
PA_OPERATIONS: dict[str, Any] = {
    "resize-nearest": lambda im, ns: im.resize((5, 9), PILImage.Resampling.NEAREST),
    "resize-bicubic": lambda im, ns: im.resize((5, 9)),
    "resize-box": lambda im, ns: im.resize((4, 3), PILImage.Resampling.BOX),
    "mode-filter": lambda im, ns: im.filter(ns.ModeFilter(3)),
    "median-filter": lambda im, ns: im.filter(ns.MedianFilter(3)),
    "reduce": lambda im, ns: im.reduce(2),
    "crop": lambda im, ns: im.crop((1, 1, 6, 5)),
    "rotate-30": lambda im, ns: im.rotate(30),
}


@pytest.mark.parametrize("operation", list(PA_OPERATIONS))
def test_the_palette_of_a_pa_result_is_pillow_s(operation: str) -> None:
    pixels = np.random.default_rng(3).integers(0, 256, (7, 11, 2), dtype=np.uint8)
    source = PILImage.frombytes("PA", (11, 7), pixels.tobytes())
    source.putpalette(bytes(_RNG.integers(0, 256, 768, dtype=np.uint8)))
    expected = PA_OPERATIONS[operation](source, PILImageFilter)
    lazy = PA_OPERATIONS[operation](Image.from_pil(source), ImageFilter)
    assert lazy.getpalette() == expected.getpalette()
    assert_image_equal(lazy.to_pil(), expected)


def _transparent_palette_file(tmp_path: Any, kind: str) -> Any:
    """A P file whose index 0 is transparent: a GIF (an int) or a PNG (tRNS bytes)."""
    image = PILImage.fromarray(_RNG.integers(0, 6, (9, 13), dtype=np.uint8), "P")
    image.putpalette(list(_RNG.integers(0, 256, 18)))
    path = tmp_path / f"transparent.{kind}"
    options = {"transparency": 0} if kind == "gif" else {"transparency": bytes([0, 128, 255])}
    image.save(path, **options)
    return path


def _pasted_into(mode: str, image: Any) -> bytes:
    """``image`` pasted onto a new image of ``mode`` (Pillow's paste converts it first)."""
    module = Image if isinstance(image, Image.Image) else PILImage
    canvas = module.new(mode, image.size)
    canvas.paste(image, (0, 0))
    return bytes(canvas.tobytes())


#: What a user does to the opened image after copying it: Pillow's convert to LA, PA or RGBA
#: (a paste onto such an image converts too, and so do WebP's and AVIF's writers of a P image
#: with transparency) writes that transparency into the image's own C palette, never into
#: the copy's.
PALETTE_WRITERS: dict[str, Callable[[Any], Any]] = {
    "convert-RGBA": lambda image: image.convert("RGBA").tobytes(),
    "convert-LA": lambda image: image.convert("LA").tobytes(),
    "convert-PA": lambda image: image.convert("PA").tobytes(),
    "paste-into-RGBA": lambda image: _pasted_into("RGBA", image),
    "paste-into-LA": lambda image: _pasted_into("LA", image),
    "save-WEBP": lambda image: image.save(io.BytesIO(), "WEBP", lossless=True),
    "save-AVIF": lambda image: image.save(io.BytesIO(), "AVIF"),
}


@pytest.mark.parametrize("writer", list(PALETTE_WRITERS))
@pytest.mark.parametrize("kind", ["gif", "png"])
def test_a_copy_keeps_its_palette_when_its_source_s_is_written_into(
    tmp_path: Any, kind: str, writer: str
) -> None:
    """The CPU route ran Pillow's convert on the cached pixels a copy shares, so the copy's
    palette got the transparency too (found by random graphs in batches, seed 3,008,501: a
    GIF's bands merged back, saved as WebP, its copy's entries compared); the image
    converted, pasted or saved gets it in its own palette, as Pillow's does."""
    path = _transparent_palette_file(tmp_path, kind)
    found = []
    for module in (PILImage, Image):
        with module.open(path) as image:
            image.load()
            copy = image.copy()
            PALETTE_WRITERS[writer](image)
            found.append((copy.getpalette("RGBA"), copy.convert("RGBA").tobytes()))
            found.append(image.getpalette("RGBA"))
    assert found[len(found) // 2 :] == found[: len(found) // 2]


@pytest.mark.parametrize("route", ["cpu", "gpu"])
@pytest.mark.parametrize("target", ["RGBA", "LA", "PA", "RGB"])
@pytest.mark.parametrize("kind", ["gif", "png"])
def test_a_convert_writes_the_transparency_into_the_image_s_palette_as_pillow_s(
    tmp_path: Any, kind: str, target: str, route: str
) -> None:
    """Pillow's convert of a P image to LA, PA or RGBA writes the image's transparency into
    its own palette: what follows reads it, a later conversion after the ``transparency``
    key is deleted included, and a result that carries the palette (found by random graphs
    in batches, seeds 2,944,742 and 3,010,177). Recorded on the image converted, before any
    pixel is read; on the GPU its indices pass unchanged."""
    path = _transparent_palette_file(tmp_path, kind)
    found = []
    for module in (PILImage, Image):
        with module.open(path) as image, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's warning for bytes converted to RGB
            image.convert(target)
            palette = image.getpalette("RGBA")
            del image.info["transparency"]
            later, turned = image.convert("RGBA"), image.transpose(PILImage.Transpose.ROTATE_90)
            if module is Image:
                done = evaluate if route == "gpu" else (lambda lazy: lazy.to_pil())
                later, turned = done(later), done(turned)
            found.append((palette, later.tobytes(), turned.getpalette("RGBA"), turned.tobytes()))
    assert found[1] == found[0]
