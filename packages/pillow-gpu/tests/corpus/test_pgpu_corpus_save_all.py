"""Every corpus file of several frames (animated GIFs, WebPs and PNGs, multi-page TIFFs, MPOs,
FLIs, ...), and every file of one frame Pillow's image cannot seek in as the writers that walk
the frames seek (a SPIDER file that is no stack, a PSD file of one layer), saved with
``save_all`` after what users do first (nothing, a ``seek``, an edit of ``info``, an in-place
``thumbnail``, other frames appended), against Pillow doing the same
(:mod:`pillow_gpu._save_all`).

Each is also written as AVIF without ``save_all`` (Pillow's AVIF writer walks every frame
anyway). The frames ``ImageSequence`` yields after the same edits are compared too.

Each case ends with the written bytes or the exception's type, and must equal Pillow's byte for
byte, but for one field: libtiff writes uninitialised memory into the second value of a TIFF's
page number (tag 297), so Pillow's own bytes differ there from one save to the next (and may
agree by chance, so a second save cannot tell). That value is zeroed in every page of both
outputs before they are compared. The shares are printed.
"""

from __future__ import annotations

import contextlib
import io
import re
import struct
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageSequence
from pillow_gpu._testing import tiff_page_number_zeroed, unstamped

from .conftest import RealCorpus, Tally, opened_files, outcome

#: Largest frame (pixels) whose cases run, and most frames.
MAX_PIXELS = 1 << 20
MAX_FRAMES = 64
#: The formats each file is written as: its own (where Pillow writes it) and the usual targets.
TARGETS = ("GIF", "WEBP", "PNG", "TIFF")
PAGE_NUMBER = 297


def _written(image: Any, target: str, **params: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, target, save_all=True, **params)
    return out.getvalue()


def _as_opened(module: Any, image: Any, path: Path, target: str) -> bytes:
    return _written(image, target)


def _after_seek(module: Any, image: Any, path: Path, target: str) -> bytes:
    image.seek(1)
    return _written(image, target)


def _info_edited(module: Any, image: Any, path: Path, target: str) -> bytes:
    image.info["duration"] = 70
    image.info["loop"] = 2
    return _written(image, target)


def _thumbnailed(module: Any, image: Any, path: Path, target: str) -> bytes:
    image.thumbnail((24, 24))
    return _written(image, target)


def _appended(module: Any, image: Any, path: Path, target: str) -> bytes:
    with contextlib.closing(module.open(path)) as other:
        return _written(image, target, append_images=[other])


def _plain_avif(module: Any, image: Any, path: Path, target: str) -> bytes:
    # Pillow's AVIF writer walks every frame of an animated image without save_all too.
    out = io.BytesIO()
    image.save(out, "AVIF", quality=40)
    return out.getvalue()


CASES: dict[str, Callable[[Any, Any, Path, str], bytes]] = {
    "as-opened": _as_opened,
    "after-seek": _after_seek,
    "info-edited": _info_edited,
    "thumbnailed": _thumbnailed,
    "appended": _appended,
    "plain-avif": _plain_avif,
}
#: Cases written once, whatever the targets.
_ONE_TARGET = frozenset({"plain-avif"})


def _same(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` is Pillow's outcome ``expected``: the same exception type, or the same
    bytes but for the page count libtiff leaves uninitialised and the times libavif takes from
    the clock (:func:`~pillow_gpu._testing.unstamped`)."""
    if actual == expected:
        return True
    if not isinstance(expected, bytes) or not isinstance(actual, bytes):
        return False
    return unstamped(actual) == unstamped(expected)


def _outcome(module: Any, path: Path, case: str, target: str) -> Any:
    return outcome(module, path, lambda image: CASES[case](module, image, path, target))


def _seeks_to_its_frames(opened: Any) -> bool:
    """Whether Pillow's ``opened`` seeks to frame 0 and back, as the writers that walk the
    frames do (a SPIDER file that is no stack seeks nowhere; a PSD file has no frame 0)."""
    current = opened.tell()
    try:
        opened.seek(0)
        opened.seek(current)
    except Exception:  # what the writers meet
        return False
    return True


def _frame_files(root: Path) -> list[Path]:
    """The files of several frames (animations, multi-page files), and the files of one frame
    Pillow's image cannot seek in as the writers that walk the frames seek."""

    def keep(opened: Any) -> bool:
        frames = getattr(opened, "n_frames", 1)
        return opened.size[0] * opened.size[1] <= MAX_PIXELS and (
            1 < frames <= MAX_FRAMES or (frames == 1 and not _seeks_to_its_frames(opened))
        )

    return opened_files(root, keep)


@pytest.mark.usefixtures("device")
def test_corpus_save_all_matches_pillow(real_corpus: RealCorpus) -> None:
    files = _frame_files(real_corpus.root)
    # animations and multi-page files
    real_corpus.check_found(files, "files of several frames", pillow=40, program=5)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path in files:
            for case in CASES:
                for target in TARGETS[:1] if case in _ONE_TARGET else TARGETS:
                    expected = _outcome(PILImage, path, case, target)
                    actual = _outcome(Image, path, case, target)
                    same = _same(expected, actual)
                    tally.add(f"{path.name} {case} {target}", expected, actual, same=same)
    tally.check(f"save_all, {len(files)} files x {len(CASES)} cases x (up to) {len(TARGETS)}")


#: What users do before walking the frames with ``ImageSequence``.
WALK_EDITS: dict[str, Callable[[Any], None]] = {
    "as-opened": lambda image: None,
    "after-seek": lambda image: image.seek(1),
    "info-edited": lambda image: image.info.update(duration=70),
    "thumbnailed": lambda image: image.thumbnail((24, 24)),
}


def _walked(module: Any, sequence: Any, path: Path, edit: str) -> Any:
    """Every frame ``sequence.Iterator`` yields, loaded: mode, size, pixels and ``info``."""

    def walk(image: Any) -> list[Any]:
        WALK_EDITS[edit](image)
        frames = []
        for frame in sequence.Iterator(image):
            frame.load()  # Pillow's frame reports its mode before loading, a lazy one loaded
            info = repr(sorted(frame.info.items()))
            frames.append((frame.mode, frame.size, frame.tobytes(), info))
        return frames

    return outcome(module, path, walk)


@pytest.mark.usefixtures("device")
def test_corpus_frames_after_edits_match_pillow(real_corpus: RealCorpus) -> None:
    # ImageSequence walks the file as Pillow's opened image would stand: after a seek, an edit
    # of info or an in-place thumbnail of the current frame (the others read from the file).
    files = _frame_files(real_corpus.root)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            for edit in WALK_EDITS:
                expected = _walked(PILImage, PILImageSequence, path, edit)
                actual = _walked(Image, ImageSequence, path, edit)
                tally.add(f"{path.name} {edit}", expected, actual)
    tally.check(f"frames after edits, {len(files)} files x {len(WALK_EDITS)}")


def _seek_after_edit(module: Any, path: Path, edit: str) -> Any:
    """Frames 1 and 0 sought after an in-place edit of frame 0: mode, size, pixels, ``info``."""

    def seek(image: Any) -> list[Any]:
        WALK_EDITS[edit](image)
        found = []
        for frame in (1, 0):
            image.seek(frame)
            image.load()
            info = repr(sorted(image.info.items()))
            found.append((image.tell(), image.mode, image.size, image.tobytes(), info))
        return found

    return outcome(module, path, seek)


@pytest.mark.usefixtures("device")
def test_corpus_seek_after_edits_matches_pillow(real_corpus: RealCorpus) -> None:
    # Pillow's image seeks on from where it stands after an in-place edit of its frame.
    files = _frame_files(real_corpus.root)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            for edit in ("info-edited", "thumbnailed"):
                expected = _seek_after_edit(PILImage, path, edit)
                actual = _seek_after_edit(Image, path, edit)
                tally.add(f"{path.name} {edit}", expected, actual)
    tally.check(f"seek after edits, {len(files)} files x 2")


def _page_number_entry(order: str) -> bytes:
    """The first 8 bytes of a page number entry of two SHORTs, in byte order ``order``."""
    return struct.pack(order + "HHI", PAGE_NUMBER, 3, 2)


# Pillow writes an I;16B image big-endian ("MM"), an L image little-endian ("II").
@pytest.mark.parametrize(("mode", "order"), [("L", "<"), ("I;16B", ">")], ids=["II", "MM"])
def test_only_the_page_count_is_left_out_of_the_comparison(mode: str, order: str) -> None:
    pages = [PILImage.new(mode, (3, 2), shade) for shade in (10, 20)]
    out = io.BytesIO()
    info = {PAGE_NUMBER: (0, 2)}
    pages[0].save(out, "TIFF", save_all=True, append_images=pages[1:], tiffinfo=info)
    written = out.getvalue()
    fields = [at.start() for at in re.finditer(re.escape(_page_number_entry(order)), written)]
    assert len(fields) == 2  # one page number on each page
    changed = bytearray(written)
    for field in fields:
        changed[field + 10 : field + 12] = b"\xab\xcd"  # the page count
    assert _same(written, bytes(changed))
    assert tiff_page_number_zeroed(written) != written  # the count was there to zero
    changed[fields[1] + 8] ^= 1  # the page's own number, on the second page
    assert not _same(written, bytes(changed))
    assert not _same(written, written[:-1] + bytes([written[-1] ^ 1]))  # the last byte
    assert not _same(written, TypeError)
