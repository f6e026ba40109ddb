"""``ImageOps.exif_transpose`` on damaged EXIF and oriented TIFFs, against live Pillow.

JPEGs carry an APP1 EXIF segment written byte by byte (truncated, bad magic, short header,
out-of-range offsets, a huge tag count): the full pipeline ``exif_transpose -> convert("RGB")
-> thumbnail -> GaussianBlur`` gives Pillow's bytes and ``info`` where Pillow copes, and the
same exception type where Pillow raises (a JPEG whose JFIF header already gives the DPI, so
Pillow does not parse the EXIF while opening). TIFFs, which Pillow transposes while loading,
run exactly whatever their orientation tag; only a quarter turn given by the XMP packet alone
(the size then changes while loading) is refused with ``Unsupported`` at admission.
"""

from __future__ import annotations

import io
import struct
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

_ORIENTATION = 0x0112


@pytest.fixture(autouse=True)
def _quiet_corrupt_exif_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning, module=r"PIL\.")  # "Corrupt EXIF"
        yield


def _good_exif(orientation: int) -> bytes:
    exif = PILImage.Exif()
    exif[_ORIENTATION] = orientation
    exif[0x010F] = "pillow-gpu"
    return exif.tobytes()


_GOOD = _good_exif(6)
#: id -> the APP1 payload written into the JPEG
PAYLOADS = {
    "empty": b"Exif\x00\x00",
    "truncated-header": b"Exif\x00\x00MM\x00",  # SyntaxError when parsed afresh
    "short-header": b"Exif\x00\x00II*\x00",  # struct.error when parsed afresh
    "bad-magic": b"Exif\x00\x00XX\x00\x2a\x00\x00\x00\x08",
    "offset-past-end": b"Exif\x00\x00MM\x00\x2a\xff\xff\xff\xff",
    "truncated-ifd": _GOOD[:14],
    "truncated-half": _GOOD[: len(_GOOD) // 2],
    "huge-tag-count": _GOOD[:14] + b"\xff\xff" + _GOOD[16:],  # orientation 6 still read
    "intact": _GOOD,
}


#: (payload, jfif_dpi) -> the exception Pillow's own exif_transpose raises; the rest it copes
#: with. With the DPI in the JFIF header, Pillow does not parse the EXIF while opening.
PILLOW_RAISES: dict[tuple[str, bool], type[Exception]] = {
    ("truncated-header", True): SyntaxError,
    ("short-header", True): struct.error,
    ("bad-magic", True): SyntaxError,
}


def _jpeg(payload: bytes, *, jfif_dpi: bool) -> bytes:
    buffer = io.BytesIO()
    options = {"dpi": (300, 300)} if jfif_dpi else {}
    make_image("L", (23, 15), seed=4).save(buffer, "JPEG", **options)
    data = buffer.getvalue()
    segment = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return data[:2] + segment + data[2:]  # APP1 right after SOI


def _pillow(data: bytes) -> PILImage.Image:
    with PILImage.open(io.BytesIO(data)) as opened:
        image = PILImageOps.exif_transpose(opened).convert("RGB")
    image.thumbnail((9, 9))
    return image.filter(PILImageFilter.GaussianBlur(1.2))


def _lazy(data: bytes) -> Image.Image:
    image = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
    image.thumbnail((9, 9))  # in place, as in Pillow
    return image.filter(ImageFilter.GaussianBlur(1.2))


@pytest.mark.parametrize("jfif_dpi", [False, True], ids=["dpi-from-exif", "dpi-from-jfif"])
@pytest.mark.parametrize("payload", list(PAYLOADS))
def test_damaged_jpeg_exif_is_handled_as_pillow_handles_it(payload: str, jfif_dpi: bool) -> None:
    data = _jpeg(PAYLOADS[payload], jfif_dpi=jfif_dpi)
    raised = PILLOW_RAISES.get((payload, jfif_dpi))
    if raised is not None:  # Pillow itself raises: the same type, when recording
        with pytest.raises(raised):
            _pillow(data)
        with pytest.raises(raised):
            _lazy(data)
        return
    expected = _pillow(data)
    transposed = payload in ("huge-tag-count", "intact")
    assert expected.size == ((6, 9) if transposed else (9, 6))
    result = evaluate(_lazy(data))
    assert_image_equal(result, expected)
    assert result.info == expected.info


def _tiff_pipeline(path: Path, image_ops: Any) -> Any:
    """The same calls on a PIL and a lazy image: exif_transpose, then an in-place thumbnail."""
    opened = (PILImage if image_ops is PILImageOps else Image).open(path)
    result = image_ops.exif_transpose(opened)
    result.thumbnail((4, 4))
    return result


@pytest.mark.parametrize("orientation", range(2, 9), ids=lambda value: f"orientation-{value}")
def test_oriented_tiff_runs_as_pillow_loads_it(orientation: int, tmp_path: Path) -> None:
    """Pillow's TIFF plugin transposes while loading (the size is transposed from the header
    at open), so exif_transpose is a copy in Pillow and in the lazy graph."""
    path = tmp_path / "oriented.tif"
    exif = PILImage.Exif()
    exif[_ORIENTATION] = orientation
    make_image("RGB", (7, 5), seed=9).save(path, exif=exif.tobytes())
    with PILImage.open(path) as opened:
        assert opened.size == ((5, 7) if orientation >= 5 else (7, 5))  # at open, unloaded
    expected = _tiff_pipeline(path, PILImageOps)
    result = evaluate(_tiff_pipeline(path, ImageOps))
    assert_image_equal(result, expected)
    assert result.info == expected.info


@pytest.mark.parametrize(("orientation", "refused"), [(6, True), (3, False)])
def test_tiff_oriented_only_by_xmp(orientation: int, refused: bool, tmp_path: Path) -> None:
    """Without the tag, Pillow sizes the header unturned and turns it while loading."""
    path = tmp_path / "xmp.tif"
    xmp = f'<x:xmpmeta><rdf:Description tiff:Orientation="{orientation}"/></x:xmpmeta>'
    make_image("L", (7, 5), seed=9).save(path, tiffinfo={700: xmp.encode()})
    with PILImage.open(path) as opened:
        assert opened.size == (7, 5)
        turned = PILImageOps.exif_transpose(opened).size  # Pillow transposes at load
        assert turned == ((5, 7) if refused else (7, 5))
    if refused:
        with pytest.raises(Unsupported, match="TIFF orientation 6 from XMP only") as caught:
            ImageOps.exif_transpose(Image.open(path))
        assert caught.value.stage == "admission"
        return
    expected = _tiff_pipeline(path, PILImageOps)
    assert_image_equal(evaluate(_tiff_pipeline(path, ImageOps)), expected)


@pytest.mark.parametrize("orientation", [None, 1], ids=["no-orientation", "orientation-1"])
def test_unoriented_tiff_runs_the_full_pipeline_exactly(
    orientation: int | None, tmp_path: Path
) -> None:
    path = tmp_path / "plain.tif"
    exif = PILImage.Exif()
    if orientation is not None:
        exif[_ORIENTATION] = orientation
    make_image("L", (30, 21), seed=3).save(path, exif=exif.tobytes(), dpi=(96, 96))
    with PILImage.open(path) as opened:
        expected = PILImageOps.exif_transpose(opened).convert("RGB")
    expected.thumbnail((10, 10))
    expected = expected.filter(PILImageFilter.GaussianBlur(1.2))
    lazy = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    lazy.thumbnail((10, 10))
    result = evaluate(lazy.filter(ImageFilter.GaussianBlur(1.2)))
    assert_image_equal(result, expected)
    assert result.info == expected.info
