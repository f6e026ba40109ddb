"""``PIL.Image.Image`` arguments of the module functions (``ImageOps``, ``ImageChops``, ...).

Pillow code passes Pillow images around: a decoded file, a result the executor delivered, an
image a library returned. The module functions take them where they take a lazy image, and
record them as :func:`pillow_gpu.Image.from_pil` does: a private copy of the pixels as they
are at the call, so changing the Pillow image afterwards changes no graph (Pillow's eager call
would have read them then too). Anything else is refused with a ``TypeError`` naming the
argument, instead of an ``AttributeError`` from deep inside the recording.

An opened file whose load leaves pixels of another mode than it says (an L GIF that loads as
P pixels, :func:`pillow_gpu._leaves.loads_in_another_mode`) goes to Pillow's own function of
the same name, with the file's loaded pixels: Pillow's functions read that state (the
palette an L image holds turns a colour into an index), which no recording from the header
can know. The result is recorded as ``from_pil`` records a PIL image.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from PIL import Image as PILImage

from pillow_gpu._cpu import same_mode_copy
from pillow_gpu._image import Image, _wrap
from pillow_gpu._leaves import loads_in_another_mode

__all__ = ["accepts_pil", "lazy_image"]

#: Functions that change the image given in place (``in_place=True``): never handed a copy.
_IN_PLACE = frozenset({"exif_transpose"})

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
            marked = False
            for position, name in slots:
                if position < len(args):
                    value = args[position]
                    if type(value) is not Image:
                        value = lazy_image(value, name, where(args))
                        args = (*args[:position], value, *args[position + 1 :])
                elif name in kwargs:
                    value = kwargs[name]
                    if type(value) is not Image:
                        value = kwargs[name] = lazy_image(value, name, where(args))
                else:
                    continue
                marked = marked or loads_in_another_mode(value._graph)  # no sync: a read
            if marked and not method:
                return cast("_R", _with_pillow(function, args, kwargs))
            return function(*args, **kwargs)

        return wrapper

    return decorate


def _with_pillow(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Pillow's own function of ``function``'s name run on the lazy images' pixels, its image
    result recorded as a PIL image; ``function`` itself where Pillow has none of that name or
    it changes its image in place."""
    module = importlib.import_module(function.__module__.replace("pillow_gpu.", "PIL.", 1))
    pillows = getattr(module, function.__name__, None)
    if pillows is None or function.__name__ in _IN_PLACE:
        return function(*args, **kwargs)

    def given(value: Any) -> Any:  # a copy: Pillow's function must not reach the cache
        return same_mode_copy(value._pixels()) if type(value) is Image else value

    result = pillows(*[given(value) for value in args], **{k: given(v) for k, v in kwargs.items()})
    return _wrap(result) if isinstance(result, PILImage.Image) else result
