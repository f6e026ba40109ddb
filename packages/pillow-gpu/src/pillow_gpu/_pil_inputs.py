"""``PIL.Image.Image`` arguments of the module functions (``ImageOps``, ``ImageChops``, ...).

Pillow code passes Pillow images around: a decoded file, a result the executor delivered, an
image a library returned. The module functions take them where they take a lazy image, and
record them as :func:`pillow_gpu.Image.from_pil` does: a private copy of the pixels as they
are at the call, so changing the Pillow image afterwards changes no graph (Pillow's eager call
would have read them then too). Anything else is refused with a ``TypeError`` naming the
argument, instead of an ``AttributeError`` from deep inside the recording.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from PIL import Image as PILImage

from pillow_gpu._image import Image, _wrap

__all__ = ["accepts_pil", "lazy_image"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def lazy_image(value: object, name: str, where: str) -> Image:
    """``value`` as a lazy image: itself, or a leaf of a private copy of a PIL image; else a
    ``TypeError`` saying which argument of ``where`` was what."""
    if isinstance(value, (Image, PILImage.Image)):
        return _wrap(value)
    msg = (
        f"why: {where}() records lazy images; observed: {name} is a "
        f"{type(value).__module__}.{type(value).__qualname__}; fix: pass a pillow_gpu image "
        "(pillow_gpu.Image.open, Image.new, Image.from_pil, ...) or a PIL.Image.Image"
    )
    raise TypeError(msg)


def accepts_pil(*names: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Let the decorated function's arguments ``names`` be ``PIL.Image.Image`` objects too
    (see the module docstring); other values raise a ``TypeError``."""

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        parameters = list(inspect.signature(function).parameters)
        slots = tuple((parameters.index(name), name) for name in names)
        method = function.__name__ == "__init__"  # a class: name the instance's own

        def where(args: tuple[Any, ...]) -> str:
            return type(args[0]).__qualname__ if method else function.__qualname__

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> _R:
            # Lazy images pass with one type check each (every job of a batch calls these).
            for position, name in slots:
                if position < len(args):
                    value = args[position]
                    if type(value) is not Image:
                        lazy = lazy_image(value, name, where(args))
                        args = (*args[:position], lazy, *args[position + 1 :])
                elif name in kwargs and type(kwargs[name]) is not Image:
                    kwargs[name] = lazy_image(kwargs[name], name, where(args))
            return function(*args, **kwargs)

        return wrapper

    return decorate
