"""Lazy counterpart of ``PIL.ImageSequence``: the frames of an animated or multi-page file.

A lazy image is one frame (an opened file's first), so frames are read the way Pillow reads
them: :class:`Iterator` opens the file once and decodes frame after frame as it is advanced,
each frame becoming its own lazy image (a copy of Pillow's decoded frame, with its mode,
palette, ``info`` and a TIFF's tag directories; ``from_pil``), ready to be thumbnailed or
filtered on the GPU. Frames are decoded in order, so going through a file costs what Pillow's
own loop costs; indexing (``Iterator(im)[i]``) decodes up to frame ``i``. An image that is not
an opened file (an operation's result, ``Image.new``, ``from_pil``) has one frame: itself.

Until its first use a frame's ``info`` is what Pillow's image shows before it loads the frame
(an animated WebP's or AVIF's load adds ``timestamp`` and ``duration``, a GIF frame's may drop
its ``transparency``), and the keys the load changes join it then; its operations start from
the loaded ``info``, as Pillow's load before they run.

A frame Pillow cannot load (a file cut short inside it) raises Pillow's error at its first
use, as Pillow's frame does, so a loop that catches errors where it uses each frame goes on
to the next, as Pillow's does (Pillow's next seek may raise in turn). A file whose frames
Pillow cannot count is walked all the same, as Pillow's iterator walks it.

Unlike Pillow's iterator, which seeks and returns the same image object, each frame is a new
image, so keeping frames in a list keeps them all. Save an animation with
``frames[0].save(path, save_all=True, append_images=frames[1:])``: lazy frames in
``append_images`` are completed first.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, cast

from PIL import ImageSequence as PILImageSequence

from pillow_gpu import _cpu
from pillow_gpu._graph import raise_load_failure
from pillow_gpu._leaves import frame_node
from pillow_gpu._save_all import every_frame
from pillow_gpu._tiff_tags import frame_directories, frame_exif
from pillow_gpu.Image import Image

__all__ = ["Iterator", "all_frames"]


def _frames(im: Image, start: int = 0) -> Generator[Image]:
    """Every frame of ``im``'s file (after a seek or an in-place edit too) from ``start`` on,
    each decoded when it is asked for."""
    opened = every_frame(im, writing=False)  # Pillow's image of a file of several frames
    if opened is None:
        file = im._file()
        if file.op != "open" or im._file_format.source is None:  # one frame, or no file
            if start == 0:
                yield im
            return
        opened = _cpu.open_encoded(file.params)
    with opened:
        for index, frame in enumerate(PILImageSequence.Iterator(opened)):
            if index >= start:
                # A TIFF's directories, Exif and info as they stand before the frame loads.
                tags, exif = frame_directories(frame), frame_exif(frame)
                header = cast("dict[str, Any]", dict(frame.info))  # Pillow's keys: str
                image = Image(frame_node(frame), tags=tags)
                image._exif = exif
                image._iterated = (image._graph, header)
                yield image


class Iterator:
    """Loop over the frames of ``im`` (``for frame in Iterator(im)``) or index them."""

    def __init__(self, im: Image) -> None:
        if not isinstance(im, Image):
            msg = (
                "why: Iterator needs a lazy pillow_gpu image (it records each frame from the "
                f"file); observed {type(im).__module__}.{type(im).__qualname__}; fix: open the "
                "file with pillow_gpu.Image.open, or use PIL.ImageSequence for a Pillow image"
            )
            raise TypeError(msg)
        self.im = im
        self._frames: Generator[Image] | None = None

    def __getitem__(self, ix: int) -> Image:
        """Frame ``ix`` (decoding the frames before it); IndexError past the last one."""
        frames = _frames(self.im, ix)
        try:
            return next(frames)
        except StopIteration:
            msg = "end of sequence"
            raise IndexError(msg) from None
        finally:
            frames.close()  # the file is closed now, not when the generator is collected

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Image:
        if self._frames is None:
            self._frames = _frames(self.im)
        return next(self._frames)

    def close(self) -> None:
        """Close the file of a loop left before its end (also done when it is collected)."""
        if self._frames is not None:
            self._frames.close()


def all_frames(
    im: Image | list[Image], func: Callable[[Image], Image] | None = None
) -> list[Image]:
    """Every frame of ``im`` (or of each image of a list), with ``func`` applied if given.

    Pillow's copies every frame first, which loads it: a frame it cannot load raises here.
    Then it seeks each image back to the frame it was at, and so does this (a file Pillow's
    image cannot seek in, a SPIDER file that is no stack, raises Pillow's error there).
    """
    frames = []
    for image in im if isinstance(im, list) else [im]:
        current = image.tell()
        for frame in Iterator(image):
            raise_load_failure(frame.node)
            frames.append(frame)
        image.seek(current)
    return [func(frame) for frame in frames] if func else frames
