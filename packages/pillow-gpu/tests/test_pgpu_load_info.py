"""What an opened file's info gains when Pillow loads it (pillow_gpu._load_info), known at open
without decoding: WebP's first-frame timing and a still AVIF's (PNG's chunks after the
pixels: test_pgpu_png_tail)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import features
from pillow_gpu import Image, ImageOps
from pillow_gpu._load_info import loaded_info
from pillow_gpu._testing import make_image, opens_like_pillow
from pillow_gpu.errors import DecodeError
from pillow_gpu.gpu import evaluate

needs_webp = pytest.mark.skipif(
    not features.check("webp"), reason="this Pillow build has no WebP support"
)
needs_avif = pytest.mark.skipif(
    not features.check("avif"), reason="this Pillow build has no AVIF support"
)


def _webp(path: Path, durations: list[int] | None) -> Path:
    """A still WebP (``durations`` None) or an animation with those frame durations."""
    first = make_image("RGB", (9, 7), seed=1)
    if durations is None:
        first.save(path, "WEBP", lossless=True)
    else:
        frames = [make_image("RGB", (9, 7), seed=seed) for seed in range(2, len(durations) + 1)]
        first.save(
            path, "WEBP", lossless=True, save_all=True, append_images=frames, duration=durations
        )
    return path


def _pillow_loaded(path: Path) -> tuple[dict[str, object], dict[str, object]]:
    with PILImage.open(path) as opened:
        header = dict(opened.info)
        opened.load()
        return header, dict(opened.info)


@needs_webp
@pytest.mark.parametrize(
    "durations", [None, [70, 30], [0, 40, 50], [2**24 - 1, 5]], ids=["still", "anim", "zero", "max"]
)
def test_webp_timing_is_pillows_after_load(durations: list[int] | None, tmp_path: Path) -> None:
    path = _webp(tmp_path / "a.webp", durations)
    header, expected = _pillow_loaded(path)
    assert {"timestamp", "duration"} <= set(expected) - set(header)
    assert loaded_info("WEBP", str(path), None, header) == expected
    assert loaded_info("WEBP", None, path.read_bytes(), header) == expected


@needs_webp
@pytest.mark.parametrize("durations", [None, [70, 30]], ids=["still", "anim"])
def test_webp_results_carry_pillows_info(durations: list[int] | None, tmp_path: Path) -> None:
    path = _webp(tmp_path / "a.webp", durations)
    header, _ = _pillow_loaded(path)
    with PILImage.open(path) as opened:
        expected = PILImageOps.invert(opened)  # loads first
    lazy = Image.open(path)
    assert lazy.info == header  # not loaded yet, as Pillow's
    result = evaluate(ImageOps.invert(lazy))
    assert result.tobytes() == expected.tobytes()
    assert result.info == expected.info


@needs_webp
def test_a_webp_whose_timing_changed_since_open_fails_to_decode(tmp_path: Path) -> None:
    path = _webp(tmp_path / "a.webp", [70, 30])
    lazy = ImageOps.invert(Image.open(path))
    _webp(path, [80, 30])
    with pytest.raises(DecodeError, match="info differs from the one read at open"):
        evaluate(lazy)


def test_other_formats_are_not_predicted(tmp_path: Path) -> None:
    path = tmp_path / "a.jpg"
    make_image("RGB", (9, 7)).save(path)
    assert loaded_info("JPEG", str(path), None, {}) is None
    assert "header_info" not in Image.open(path).node.params


@needs_webp
@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=300), cut=st.integers(min_value=0, max_value=400))
def test_any_riff_bytes_never_raise(tail: bytes, cut: int) -> None:
    data = (b"RIFF" + (len(tail) + 4).to_bytes(4, "little") + b"WEBP" + tail)[:cut]
    found = loaded_info("WEBP", None, data, {})
    assert found is None or (found["timestamp"] == 0 and 0 <= found["duration"] < 2**24)
    if opens_like_pillow(data):
        assert Image.open(io.BytesIO(data)).size == PILImage.open(io.BytesIO(data)).size


def _avif(path: Path, frames: int) -> Path:
    images = [make_image("RGB", (16, 12), seed=seed) for seed in range(frames)]
    images[0].save(path, "AVIF", save_all=frames > 1, append_images=images[1:], duration=40)
    return path


@needs_avif
def test_a_still_avif_has_libavifs_fixed_timing(tmp_path: Path) -> None:
    path = _avif(tmp_path / "a.avif", 1)
    header, expected = _pillow_loaded(path)
    assert (expected["timestamp"], expected["duration"]) == (0, 1000)
    assert loaded_info("AVIF", str(path), None, header) == expected
    with PILImage.open(path) as opened:
        inverted = PILImageOps.invert(opened)
    result = evaluate(ImageOps.invert(Image.open(path)))
    assert result.info == inverted.info


@needs_avif
def test_an_avif_sequence_is_not_predicted(tmp_path: Path) -> None:
    path = _avif(tmp_path / "a.avifs", 3)
    header, _ = _pillow_loaded(path)
    assert loaded_info("AVIF", str(path), None, header) is None
    assert "header_info" not in Image.open(path).node.params


_KINDS = st.sampled_from([b"ftyp", b"meta", b"moov", b"mdat", b"free"])


@settings(max_examples=200, deadline=None)
@given(boxes=st.lists(st.tuples(st.integers(8, 40), _KINDS), min_size=1, max_size=6))
def test_well_formed_boxes_are_still_exactly_without_moov(boxes: list[tuple[int, bytes]]) -> None:
    data = b"".join(size.to_bytes(4, "big") + kind + bytes(size - 8) for size, kind in boxes)
    still = {"timestamp": 0, "duration": 1000}
    moov = any(kind == b"moov" for _, kind in boxes)
    assert loaded_info("AVIF", None, data, {}) == (None if moov else still)


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=120))
def test_any_bytes_as_avif_never_raise(data: bytes) -> None:
    assert loaded_info("AVIF", None, data, {}) in (None, {"timestamp": 0, "duration": 1000})


@needs_avif
def test_an_avif_its_codec_cannot_decode_is_a_decode_error(tmp_path: Path) -> None:
    data = bytearray(_avif(tmp_path / "a.avif", 1).read_bytes())
    data[data.rindex(b"mdat") + 8] ^= 0xFF  # the first coded byte
    path = tmp_path / "broken.avif"
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError), PILImage.open(path) as opened:  # Pillow's own failure
        opened.load()
    with pytest.raises(DecodeError, match="could not be decoded") as caught:
        evaluate(ImageOps.invert(Image.open(path)))
    assert "RuntimeError" in caught.value.observed
