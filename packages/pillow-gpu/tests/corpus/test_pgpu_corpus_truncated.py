"""Every corpus file Pillow cannot load whole (truncated photos, broken chunks, fuzzer files),
opened again with ``ImageFile.LOAD_TRUNCATED_IMAGES = True`` set through
``pillow_gpu.ImageFile`` (Pillow's own module), against Pillow doing the same.

Users set the flag to keep what a damaged file still holds. Each file is completed on the CPU
route (``to_pil()``) and on the GPU (``pillow_gpu.gpu.evaluate``); each outcome is the result's
mode, size, bytes, ``info`` and palette, or the exception's type, and must equal Pillow's. The
GPU route's only other outcomes are a documented refusal (``Unsupported``/``Limit``) and its
``DecodeError`` where Pillow's load raises too. The shares are printed.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image, ImageFile
from pillow_gpu.errors import DecodeError, Limit, Unsupported
from pillow_gpu.gpu import evaluate

from .conftest import Tally, opened_files

#: Largest header (pixels) whose cases run.
MAX_PIXELS = 1 << 22


def _state(image: PILImage.Image) -> tuple[Any, ...]:
    palette = image.getpalette() if image.mode in ("P", "PA") else None
    info = repr(sorted((key, repr(value)) for key, value in image.info.items()))
    return image.mode, image.size, image.tobytes(), info, palette


def _loads(path: Path) -> bool:
    try:
        with PILImage.open(path) as image:
            image.load()
    except Exception:
        return False
    return True


@contextlib.contextmanager
def _truncated_images_loaded() -> Iterator[None]:
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    try:
        yield
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = False


def _outcome(complete: Callable[[Path], tuple[Any, ...]], path: Path) -> Any:
    try:
        return complete(path)
    except (Unsupported, Limit):
        return "refused"
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


#: The two ways a lazy image completes.
ROUTES: dict[str, Callable[[Path], tuple[Any, ...]]] = {
    "cpu": lambda path: _state(Image.open(path).to_pil()),
    "gpu": lambda path: _state(evaluate(Image.open(path))),
}


@pytest.mark.usefixtures("device")
def test_corpus_truncated_files_load_as_pillow_loads_them(pillow_corpus: Path) -> None:
    assert not ImageFile.LOAD_TRUNCATED_IMAGES  # Pillow's default: the files below fail
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        damaged = [
            path
            for path in opened_files(
                pillow_corpus, lambda opened: opened.size[0] * opened.size[1] <= MAX_PIXELS
            )
            if not _loads(path)
        ]
        assert len(damaged) > 50  # truncated photos, broken PNG chunks, fuzzer files
        tally, refused, recovered = Tally(), 0, 0
        with _truncated_images_loaded():
            for path in damaged:
                expected = _outcome(_pillow_state, path)
                recovered += isinstance(expected, tuple)
                for route, complete in ROUTES.items():
                    actual = _outcome(complete, path)
                    if actual == "refused":
                        refused += 1
                        continue
                    if route == "gpu" and actual == DecodeError.__name__:
                        same = isinstance(expected, str)  # Pillow's load raised as well
                    else:
                        same = actual == expected
                    tally.add(f"{path.name} {route}", expected, actual, same=same)
    print(f"\n{len(damaged)} damaged files, {recovered} recovered by Pillow; refused {refused}")
    tally.check("truncated images loaded")
    assert recovered > 20


def _pillow_state(path: Path) -> tuple[Any, ...]:
    with PILImage.open(path) as image:
        image.load()
        return _state(image)
