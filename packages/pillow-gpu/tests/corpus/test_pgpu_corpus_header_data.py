"""Every corpus JPEG, MPO, PSD and GIF file (cameras, editors, Adobe markers, ICC chunks,
stereo pairs, layered documents, animations, broken and fuzzed files): the plain data Pillow's
plugin keeps on the image it opens (:data:`pillow_gpu._opened_file.HEADER_DATA`: a JPEG's
``app``/``applist``/``icclist``/``layers``/``layer``/``bits``, an MPO's ``mpinfo``, a PSD's
``layers``, a GIF's ``disposal_method`` and ``global_palette``) as opened, after ``seek(1)``,
after an in-place ``thumbnail`` and on a ``copy()`` (none), against Pillow.

Each case ends with the value (a palette by its mode and bytes), ``"absent"`` or the
exception's type and must equal Pillow's. The shares are printed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._opened_file import HEADER_DATA

from .conftest import RealCorpus, Tally, opened_files, outcome


def _thumbnailed(image: Any) -> Any:
    image.thumbnail((16, 16))
    image.tobytes()  # a file Pillow cannot decode raises at the thumbnail, a lazy one here
    return image


def _copied(image: Any) -> Any:
    copy = image.copy()
    copy.tobytes()  # Pillow's copy loads: a file it cannot decode raises here
    return copy


def _sought(image: Any) -> Any:
    image.seek(1)
    return image


USES: dict[str, Callable[[Any], Any]] = {
    "opened": lambda image: image,
    "seek-1": _sought,
    "thumbnailed": _thumbnailed,
    "copy": _copied,
}


def _answer(module: Any, path: Path, use: str, name: str) -> Any:
    def read(opened: Any) -> tuple[Any, ...]:
        image = USES[use](opened)
        if not hasattr(image, name):
            return ("absent",)
        value = getattr(image, name)
        if hasattr(value, "palette") and hasattr(value, "rawmode"):  # an ImagePalette
            return ("palette", value.mode, bytes(value.palette))
        return (repr(value),)

    return outcome(module, path, read)


@pytest.mark.usefixtures("device")
def test_corpus_header_data_matches_pillow(real_corpus: RealCorpus) -> None:
    files = opened_files(real_corpus.root, lambda opened: opened.format in HEADER_DATA)
    real_corpus.check_found(files, "files", pillow=100, program=100)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path in files:
            with PILImage.open(path) as header:
                names = sorted(HEADER_DATA[str(header.format)])
            for name in names:
                for use in USES:
                    expected = _answer(PILImage, path, use, name)
                    actual = _answer(Image, path, use, name)
                    tally.add(f"{path.name} {name} {use}", expected, actual)
    tally.check(f"plugin header data, {len(files)} files")
