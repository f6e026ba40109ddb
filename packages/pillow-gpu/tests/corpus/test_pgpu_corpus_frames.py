"""Every multi-frame file of the corpus (animated GIF, APNG, FLI, multi-page TIFF, MPO, ICNS,
...) read frame by frame with ``pillow_gpu.ImageSequence``, and by a ``seek`` loop on one lazy
handle, against ``PIL.ImageSequence``.

For each file Pillow opens that has more than one frame (up to :data:`MAX_FRAMES` frames, files
up to :data:`MAX_PIXELS` pixels; larger headers are the bombs of the main corpus test), the
frames must be Pillow's (mode, size, bytes, palette, info), and a file whose frames Pillow
cannot decode must fail at the same frame with the same exception type. Each frame is then
mirrored on the GPU: the result equals Pillow's mirror of that frame or is a documented
refusal (``Unsupported``/``Limit``); the shares are printed.

Each of those files is also cut short at :data:`CUTS` of its bytes, as a download cut off,
and read by Pillow's two loop idioms (``ImageSequence.Iterator`` and ``seek(n)``), each frame
used inside a ``try``: every step must be Pillow's (a frame's mode, size and pixels, or the
error type of its use, of the iterator or of the seek), so a frame that fails raises at its
use, as Pillow's does, not at the seek. ``ImageSequence.all_frames`` and ``save_all`` to PNG
of each cut copy give Pillow's frame count and bytes, or its error type.
"""

from __future__ import annotations

import collections
import warnings
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageOps, ImageSequence
from pillow_gpu._testing import (
    FRAME_LOOPS,
    LAZY_MODULES,
    PILLOW_MODULES,
    frame_steps,
    whole_file_outcome,
)
from pillow_gpu.errors import Limit, Unsupported
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu._device import SharedDevice

from .conftest import RealCorpus, Tally, opened_files

#: Frames compared per file.
MAX_FRAMES = 8
#: Largest header (pixels) whose frames are read.
MAX_PIXELS = 1 << 22


def _state(image: PILImage.Image) -> tuple[Any, ...]:
    return image.mode, image.size, image.tobytes(), image.getpalette(), dict(image.info)


def _pillow_frames(path: Path) -> list[Any]:
    """Pillow's frames (as states), ending with the exception type where decoding fails."""
    found: list[Any] = []
    with PILImage.open(path) as opened:
        try:
            for index, frame in enumerate(PILImageSequence.Iterator(opened)):
                if index == MAX_FRAMES:
                    break
                found.append(_state(frame.copy()))
        except Exception as error:  # the exception type is the answer
            found.append(type(error))
    return found


def _lazy_frames(path: Path) -> tuple[list[Any], list[Image.Image]]:
    found: list[Any] = []
    frames: list[Image.Image] = []
    try:
        for index, frame in enumerate(ImageSequence.Iterator(Image.open(path))):
            if index == MAX_FRAMES:
                break
            copy = frame.copy()  # the image itself moves on to the next frame, as Pillow's
            found.append(_state(copy.to_pil()))
            frames.append(copy)
    except Exception as error:  # the exception type is the answer
        found.append(type(error))
    return found, frames


def _sought_frames(path: Path) -> list[Any]:
    """The frames a Pillow-style loop of ``seek(index)`` on one lazy handle reads, from the
    file's first frame (``tell()``: 1 for PSD, whose frame 0 Pillow does not seek to)."""
    found: list[Any] = []
    lazy = Image.open(path)
    first = lazy.tell()
    for index in range(first, first + MAX_FRAMES):
        try:
            lazy.seek(index)
        except EOFError:
            break
        except Exception as error:  # the exception type is the answer
            found.append(type(error))
            break
        try:
            found.append(_state(lazy.to_pil()))
        except Exception as error:
            found.append(type(error))
            break
    return found


def _multi_frame(pillow_corpus: Path) -> list[Path]:
    return opened_files(
        pillow_corpus,
        lambda opened: (
            getattr(opened, "n_frames", 1) > 1 and opened.size[0] * opened.size[1] <= MAX_PIXELS
        ),
    )


@pytest.mark.usefixtures("device")
def test_corpus_frames_match_pillow(real_corpus: RealCorpus, device: SharedDevice) -> None:
    pillow_corpus = real_corpus.root
    failures: list[str] = []
    outcomes: collections.Counter[str] = collections.Counter()
    with warnings.catch_warnings():  # Pillow's warnings about odd files, on both sides
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", PILImage.DecompressionBombWarning)
        files = _multi_frame(pillow_corpus)
        for path in files:
            name = path.relative_to(pillow_corpus).as_posix()
            expected = _pillow_frames(path)
            sought = _sought_frames(path)
            if sought != expected:
                failures.append(f"{name}: seek() frames differ from Pillow's ({len(sought)} vs "
                                f"{len(expected)}, last {sought[-1:]!s:.80} vs "
                                f"{expected[-1:]!s:.80})")  # fmt: skip
            actual, frames = _lazy_frames(path)
            if actual != expected:
                failures.append(f"{name}: frames differ from Pillow's ({len(actual)} vs "
                                f"{len(expected)}, last {actual[-1:]!s:.80} vs "
                                f"{expected[-1:]!s:.80})")  # fmt: skip
                continue
            for index, frame in enumerate(frames):
                try:
                    mirrored = evaluate(ImageOps.mirror(frame))
                except (Unsupported, Limit) as error:
                    outcomes[f"refused:{error.kind}"] += 1
                    continue
                if _state(mirrored) != _state(PILImageOps.mirror(frame.to_pil())):
                    failures.append(f"{name} frame {index}: GPU mirror differs from Pillow's")
                else:
                    outcomes["exact"] += 1
    print(f"\ncorpus frames: {len(files)} multi-frame files, GPU mirror {dict(outcomes)}")
    real_corpus.check_found(files, "multi-frame files", pillow=50, program=8)
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:40])
    assert outcomes["exact"] > 0


#: Where the cut copies end, as shares of each file's bytes.
CUTS = (0.5, 0.75, 0.9)


def test_corpus_cut_frames_fail_where_pillows_fail(real_corpus: RealCorpus) -> None:
    pillow_corpus = real_corpus.root
    failures: list[str] = []
    shares: collections.Counter[str] = collections.Counter()
    for path in _multi_frame(pillow_corpus):
        name = path.relative_to(pillow_corpus).as_posix()
        data = path.read_bytes()
        for cut in CUTS:
            part = data[: int(len(data) * cut)]
            for loop in (*FRAME_LOOPS, "all_frames", "PNG"):
                if loop in FRAME_LOOPS:
                    expected = frame_steps(PILLOW_MODULES, part, loop, most=MAX_FRAMES)
                    actual = frame_steps(LAZY_MODULES, part, loop, most=MAX_FRAMES)
                else:  # every frame at once: all_frames, and save_all to APNG
                    expected = [whole_file_outcome(PILLOW_MODULES, part, loop)]
                    actual = [whole_file_outcome(LAZY_MODULES, part, loop)]
                if actual != expected:
                    failures.append(f"{name} cut at {cut} ({loop}): {actual} vs {expected}"[:300])
                else:
                    failing = any(type(step) is tuple and step[0] == "use" for step in expected)
                    shares["failing use" if failing else "agree"] += 1
    print(f"\ncorpus cut frames: {dict(shares)}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:20])
    # many cuts fall inside a frame's pixels
    real_corpus.check_found(
        shares["failing use"], f"failing uses ({shares})", pillow=100, program=8
    )


def _seeks(frames: int) -> list[tuple[int, ...]]:
    """Seeks before the first use of a frame, in a file of ``frames``: to the last frame, back
    past it, and forward, back to the start and forward again."""
    last = min(frames, MAX_FRAMES) - 1
    return [(last,), (last, last - 1), (1, 0, last)]


#: Edits of the sought frame's ``info`` before its first use (None: no edit).
FRAME_EDITS: dict[str, Any] = {
    "none": None,
    "clear": lambda info: info.clear(),
    "transparency": lambda info: info.update(transparency=0),
}


def _sought_use(module: Any, path: Path, seeks: tuple[int, ...], edit: str) -> Any:
    """After ``seeks`` with no use between and the ``edit`` of ``info``, a conversion (which
    loads the frame first): the result's mode, info and bytes and the handle's info, or the
    type of what raised."""
    try:
        with module.open(path) as image:
            for frame in seeks:
                image.seek(frame)
            if FRAME_EDITS[edit] is not None:
                FRAME_EDITS[edit](image.info)
            converted = image.convert("RGBA")
            pixels = converted if isinstance(converted, PILImage.Image) else converted.to_pil()
            return pixels.mode, dict(pixels.info), pixels.tobytes(), dict(image.info)
    except Exception as error:  # the exception type is the answer
        return type(error).__name__


@pytest.mark.usefixtures("device")
def test_corpus_sought_frames_load_at_their_first_use_as_pillow(real_corpus: RealCorpus) -> None:
    """A frame loads at its first use, not at its seek, as Pillow's: frames passed over are
    never loaded (Pillow's APNG reader cannot seek back past a loaded frame) and an edit of
    ``info`` before the use reaches the load, whose keys join the edited dict."""
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        files = _multi_frame(real_corpus.root)
        for path in files:
            for seeks in _seeks(_frames(path)):
                for edit in FRAME_EDITS:
                    label = f"{path.name} {seeks} {edit}"
                    expected = _sought_use(PILImage, path, seeks, edit)
                    tally.add(label, expected, _sought_use(Image, path, seeks, edit))
    tally.check(f"sought frames, {len(files)} files x 3 x {len(FRAME_EDITS)}")
    real_corpus.check_found(files, "multi-frame files", pillow=50, program=8)


def _frames(path: Path) -> int:
    with PILImage.open(path) as opened:
        return int(getattr(opened, "n_frames", 1))
