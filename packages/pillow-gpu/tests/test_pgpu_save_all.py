"""``save(..., save_all=True)`` of an opened file of several frames writes every frame, as
Pillow's (:mod:`pillow_gpu._save_all`): animations and pages Pillow writes (a GIF with a
palette per frame and a duration per frame, an APNG, an animated WebP, a multi-page TIFF with
tags) saved as opened, after a ``seek``, an edit of ``info``, an in-place ``thumbnail``, with
other files appended, and over the file itself; the corpus test
(``corpus/test_pgpu_corpus_save_all.py``) does the same with files other programs wrote.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageSequence
from pillow_gpu._testing import make_image

pytestmark = pytest.mark.usefixtures("device")

#: File name -> (format Pillow writes it as, mode of its frames).
ANIMATIONS = {
    "anim.gif": ("GIF", "P"),
    "anim.png": ("PNG", "RGBA"),
    "anim.webp": ("WEBP", "RGB"),
    "pages.tif": ("TIFF", "RGB"),
    "camera.mpo": ("MPO", "RGB"),
}


def _animation(tmp_path: Path, name: str) -> Path:
    """Three 20x12 frames (a moving block) written by Pillow as ``name``."""
    file_format, mode = ANIMATIONS[name]
    frames = []
    for index in range(3):
        frame = PILImage.new("RGB", (20, 12), (20 + 60 * index, 40, 200 - 50 * index))
        frame.paste((250, 250, 0), (3 * index, 2, 3 * index + 6, 8))
        frames.append(frame.convert(mode) if mode != "P" else frame.quantize(8 + index))
    path = tmp_path / name
    extra: dict[str, Any] = {"duration": [40, 80, 120], "loop": 0}
    if file_format == "TIFF":
        extra = {"dpi": (150, 150), "description": "three pages"}
    if file_format == "WEBP":
        extra["lossless"] = True
    frames[0].save(path, file_format, save_all=True, append_images=frames[1:], **extra)
    return path


@pytest.fixture
def opened() -> Iterator[Callable[[Any, Path], Any]]:
    """``opened(module, path)``: ``module.open(path)``, every image closed after the test."""
    with contextlib.ExitStack() as stack:

        def open_(module: Any, path: Path) -> Any:
            return stack.enter_context(contextlib.closing(module.open(path)))

        yield open_


def _written(image: Any, target: str, **params: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, target, save_all=True, **params)
    return out.getvalue()


def _frames(data: bytes) -> int:
    with PILImage.open(io.BytesIO(data)) as written:
        return int(getattr(written, "n_frames", 1))


#: What users do before saving every frame.
EDITS: dict[str, Callable[[Any], None]] = {
    "as-opened": lambda image: None,
    "after-seek": lambda image: image.seek(2),
    "info-edited": lambda image: image.info.update(duration=70, loop=3),
    "thumbnailed": lambda image: image.thumbnail((10, 10)),
}


@pytest.mark.parametrize("target", ["GIF", "PNG", "WEBP", "TIFF"])
@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("name", list(ANIMATIONS))
def test_every_frame_is_written_as_pillow_writes_it(
    opened: Callable[[Any, Path], Any], tmp_path: Path, name: str, edit: str, target: str
) -> None:
    path = _animation(tmp_path, name)
    written: list[bytes | str] = []
    for module in (PILImage, Image):
        image = opened(module, path)
        EDITS[edit](image)
        try:
            written.append(_written(image, target))
        except (ValueError, RuntimeError) as error:  # a thumbnailed APNG or MPO: Pillow's
            written.append(f"{type(error).__name__}: {error}")  # writer meets other sizes
    assert written[1] == written[0]
    if edit != "thumbnailed":  # Pillow's writer mixes a thumbnailed frame with the others
        assert isinstance(written[1], bytes)
        assert _frames(written[1]) == 3


def _stands_alike(ours: Any, pillows: PILImage.Image) -> None:
    """The lazy handle ``ours`` stands at Pillow's image's frame, with its mode, ``info`` and
    pixels."""
    assert (ours.tell(), ours.mode, ours.size) == (pillows.tell(), pillows.mode, pillows.size)
    assert sorted(ours.info) == sorted(pillows.info)
    assert ours.convert("RGBA").to_pil().tobytes() == pillows.convert("RGBA").tobytes()


@pytest.mark.parametrize("name", list(ANIMATIONS))
def test_appended_opened_files_give_every_frame(
    opened: Callable[[Any, Path], Any], tmp_path: Path, name: str
) -> None:
    # ... and each file, the appended one too, stands where Pillow's writer leaves it after.
    path = _animation(tmp_path, name)
    other = _animation(tmp_path, "anim.gif" if name != "anim.gif" else "anim.png")
    written, images = [], []
    for module in (PILImage, Image):
        image, more = opened(module, path), opened(module, other)
        written.append(_written(image, "GIF", append_images=[more]))
        images.append((image, more))
    assert written[1] == written[0]
    assert _frames(written[1]) == 6
    for ours, pillows in zip(images[1], images[0], strict=True):
        _stands_alike(ours, pillows)


@pytest.mark.parametrize("save_all", [False, True], ids=["plain", "save_all"])
@pytest.mark.parametrize("target", ["GIF", "PNG", "WEBP", "TIFF", "AVIF", "PDF"])
@pytest.mark.parametrize("name", list(ANIMATIONS))
def test_a_saved_file_stands_where_pillows_writer_leaves_it(
    opened: Callable[[Any, Path], Any], tmp_path: Path, name: str, target: str, save_all: bool
) -> None:
    # Pillow's writers seek the image they are given through its frames and leave it at the
    # last one (GIF, PNG, PDF), where it was (WebP, TIFF), or at the first frame AVIF's check
    # of the modes stopped at (with or without save_all).
    path = _animation(tmp_path, name)
    images, raised = [], []
    for module in (PILImage, Image):
        image = opened(module, path)
        image.seek(1)
        try:
            image.save(io.BytesIO(), target, save_all=save_all)
        except Exception as error:  # an APNG Pillow cannot seek back in: its SyntaxError
            raised.append(type(error))
        images.append(image)
    assert len(raised) in (0, 2), raised
    assert len(set(raised)) <= 1, raised  # the same error on both sides
    if not raised:
        _stands_alike(images[1], images[0])


#: Edits of a transparent GIF's ``info`` before it is saved.
INFO_EDITS: dict[str, Callable[[Any], None]] = {
    "cleared": lambda image: image.info.clear(),
    "transparency-deleted": lambda image: image.info.pop("transparency"),
    "transparency-changed": lambda image: image.info.update(transparency=5),
}


@pytest.mark.parametrize("target", ["GIF", "PNG"])
@pytest.mark.parametrize("edit", list(INFO_EDITS))
def test_a_saved_file_stands_as_pillow_s_after_its_writer_s_walks(
    opened: Callable[[Any, Path], Any], tmp_path: Path, edit: str, target: str
) -> None:
    """Pillow's GIF and PNG writers walk the frames twice (the modes, then the frames), and a
    GIF's rewind between the walks puts frame 0's transparency back into ``info``: the frame
    the image then stands at is read from that, not from the edited ``info`` (found by random
    graphs in batches: a transparent GIF's ``info`` cleared, saved as an APNG, then used)."""
    path = tmp_path / "transparent.gif"
    frames = [make_image("RGB", (14, 10), seed).quantize(12) for seed in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:], transparency=0, disposal=2)
    images = []
    for module in (PILImage, Image):
        image = opened(module, path)
        INFO_EDITS[edit](image)
        image.save(io.BytesIO(), target, save_all=True)
        images.append(image)
    _stands_alike(images[1], images[0])
    assert images[1].info == images[0].info


@pytest.mark.parametrize("name", list(ANIMATIONS))
def test_saving_over_the_opened_file_keeps_every_frame(
    opened: Callable[[Any, Path], Any], tmp_path: Path, name: str
) -> None:
    # The file is read whole before it is written: nothing of it is lost.
    path = _animation(tmp_path, name)
    expected = _written(opened(PILImage, path), ANIMATIONS[name][0])
    image = Image.open(path)
    image.save(path, save_all=True)
    assert path.read_bytes() == expected


@pytest.mark.parametrize("name", list(ANIMATIONS))
def test_an_opened_file_edited_in_place_keeps_its_frames(
    opened: Callable[[Any, Path], Any], tmp_path: Path, name: str
) -> None:
    path = _animation(tmp_path, name)
    answers = []
    for module in (PILImage, Image):
        image = opened(module, path)
        image.thumbnail((10, 10))
        answers.append((image.n_frames, image.is_animated, image.tell()))
    assert answers[1] == answers[0] == (3, True, 0)


def test_one_frame_and_results_are_written_as_before(
    opened: Callable[[Any, Path], Any], tmp_path: Path
) -> None:
    # Only an opened file of several frames goes to Pillow's writer as a file.
    path = tmp_path / "one.png"
    PILImage.new("RGB", (6, 4), (1, 2, 3)).save(path)
    animation = _animation(tmp_path, "anim.gif")
    for image_of in (
        lambda module: opened(module, path),
        lambda module: opened(module, animation).resize((10, 6)),
        lambda module: opened(module, animation).copy(),
    ):
        written = [_written(image_of(module), "GIF") for module in (PILImage, Image)]
        assert written[1] == written[0]
        assert _frames(written[1]) == 1


def _pasted(image: Any) -> None:
    corner = image.crop((0, 0, 4, 4)).transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)
    image.paste(corner, (2, 2))


@pytest.mark.parametrize("edit", ["thumbnailed", "pasted"])
@pytest.mark.parametrize("name", list(ANIMATIONS))
def test_an_opened_file_edited_in_place_seeks_as_pillow_s(
    opened: Callable[[Any, Path], Any], tmp_path: Path, name: str, edit: str
) -> None:
    # Pillow's image seeks on from where it stands (the edited frame included); so does a lazy
    # one, through Pillow's image of its file standing as it does.
    path = _animation(tmp_path, name)
    answers = []
    for module in (PILImage, Image):
        image = opened(module, path)
        _pasted(image) if edit == "pasted" else image.thumbnail((10, 10))
        found = []
        for frame in (1, 2, 0):
            try:
                image.seek(frame)
                image.load()
                found.append((image.tell(), image.mode, image.size, image.tobytes()))
            except (ValueError, OSError) as error:  # Pillow's reader meets other sizes
                found.append((type(error).__name__, str(error)))
                break
        answers.append(found)
    assert answers[1] == answers[0]


@pytest.mark.parametrize("target", ["MPO", "TIFF", "JPEG"])
def test_encoderinfo_set_on_an_image_reaches_the_writer(
    opened: Callable[[Any, Path], Any], tmp_path: Path, target: str
) -> None:
    # Pillow's save reads writer parameters set on the image itself (over those passed), and
    # its MPO and TIFF writers those set on each appended frame (Pillow's documented way to
    # give a second frame its own XMP); a lazy image takes them too.
    path = _animation(tmp_path, "pages.tif")
    written = []
    for module in (PILImage, Image):
        first = opened(module, path).convert("RGB")
        second = module.new("RGB", (20, 12), "#f00")
        with pytest.raises(AttributeError, match="has no attribute 'encoderinfo'"):
            first.encoderinfo  # noqa: B018  # unset until assigned or saved, as Pillow's
        first.encoderinfo = {"quality": 30, "description": "first page"}
        second.encoderinfo = {"xmp": b"<x:xmpmeta/>", "description": "second page"}
        out = io.BytesIO()
        first.save(out, target, save_all=target != "JPEG", append_images=[second], quality=90)
        written.append(out.getvalue())
        assert first.encoderinfo == {"quality": 30, "description": "first page"}
        saved_once = module.new("L", (2, 2))
        saved_once.save(io.BytesIO(), "PNG")
        assert saved_once.encoderinfo == {}  # Pillow's save leaves its image one
    assert written[1] == written[0]


#: The writers that walk an image's frames: Pillow's AVIF writer (without ``save_all``) and
#: the multi-frame writers.
WALKING_SAVES = {
    "AVIF": {},
    "PNG-all": {"save_all": True},
    "GIF-all": {"save_all": True},
    "TIFF-all": {"save_all": True},
    "WEBP-all": {"save_all": True},
    "PDF-all": {"save_all": True},
}


def _walked_outcome(module: Any, sequence: Any, path: Path, how: str) -> Any:
    """The bytes (or the exception's type) of one walk of ``path``'s frames by ``module``."""
    try:
        with contextlib.closing(module.open(path)) as image:
            if how == "all_frames":
                return [frame.tobytes() for frame in sequence.all_frames(image)]
            if how == "iterator":
                return [frame.tobytes() for frame in sequence.Iterator(image)]
            out = io.BytesIO()
            image.save(out, how.partition("-")[0], **WALKING_SAVES[how])
            return out.getvalue()
    except Exception as error:  # the answer: Pillow's error, or none
        return type(error).__name__


@pytest.mark.parametrize("how", [*WALKING_SAVES, "all_frames", "iterator"])
def test_a_file_pillow_cannot_seek_in_walks_as_pillow_s(tmp_path: Path, how: str) -> None:
    """A SPIDER file that is no stack has one frame and no seek (Pillow's raises EOFError even
    for frame 0): Pillow's writers that walk the frames raise there or walk none, and its
    ``all_frames`` raises when it seeks the image back; ours as Pillow's."""
    path = tmp_path / "plain.spi"
    PILImage.new("F", (12, 9), 3.5).save(path, "SPIDER")
    expected = _walked_outcome(PILImage, PILImageSequence, path, how)
    assert _walked_outcome(Image, ImageSequence, path, how) == expected
