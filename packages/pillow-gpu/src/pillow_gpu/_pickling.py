"""Pickling a lazy image as Pillow pickles its image: the pixels, never the graph.

Pillow's ``Image.__getstate__`` loads the image and keeps its ``info``, mode, size, palette
(``getpalette()``) and bytes (``tobytes()``); an opened file's adds its ``filename``, and the
unpickled object, of the plugin's class, answers the plugin's ``format`` and
``format_description``. A lazy image pickles that state of Pillow's image of its graph
(what :meth:`~pillow_gpu._image.Image.to_pil` copies: Pillow's load and operations, as
Pillow would run them), with the file's ``format``, ``format_description`` and
``filename``. Unpickled, it is a lazy image of Pillow's unpickled pixels (a ``from_pil``
leaf) that answers those three as Pillow's unpickled image does; like Pillow's, it reads no
file and holds no frames to seek.

So a lazy image crosses to a process pool (``multiprocessing``, ``concurrent.futures``,
``joblib``) as a Pillow image does, and costs what Pillow's costs: the receiving process gets
pixels, which the sending one has computed. To run graphs elsewhere, see
:mod:`pillow_gpu.ray`. A ``GpuImage`` (a resident executor output) still refuses pickling:
its pixels are on the device; ``download()`` them first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PIL import Image as PILImage

from pillow_gpu import _cpu
from pillow_gpu._leaves import pil_node
from pillow_gpu._opened_file import NOT_A_FILE, OpenedFile

if TYPE_CHECKING:
    from collections.abc import Callable

    from pillow_gpu._image import Image

__all__ = ["pickled", "unpickled"]


def pickled(image: Image) -> tuple[Callable[..., Image], tuple[Any, ...]]:
    """``image.__reduce__()``: Pillow's pickled state of ``image``'s pixels and the file's
    ``format``, ``format_description`` and ``filename`` (None where ``image`` is no file)."""
    # The cached result, read only (to_pil() would copy it first); synced with drawing and
    # edits of info, and saying the handle's mode (an L GIF's P pixels say L: loaded_pixels).
    state = PILImage.Image.__getstate__(_cpu.evaluate(image._node))
    opened = image._file_format
    # An opened file's image (Pillow's ImageFile) pickles its filename; its plugin's format and
    # description come back with its class (an assigned format is the instance's: not pickled).
    filename = None if opened.format is None else image.filename
    return unpickled, (state, opened.format, opened.format_description, filename)


def unpickled(
    state: list[Any], format: str | None, description: str | None, filename: str | bytes | None
) -> Image:
    """The lazy image :func:`pickled` described: Pillow's ``__setstate__`` of ``state`` (its
    checks and errors), wrapped as a ``from_pil`` leaf, answering ``format``,
    ``format_description`` and ``filename`` where it was an opened file."""
    from pillow_gpu._image import Image  # the handle module imports this one

    restored = PILImage.Image.__new__(PILImage.Image)
    restored.__setstate__(state)
    opened = (
        NOT_A_FILE
        if format is None
        else OpenedFile(format, description, assigned_filename=(filename,))
    )
    return Image(pil_node(restored), opened)
