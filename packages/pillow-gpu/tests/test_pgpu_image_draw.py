"""Drawing on lazy images (pillow_gpu.ImageDraw, and PIL.ImageDraw.Draw through getdraw).

Every case draws the same calls with Pillow on a PIL image and on a lazy one, then compares
the pixels (and palette) as Pillow leaves them: through ``to_pil`` and through a GPU operation
recorded after the drawing. The interleavings follow Pillow's eager semantics: operations
recorded before later drawing do not see it, in-place edits of the image's own storage are
drawn over, and a drawing object whose image got new storage (thumbnail, putalpha adding the
band) no longer reaches it.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageDraw as PILImageDraw
from PIL import ImageFilter as PILImageFilter
from PIL import ImageFont
from pillow_gpu import GpuBatchExecutor, Image, ImageDraw, ImageFilter, _drawing
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate

MODES = ("RGB", "RGBA", "L", "LA", "1", "P", "I", "F", "CMYK")
SIZE = (61, 43)
FLIP = PILImage.Transpose.FLIP_LEFT_RIGHT


def _shapes(draw: Any) -> None:
    draw.rectangle((2, 3, 20, 15), fill="red", outline="blue", width=2)
    draw.rounded_rectangle((22, 2, 50, 20), radius=5, fill="green", outline="white")
    draw.ellipse((5, 20, 30, 40), outline="yellow", width=3)
    draw.circle((45, 30), 9, fill="cyan")
    draw.polygon([(1, 42), (15, 25), (30, 42)], fill="magenta", outline="black")
    draw.regular_polygon((50, 10, 8), 6, rotation=15, fill="orange")
    draw.arc((30, 20, 60, 42), 10, 200, fill="white", width=2)
    draw.chord((0, 0, 25, 25), 30, 250, outline="purple")
    draw.pieslice((35, 0, 60, 25), -40, 80, fill="navy")
    draw.line([(0, 0), (60, 42), (60, 0), (0, 42)], fill="pink", width=3, joint="curve")
    draw.point([(1, 1), (59, 41), (30, 21)], fill="white")


def _text(draw: Any) -> None:
    draw.text((2, 2), "Hello GPU", fill="white")
    draw.multiline_text((4, 14), "two\nlines", fill="red", spacing=3, align="center")
    draw.text((58, 40), "br", fill="blue", anchor="rs")
    draw.font = ImageFont.load_default(size=14)
    draw.text((5, 25), "Big", fill="yellow", stroke_width=1, stroke_fill="black")


def _bitmap(draw: Any) -> None:
    mask = PILImage.new("1", (12, 9))
    PILImageDraw.Draw(mask).ellipse((0, 0, 11, 8), fill=1)
    draw.bitmap((7, 5), mask, fill="red")
    draw.bitmap((40, 30), mask)


SCENES: dict[str, Callable[[Any], None]] = {"shapes": _shapes, "text": _text, "bitmap": _bitmap}
APIS: dict[str, Callable[..., Any]] = {
    "PIL.ImageDraw.Draw": PILImageDraw.Draw,
    "pillow_gpu.ImageDraw.Draw": ImageDraw.Draw,
}


def _source(mode: str) -> PILImage.Image:
    if mode == "I;16":
        return make_image("L", SIZE).convert("I").point(lambda v: v * 250).convert("I;16")
    if mode in ("I", "F"):
        return make_image("L", SIZE).convert(mode)
    if mode in ("1", "P"):
        return make_image("RGB", SIZE).convert(mode)
    return make_image(mode, SIZE)


def _both(source: PILImage.Image) -> tuple[PILImage.Image, Any, Image.Image, Any]:
    """(a Pillow copy of ``source``, its drawing object, a lazy image of it, its drawing)."""
    pil = source.copy()
    lazy = Image.from_pil(source)
    return pil, PILImageDraw.Draw(pil), lazy, ImageDraw.Draw(lazy)


def _pillow(source: PILImage.Image, scene: Callable[[Any], None], *mode: str) -> PILImage.Image:
    image = source.copy()
    scene(PILImageDraw.Draw(image, *mode))
    return image


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("scene", list(SCENES))
@pytest.mark.parametrize("mode", MODES)
def test_drawing_matches_pillow(mode: str, scene: str, api: str) -> None:
    source = _source(mode)
    expected = _pillow(source, SCENES[scene])
    lazy = Image.from_pil(source)
    SCENES[scene](APIS[api](lazy))
    assert_image_equal(lazy.to_pil(), expected)
    assert lazy.to_pil().getpalette() == expected.getpalette()  # P: colours Pillow added
    # operations recorded after drawing run on the GPU over the drawn pixels
    assert_image_equal(evaluate(lazy.transpose(FLIP)), expected.transpose(FLIP))


def test_rgba_ink_blends_into_an_rgb_image() -> None:
    source = make_image("RGB", SIZE)

    def scene(draw: Any) -> None:
        draw.rectangle((5, 5, 40, 30), fill=(255, 0, 0, 100))
        draw.text((3, 3), "blend", fill=(0, 0, 255, 160))

    expected = _pillow(source, scene, "RGBA")
    lazy = Image.from_pil(source)
    scene(ImageDraw.Draw(lazy, "RGBA"))
    assert_image_equal(lazy.to_pil(), expected)


def test_a_mode_mismatch_raises_pillows_error_at_once() -> None:
    with pytest.raises(ValueError, match="mode mismatch") as pillow:
        PILImageDraw.Draw(PILImage.new("L", SIZE), "RGBA")
    with pytest.raises(ValueError, match="mode mismatch") as ours:
        ImageDraw.Draw(Image.new("L", SIZE), "RGBA")
    assert str(ours.value) == str(pillow.value)


def test_a_thumbnail_before_drawing_then_a_gpu_filter() -> None:
    source = make_image("RGB", (200, 150))
    expected = source.copy()
    expected.thumbnail((64, 64))
    _text(PILImageDraw.Draw(expected))
    expected = expected.filter(PILImageFilter.GaussianBlur(1))
    lazy = Image.from_pil(source)
    lazy.thumbnail((64, 64))
    _text(ImageDraw.Draw(lazy))
    assert_image_equal(evaluate(lazy.filter(ImageFilter.GaussianBlur(1))), expected)


def test_operations_recorded_before_later_drawing_do_not_see_it() -> None:
    source = make_image("RGB", SIZE)
    pil, pil_draw, lazy, draw = _both(source)
    for target in (pil_draw, draw):
        target.rectangle((1, 1, 9, 9), fill="red")
    pil_blur, lazy_blur = pil.filter(PILImageFilter.BLUR), lazy.filter(ImageFilter.BLUR)
    for target in (pil_draw, draw):
        target.ellipse((20, 5, 50, 35), fill="blue")
    assert_image_equal(evaluate(lazy_blur), pil_blur)
    assert_image_equal(lazy.to_pil(), pil)


EDITS: dict[str, Callable[[Any, Any], Any]] = {
    # in Pillow's own storage: later drawing lands on the edited pixels
    "paste": lambda im, other: im.paste(other.crop((0, 0, 20, 20)), (30, 10)),
    "putpixel": lambda im, other: im.putpixel((3, 3), (1, 2, 3, 255)),
    "alpha_composite": lambda im, other: im.alpha_composite(other, (5, 5)),
    "putalpha-rgba": lambda im, other: im.putalpha(128),
    # new storage: the old drawing object no longer reaches the image
    "thumbnail": lambda im, other: im.thumbnail((30, 30)),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_in_place_edits_between_drawing_calls_match_pillow(edit: str) -> None:
    source = make_image("RGBA", SIZE)
    other = make_image("RGBA", (25, 25), seed=3)
    pil, pil_draw, lazy, draw = _both(source)
    for image, target, overlay in ((pil, pil_draw, other), (lazy, draw, Image.from_pil(other))):
        target.line((0, 0, 60, 42), fill="red", width=4)
        EDITS[edit](image, overlay)
        target.rectangle((10, 10, 40, 30), outline="blue", width=3)
        target.text((2, 2), "after", fill="white")
    assert_image_equal(lazy.to_pil(), pil)


@pytest.mark.parametrize("mode", ["RGB", "RGBX", "L", "P", "CMYK"])
def test_putalpha_adding_the_band_matches_pillow(mode: str) -> None:
    """RGB and RGBX become RGBA in Pillow's own storage (later drawing lands); L, P and CMYK
    get new storage (the old drawing object no longer reaches the image)."""
    source = _source(mode) if mode != "RGBX" else make_image("RGBX", SIZE)
    pil, pil_draw, lazy, draw = _both(source)
    for image, target in ((pil, pil_draw), (lazy, draw)):
        target.rectangle((0, 0, 20, 20), fill="red" if mode != "P" else 5)
        image.putalpha(200)
        target.rectangle((30, 10, 50, 30), fill="blue" if mode != "P" else 9)
    assert lazy.mode == pil.mode
    assert_image_equal(lazy.to_pil(), pil)


def test_font_settings_survive_a_new_canvas() -> None:
    source = make_image("RGB", SIZE)
    other = make_image("RGB", (10, 10), seed=2)
    pil, pil_draw, lazy, draw = _both(source)
    font = ImageFont.load_default(size=11)
    for image, target, patch in ((pil, pil_draw, other), (lazy, draw, Image.from_pil(other))):
        target.font = font
        target.fontmode = "1"
        image.paste(patch, (0, 0))  # the lazy drawer completes a new canvas here
        target.text((3, 12), "kept", fill="yellow")
    assert draw.font is font
    assert draw.fontmode == "1"
    assert_image_equal(lazy.to_pil(), pil)


FILLS = {"RGB": ((255, 255, 255), (0, 0, 0), (255, 0, 0)), "L": (255, 0, 128), "P": (0, 3, 7)}


@pytest.mark.parametrize("mode", list(FILLS))
def test_floodfill_matches_pillow(mode: str) -> None:
    background, outline, fill = FILLS[mode]
    source = PILImage.new(mode, SIZE, background)
    PILImageDraw.Draw(source).ellipse((10, 5, 50, 38), outline=outline)
    expected = source.copy()
    PILImageDraw.floodfill(expected, (30, 20), fill)
    lazy = Image.from_pil(source)
    ImageDraw.floodfill(lazy, (30, 20), fill)
    assert_image_equal(lazy.to_pil(), expected)
    assert lazy.to_pil().getpixel((30, 20)) != source.getpixel((30, 20))
    plain = source.copy()  # a PIL image takes Pillow's floodfill unchanged
    ImageDraw.floodfill(plain, (30, 20), fill)
    assert_image_equal(plain, expected)


def test_consecutive_drawing_calls_copy_the_pixels_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    original = _drawing.pil_node
    monkeypatch.setattr(_drawing, "pil_node", lambda image: calls.append(1) or original(image))
    lazy = Image.from_pil(make_image("RGB", SIZE))
    draw = ImageDraw.Draw(lazy)
    for x in range(10):
        draw.point((x, x), fill="red")
    assert lazy.size == SIZE  # metadata reads never copy
    assert calls == []
    lazy.to_pil()
    lazy.to_pil()
    assert calls == [1]


def test_a_batch_of_drawn_images_runs_on_the_gpu() -> None:
    sources = [make_image("RGB", SIZE, seed) for seed in range(4)]
    expected = []
    jobs = []
    for index, source in enumerate(sources):
        label = f"#{index}"
        pil = source.copy()
        PILImageDraw.Draw(pil).text((2, 2), label, fill="white")
        expected.append(pil.filter(PILImageFilter.GaussianBlur(1)))
        lazy = Image.from_pil(source)
        ImageDraw.Draw(lazy).text((2, 2), label, fill="white")
        jobs.append((index, lazy.filter(ImageFilter.GaussianBlur(1))))
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    for index, want in enumerate(expected):
        assert_image_equal(found[index], want)


def test_pillows_drawing_class_on_a_lazy_image_says_what_to_use() -> None:
    lazy = Image.new("RGB", SIZE)
    with pytest.raises(TypeError) as info:
        PILImageDraw.ImageDraw(lazy)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith("why: ")
    assert "ImageDraw.Draw(image)" in message
    assert "to_pil()" in message


def test_deepcopy_and_pickle_keep_the_drawn_pixels() -> None:
    lazy = Image.new("RGB", SIZE, "white")
    ImageDraw.Draw(lazy).rectangle((0, 0, 5, 5), fill="red")
    for copied in (copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert copied.to_pil().getpixel((2, 2)) == (255, 0, 0)
        assert copied.to_pil().getpixel((8, 8)) == (255, 255, 255)


PIXEL_MODES = ["L", "RGB", "RGBA", "LA", "1", "P", "I;16", "I", "F", "CMYK"]


@pytest.mark.parametrize("mode", PIXEL_MODES)
def test_pixel_access_reads_and_writes_as_pillows(mode: str) -> None:
    source = _source(mode)
    pil = source.copy()
    lazy = Image.from_pil(source)
    pil_pixels, pixels = pil.load(), lazy.load()
    assert pil_pixels is not None
    assert [pixels[xy] for xy in ((0, 0), (5, 3), (60, 42))] == [
        pil_pixels[xy] for xy in ((0, 0), (5, 3), (60, 42))
    ]
    recorded_before = lazy.transpose(FLIP)
    for xy, other in (((1, 1), (30, 20)), ((60, 0), (0, 42)), ((7, 40), (59, 2))):
        pil_pixels[xy] = pil_pixels[other]
        pixels[xy] = pixels[other]
    pixels.putpixel((2, 2), pixels.getpixel((40, 30)))
    pil_pixels[2, 2] = pil_pixels[40, 30]
    assert pil.tobytes() != source.tobytes(), "the writes must change the pixels"
    assert_image_equal(lazy.to_pil(), pil)
    assert_image_equal(evaluate(lazy.transpose(FLIP)), pil.transpose(FLIP))
    assert_image_equal(recorded_before.to_pil(), source.transpose(FLIP))


def test_two_drawing_objects_interleaved_match_pillow() -> None:
    source = make_image("RGB", SIZE)
    pil, first_pil, lazy, first = _both(source)
    second_pil, second = PILImageDraw.Draw(pil), ImageDraw.Draw(lazy)
    for one, two in ((first_pil, second_pil), (first, second)):
        one.rectangle((0, 0, 30, 20), fill="red")
        two.ellipse((10, 5, 50, 40), fill="blue")
        one.line((0, 42, 60, 0), fill="white", width=3)
        two.text((2, 30), "two", fill="yellow")
    assert_image_equal(lazy.to_pil(), pil)


def test_pixel_reads_copy_the_image_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    to_pil = Image.Image.to_pil
    monkeypatch.setattr(Image.Image, "to_pil", lambda im: calls.append(1) or to_pil(im))
    source = make_image("L", SIZE)
    lazy = Image.from_pil(source)
    pixels = lazy.load()
    total = sum(pixels[x, y] for x in range(SIZE[0]) for y in range(SIZE[1]))
    assert total == sum(source.get_flattened_data())
    assert calls == [1]
