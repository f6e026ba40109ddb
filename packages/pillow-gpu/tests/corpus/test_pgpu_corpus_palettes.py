"""Every P and PA file of the corpus (GIF, PNG, BMP, TGA, PCX, ICO, FLI, PSD, ... written by
many programs, fuzzer files among them) through its ``palette`` object, against Pillow doing
the same (:mod:`pillow_gpu._palettes`).

Each case reads the palette object, edits it or gives the image another (or seeks to the next
frame), then converts and saves the image; the object's state, the pixels, the saved bytes and
the palette afterwards, or the exception's type, must equal Pillow's. The shares are printed.
"""

from __future__ import annotations

import collections
import hashlib
import io
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImagePalette
from pillow_gpu import Image

from .conftest import RealCorpus

#: Largest header (pixels) whose cases run.
MAX_PIXELS = 1 << 22


def _facts(palette: ImagePalette.ImagePalette | None) -> Any:
    if palette is None:
        return None
    return palette.mode, palette.rawmode, bytes(palette.palette), palette.dirty


def _reverse(image: Any, palette: ImagePalette.ImagePalette) -> None:
    palette.palette = bytes(reversed(bytes(palette.palette)))


def _reverse_dirty(image: Any, palette: ImagePalette.ImagePalette) -> None:
    _reverse(image, palette)
    palette.dirty = 1


def _assign_raw(image: Any, palette: ImagePalette.ImagePalette) -> None:
    image.palette = ImagePalette.raw("RGB", bytes(range(256)) * 3)


def _getcolor(image: Any, palette: ImagePalette.ImagePalette) -> None:
    palette.getcolor((1, 2, 3))


def _seek(image: Any, palette: ImagePalette.ImagePalette) -> None:
    image.seek(1)


CASES: dict[str, Callable[[Any, ImagePalette.ImagePalette], None]] = {
    "read": lambda image, palette: None,
    "getcolor": _getcolor,
    "assign-raw": _assign_raw,
    "edit-dirty": _reverse_dirty,
    "edit-clean": _reverse,
    "seek": _seek,
}


def _outcome(module: Any, path: Path, case: str) -> Any:
    found: list[Any] = []
    try:
        image = module.open(path)
        palette = image.palette
        found += [palette is image.palette, _facts(palette)]
        CASES[case](image, palette)
        converted = image.convert("RGBA")
        saved = io.BytesIO()
        image.save(saved, "PNG")
        found += [
            hashlib.sha256(converted.tobytes()).hexdigest(),
            hashlib.sha256(saved.getvalue()).hexdigest(),
            image.getpalette(),
            image.palette is palette,
            _facts(image.palette),
        ]
        image.close()
    except Exception as error:  # the exception type is the answer
        found.append(type(error).__name__)
    return found


def _paletted(pillow_corpus: Path) -> list[Path]:
    files = []
    for path in sorted(pillow_corpus.rglob("*")):
        try:
            with PILImage.open(path) as opened:
                if opened.mode in ("P", "PA") and opened.size[0] * opened.size[1] <= MAX_PIXELS:
                    files.append((path, getattr(opened, "n_frames", 1)))
        except Exception:  # files Pillow cannot open have no palette
            continue
    return files  # type: ignore[return-value]


@pytest.mark.usefixtures("device")
def test_corpus_palette_objects_match_pillow(real_corpus: RealCorpus) -> None:
    files: list[Any] = _paletted(real_corpus.root)
    # GIFs, palette PNGs, BMPs, TGAs, PCXs, FLIs, ... of many writers
    real_corpus.check_found(files, "palette files", pillow=50, program=20)
    shares: collections.Counter[str] = collections.Counter()
    differing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path, frames in files:
            for case in CASES:
                if case == "seek" and frames < 2:
                    continue
                expected = _outcome(PILImage, path, case)
                actual = _outcome(Image, path, case)
                if actual == expected:
                    shares["same error" if isinstance(expected[-1], str) else "equal"] += 1
                else:
                    differing.append(f"{path.name} {case}: {str(actual)[:160]}")
    print(f"\npalette objects, {len(files)} files x {len(CASES)} cases: {dict(shares)}")
    assert not differing, "\n".join(differing)
