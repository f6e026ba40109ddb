"""``PIL.ImageMath`` for lazy images: expressions over images' pixel values, run by Pillow.

Pillow evaluates the expression on its images' C buffers (as 32-bit integers or floats), so a
lazy image among the arguments is completed with Pillow first (its graph runs once, as for
``to_pil()``). The expression then runs exactly as Pillow runs it, its errors included, and an
image it returns, where any argument was lazy, comes back as a lazy image of that result,
ready for further operations on the GPU (with Pillow's images only, Pillow's result as it is).
Every other name is Pillow's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import ImageMath as _PILImageMath

from pillow_gpu._image import Image
from pillow_gpu._pixel_edits import lazy_result, pillow_image

__all__ = ["lambda_eval", "unsafe_eval"]


def lambda_eval(expression: Callable[[dict[str, Any]], Any], **kw: Any) -> Any:
    """``PIL.ImageMath.lambda_eval`` with lazy images among ``kw``; an image result is lazy."""
    return _returned(kw, _PILImageMath.lambda_eval(expression, **_completed(kw)))


def unsafe_eval(expression: str, **kw: Any) -> Any:
    """``PIL.ImageMath.unsafe_eval`` with lazy images among ``kw``; an image result is lazy.
    As Pillow's, it runs ``expression`` with Python's ``eval``: never pass untrusted text."""
    return _returned(kw, _PILImageMath.unsafe_eval(expression, **_completed(kw)))


def _completed(kw: dict[str, Any]) -> dict[str, Any]:
    return {name: pillow_image(value) for name, value in kw.items()}


def _returned(kw: dict[str, Any], result: Any) -> Any:
    return lazy_result(result) if any(isinstance(v, Image) for v in kw.values()) else result


def __getattr__(name: str) -> Any:
    """Pillow's other names (``ops``, the ``imagemath_*`` functions) are its own."""
    return getattr(_PILImageMath, name)
