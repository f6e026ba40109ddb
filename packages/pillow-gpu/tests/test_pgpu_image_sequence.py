"""Frames of animated and multi-page files (``pillow_gpu.ImageSequence``) against Pillow.

Files are written by Pillow's encoders: an animated GIF (per-frame palettes, a transparent
index, disposal), an animated PNG, a three-page TIFF, a single-frame PNG and a JPEG. Every
frame read lazily must equal Pillow's frame (mode, bytes, palette, info); the iterator gives
the image itself sought to each frame, as Pillow's (in-place edits in the loop included);
each frame thumbnailed on the GPU must equal Pillow's thumbnail of that frame; and an
animation saved from lazy frames must be byte-identical to the one Pillow saves from its own.
"""

from __future__ import annotations

import gc
import io
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import GpuBatchExecutor, Image, ImageSequence
from pillow_gpu._testing import assert_image_equal, make_image


def _frames_rgb(count: int, size: tuple[int, int] = (37, 23)) -> list[PILImage.Image]:
    return [make_image("RGB", size, seed=seed) for seed in range(count)]


def _write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    frames = _frames_rgb(4)
    if name == "anim.gif":
        quantized = [frame.quantize(16 + 8 * index) for index, frame in enumerate(frames)]
        quantized[0].save(
            path,
            save_all=True,
            append_images=quantized[1:],
            duration=[40, 80, 40, 120],
            loop=0,
            transparency=3,
            disposal=2,
        )
    elif name == "anim.png":
        rgba = [frame.convert("RGBA") for frame in frames]
        rgba[0].save(path, save_all=True, append_images=rgba[1:], duration=50, loop=2)
    elif name == "pages.tif":
        pages = [frames[0], frames[1].convert("L"), frames[2].convert("RGBA")]
        pages[0].save(path, save_all=True, append_images=pages[1:])
    else:
        frames[0].save(path)
    return path


FILES = ("anim.gif", "anim.png", "pages.tif", "still.png")


def _pillow_frames(path: Path, work: Callable[[Any], Any] = lambda im: im) -> list[Any]:
    with PILImage.open(path) as opened:
        return [work(frame.copy()) for frame in PILImageSequence.Iterator(opened)]


def _same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    assert_image_equal(actual, expected)
    assert actual.getpalette() == expected.getpalette()
    assert actual.info == expected.info


@pytest.mark.parametrize("name", FILES)
def test_frames_are_pillows(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    expected = _pillow_frames(path)
    lazy = Image.open(path)
    frames = [frame.copy() for frame in ImageSequence.Iterator(lazy)]
    assert len(frames) == len(expected) == lazy.n_frames
    assert lazy.is_animated == (len(expected) > 1)
    assert len(expected) == (1 if name == "still.png" else 3 if name == "pages.tif" else 4)
    for frame, want in zip(frames, expected, strict=True):
        assert isinstance(frame, Image.Image)
        _same(frame.to_pil(), want)
    last = len(expected) - 1
    assert lazy.tell() == last  # Pillow's iterator leaves its image at the last frame
    _same(lazy.to_pil(), expected[last])
    assert ImageSequence.Iterator(lazy)[0] is lazy
    assert lazy.tell() == 0
    _same(lazy.to_pil(), expected[0])
    with pytest.raises(IndexError, match="end of sequence"):
        ImageSequence.Iterator(lazy)[len(expected)]


def _loop(module: Any, sequence: Any, path: Path, body: Callable[[Any], Any]) -> list[Any]:
    """``body(frame)`` of every frame ``sequence.Iterator`` gives (Pillow's or ours), then
    where the image stands: its frame, mode, size and bytes. An error ends the loop and is
    one of the results (Pillow's APNG reader cannot read a frame on after one was resized)."""
    results: list[Any] = []
    with module.open(path) as image:
        try:
            for frame in sequence.Iterator(image):
                results.append(body(frame))
            results.append((image.tell(), image.mode, image.size, image.tobytes()))
        except Exception as error:
            results.append((type(error).__name__, str(error)))
    return results


def _each_frame_is_the_image(frame: Any) -> Any:
    return frame.tell(), frame.mode, frame.size, frame.tobytes(), frame.getpalette()


def _thumbnailed_in_place(frame: Any) -> Any:
    frame.thumbnail((16, 16))
    return frame.mode, frame.size, frame.tobytes()


@pytest.mark.parametrize("body", [_each_frame_is_the_image, _thumbnailed_in_place])
@pytest.mark.parametrize("name", [*FILES, "photo.jpg"])
def test_each_step_is_the_image_sought_there(
    tmp_path: Path, name: str, body: Callable[[Any], Any]
) -> None:
    """Pillow's iterator seeks its image and gives the image itself: an in-place edit of a
    frame edits the image (a JPEG's thumbnail drafts its decode), the next frame is read from
    there, and the image stands at the last frame afterwards."""
    if name == "photo.jpg":
        path = tmp_path / name
        make_image("RGB", (120, 90), seed=3).save(path, quality=90)
    else:
        path = _write(tmp_path, name)
    expected = _loop(PILImage, PILImageSequence, path, body)
    assert _loop(Image, ImageSequence, path, body) == expected


@pytest.mark.parametrize("name", ["anim.gif", "anim.png", "pages.tif"])
def test_a_loop_left_early_leaves_the_image_at_that_frame(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    expected = _pillow_frames(path)
    lazy = Image.open(path)
    for index, frame in enumerate(ImageSequence.Iterator(lazy)):
        assert frame is lazy
        if index == 1:
            break
    assert lazy.tell() == 1
    _same(lazy.to_pil(), expected[1])
    restarted = ImageSequence.Iterator(lazy)  # a new loop starts at the first frame again
    _same(next(restarted).to_pil(), expected[0])
    assert lazy.tell() == 0


def _thumbnail(image: Any) -> Any:
    image.thumbnail((16, 16))
    return image


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name", FILES)
def test_every_frame_thumbnailed_on_the_gpu(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    expected = _pillow_frames(path, _thumbnail)
    frames = ImageSequence.all_frames(Image.open(path), _thumbnail)
    with GpuBatchExecutor() as executor:
        results = {r.input_key: r.image for r in executor.run(enumerate(frames))}
    assert sorted(results) == list(range(len(expected)))
    for index, want in enumerate(expected):
        _same(results[index], want)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name", FILES)
def test_the_iterator_s_steps_run_as_jobs_of_their_frames(tmp_path: Path, name: str) -> None:
    """The executor takes each step's graph when it reads the input, so the frames of one
    image, sought along, run as jobs of their own frames."""
    path = _write(tmp_path, name)
    expected = _pillow_frames(path)
    with GpuBatchExecutor() as executor:
        steps = enumerate(ImageSequence.Iterator(Image.open(path)))
        results = {r.input_key: r.image for r in executor.run(steps)}
    assert sorted(results) == list(range(len(expected)))
    for index, want in enumerate(expected):
        _same(results[index], want)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name", ["anim.gif", "anim.png"])
def test_animation_saved_from_lazy_frames_is_pillows_file(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    expected, actual = io.BytesIO(), io.BytesIO()
    frames = _pillow_frames(path, _thumbnail)
    frames[0].save(expected, format=frames[0].format or path.suffix[1:], save_all=True,
                   append_images=frames[1:])  # fmt: skip
    lazy = ImageSequence.all_frames(Image.open(path), _thumbnail)
    lazy[0].save(actual, format=path.suffix[1:], save_all=True, append_images=lazy[1:])
    assert actual.getvalue() == expected.getvalue()


def test_an_image_that_is_not_a_file_is_one_frame() -> None:
    lazy = Image.new("RGB", (5, 4), "red").rotate(90)
    assert list(ImageSequence.Iterator(lazy)) == [lazy]
    assert (lazy.n_frames, lazy.is_animated) == (1, False)
    assert ImageSequence.Iterator(lazy)[0] is lazy
    with pytest.raises(IndexError, match="end of sequence"):
        ImageSequence.Iterator(lazy)[1]
    assert ImageSequence.all_frames([lazy, lazy]) == [lazy, lazy]


def test_a_loop_left_early_holds_no_open_file(tmp_path: Path) -> None:
    """filterwarnings=error: a file left open would fail this test as a ResourceWarning."""
    path = _write(tmp_path, "anim.gif")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        for index, _frame in enumerate(ImageSequence.Iterator(Image.open(path))):
            if index == 1:
                break
        gc.collect()


def test_iterator_needs_a_lazy_image() -> None:
    with pytest.raises(TypeError, match=r"needs a lazy pillow_gpu image .*observed numpy\.ndarray"):
        ImageSequence.Iterator(np.zeros((2, 2)))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"observed PIL\.Image\.Image; fix: open the file"):
        ImageSequence.Iterator(PILImage.new("L", (2, 2)))  # type: ignore[arg-type]


def _write_webp(tmp_path: Path) -> Path:
    path = tmp_path / "anim.webp"
    frames = _frames_rgb(3)
    frames[0].save(
        path, "WEBP", lossless=True, save_all=True, append_images=frames[1:], duration=[40, 50, 60]
    )
    return path


_INFO_FILES = {"anim.gif": lambda tmp: _write(tmp, "anim.gif"), "anim.webp": _write_webp}


@pytest.mark.parametrize("name", list(_INFO_FILES))
def test_a_frame_s_info_is_pillow_s_before_its_first_use_and_after(
    tmp_path: Path, name: str
) -> None:
    """Pillow's iterator hands out its image sought to each frame, not loaded: its info is
    what the seek read (an animated WebP's load adds ``timestamp`` and ``duration``); an
    operation loads it first, and the frame then shows the loaded info."""
    path = _INFO_FILES[name](tmp_path)
    before, results, after = [], [], []
    with PILImage.open(path) as opened:
        for frame in PILImageSequence.Iterator(opened):
            before.append(dict(frame.info))
            results.append(dict(frame.convert("RGBA").info))
            after.append(dict(frame.info))
    assert (before != after) == (name == "anim.webp")  # WebP's loads add the timing
    for index, frame in enumerate(ImageSequence.Iterator(Image.open(path))):
        assert frame.info == before[index], index
        assert frame.convert("RGBA").info == results[index], index
        assert frame.info == after[index], index


@pytest.mark.parametrize("name", list(_INFO_FILES))
def test_an_edit_before_a_frame_s_first_use_keeps_the_keys_its_load_adds(
    tmp_path: Path, name: str
) -> None:
    path = _INFO_FILES[name](tmp_path)
    expected = []
    with PILImage.open(path) as opened:
        for frame in PILImageSequence.Iterator(opened):
            frame.info["comment"] = b"edited"
            expected.append((dict(frame.convert("RGBA").info), dict(frame.info)))
    for index, frame in enumerate(ImageSequence.Iterator(Image.open(path))):
        frame.info["comment"] = b"edited"
        assert (frame.convert("RGBA").info, frame.info) == expected[index], index
