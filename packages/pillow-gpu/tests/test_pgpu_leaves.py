"""Leaves of a graph (pillow_gpu._leaves): what an opened file's leaf knows before any pixel is
decoded, against what Pillow's image says once it loads."""

from __future__ import annotations

import io

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import make_image, tiff_entry_edited
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate


def _icns(mode: str) -> bytes:
    """An ICNS file Pillow writes from a ``mode`` image (its icons are PNGs of that mode)."""
    written = io.BytesIO()
    make_image(mode, (64, 64), seed=3).save(written, "ICNS")
    return written.getvalue()


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
@pytest.mark.parametrize("route", ["gpu", "cpu"])
def test_an_icns_leaf_has_the_mode_pillow_s_load_gives(mode: str, route: str) -> None:
    """Pillow's ICNS reader says RGBA until it decodes the icon: an icon of an RGB or L image
    loads as that mode, and Pillow's operations start from it. The leaf is loaded at open, so
    the lazy image says the loaded mode, and the GPU runs it (its decode refused it before)."""
    data = _icns(mode)
    with PILImage.open(io.BytesIO(data)) as opened:
        assert opened.mode == "RGBA"  # what the header says
        expected = PILImageOps.invert(opened.convert("RGB"))  # convert loads first
        loaded_mode = opened.mode
    assert loaded_mode == mode
    lazy = Image.open(io.BytesIO(data))
    assert (lazy.mode, lazy.size) == (loaded_mode, expected.size)
    step = ImageOps.invert(lazy.convert("RGB"))
    result = evaluate(step) if route == "gpu" else step.to_pil()
    assert (result.mode, result.size, result.tobytes()) == (
        expected.mode,
        expected.size,
        expected.tobytes(),
    )


def test_an_icns_pillow_cannot_load_keeps_its_header_and_raises_at_its_first_use() -> None:
    data = bytearray(_icns("RGB"))
    # The pixels of the 1024x1024 icon (ic10), the one Pillow's image loads.
    largest = data.index(b"IDAT", data.rindex(b"ic10"))  # its chunk, past the table
    data[largest + 4 : largest + 204] = bytes(200)
    with PILImage.open(io.BytesIO(bytes(data))) as opened:
        header = opened.mode
        with pytest.raises(Exception):  # noqa: B017, PT011 - whatever its decoder raises
            opened.load()
    lazy = Image.open(io.BytesIO(bytes(data)))
    assert lazy.mode == header
    with pytest.raises(Exception):  # noqa: B017, PT011 - Pillow's error, at the first use
        lazy.to_pil()


def _tiff_with_long_colour_map() -> bytes:
    """A P TIFF whose colour map entry says LONG where SHORT was written (a faulty editor's):
    Pillow opens it with palette values past a byte, and its load raises OverflowError."""
    out = io.BytesIO()
    make_image("RGB", (64, 64), 3).quantize(16).save(out, "TIFF")
    return tiff_entry_edited(out.getvalue(), 320, kind=4)  # ColorMap, LONG


def test_a_palette_of_values_past_a_byte_opens_and_fails_where_pillow_s_does() -> None:
    data = _tiff_with_long_colour_map()
    with PILImage.open(io.BytesIO(data)) as opened:
        assert opened.mode == "P"
        assert max(opened.palette.palette) > 255
        with pytest.raises(OverflowError):
            opened.rotate(90)
    lazy = Image.open(io.BytesIO(data))  # raised ValueError building the header's palette
    assert (lazy.mode, lazy.size) == ("P", (64, 64))
    with pytest.raises(OverflowError):
        lazy.rotate(90).to_pil()
    with pytest.raises(Unsupported, match="palette of this image cannot be applied by Pillow"):
        evaluate(lazy.rotate(90))  # raised OverflowError from the planner
