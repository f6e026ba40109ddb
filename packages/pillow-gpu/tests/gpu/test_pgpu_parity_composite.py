"""Compositing on the GPU equals live Pillow: masked paste, ``Image.composite``, masked colour
fills and ``Image.alpha_composite`` (gpu.lowering.composite, kernel ``composite``).

Every case compares the lazy graph's bytes through Pillow's CPU routing and through the GPU
with Pillow's own call on the same images (RGB's padding byte included).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import GpuBatchExecutor, Image, ImageChops
from pillow_gpu._testing import assert_image_equal, call_outcome, make_image, rebuilt
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

#: Base modes a masked paste or fill composes (native and limited 8-bit layouts).
BLEND_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX", "YCbCr", "La", "RGBa", "HSV", "LAB")
PASTE_MASKS = ("1", "L", "LA", "RGBA", "RGBa")
FILL_MASKS = ("1", "L", "RGBA", "RGBa")
BASES = [(1, 1), (19, 17), (65, 33)]
BASE_IDS = [f"{w}x{h}" for w, h in BASES]
#: Where a 7x6 patch goes: inside, at the corner, hanging over each edge, wholly outside.
BOXES: dict[str, tuple[int, int]] = {
    "origin": (0, 0),
    "inside": (3, 2),
    "negative": (-2, -3),
    "overhang": (15, 12),
    "outside": (70, 40),
}


def _image(mode: str, size: tuple[int, int], seed: int, *, holes: bool = False) -> PILImage.Image:
    """Random stored bytes in ``mode``; with ``holes`` a third of the pixels are given alpha 0
    (byte 3, and for LA/La byte 1 as well), where Pillow's fill and composite rules branch."""
    if mode in ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX"):
        image = make_image(mode, size, seed)
    else:  # the limited modes: random stored bytes through their own raw mode
        bands = len(PILImage.new(mode, (1, 1)).getbands())
        rng = np.random.default_rng(seed)
        data = rng.integers(0, 256, size[0] * size[1] * bands, np.uint8).tobytes()
        image = PILImage.frombytes(mode, size, data)
    if holes and mode in ("LA", "La", "RGBA", "RGBa"):
        rng = np.random.default_rng(seed + 100)
        alpha = np.asarray(image.getchannel(len(image.getbands()) - 1)).copy()
        alpha[rng.random(alpha.shape) < 1 / 3] = 0
        bands = [*image.split()[:-1], PILImage.fromarray(alpha, "L")]
        image = PILImage.merge(mode, bands)
    return image


def _mask(mode: str, size: tuple[int, int], seed: int) -> PILImage.Image:
    if mode == "1":
        return make_image("L", size, seed).convert("1", dither=PILImage.Dither.NONE)
    return _image(mode, size, seed, holes=True)


def _both(lazy: Image.Image, expected: PILImage.Image, *, refused: bool = False) -> None:
    """``lazy`` equals ``expected`` through the GPU and through Pillow's CPU routing; with
    ``refused`` the GPU refuses it at admission instead (the CPU route still equals Pillow)."""
    assert (lazy.mode, lazy.size) == (expected.mode, expected.size)
    if refused:
        with pytest.raises(Unsupported, match="bytes 1 and 2") as caught:
            evaluate(rebuilt(lazy))
        assert caught.value.stage == "admission"
    else:
        assert_image_equal(evaluate(rebuilt(lazy)), expected)  # its own copy: results cache
    assert_image_equal(lazy.to_pil(), expected)


@pytest.mark.parametrize("box", list(BOXES))
@pytest.mark.parametrize("mask_mode", PASTE_MASKS)
@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", BLEND_MODES)
def test_masked_paste_matches_pillow(
    mode: str, size: tuple[int, int], mask_mode: str, box: str
) -> None:
    base = _image(mode, size, seed=1, holes=True)
    patch = _image(mode, (7, 6), seed=2, holes=True)
    mask = _mask(mask_mode, (7, 6), seed=3)
    expected = base.copy()
    expected.paste(patch, BOXES[box], mask)
    lazy = Image.from_pil(base)
    lazy.paste(Image.from_pil(patch), BOXES[box], Image.from_pil(mask))
    _both(lazy, expected)


#: Colours of a masked fill, as a user passes them: an int (Pillow packs its bytes into the
#: ink word, LA's bytes 1 and 2 included), a tuple of the mode's bands, a colour name.
FILL_COLORS: dict[str, Callable[[str], Any]] = {
    "int": lambda mode: 0x5A3C1E0F if len(PILImage.new(mode, (1, 1)).getbands()) > 1 else 77,
    "tuple": lambda mode: (
        tuple(range(40, 40 + 50 * len(PILImage.new(mode, (1, 1)).getbands()), 50))
        if len(PILImage.new(mode, (1, 1)).getbands()) > 1
        else 201
    ),
    "name": lambda mode: "coral",
}


@pytest.mark.parametrize("color", list(FILL_COLORS))
@pytest.mark.parametrize("box", ["inside", "negative", "overhang"])
@pytest.mark.parametrize("mask_mode", FILL_MASKS)
@pytest.mark.parametrize("mode", BLEND_MODES)
def test_masked_colour_fill_matches_pillow(mode: str, mask_mode: str, box: str, color: str) -> None:
    base = _image(mode, (19, 17), seed=4, holes=True)
    mask = _mask(mask_mode, (7, 6), seed=5)
    x, y = BOXES[box]
    region = (x, y, x + 7, y + 6)
    ink = FILL_COLORS[color](mode)
    expected = base.copy()
    try:
        expected.paste(ink, region, mask)
    except (ValueError, TypeError) as error:  # a colour Pillow refuses for this mode
        lazy = Image.from_pil(base)
        with pytest.raises(type(error)):
            lazy.paste(ink, region, Image.from_pil(mask))
        return
    lazy = Image.from_pil(base)
    lazy.paste(ink, region, Image.from_pil(mask))
    _both(lazy, expected, refused=mode in ("LA", "La") and mask_mode == "L")


#: Boxes of a 7 x 6 paste that leave nothing of it inside a 19 x 17 image, and an empty image.
OUTSIDE = {"beyond": ((19, 17), (25, 3)), "before": ((19, 17), (-7, -6)), "empty": ((0, 5), (0, 0))}


@pytest.mark.parametrize("kind", ["fill", "image"])
@pytest.mark.parametrize("mask_mode", ["LA", "I", "P", "L"])
@pytest.mark.parametrize("where", list(OUTSIDE))
def test_a_masked_paste_outside_the_image_reads_no_mask_mode(
    where: str, mask_mode: str, kind: str
) -> None:
    """Pillow's C paste returns before it reads the mask's mode when the clipped box is empty,
    so a mask it refuses elsewhere (an LA mask of a fill, an I or P mask) raises nothing there;
    a mask of the wrong size still does."""
    size, corner = OUTSIDE[where]
    base = _image("RGB", size, seed=6, holes=True)
    mask = PILImage.new(mask_mode, (7, 6), 9)
    source: Any = 77 if kind == "fill" else _image("RGB", (7, 6), seed=7, holes=True)
    box = (*corner, corner[0] + 7, corner[1] + 6)
    expected = base.copy()
    expected.paste(source, box, mask)
    lazy = Image.from_pil(base)
    lazy.paste(source if kind == "fill" else Image.from_pil(source), box, Image.from_pil(mask))
    _both(lazy, expected)
    with pytest.raises(ValueError, match="images do not match"):
        Image.from_pil(base).paste(77, box, Image.from_pil(PILImage.new(mask_mode, (6, 6))))


@pytest.mark.parametrize("mode", ["LA", "La", "RGBA", "RGBa"])
def test_masked_fill_over_transparent_pixels_takes_the_whole_ink(mode: str) -> None:
    """Pillow's L-mask fill rule: over a pixel whose alpha byte is 0, a colour byte with any
    mask above 0 becomes the ink byte (the case that differs from a masked paste). For LA and
    La Pillow tests byte 1, which no band owns: the GPU refuses those."""
    base = PILImage.new(mode, (4, 1), 0)
    mask = PILImage.frombytes("L", (4, 1), bytes([0, 1, 128, 255]))
    expected = base.copy()
    expected.paste((200, 100, 50, 25)[: len(base.getbands())], (0, 0, 4, 1), mask)
    lazy = Image.new(mode, (4, 1), 0)
    lazy.paste((200, 100, 50, 25)[: len(base.getbands())], (0, 0, 4, 1), Image.from_pil(mask))
    _both(lazy, expected, refused=mode in ("LA", "La"))


@pytest.mark.parametrize("holes", [False, True], ids=["opaque", "holes"])
@pytest.mark.parametrize("size", BASES, ids=BASE_IDS)
@pytest.mark.parametrize("mode", ["RGBA", "LA"])
def test_alpha_composite_matches_pillow(mode: str, size: tuple[int, int], holes: bool) -> None:
    below = _image(mode, size, seed=6, holes=holes)
    above = _image(mode, size, seed=7, holes=holes)
    expected = PILImage.alpha_composite(below, above)
    _both(Image.alpha_composite(Image.from_pil(below), Image.from_pil(above)), expected)


def test_alpha_composite_matches_pillow_for_every_pair_of_alphas() -> None:
    """256 x 256 pixels: the source alpha along x, the destination alpha along y, colours
    random: every (source alpha, destination alpha) pair of Pillow's integer 'over'."""
    rng = np.random.default_rng(8)
    alpha_x, alpha_y = np.meshgrid(np.arange(256, dtype=np.uint8), np.arange(256, dtype=np.uint8))
    planes = rng.integers(0, 256, (2, 256, 256, 3), dtype=np.uint8)
    above = PILImage.fromarray(np.dstack([planes[0], alpha_x]), "RGBA")
    below = PILImage.fromarray(np.dstack([planes[1], alpha_y]), "RGBA")
    expected = PILImage.alpha_composite(below, above)
    _both(Image.alpha_composite(Image.from_pil(below), Image.from_pil(above)), expected)


#: In-place ``alpha_composite(im, dest, source)`` forms: (dest, source).
IN_PLACE: dict[str, tuple[Any, Any]] = {
    "whole": ((0, 0), (0, 0)),
    "dest": ((5, 3), (0, 0)),
    "dest-list": ([2, 1], [0, 0]),
    "source-corner": ((0, 0), (2, 1)),
    "source-box": ((4, 4), (1, 1, 6, 5)),
    "hanging": ((15, 14), (0, 0)),
}


@pytest.mark.parametrize("form", list(IN_PLACE))
@pytest.mark.parametrize("mode", ["RGBA", "LA"])
def test_in_place_alpha_composite_matches_pillow(mode: str, form: str) -> None:
    dest, source = IN_PLACE[form]
    base = _image(mode, (19, 17), seed=9, holes=True)
    overlay = _image(mode, (8, 7), seed=10, holes=True)
    expected = base.copy()
    expected.alpha_composite(overlay, dest, source)
    lazy = Image.from_pil(base)
    before = lazy.copy()
    assert lazy.alpha_composite(Image.from_pil(overlay), dest, source) is None
    _both(lazy, expected)
    assert_image_equal(before.to_pil(), base)  # the copy keeps the graph it had


#: Calls whose outcome (result, or exception type and message) must be Pillow's.
ERRORS: dict[str, Callable[[Any, Any], Any]] = {
    "alpha-composite-RGB": lambda m, im: m.alpha_composite(im("RGB", 4), im("RGB", 4)),
    "alpha-composite-modes-differ": lambda m, im: m.alpha_composite(im("RGBA", 4), im("LA", 4)),
    "alpha-composite-sizes-differ": lambda m, im: m.alpha_composite(im("RGBA", 4), im("RGBA", 3)),
    "in-place-source-not-a-tuple": lambda m, im: _in_place(im, (0, 0), 5),
    "in-place-dest-not-a-tuple": lambda m, im: _in_place(im, 5, (0, 0)),
    "in-place-source-length": lambda m, im: _in_place(im, (0, 0), (1, 2, 3)),
    "in-place-dest-length": lambda m, im: _in_place(im, (0, 0, 1), (0, 0)),
    "in-place-source-negative": lambda m, im: _in_place(im, (0, 0), (-1, 0)),
    "paste-mask-mode-P": lambda m, im: _pasted(im("RGB", 4), im("RGB", 2), im("P", 2)),
    "paste-mask-mode-I": lambda m, im: _pasted(im("RGB", 4), im("RGB", 2), im("I", 2)),
    "paste-mask-size": lambda m, im: _pasted(im("RGB", 4), im("RGB", 2), im("L", 3)),
    "fill-mask-mode-LA": lambda m, im: _pasted(im("RGB", 4), (1, 2, 3), im("LA", 2)),
    "fill-ok": lambda m, im: _pasted(im("RGB", 4), (1, 2, 3), im("L", 2)),
    "fill-mask-size": lambda m, im: _pasted(im("RGB", 4), (1, 2, 3), im("L", 3)),
    "fill-bad-colour-and-mask-size": lambda m, im: _pasted(im("RGB", 4), "nocolour", im("P", 3)),
    "fill-mask-size-and-mode": lambda m, im: _pasted(im("RGB", 4), (1, 2, 3), im("P", 3)),
    "composite-clips": lambda m, im: m.composite(im("RGB", 4), im("RGB", 3), im("L", 4)),
}


def _in_place(im: Callable[[str, int], Any], dest: Any, source: Any) -> Any:
    base = im("RGBA", 6)
    base.alpha_composite(im("RGBA", 3), dest, source)
    return base


def _pasted(base: Any, source: Any, mask: Any) -> Any:
    box = None if hasattr(source, "size") else (0, 0, 2, 2)  # a fill's region is 2x2
    base.paste(source, box, mask)
    return base


@pytest.mark.parametrize("name", list(ERRORS))
def test_argument_errors_are_pillows(name: str) -> None:
    def pil(mode: str, edge: int) -> PILImage.Image:
        return PILImage.new(mode, (edge, edge))

    def lazy(mode: str, edge: int) -> Image.Image:
        return Image.new(mode, (edge, edge))

    expected = call_outcome(lambda: ERRORS[name](PILImage, pil))
    assert call_outcome(lambda: ERRORS[name](Image, lazy)) == expected


#: Sources pasted (with and without a mask) into a base of another mode: Pillow converts them,
#: except LA, RGBA and RGBa into RGB, whose stored words it copies.
MIXED: list[tuple[str, str]] = [
    ("RGB", "RGBA"),
    ("RGB", "LA"),
    ("RGB", "RGBa"),
    ("RGB", "L"),
    ("RGB", "P"),
    ("RGBA", "RGB"),
    ("RGBA", "P"),
    ("L", "RGB"),
    ("LA", "RGBA"),
    ("CMYK", "RGB"),
]


@pytest.mark.parametrize("masked", [False, True], ids=["unmasked", "masked"])
@pytest.mark.parametrize(("mode", "source_mode"), MIXED, ids=[f"{a}<-{b}" for a, b in MIXED])
def test_a_source_of_another_mode_is_pasted_as_pillow_pastes_it(
    mode: str, source_mode: str, masked: bool
) -> None:
    base = _image(mode, (19, 17), seed=11)
    source = (
        make_image("RGB", (7, 6), 12).quantize(16)
        if source_mode == "P"
        else _image(source_mode, (7, 6), seed=12, holes=True)
    )
    mask = source.convert("RGBA") if masked and source_mode == "P" else None
    if masked and mask is None:
        mask = source if source_mode in ("LA", "RGBA", "RGBa") else _mask("L", (7, 6), 13)
    expected = base.copy()
    expected.paste(source, (4, 3), mask)
    lazy = Image.from_pil(base)
    lazy.paste(Image.from_pil(source), (4, 3), None if mask is None else Image.from_pil(mask))
    _both(lazy, expected, refused=(mode, source_mode) == ("RGB", "LA"))


@pytest.mark.parametrize("mask_mode", ["1", "L", "RGBA"])
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_image_composite_matches_pillow(mode: str, mask_mode: str) -> None:
    first, second = _image(mode, (19, 17), 14), _image(mode, (19, 17), 15)
    mask = _mask(mask_mode, (19, 17), 16)
    expected = PILImage.composite(first, second, mask)
    lazy_first, lazy_second = Image.from_pil(first), Image.from_pil(second)
    _both(Image.composite(lazy_first, lazy_second, Image.from_pil(mask)), expected)
    chops = ImageChops.composite(lazy_first, lazy_second, Image.from_pil(mask))
    _both(chops, PILImageChops.composite(first, second, mask))
    assert_image_equal(lazy_second.to_pil(), second)  # the second image is left as it was


#: L sizes of the packed composite: rows of whole words, rows that start inside a word, one
#: pixel, and more words than one grid row holds (gpu._packed_l.grid).
PACKED_SIZES = [(8, 4), (19, 17), (1, 1), (3, 5), (1030, 3)]
#: L masks: random bytes, none (0), all (255), and a mask holding every byte value.
PACKED_MASKS = ("random", "zero", "full", "ramp")


def _l_mask(kind: str, size: tuple[int, int]) -> PILImage.Image:
    if kind == "random":
        return make_image("L", size, 21)
    if kind == "ramp":
        data = (np.arange(size[0] * size[1]) % 256).astype(np.uint8).tobytes()
        return PILImage.frombytes("L", size, data)
    return PILImage.new("L", size, 0 if kind == "zero" else 255)


@pytest.mark.parametrize("form", ["composite", "in-place-paste"])
@pytest.mark.parametrize("mask_kind", PACKED_MASKS)
@pytest.mark.parametrize("size", PACKED_SIZES, ids=[f"{w}x{h}" for w, h in PACKED_SIZES])
def test_l_composite_runs_packed_and_matches_pillow(
    size: tuple[int, int], mask_kind: str, form: str
) -> None:
    """Three L images of one size compose four pixels to a word, each pixel weighed by its
    own mask byte, with no unpacking and packing around the composite."""
    first, second, mask = (
        make_image("L", size, 22),
        make_image("L", size, 23),
        _l_mask(mask_kind, size),
    )
    lazy_first, lazy_mask = Image.from_pil(first), Image.from_pil(mask)
    if form == "composite":
        expected = PILImage.composite(first, second, mask)
        lazy = Image.composite(lazy_first, Image.from_pil(second), lazy_mask)
    else:
        expected = second.copy()
        expected.paste(first, (0, 0), mask)
        lazy = Image.from_pil(second)
        lazy.paste(lazy_first, (0, 0), lazy_mask)
    kernels = [dispatch.pipeline for dispatch in plan_graph(rebuilt(lazy)).program.dispatches]
    assert kernels == ["composite?FLAT=1&MASK_BYTE=0&OP=0&PACKED=1&USE_INK=0"]
    _both(lazy, expected)


#: L composites whose mask or base comes from elsewhere: a luma or a band written packed by
#: pack_l (the composite stays packed), and an Image.new base (filled one pixel per word: the
#: general route, with unpacking).
MADE_INPUTS: dict[str, tuple[Callable[..., Any], Callable[..., Any], list[str]]] = {
    "luma-mask": (
        lambda a, b, c: Image.composite(a, b, c.convert("L")),
        lambda a, b, c: PILImage.composite(a, b, c.convert("L")),
        ["pack_l", "composite"],
    ),
    "alpha-band-mask": (
        lambda a, b, c: Image.composite(a, b, c.getchannel("A")),
        lambda a, b, c: PILImage.composite(a, b, c.getchannel("A")),
        ["pack_l", "composite"],
    ),
    "new-base": (
        lambda a, b, c: Image.composite(a, Image.new("L", a.size, 77), b),
        lambda a, b, c: PILImage.composite(a, PILImage.new("L", a.size, 77), b),
        ["fill", "unpack", "unpack", "composite", "pack_l"],
    ),
}


@pytest.mark.parametrize("size", PACKED_SIZES, ids=[f"{w}x{h}" for w, h in PACKED_SIZES])
@pytest.mark.parametrize("case", list(MADE_INPUTS))
def test_l_composites_of_made_inputs_match_pillow(case: str, size: tuple[int, int]) -> None:
    lazy_call, pil_call, kernels = MADE_INPUTS[case]
    first, second = make_image("L", size, 24), make_image("L", size, 25)
    third = make_image("RGBA", size, 26)
    lazy = lazy_call(Image.from_pil(first), Image.from_pil(second), Image.from_pil(third))
    program = plan_graph(rebuilt(lazy)).program
    assert [dispatch.shader for dispatch in program.dispatches] == kernels
    _both(lazy, pil_call(first, second, third))


def test_l_composites_of_a_batch_match_pillow_through_the_executor() -> None:
    """A batch of packed L composites (stacked lanes, the source doubling as the mask)."""
    pairs = [
        (make_image("L", (36, 9), seed), make_image("L", (36, 9), seed + 50)) for seed in range(6)
    ]
    with GpuBatchExecutor(max_jobs=8) as executor:
        jobs = [
            (index, Image.composite(Image.from_pil(a), Image.from_pil(b), Image.from_pil(a)))
            for index, (a, b) in enumerate(pairs)
        ]
        found = {result.input_key: result.image for result in executor.run(jobs)}
    for index, (a, b) in enumerate(pairs):
        assert_image_equal(found[index], PILImage.composite(a, b, a))


def test_watermark_pipeline_streams_exactly_through_the_executor() -> None:
    """The everyday pipeline, many same-shaped jobs at once (stacked dispatches): flatten an
    RGBA photo onto white, paste a logo through its own alpha, and alpha-composite a badge."""
    logo = _image("RGBA", (9, 5), seed=17, holes=True)
    badge = _image("RGBA", (6, 6), seed=18, holes=True)

    def pillow(photo: PILImage.Image) -> PILImage.Image:
        flat = PILImage.new("RGB", photo.size, (255, 255, 255))
        flat.paste(photo, mask=photo)
        flat.paste(logo, (3, 2), logo)
        out = flat.convert("RGBA")
        out.alpha_composite(badge, (10, 8))
        return out

    def lazy(photo: Image.Image) -> Image.Image:
        flat = Image.new("RGB", photo.size, (255, 255, 255))
        flat.paste(photo, mask=photo)
        flat.paste(logo, (3, 2), logo)
        out = flat.convert("RGBA")
        out.alpha_composite(Image.from_pil(badge), (10, 8))
        return out

    photos = [_image("RGBA", (33, 21), seed=20 + index, holes=True) for index in range(12)]
    jobs = ((index, lazy(Image.from_pil(photo))) for index, photo in enumerate(photos))
    with GpuBatchExecutor(max_jobs=12) as executor, executor.run(jobs) as results:
        seen = 0
        for result in results:
            assert_image_equal(result.image, pillow(photos[result.input_key]))
            seen += 1
    assert seen == len(photos)


def test_masked_paste_of_16_bit_images_is_refused_at_admission() -> None:
    base = PILImage.new("I;16", (8, 6), 300)
    patch = PILImage.new("I;16", (2, 2), 40000)
    mask = PILImage.new("L", (2, 2), 128)
    expected = base.copy()
    expected.paste(patch, (1, 1), mask)
    lazy = Image.from_pil(base)
    lazy.paste(patch, (1, 1), mask)
    with pytest.raises(Unsupported) as caught:
        evaluate(rebuilt(lazy))
    assert caught.value.stage == "admission"
    assert_image_equal(lazy.to_pil(), expected)  # the CPU route runs it as Pillow does


@st.composite
def _composite_sequences(draw: st.DrawFn) -> tuple[str, tuple[int, int], list[tuple[Any, ...]]]:
    """A base mode and size, and 1..4 compositing calls on it: (kind, arguments...)."""
    mode = draw(st.sampled_from(BLEND_MODES))
    size = (draw(st.integers(1, 24)), draw(st.integers(1, 24)))
    calls: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["paste", "fill", "composite"]))
        patch = (draw(st.integers(1, 12)), draw(st.integers(1, 12)))
        corner = (draw(st.integers(-14, 26)), draw(st.integers(-14, 26)))
        seed = draw(st.integers(0, 2**16))
        if kind == "paste":
            calls.append((kind, patch, corner, draw(st.sampled_from(PASTE_MASKS)), seed))
        elif kind == "fill":
            mask_mode = draw(st.sampled_from(FILL_MASKS))
            if mode in ("LA", "La") and mask_mode == "L":
                mask_mode = "RGBA"  # the L-mask fill of LA/La is refused (byte 1); see above
            calls.append((kind, patch, corner, mask_mode, seed))
        elif mode in ("LA", "RGBA"):
            calls.append((kind, seed))
    return mode, size, calls


@settings(max_examples=150, deadline=None, derandomize=True)
@given(_composite_sequences())
def test_random_compositing_sequences_match_pillow(
    case: tuple[str, tuple[int, int], list[tuple[Any, ...]]],
) -> None:
    mode, size, calls = case
    expected = _image(mode, size, seed=30, holes=True)
    lazy = Image.from_pil(expected)
    for call in calls:
        if call[0] == "composite":
            above = _image(mode, size, seed=call[1], holes=True)
            expected = PILImage.alpha_composite(expected, above)
            lazy = Image.alpha_composite(lazy, above)
            continue
        kind, patch, corner, mask_mode, seed = call
        mask = _mask(mask_mode, patch, seed)
        if kind == "paste":
            source: Any = _image(mode, patch, seed=seed + 1, holes=True)
            box: Any = corner
        else:
            rng = np.random.default_rng(seed)
            source = tuple(int(v) for v in rng.integers(0, 256, len(expected.getbands())))
            source = source[0] if len(source) == 1 else source
            box = (*corner, corner[0] + patch[0], corner[1] + patch[1])
        expected.paste(source, box, mask)
        lazy.paste(source, box, mask)
    _both(lazy, expected)
