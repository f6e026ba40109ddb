"""ImageOps.contain/cover/fit/pad/scale and Image.thumbnail record like Pillow: errors, sizes."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image, rebuilt
from pillow_gpu.gpu import evaluate


def _thumbnail(*args: Any) -> Callable[[Any], Any]:
    def call(image: Any) -> Any:
        image = image.copy()  # Pillow's and ours both change the image in place
        assert image.thumbnail(*args) is None
        return image

    return call


def _ops(name: str, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    def call(image: Any) -> Any:
        module = PILImageOps if isinstance(image, PILImage.Image) else ImageOps
        return getattr(module, name)(image, *args, **kwargs)

    return call


# Calls Pillow rejects: ours must raise the same type with the same message.
ERRORS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "scale-zero": ("RGB", _ops("scale", 0)),
    "scale-negative": ("RGB", _ops("scale", -0.5)),
    "scale-bad-filter": ("RGB", _ops("scale", 0.5, 9)),
    "contain-bad-filter": ("RGB", _ops("contain", (5, 5), 9)),
    "contain-one-value-size": ("RGB", _ops("contain", (5,))),
    "cover-bad-filter": ("L", _ops("cover", (5, 5), 9)),
    "fit-bad-filter": ("LA", _ops("fit", (5, 5), 9)),
    "fit-negative-size": ("LA", _ops("fit", (-4, 5))),
    "fit-one-value-centering": ("LA", _ops("fit", (5, 5), centering=(0.5,))),
    "pad-bad-filter": ("RGBA", _ops("pad", (5, 5), 9)),
    "pad-L-rgb-tuple": ("L", _ops("pad", (30, 5), color=(1, 2, 3))),
    "pad-LA-rgb-tuple": ("LA", _ops("pad", (30, 5), color=(1, 2, 3))),
    "pad-unknown-colour-name": ("RGB", _ops("pad", (30, 5), color="no-such-colour")),
    "pad-float-colour": ("CMYK", _ops("pad", (30, 5), color=1.5)),
    "thumbnail-bad-filter": ("RGB", _thumbnail((5, 5), 9)),
    "thumbnail-three-values": ("RGB", _thumbnail((5, 5, 5))),
    "thumbnail-zero-width": ("RGB", _thumbnail((0, 5))),
    "thumbnail-zero-height-no-gap": ("RGB", _thumbnail((5, 0), 3, None)),
    "thumbnail-string-size": ("RGB", _thumbnail("5x5")),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_pillow(case: str) -> None:
    mode, call = ERRORS[case]
    source = make_image(mode, (19, 17))
    with pytest.raises(Exception) as expected:  # noqa: PT011 - any Pillow error, compared below
        call(source)
    with pytest.raises(type(expected.value)) as ours:
        call(Image.from_pil(source))
    assert type(ours.value) is type(expected.value)
    assert str(ours.value) == str(expected.value)


# Zero-sized results and no-op calls: Pillow returns a new (empty) image or the input size.
EDGES: dict[str, tuple[tuple[int, int], Callable[[Any], Any]]] = {
    "contain-zero-target-height": ((19, 17), _ops("contain", (5, 0))),
    "contain-zero-source-height": ((19, 0), _ops("contain", (5, 4))),
    "contain-rounds-to-zero": ((300, 1), _ops("contain", (10, 10))),
    "cover-zero-source-height": ((19, 0), _ops("cover", (5, 4))),
    "cover-negative-width": ((19, 17), _ops("cover", (-4, 5))),
    "fit-zero-target": ((19, 17), _ops("fit", (0, 4))),
    "pad-exact-fit": ((20, 10), _ops("pad", (10, 5))),
    "scale-one": ((19, 17), _ops("scale", 1)),
    "thumbnail-already-fits": ((19, 17), _thumbnail((19, 30))),
    "thumbnail-float-size": ((19, 17), _thumbnail((7.9, 30.2))),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edge_cases_match_pillow(case: str) -> None:
    size, call = EDGES[case]
    source = make_image("RGB", size)
    expected = call(source)
    lazy = call(Image.from_pil(source))
    assert (lazy.mode, lazy.size) == (expected.mode, expected.size)
    assert_image_equal(lazy.to_pil(), expected)


def test_thumbnail_changes_the_handle_in_place_and_leaves_its_copy() -> None:
    lazy = Image.from_pil(make_image("RGB", (40, 30)))
    original = lazy.copy()
    assert lazy.thumbnail((10, 10)) is None
    assert (lazy.size, original.size) == ((10, 8), (40, 30))
    assert lazy.node.op == "resize"
    assert lazy.node.inputs == (original.node,)
    fitted = lazy.node
    assert lazy.thumbnail((40, 30)) is None  # already fits: Pillow leaves it unchanged too
    assert lazy.node is fitted


def test_thumbnail_of_a_png_file_has_no_draft_and_matches_pillow() -> None:
    buffer = io.BytesIO()
    make_image("RGBA", (65, 33)).save(buffer, "PNG")
    with PILImage.open(io.BytesIO(buffer.getvalue())) as expected:
        expected.thumbnail((16, 16))
        lazy = Image.open(io.BytesIO(buffer.getvalue()))
        lazy.thumbnail((16, 16))
        assert "draft" not in lazy.node.inputs[0].params
        assert_image_equal(lazy.to_pil(), expected)


def test_thumbnail_of_a_jpeg_with_a_tiny_gap_fails_in_draft_like_pillow() -> None:
    buffer = io.BytesIO()
    make_image("RGB", (64, 48)).save(buffer, "JPEG")
    with (
        PILImage.open(io.BytesIO(buffer.getvalue())) as opened,
        pytest.raises(ZeroDivisionError) as expected,
    ):
        opened.thumbnail((8, 8), reducing_gap=0.1)  # draft asks for a 0x0 decode
    with pytest.raises(ZeroDivisionError) as ours:
        Image.open(io.BytesIO(buffer.getvalue())).thumbnail((8, 8), reducing_gap=0.1)
    assert str(ours.value) == str(expected.value)


def test_thumbnail_twice_on_a_drafted_leaf_drafts_once_as_pillow() -> None:
    buffer = io.BytesIO()
    make_image("L", (64, 64), seed=2).save(buffer, "JPEG")
    data = buffer.getvalue()
    with PILImage.open(io.BytesIO(data)) as expected:
        expected.thumbnail((8, 8), reducing_gap=1.0)  # the draft alone gives 8x8: no resize
        expected.thumbnail((5, 5), reducing_gap=1.0)  # JPEG's draft refuses a second call
        lazy = Image.open(io.BytesIO(data))
        lazy.thumbnail((8, 8), reducing_gap=1.0)
        assert (lazy.node.op, lazy.node.params["draft"]) == ("open", (None, (8, 8)))
        lazy.thumbnail((5, 5), reducing_gap=1.0)
        assert_image_equal(lazy.to_pil(), expected)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["P", "PA"])
@pytest.mark.parametrize("color", [None, 3, (3, 200)], ids=["none", "index", "pair"])
def test_pad_of_a_palette_image_keeps_its_palette(mode: str, color: Any) -> None:
    """Pillow fills a palette image's borders with ``color`` as an index and keeps the
    palette (and only ``info["transparency"]``): an ``expand`` of the contained image."""
    source = make_image("RGB", (19, 17)).quantize(9).convert(mode)
    source.info.update({"transparency": 2, "dpi": (72, 72)})
    if mode == "P" and isinstance(color, tuple):
        color = 5
    nearest = PILImage.Resampling.NEAREST  # Pillow interpolates PA indices with the others
    expected = PILImageOps.pad(source, (30, 10), nearest, color, (0.3, 0.5))
    lazy = ImageOps.pad(Image.from_pil(source), (30, 10), nearest, color, (0.3, 0.5))
    for actual in (lazy.to_pil(), evaluate(rebuilt(lazy))):  # Pillow's replay and the GPU
        assert_image_equal(actual, expected)
        assert actual.getpalette() == expected.getpalette()
        assert lazy.info == actual.info == expected.info == {"transparency": 2}
