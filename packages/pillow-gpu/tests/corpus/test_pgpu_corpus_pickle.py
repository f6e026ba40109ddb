"""Every corpus file Pillow opens (and the second frame of every multi-frame file), pickled
and unpickled, against Pillow's pickle of the same image.

Pillow pickles an image's pixels, mode, size, ``info`` and palette (loading it first), and an
opened file's ``filename``; the unpickled image keeps its plugin's ``format``. A lazy image
pickles the same (:mod:`pillow_gpu._pickling`). Each answer of the unpickled images, or the
exception's type (a file Pillow cannot decode raises at the pickle, on both sides), must equal
Pillow's (the creation time of an ICC profile a LAB conversion makes aside); so must each
answer after a conversion recorded before the pickle.
"""

from __future__ import annotations

import hashlib
import pickle
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import undated_info

from .conftest import RealCorpus, Tally, files_up_to, first_frames

#: Largest header (pixels) whose cases run.
MAX_PIXELS = 1 << 22


def _by_key(item: tuple[Any, Any]) -> str:
    return str(item[0])


QUERIES: dict[str, Callable[[Any], Any]] = {
    "mode": lambda image: image.mode,
    "size": lambda image: image.size,
    "pixels": lambda image: hashlib.sha256(image.tobytes()).hexdigest(),
    "info": lambda image: repr(sorted(undated_info(image.info).items(), key=_by_key)),
    "palette": lambda image: image.getpalette(),
    "palette-mode": lambda image: getattr(image.palette, "mode", None),
    "format": lambda image: (image.format, image.format_description),
    "filename": lambda image: getattr(image, "filename", None),
    "getexif": lambda image: repr(sorted(image.getexif().items())),
}

USES: dict[str, Callable[[Any], Any]] = {
    "as opened": lambda image: image,
    "converted to RGBA": lambda image: image.convert("RGBA"),
}


def _round_trip(module: Any, path: Path, frame: int, use: Callable[[Any], Any]) -> Any:
    """The unpickled image of ``use`` of ``module.open(path)`` at ``frame``, or the type name
    of what opening, seeking, ``use`` or the pickle raised."""
    try:
        with module.open(path) as image:
            if frame:
                image.seek(frame)
            return pickle.loads(pickle.dumps(use(image)))
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


def _answer(query: Callable[[Any], Any], image: Any) -> Any:
    """``("answer", query(image))``, or the type name (a ``str``, what :class:`Tally` counts as
    an error) of what the round trip or the query raised."""
    if isinstance(image, str):
        return image
    try:
        return ("answer", query(image))
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


@pytest.mark.usefixtures("device")
def test_corpus_pickles_as_pillows_images(real_corpus: RealCorpus) -> None:
    files = files_up_to(real_corpus, MAX_PIXELS)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path in files:
            for frame in first_frames(path):
                for use_name, use in USES.items():
                    expected = _round_trip(PILImage, path, frame, use)
                    actual = _round_trip(Image, path, frame, use)
                    for name, query in QUERIES.items():
                        tally.add(
                            f"{path.name} frame {frame} {use_name} {name}",
                            _answer(query, expected),
                            _answer(query, actual),
                        )
    tally.check(f"pickles of {len(files)} files")
