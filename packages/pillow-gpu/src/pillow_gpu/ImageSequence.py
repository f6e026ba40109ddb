"""Lazy counterpart of ``PIL.ImageSequence``: the frames of an animated or multi-page file.

As Pillow's, :class:`Iterator` seeks the image it is given to each frame in turn and gives
that image itself (``Iterator(im)[i]`` seeks it to frame ``i``): after a loop the image stands
at the frame the loop last reached (the last one, where it ran to its end), and an in-place
edit of a frame (``frame.thumbnail(...)``) edits the image, whose next frame is then read as
Pillow's image reads it from there. A frame is the opened file's own until it is used, so a
JPEG's ``thumbnail`` in the loop drafts its decode as Pillow's does. Seeks are the image's own
(:mod:`pillow_gpu._seek`): Pillow's frame logic, each frame decoded at its first use or where
Pillow's reader loads it (its GIF and APNG readers load the current frame before reading the
next), its ``info`` until then what Pillow's image shows before loading it.

To keep frames, keep copies, as with Pillow: ``[frame.copy() for frame in Iterator(im)]``
(:func:`all_frames` does this), each ready to be thumbnailed or filtered on the GPU; save an
animation with ``frames[0].save(path, save_all=True, append_images=frames[1:])``. An image
that is not an opened file (an operation's result, ``Image.new``, ``from_pil``) has one frame:
itself.

A frame Pillow cannot load (a file cut short inside it) raises Pillow's error at its first
use, as Pillow's does, so a loop that catches errors where it uses each frame goes on to the
next (where Pillow's next seek may raise in turn).
"""

from __future__ import annotations

from collections.abc import Callable

from pillow_gpu.Image import Image

__all__ = ["Iterator", "all_frames"]


class Iterator:
    """Loop over the frames of ``im`` (``for frame in Iterator(im)``) or index them: each
    step seeks ``im`` to the frame and gives ``im``, as Pillow's iterator does."""

    def __init__(self, im: Image) -> None:
        if not isinstance(im, Image):
            msg = (
                "why: Iterator needs a lazy pillow_gpu image (it seeks it to each frame); "
                f"observed {type(im).__module__}.{type(im).__qualname__}; fix: open the "
                "file with pillow_gpu.Image.open, or use PIL.ImageSequence for a Pillow image"
            )
            raise TypeError(msg)
        self.im = im
        #: The frame the next step seeks to (a PSD file's first frame is 1, as in Pillow).
        self.position = im._file_format.min_frame

    def __getitem__(self, ix: int) -> Image:
        """``im`` sought to frame ``ix``; IndexError past the last one."""
        try:
            self.im.seek(ix)
        except EOFError as error:
            msg = "end of sequence"
            raise IndexError(msg) from error
        return self.im

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Image:
        try:
            self.im.seek(self.position)
        except EOFError as error:
            msg = "end of sequence"
            raise StopIteration(msg) from error
        self.position += 1
        return self.im


def all_frames(
    im: Image | list[Image], func: Callable[[Image], Image] | None = None
) -> list[Image]:
    """A copy of every frame of ``im`` (or of each image of a list), with ``func`` applied to
    each if given.

    As Pillow's: each frame is copied, which loads it (a frame Pillow cannot load raises
    here), then each image is sought back to the frame it was at (a file Pillow's image
    cannot seek in, a SPIDER file that is no stack, raises Pillow's error there).
    """
    frames = []
    for image in im if isinstance(im, list) else [im]:
        current = image.tell()
        for frame in Iterator(image):
            frame.load()  # Pillow's copy loads: a frame it cannot load raises now
            frames.append(frame.copy())
        image.seek(current)
    return [func(frame) for frame in frames] if func else frames
