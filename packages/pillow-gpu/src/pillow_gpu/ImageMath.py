"""``PIL.ImageMath`` for lazy images: expressions over images' pixel values, run by Pillow.

Pillow evaluates the expression on its images' C buffers (as 32-bit integers or floats), so a
lazy image among the arguments is completed with Pillow first (its graph runs once, as for
``to_pil()``); an opened file not loaded yet goes as Pillow's image of it, loaded where the
expression first needs its pixels. The expression then runs exactly as Pillow runs it, its
errors included, and an image it returns, where any argument was lazy, comes back as a lazy
image of that result, ready for further operations on the GPU (with Pillow's images only,
Pillow's result as it is).
Every other name is Pillow's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage
from PIL import ImageMath as _PILImageMath

from pillow_gpu import _cpu
from pillow_gpu._graph import undecoded_file
from pillow_gpu._image import Image
from pillow_gpu._pixel_edits import lazy_result, pillow_image

__all__ = ["lambda_eval", "unsafe_eval"]


def lambda_eval(expression: Callable[[dict[str, Any]], Any], **kw: Any) -> Any:
    """``PIL.ImageMath.lambda_eval`` with lazy images among ``kw``; an image result is lazy."""
    return _run(lambda images: _PILImageMath.lambda_eval(expression, **images), kw)


def unsafe_eval(expression: str, **kw: Any) -> Any:
    """``PIL.ImageMath.unsafe_eval`` with lazy images among ``kw``; an image result is lazy.
    As Pillow's, it runs ``expression`` with Python's ``eval``: never pass untrusted text."""
    return _run(lambda images: _PILImageMath.unsafe_eval(expression, **images), kw)


def _run(evaluate: Callable[[dict[str, Any]], Any], kw: dict[str, Any]) -> Any:
    """``evaluate`` of Pillow's images for ``kw``; an image result is lazy where any was."""
    opened: list[PILImage.Image] = []
    try:
        result = evaluate({name: _pillows(value, opened) for name, value in kw.items()})
        return lazy_result(result) if any(isinstance(v, Image) for v in kw.values()) else result
    finally:
        for image in opened:
            image.close()


def _pillows(value: Any, opened: list[PILImage.Image]) -> Any:
    """Pillow's image of a lazy ``value`` (any other value as it is). An opened file not
    loaded yet (nor drafted) goes as Pillow's image of it stands, which the expression loads
    where it first needs the pixels: Pillow's checks of its mode come before a damaged file's
    load error, as in Pillow. It is added to ``opened``, to be closed. A frame sought and not
    used yet goes as the handle's Pillow reader stands on it (pillow_gpu._seek), likewise."""
    if not isinstance(value, Image):
        return value
    frame = value._unloaded_frame_reader()
    if frame is not None:
        return value._lend(frame).image  # the reader's: loaded there, it is the frame's load
    node = value._node
    if not undecoded_file(node) or node.params.get("draft"):
        return pillow_image(value)
    image = _cpu.open_edited(node)
    opened.append(image)
    return image


def __getattr__(name: str) -> Any:
    """Pillow's other names (``ops``, the ``imagemath_*`` functions) are its own."""
    return getattr(_PILImageMath, name)
