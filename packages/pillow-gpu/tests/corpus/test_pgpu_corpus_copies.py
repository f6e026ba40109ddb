"""A ``copy()`` of every corpus file Pillow opens (and of the second frame of every multi-frame
file), asked what code asks a copy, against Pillow's copy of the same.

Pillow's copy loads first and is a plain image: no file (``filename``, ``format``,
``get_format_mimetype`` and a PNG's ``text`` are gone), one frame (``seek(1)`` raises, and
``ImageSequence`` yields the copy alone), with the loaded ``info`` (a PNG's chunks after its
pixels, a WebP's or AVIF's frame timing) and the ``getexif()`` that ``info`` gives. Each answer,
or the exception's type, must equal Pillow's. Where Pillow's copy raises because the file
cannot be decoded, the lazy copy raises later, where its pixels are first needed (the README):
those cases are counted, not compared.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageSequence

from .conftest import RealCorpus, Tally, files_up_to, first_frames

#: Largest header (pixels) whose cases run.
MAX_PIXELS = 1 << 22


def _seek_one(image: Any) -> Any:
    image.seek(1)
    return image.tell()


QUERIES: dict[str, Callable[[Any, Any], Any]] = {
    "n_frames": lambda image, sequence: getattr(image, "n_frames", 1),
    "is_animated": lambda image, sequence: getattr(image, "is_animated", False),
    "tell": lambda image, sequence: image.tell(),
    "format": lambda image, sequence: image.format,
    "filename": lambda image, sequence: getattr(image, "filename", None),
    "mimetype": lambda image, sequence: getattr(image, "get_format_mimetype", None),
    "text": lambda image, sequence: repr(getattr(image, "text", None)),
    "info": lambda image, sequence: repr(sorted(image.info.items())),
    "getexif": lambda image, sequence: repr(sorted(image.getexif().items())),
    "frames": lambda image, sequence: len(list(sequence.Iterator(image))),
    "seek-1": lambda image, sequence: _seek_one(image),
}


def _copy(module: Any, path: Path, frame: int) -> Any:
    with module.open(path) as image:
        if frame:
            image.seek(frame)
        return image.copy()


def _answer(query: Callable[[Any, Any], Any], image: Any, sequence: Any) -> Any:
    try:
        return query(image, sequence)
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


@pytest.mark.usefixtures("device")
def test_corpus_copies_answer_as_pillows_copies(real_corpus: RealCorpus) -> None:
    files = files_up_to(real_corpus, MAX_PIXELS)
    tally, undecodable = Tally(), 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path in files:
            for frame in first_frames(path):
                try:
                    expected_copy = _copy(PILImage, path, frame)
                except Exception:  # Pillow's copy decodes; the lazy one waits (README)
                    undecodable += 1
                    continue
                actual_copy = _copy(Image, path, frame)
                for name, query in QUERIES.items():
                    expected = _answer(query, expected_copy, PILImageSequence)
                    actual = _answer(query, actual_copy, ImageSequence)
                    tally.add(f"{path.name} frame {frame} {name}", expected, actual)
    print(f"\n{undecodable} copies Pillow could not make (undecodable files)")
    tally.check(f"copies of {len(files)} files")
