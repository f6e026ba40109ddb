"""In-place ``paste``/``putpixel``/``putalpha``/``thumbnail`` mirror Pillow on the CPU and GPU.

Each case runs one Pillow-style sequence on a live Pillow image and the same sequence on a
pillow-gpu handle, then compares the handle's bytes from ``to_pil()`` (Pillow's CPU routing) and
from ``evaluate()`` (the GPU) with Pillow's, plus the other handles the sequence must leave as
they were: a ``copy()``, an earlier recorded result, a pasted source and a submitted job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import GpuBatchExecutor, Image, ImageChops
from pillow_gpu._testing import MODES, assert_image_equal, make_image, rebuilt
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

BASES = [(3, 2), (19, 17), (65, 33)]
BASE_IDS = [f"{w}x{h}" for w, h in BASES]


def _both(lazy: Image.Image, expected: PILImage.Image) -> None:
    """``lazy`` equals ``expected`` through Pillow's CPU routing and through the GPU."""
    assert (lazy.mode, lazy.size) == (expected.mode, expected.size)
    assert_image_equal(evaluate(rebuilt(lazy)), expected)  # its own copy: results are cached
    assert_image_equal(lazy.to_pil(), expected)


def _pair(mode: str, size: tuple[int, int], seed: int = 0) -> tuple[PILImage.Image, Image.Image]:
    source = make_image(mode, size, seed)
    return source, Image.from_pil(source)


def _color(mode: str, seed: int) -> int | tuple[int, ...]:
    bands = PILImage.getmodebands(mode)
    values = tuple((37 * seed + 61 * band) % 256 for band in range(bands))
    return values[0] if bands == 1 else values


#: box forms of paste(image, box): (patch size, box); the patch is the base's mode
PASTES: dict[str, tuple[tuple[int, int], Any]] = {
    "none": ((2, 2), None),
    "corner": ((2, 1), (1, 1)),
    "four-tuple": ((2, 2), (1, 0, 3, 2)),
    "negative-corner": ((4, 3), (-2, -1)),
    "overhang": ((9, 8), (15, 12)),
    "outside": ((3, 3), (70, 40)),
    "list-box": ((2, 2), [0, 0, 2, 2]),
}


@pytest.mark.parametrize("case", list(PASTES))
@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_paste_of_an_image_changes_the_handle_and_not_its_copy(
    mode: str, size: tuple[int, int], case: str
) -> None:
    patch_size, box = PASTES[case]
    base, lazy = _pair(mode, size, seed=1)
    patch = make_image(mode, patch_size, seed=2)
    before = lazy.copy()
    expected = base.copy()
    assert expected.paste(patch, box) is None
    assert lazy.paste(Image.from_pil(patch), box) is None
    _both(lazy, expected)
    _both(before, base)  # the copy keeps the node it shared
    assert before.node is not lazy.node


#: colour fills paste(color, box): name -> box, colour seed (None: a colour name)
FILLS: dict[str, tuple[tuple[int, int, int, int], int | None]] = {
    "inside": ((1, 0, 3, 2), 1),
    "partly-outside": ((-4, -3, 2, 1), 2),
    "beyond-the-edges": ((-10, -10, 100, 100), 3),
    "empty-inverted-box": ((3, 2, 1, 0), 4),
    "outside": ((80, 80, 90, 90), 5),
    "colour-name": ((0, 1, 2, 2), None),
}


@pytest.mark.parametrize("case", list(FILLS))
@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_paste_of_a_colour_fills_the_box_as_pillow(
    mode: str, size: tuple[int, int], case: str
) -> None:
    box, seed = FILLS[case]
    color = "coral" if seed is None else _color(mode, seed)
    base, lazy = _pair(mode, size, seed=3)
    expected = base.copy()
    expected.paste(color, box)
    lazy.paste(color, box)
    _both(lazy, expected)


@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_masked_paste_and_the_image_as_mask_form_match_pillow_on_the_cpu(
    mode: str, size: tuple[int, int]
) -> None:
    base, lazy = _pair(mode, size, seed=4)
    patch = make_image(mode, size, seed=5)
    mask = make_image("L", size, seed=6)
    expected = base.copy()
    expected.paste(patch, mask)  # Pillow's paste(im, mask) form: box (0, 0)
    expected.paste(patch, (1, 1), mask)
    lazy.paste(Image.from_pil(patch), Image.from_pil(mask))
    lazy.paste(patch, (1, 1), mask)  # PIL sources are copied at the call
    _both(lazy, expected)


def test_a_pasted_source_keeps_the_pixels_it_had_at_the_call() -> None:
    canvas, lazy_canvas = _pair("RGB", (19, 17), seed=7)
    patch, lazy_patch = _pair("RGB", (5, 4), seed=8)
    pil_patch = patch.copy()
    canvas.paste(patch, (3, 2))
    lazy_canvas.paste(lazy_patch, (3, 2))
    lazy_canvas.paste(pil_patch, (10, 9))
    canvas.paste(pil_patch, (10, 9))
    for image in (patch, lazy_patch, pil_patch):  # edits after the paste change nothing pasted
        image.putpixel((0, 0), (1, 2, 3))
        image.paste((9, 9, 9), (0, 0, 5, 2))
    _both(lazy_canvas, canvas)
    _both(lazy_patch, patch)


def test_an_earlier_result_keeps_meaning_the_node_it_was_recorded_on() -> None:
    base, lazy = _pair("RGBA", (19, 17), seed=9)
    inverted = ImageChops.invert(lazy)
    expected_inverted = PILImageChops.invert(base)
    lazy.paste((1, 2, 3, 4), (0, 0, 10, 10))
    lazy.putpixel((18, 16), (5, 6, 7, 8))
    _both(inverted, expected_inverted)
    expected = base.copy()
    expected.paste((1, 2, 3, 4), (0, 0, 10, 10))
    expected.putpixel((18, 16), (5, 6, 7, 8))
    _both(lazy, expected)


def test_a_submitted_job_keeps_its_graph_after_a_later_in_place_change() -> None:
    base, lazy = _pair("RGB", (65, 33), seed=10)
    patch = make_image("RGB", (9, 8), seed=11)
    with GpuBatchExecutor() as executor:  # queue=True: no GPU work until join()
        first = executor.submit(lazy)
        lazy.paste(Image.from_pil(patch), (4, 5))
        lazy.putpixel((0, 0), (250, 251, 252))
        lazy.thumbnail((20, 20))
        second = executor.submit(lazy)
        results = {result.job_id: result.image for result in executor.join()}
    expected = base.copy()
    expected.paste(patch, (4, 5))
    expected.putpixel((0, 0), (250, 251, 252))
    expected.thumbnail((20, 20))
    assert_image_equal(results[first], base)
    assert_image_equal(results[second], expected)
    _both(lazy, expected)


PIXELS = {"origin": (0, 0), "last": (-1, -1), "negative-x": (-2, 1), "middle": (1, 1)}


@pytest.mark.parametrize("xy", list(PIXELS))
@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_putpixel_sets_one_pixel_in_place(mode: str, size: tuple[int, int], xy: str) -> None:
    base, lazy = _pair(mode, size, seed=12)
    before = lazy.copy()
    expected = base.copy()
    expected.putpixel(PIXELS[xy], _color(mode, 7))
    assert lazy.putpixel(PIXELS[xy], _color(mode, 7)) is None
    _both(lazy, expected)
    _both(before, base)


ALPHAS = {"int-0": 0, "int-200": 200, "L-image": None}


@pytest.mark.parametrize("alpha", list(ALPHAS))
@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", ["L", "LA", "RGB", "RGBA", "RGBX"])
def test_putalpha_promotes_the_handle_in_place(
    mode: str, size: tuple[int, int], alpha: str
) -> None:
    base, lazy = _pair(mode, size, seed=13)
    value = ALPHAS[alpha]
    alpha_image = make_image("L", size, seed=14)
    expected = base.copy()
    expected.putalpha(alpha_image if value is None else value)
    before = lazy.copy()
    assert lazy.putalpha(Image.from_pil(alpha_image) if value is None else value) is None
    assert (lazy.mode, before.mode) == (expected.mode, mode)
    _both(lazy, expected)
    _both(before, base)


#: thumbnail targets: fits (no change), shrink, one edge only
THUMBNAILS = {"fits": (100, 100), "shrink-8x8": (8, 8), "wide-40x10": (40, 10)}


@pytest.mark.parametrize("target", list(THUMBNAILS))
@pytest.mark.parametrize("size", BASES[1:], ids=BASE_IDS[1:])
@pytest.mark.parametrize("mode", MODES)
def test_thumbnail_then_paste_onto_a_canvas_as_a_pillow_script_does(
    mode: str, size: tuple[int, int], target: str
) -> None:
    base, lazy = _pair(mode, size, seed=15)
    fitted = lazy.node
    expected = base.copy()
    assert expected.thumbnail(THUMBNAILS[target]) is None
    assert lazy.thumbnail(THUMBNAILS[target]) is None
    if target == "fits":
        assert lazy.node is fitted  # Pillow leaves an image that fits unchanged
    canvas = PILImage.new(mode, (70, 40), _color(mode, 3))
    lazy_canvas = Image.new(mode, (70, 40), _color(mode, 3))
    canvas.paste(expected, (2, 3))
    lazy_canvas.paste(lazy, (2, 3))
    _both(lazy, expected)
    _both(lazy_canvas, canvas)


def _pillow_error(call: Callable[[Any], Any], image: Any) -> BaseException:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is compared below
        call(image)
    return caught.value


#: calls Pillow rejects: the same exception, and the image left as Pillow leaves its own
REJECTED: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "paste-size-mismatch": ("RGB", lambda im: im.paste(make_image("RGB", (2, 2)), (0, 0, 3, 3))),
    "paste-float-box": ("RGB", lambda im: im.paste(5, (0, 0, 1.5, 2))),
    "paste-three-value-box": ("RGB", lambda im: im.paste(5, (0, 0, 1))),
    "paste-colour-without-size": ("RGB", lambda im: im.paste(5, (1, 1))),
    "paste-colour-default-box": ("RGB", lambda im: im.paste((1, 2, 3))),
    "paste-bad-colour": ("RGB", lambda im: im.paste((1, 2), (0, 0, 2, 2))),
    "paste-unknown-colour-name": ("RGBA", lambda im: im.paste("no-such", (0, 0, 2, 2))),
    "paste-mask-twice": (
        "L",
        lambda im: im.paste(
            make_image("L", (2, 2)), make_image("L", (2, 2)), make_image("L", (2, 2))
        ),
    ),
    "paste-bad-mask-size": (
        "L",
        lambda im: im.paste(make_image("L", (2, 2)), (0, 0), make_image("L", (3, 3))),
    ),
    "paste-bad-mask-mode": (
        "L",
        lambda im: im.paste(make_image("L", (2, 2)), (0, 0), make_image("L", (2, 2)).convert("I")),
    ),
    "putpixel-out-of-range": ("RGB", lambda im: im.putpixel((19, 0), (1, 2, 3))),
    "putpixel-bad-value": ("L", lambda im: im.putpixel((0, 0), "x")),
    "putalpha-existing-alpha-bad-size": ("RGBA", lambda im: im.putalpha(make_image("L", (2, 2)))),
    # Pillow promotes RGB to RGBA (alpha 255) before it rejects the alpha, and keeps it
    "putalpha-promoted-then-bad-size": ("RGB", lambda im: im.putalpha(make_image("L", (2, 2)))),
    "putalpha-promoted-then-bad-mode": ("L", lambda im: im.putalpha(make_image("RGB", (19, 17)))),
    "putalpha-promoted-then-huge-int": ("RGBX", lambda im: im.putalpha(2**40)),
    "putalpha-mode-I": ("I", lambda im: im.putalpha(9)),
    "thumbnail-bad-filter": ("RGB", lambda im: im.thumbnail((5, 5), 9)),
    "thumbnail-zero-width": ("LA", lambda im: im.thumbnail((0, 5))),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_rejected_calls_leave_the_image_as_pillow_leaves_it(case: str) -> None:
    mode, call = REJECTED[case]
    source = make_image("L" if mode == "I" else mode, (19, 17), seed=16).convert(mode)
    expected = source.copy()
    error = _pillow_error(call, expected)
    lazy = Image.from_pil(source)
    node = lazy.node
    with pytest.raises(type(error)) as ours:
        call(lazy)  # PIL sources, masks and alphas are accepted as in Pillow
    assert str(ours.value) == str(error)
    assert (lazy.mode, lazy.size) == (expected.mode, expected.size)
    assert_image_equal(lazy.to_pil(), expected)
    if expected.mode == mode:
        assert lazy.node is node  # unchanged, not merely equal


@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
def test_palette_colour_fills_are_refused_with_their_reason(masked: bool) -> None:
    lazy = Image.new("P", (8, 6))
    node = lazy.node
    mask = Image.new("L", (4, 4), 128) if masked else None
    with pytest.raises(Unsupported, match=r"why: .*; observed: paste\(.*; fix: ") as caught:
        lazy.paste(7, (0, 0, 4, 4), mask)
    assert caught.value.stage == "admission"
    assert lazy.node is node


@pytest.mark.parametrize("then", ["as-is", "RGBA"])
@pytest.mark.parametrize("color", [200, 0x11223344, -5, 300], ids=["200", "packed", "-5", "300"])
@pytest.mark.parametrize(
    "mode", ["LAB", "YCbCr", "HSV", "RGB", "RGBX", "CMYK", "RGBA", "L", "I", "F", "I;16"]
)
def test_an_int_fill_stores_pillow_s_packed_ink(mode: str, color: int, then: str) -> None:
    """Pillow's fill of an int writes its packed ink, high byte included: in a padded mode
    the fourth byte, which LAB's conversion to RGBA reads as alpha (found by random graphs,
    seed 135,043,085: the fill was recorded from the pixel Pillow reports, without it)."""
    expected = PILImage.new(mode, (9, 5))
    expected.paste(color, (2, 1, 7, 4))
    lazy = Image.new(mode, (9, 5))
    lazy.paste(color, (2, 1, 7, 4))
    if then != "as-is" and mode in ("LAB", "YCbCr", "HSV", "RGB", "RGBX", "CMYK", "L"):
        expected, lazy = expected.convert(then), lazy.convert(then)
    _both(lazy, expected)
