"""Camera photos written by the cameras themselves, through pillow-gpu vs Pillow.

Pillow's own corpus holds few photos straight from cameras. piexif's test images (see
``conftest.camera_corpus``) are JPEGs from eight makers with their maker notes, a TIFF with
EXIF, one JPEG without EXIF and one empty file. Each file Pillow opens goes through what a
photo tool does: the EXIF read as Pillow reads it (the Exif, GPS and Interop directories, the
maker note's bytes), two pipelines through ``GpuBatchExecutor`` (straightened, thumbnailed and
blurred; straightened, grey and autocontrasted), and a JPEG saved with the file's EXIF. Every
answer must equal Pillow's (pixels, mode, size, ``info`` and saved bytes), or both must raise
the same exception type.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import ExifTags
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps

from .conftest import Tally, outcome

pytestmark = pytest.mark.usefixtures("device")

_IFDS = (ExifTags.IFD.Exif, ExifTags.IFD.GPSInfo, ExifTags.IFD.Interop)


def _exif(image: Any) -> tuple[str]:
    # By repr: a camera's 0/0 rational (DigitalZoomRatio) is NaN, which equals nothing, so
    # two reads by Pillow itself compare unequal. In a tuple: a bare str is an error's name.
    exif = image.getexif()
    return (repr((dict(exif), [dict(exif.get_ifd(ifd)) for ifd in _IFDS])),)


def _saved_with_exif(image: Any) -> bytes:
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=90, exif=image.getexif())
    return buffer.getvalue()


def _thumbnail_blur(image: Any, ops: Any, filters: Any) -> Any:
    image = ops.exif_transpose(image)
    image.thumbnail((96, 96))
    return image.filter(filters.GaussianBlur(1))


def _gray_autocontrast(image: Any, ops: Any, filters: Any) -> Any:
    return ops.autocontrast(ops.grayscale(ops.exif_transpose(image).convert("RGB")), cutoff=1)


_PIPELINES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "thumbnail_blur": _thumbnail_blur,
    "gray_autocontrast": _gray_autocontrast,
}


def _photos(camera_corpus: Path) -> list[Path]:
    return sorted(path for path in camera_corpus.iterdir() if not path.name.startswith("."))


def _answer(image: PILImage.Image) -> tuple[Any, ...]:
    return image.mode, image.size, image.tobytes(), dict(image.info)


def test_camera_files_read_and_save_as_pillow(camera_corpus: Path) -> None:
    photos = _photos(camera_corpus)
    assert len(photos) >= 15, photos
    tally = Tally()
    for path in photos:
        for use in (_exif, _saved_with_exif, lambda image: image.size):
            tally.add(
                f"{path.name} {getattr(use, '__name__', 'size')}",
                outcome(PILImage, path, use),
                outcome(Image, path, use),
            )
    tally.check("camera files, EXIF and saves")
    assert tally.shares["equal"] >= 3 * 15


def test_camera_photos_run_on_the_gpu_as_pillow(camera_corpus: Path) -> None:
    cases: list[tuple[Path, str]] = []
    expected: dict[int, Any] = {}
    graphs: list[tuple[int, Any]] = []
    for path in _photos(camera_corpus):
        try:
            with PILImage.open(path) as opened:
                opened.size  # noqa: B018 - Pillow opens the file: a case
        except Exception:  # the empty file: not an image (both libraries refuse it at open)
            with pytest.raises(type(_open_error(path))):
                Image.open(path)
            continue
        for name, pipeline in _PIPELINES.items():
            key = len(cases)
            cases.append((path, name))
            with PILImage.open(path) as source:
                try:
                    expected[key] = _answer(pipeline(source, PILImageOps, PILImageFilter))
                except Exception as error:
                    expected[key] = type(error).__name__
            graphs.append((key, pipeline(Image.open(path), ImageOps, ImageFilter)))
    assert len(cases) >= 2 * 15
    with GpuBatchExecutor(max_jobs=8) as executor, executor.run(graphs, errors="deliver") as run:
        found = {
            result.input_key: (_answer(result.image) if result.ok else type(result.error).__name__)
            for result in run
        }
    differing = [
        f"{cases[key][0].name} {cases[key][1]}: {str(found.get(key))[:120]}"
        for key in expected
        if found.get(key) != expected[key]
    ]
    assert not differing, "\n".join(differing)
    assert sum(not isinstance(answer, str) for answer in found.values()) >= 2 * 15


def _open_error(path: Path) -> Exception:
    try:
        PILImage.open(path)
    except Exception as error:
        return error
    raise AssertionError(f"{path} opens")
