"""An opened file decodes once into pixels of its own: Pillow's decoded storage is kept (no
copy of a large photo), except where that storage maps the file itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image

#: (format, mode, save options, whether Pillow memory-maps the file it loads by path)
FILES = [
    ("JPEG", "RGB", {"quality": 90}, False),
    ("JPEG", "L", {"quality": 90}, False),
    ("PNG", "RGBA", {}, False),
    ("PNG", "P", {}, False),
    ("GIF", "P", {}, False),
    ("WEBP", "RGB", {"lossless": True}, False),
    ("TIFF", "RGB", {"compression": "tiff_lzw"}, False),
    ("TIFF", "L", {}, True),
    ("PPM", "RGB", {}, False),
    ("TIFF", "RGBA", {}, True),
    ("TIFF", "CMYK", {}, True),
    ("PPM", "L", {}, True),
]
IDS = [f"{fmt}-{mode}-{'mapped' if mapped else 'decoded'}" for fmt, mode, _, mapped in FILES]


def _written(folder: Path, fmt: str, mode: str, options: dict[str, Any], seed: int = 0) -> Path:
    path = folder / f"image.{fmt.lower()}"
    make_image(mode, (67, 41), seed=seed).save(path, fmt, **options)
    return path


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, int]]]:
    """(mode, size) of every ``PIL.Image.Image.copy`` call."""
    seen: list[tuple[str, tuple[int, int]]] = []
    real = PILImage.Image.copy

    def counted(self: PILImage.Image) -> PILImage.Image:
        seen.append((self.mode, self.size))
        return real(self)

    monkeypatch.setattr(PILImage.Image, "copy", counted)
    return seen


@pytest.mark.parametrize(("fmt", "mode", "options", "mapped"), FILES, ids=IDS)
def test_a_decoded_file_equals_pillow_and_is_copied_only_where_it_is_mapped(
    tmp_path: Path,
    copies: list[tuple[str, tuple[int, int]]],
    fmt: str,
    mode: str,
    options: dict[str, Any],
    mapped: bool,
) -> None:
    path = _written(tmp_path, fmt, mode, options)
    with PILImage.open(path) as opened:
        opened.load()
        assert (getattr(opened, "map", None) is not None) == mapped  # the case is what it says
        expected = opened.copy()
    copies.clear()
    handle = Image.open(path)
    handle.load()
    assert len(copies) == (1 if mapped else 0)
    result = handle.to_pil()
    assert_image_equal(result, expected)
    assert result.info == expected.info


@pytest.mark.parametrize(
    ("fmt", "mode", "options"),
    [(fmt, mode, options) for fmt, mode, options, mapped in FILES if mapped],
    ids=[name for name, case in zip(IDS, FILES, strict=True) if case[3]],
)
def test_a_mapped_file_written_over_after_loading_keeps_the_loaded_pixels(
    tmp_path: Path, fmt: str, mode: str, options: dict[str, Any]
) -> None:
    path = _written(tmp_path, fmt, mode, options)
    expected = PILImage.open(path).copy()
    handle = Image.open(path)
    handle.load()
    replacement = tmp_path / "replacement"
    make_image(mode, (67, 41), seed=1).save(replacement, fmt, **options)
    data = replacement.read_bytes()
    assert len(data) == path.stat().st_size
    assert data != path.read_bytes()
    with open(path, "r+b") as file:  # the same file (inode) written over, as a map sees it
        file.write(data)
    assert_image_equal(handle.to_pil(), expected)
    assert_image_equal(Image.open(path).to_pil(), PILImage.open(path))  # the file did change


def test_the_decoded_pixels_are_the_handles_own(tmp_path: Path) -> None:
    path = _written(tmp_path, "JPEG", "RGB", {"quality": 90})
    handle = Image.open(path)
    handle.load()
    expected = handle.to_pil()
    given = handle.to_pil()
    given.paste((1, 2, 3), (0, 0, 67, 41))  # the caller's copy, changed
    assert_image_equal(handle.to_pil(), expected)
    assert handle.to_pil().readonly == 0
