"""Every corpus file with EXIF (JPEGs of cameras and editors, TIFFs, PNGs and WebPs with eXIf
chunks, XMP orientations, corrupt and truncated EXIF) edited through the ``Exif`` its
``getexif()`` hands out, then transposed, converted or saved, against Pillow doing the same
(:mod:`pillow_gpu._handed_exif`).

Each case ends with the result's size, bytes and ``info`` (and the handed ``Exif``), or the
exception's type, and must equal Pillow's; the only other outcome allowed is a documented
refusal (``Unsupported``: a TIFF that the edit makes load at another size than at open). The
shares are printed.
"""

from __future__ import annotations

import collections
import contextlib
import io
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import undated_info
from pillow_gpu.errors import Unsupported

from .conftest import RealCorpus, opened_files

ORIENTATION = 0x0112
#: Largest header (pixels) whose cases run.
MAX_PIXELS = 1 << 22


def _state(exif: PILImage.Exif) -> str:
    # repr: a rational's NaN (a zero denominator) compares unequal to itself.
    return repr(sorted((int(tag), repr(value)) for tag, value in exif.items()))


def _image_state(image: Any) -> tuple[Any, ...]:
    # undated: a LAB conversion's profile is stamped with the second LittleCMS made it.
    info = undated_info(image.info)
    return image.size, image.mode, image.tobytes(), repr(sorted(info.items()))


def _transpose_without_orientation(ops: Any, image: Any) -> tuple[Any, ...]:
    image.getexif().pop(ORIENTATION, None)
    return _image_state(ops.exif_transpose(image))


def _transpose_in_place(ops: Any, image: Any) -> tuple[Any, ...]:
    exif = image.getexif()
    exif[ORIENTATION] = 3
    exif[0x010F] = "Maker"
    ops.exif_transpose(image, in_place=True)
    return *_image_state(image), _state(image.getexif()), image.getexif() is exif


def _convert_after_orientation_1(ops: Any, image: Any) -> tuple[Any, ...]:
    image.getexif()[ORIENTATION] = 1
    return _image_state(image.convert("RGBA"))


def _save_with_edited_exif(ops: Any, image: Any) -> tuple[Any, ...]:
    exif = image.getexif()
    exif[0x0131] = "Edited"
    written = io.BytesIO()
    # No ICC profile: lcms stamps the one a LAB conversion makes with the time of the call.
    image.convert("RGB").save(written, "PNG", exif=exif, icc_profile=None)
    return (written.getvalue(),)


def _seek_after_edit(ops: Any, image: Any) -> tuple[Any, ...]:
    exif = image.getexif()
    exif[0x0131] = "Edited"
    if getattr(image, "n_frames", 1) < 2:
        return ("one frame",)
    image.seek(1)
    return image.getexif() is exif, _state(image.getexif())


CASES: dict[str, Callable[[Any, Any], tuple[Any, ...]]] = {
    "transpose-without-orientation": _transpose_without_orientation,
    "transpose-in-place": _transpose_in_place,
    "convert-after-orientation-1": _convert_after_orientation_1,
    "save-with-edited-exif": _save_with_edited_exif,
    "seek-after-edit": _seek_after_edit,
}


def _outcome(module: Any, ops: Any, path: Path, case: str) -> Any:
    try:
        image = module.open(path)
        return CASES[case](ops, image)
    except Unsupported:
        return "refused"
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


def _with_exif(pillow_corpus: Path) -> list[Path]:
    return opened_files(
        pillow_corpus,
        lambda opened: opened.size[0] * opened.size[1] <= MAX_PIXELS and len(opened.getexif()) > 0,
    )


@pytest.mark.usefixtures("device")
def test_corpus_handed_exif_edits_match_pillow(real_corpus: RealCorpus) -> None:
    files = _with_exif(real_corpus.root)
    # Pillow's own test images: many cameras, editors and fuzzers
    real_corpus.check_found(files, "files with EXIF", pillow=100, program=10)
    shares: collections.Counter[str] = collections.Counter()
    differing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path in files:
            for case in CASES:
                expected = _outcome(PILImage, PILImageOps, path, case)
                actual = _outcome(Image, ImageOps, path, case)
                if actual == expected:
                    shares["equal" if isinstance(expected, tuple) else "same error"] += 1
                elif actual == "refused":
                    shares["refused"] += 1
                else:
                    differing.append(f"{path.name} {case}: {str(actual)[:120]}")
    print(f"\nhanded Exif edits, {len(files)} files x {len(CASES)} cases: {dict(shares)}")
    assert not differing, "\n".join(differing)
    assert shares["equal"] > shares["refused"]


def _text(module: Any, path: Path) -> Any:
    """A PNG's text chunks, from an image of its own (Pillow loads the file for them)."""
    with contextlib.ExitStack() as stack:
        try:
            image = stack.enter_context(module.open(path))
            return repr(sorted(image.text.items())) if hasattr(image, "text") else None
        except Exception as error:  # the exception type is the answer
            return type(error).__name__


def _file_answers(module: Any, path: Path) -> list[Any]:
    """What an opened file answers: the legacy ``_getexif()`` (JPEG, MPO, PNG, WebP), its
    MIME type, a JPEG's quantization tables, a PNG's text, and which of them a copy (no
    file) still has."""
    try:
        image = module.open(path)
    except Exception as error:  # the exception type is the answer
        return [type(error).__name__]
    tables = getattr(image, "quantization", None)  # an opened JPEG's (or MPO's)
    found: list[Any] = [
        hasattr(image, "_getexif"),
        image.get_format_mimetype(),
        None if tables is None else {key: list(table) for key, table in tables.items()},
    ]
    found.append(_text(module, path))
    try:
        merged = image._getexif() if found[0] else None
        found.append(repr(merged))
    except Exception as error:
        found.append(type(error).__name__)
    try:
        copy = image.copy()  # Pillow's copy loads: a file it cannot decode raises here
    except Exception:
        return found
    kept = ("_getexif", "get_format_mimetype", "filename", "quantization", "text")
    found.append([hasattr(copy, name) for name in kept])
    return found


@pytest.mark.usefixtures("device")
def test_corpus_opened_file_answers_match_pillow(real_corpus: RealCorpus) -> None:
    files = sorted(path for path in real_corpus.root.rglob("*") if path.is_file())
    differing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            expected = _file_answers(PILImage, path)
            actual = _file_answers(Image, path)
            if len(expected) != len(actual):  # only Pillow's copy loads (and may raise)
                expected, actual = expected[:5], actual[:5]
            if actual != expected:
                differing.append(f"{path.name}: {str(actual)[:120]} != {str(expected)[:120]}")
    assert not differing, "\n".join(differing)
