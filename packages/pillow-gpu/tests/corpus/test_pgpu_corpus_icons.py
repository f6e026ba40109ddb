"""Every corpus ICO and ICNS file (Windows and macOS icons, PNG- and BMP-embedded entries, a
mask, an entry whose header lies about its size, decompression bombs) with each of its icons
chosen by ``im.size = (w, h)``, and a size it does not hold, against Pillow doing the same.

Each case ends with the chosen icon's size, mode, bytes, ``info`` and PNG encoding (or the
exception's type and message) and must equal Pillow's.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image

from .conftest import RealCorpus, Tally, opened_files


def _chosen(module: Any, path: Path, size: tuple[int, int]) -> Any:
    try:
        image = module.open(path)
        image.size = size
        written = io.BytesIO()
        image.save(written, "PNG")
        info = sorted((key, repr(value)) for key, value in image.info.items())
        return image.size, image.mode, image.tobytes(), info, written.getvalue()
    except Exception as error:  # the exception is the answer
        return f"{type(error).__name__}: {error}"


@pytest.mark.usefixtures("device")
def test_corpus_icons_chosen_by_size_match_pillow(real_corpus: RealCorpus) -> None:
    files = opened_files(real_corpus.root, lambda opened: opened.format in ("ICO", "ICNS"))
    real_corpus.check_found(files, "icons", pillow=10, program=3)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Image was not the expected size", on both sides
        for path in files:
            with PILImage.open(path) as header:
                # An ICNS entry is (width, height, scale): its size in pixels is chosen.
                sizes = {
                    (size[0] * size[-1], size[1] * size[-1]) if len(size) == 3 else size
                    for size in header.info.get("sizes", ())
                }
            for size in [*sorted(sizes), (7, 7)]:
                expected, actual = _chosen(PILImage, path, size), _chosen(Image, path, size)
                tally.add(f"{path.name} {size}", expected, actual)
    tally.check(f"icons chosen by size, {len(files)} files")
