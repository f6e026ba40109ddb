"""Editing a lazy image's pixels with Pillow on the CPU: ``ImageDraw``, ``floodfill`` and the
pixel access of ``load()``; the edited pixels become a new leaf of the graph.

``PIL.ImageDraw.Draw(image)`` asks the image for a drawing interface (``image.getdraw``); a
lazy image answers with :class:`ImageDraw`, which has Pillow's drawing methods and attributes.
The first drawing call completes the graph so far with Pillow (``to_pil``) into a canvas and
Pillow draws into it; consecutive calls keep drawing into the same canvas. When the image is
next read (an operation recorded on it, ``save``, a query, a batch), the canvas as it is then
becomes the image's node: a leaf holding a copy of its pixels, so operations recorded before
later drawing never see that drawing, as with Pillow's eager images. Pixel writes through
``load()``'s access work the same way.

Between two calls the image may change otherwise. An in-place edit that Pillow makes in the
image's own storage (``paste``, ``putpixel``, ``alpha_composite``, ``putalpha``, which turns
RGB and RGBX into RGBA in place), or another drawing object's work, is completed into a fresh
canvas before the next call. An edit that gives Pillow's image new storage (a ``thumbnail``
that shrinks it, ``putalpha`` adding the band to L, 1, P or CMYK) leaves Pillow's drawing
object on the old storage, so its later calls no longer reach the image. In place, a size
only shrinks and a mode only gains alpha, so the image's mode and size tell which.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from PIL import Image as PILImage
from PIL import ImageDraw as PILImageDraw

from pillow_gpu._graph import Node
from pillow_gpu._leaves import pil_node
from pillow_gpu._probes import _probe_image

__all__ = ["DRAWING_METHODS", "CanvasEdit", "Drawable", "ImageDraw", "PixelAccess", "floodfill"]

#: Pillow's ImageDraw methods that change pixels (the others only measure).
DRAWING_METHODS = frozenset(
    {
        "arc", "bitmap", "chord", "circle", "ellipse", "line", "multiline_text", "pieslice",
        "point", "polygon", "rectangle", "regular_polygon", "rounded_rectangle", "shape",
        "text",
    }
)  # fmt: skip


class _Target(Protocol):
    """What drawing uses of a lazy image (``pillow_gpu.Image.Image``)."""

    _drawing: CanvasEdit | None
    _graph: Node

    @property
    def mode(self) -> str: ...

    @property
    def size(self) -> tuple[int, int]: ...

    def to_pil(self) -> PILImage.Image: ...


#: Modes whose storage Pillow's putalpha turns into RGBA in place (``im.setmode``).
_ALPHA_IN_PLACE = ("RGB", "RGBX")


class Drawable:
    """The drawing hooks of a lazy image (a mixin of ``pillow_gpu.Image.Image``)."""

    __slots__ = ()

    def getdraw(self, mode: str | None = None) -> ImageDraw:
        """The drawing interface ``PIL.ImageDraw.Draw(image)`` asks an image for: Pillow
        draws on the CPU into the image's current pixels (see :mod:`pillow_gpu.ImageDraw`)."""
        return ImageDraw(cast("_Target", self), mode)

    def _ensure_mutable(self) -> None:
        # Pillow calls this before writing into an image's C storage in place.
        msg = (
            "why: Pillow was asked to write into a lazy image's pixels in place (e.g. "
            "PIL.ImageDraw.ImageDraw(image)), and a lazy image has no C storage; observed: "
            f"{self!r}; fix: use PIL.ImageDraw.Draw(image) or pillow_gpu.ImageDraw.Draw(image), "
            "which draw with Pillow into the image's pixels, or draw on image.to_pil()"
        )
        raise TypeError(msg)


class CanvasEdit:
    """Pillow editing a lazy image's pixels on the CPU: a canvas holding the image's current
    pixels, read back into the image (a new leaf) when the image is next read."""

    _image: _Target
    _shape: tuple[str, tuple[int, int]]
    _canvas: PILImage.Image | None
    _source: Node | None  # the image's node whose pixels the canvas holds (while not drawn)

    def __init__(self, im: _Target) -> None:
        state = self.__dict__
        state["_image"] = im
        state["_shape"] = (im.mode, im.size)  # Pillow's storage: see the module docstring
        state["_canvas"] = None
        state["_source"] = None

    def _orphaned(self) -> bool:
        """True once the image has new storage in Pillow's terms (see the module docstring)."""
        image = self._image
        mode, size = self._shape
        if image.size != size:
            return True
        return image.mode != mode and not (mode in _ALPHA_IN_PLACE and image.mode == "RGBA")

    def canvas(self) -> PILImage.Image:
        """The canvas holding the image's current pixels (orphaned: its own, which the image
        never sees), made again when the image changed since it was last drawn into."""
        image = self._image
        orphaned = self._orphaned()
        pending = image._drawing
        unchanged = pending is None and image._graph is self._source
        canvas = self._canvas
        if canvas is None or not (orphaned or pending is self or unchanged):
            canvas = PILImage.new(*self._shape) if orphaned else image.to_pil()
            self.__dict__.update(_canvas=canvas, _source=image._graph)
            self._new_canvas(canvas)
        return canvas

    def _new_canvas(self, canvas: PILImage.Image) -> None:
        """Hook: the canvas was made again."""

    def changed(self) -> None:
        """Pillow changed the canvas: the image reads it back when it is next read."""
        if not self._orphaned():
            self._image._drawing = self

    def snapshot(self) -> Node:
        """The leaf of a copy of the canvas as it is now (the image's node from now on)."""
        node = pil_node(self.canvas())
        self.__dict__["_source"] = node
        return node


class ImageDraw(CanvasEdit):
    """``PIL.ImageDraw.ImageDraw`` for a lazy image (same methods and attributes)."""

    _mode: str | None
    _draw: PILImageDraw.ImageDraw
    _settings: dict[str, Any]

    def __init__(self, im: _Target, mode: str | None = None) -> None:
        PILImageDraw.ImageDraw(_probe_image(im.mode), mode)  # Pillow's mode checks, now
        super().__init__(im)
        self.__dict__.update(_mode=mode, _draw=None, _settings={})

    def _new_canvas(self, canvas: PILImage.Image) -> None:
        draw = PILImageDraw.ImageDraw(canvas, self._mode)
        for name, value in self._settings.items():
            setattr(draw, name, value)
        self.__dict__["_draw"] = draw

    def _ready(self) -> PILImageDraw.ImageDraw:
        """Pillow's drawing object over the canvas."""
        self.canvas()
        return self._draw

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        attribute = getattr(self._ready(), name)
        if name not in DRAWING_METHODS:
            return attribute
        return self._drawing_call(attribute)

    def _drawing_call(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def draw(*args: Any, **kwargs: Any) -> Any:
            result = method(*args, **kwargs)
            self.changed()
            return result

        draw.__doc__ = method.__doc__
        return draw

    def __setattr__(self, name: str, value: Any) -> None:
        # font, fontmode, fill, ink, ...: kept for the canvases of later calls too
        self._settings[name] = value
        setattr(self._ready(), name, value)

    def __dir__(self) -> list[str]:
        return sorted({*dir(PILImageDraw.ImageDraw), *self.__dict__["_settings"]})


def floodfill(
    image: _Target | PILImage.Image,
    xy: tuple[int, int],
    value: float | tuple[int, ...],
    border: float | tuple[int, ...] | None = None,
    thresh: float = 0,
) -> None:
    """``PIL.ImageDraw.floodfill``, into a lazy image's pixels too (Pillow fills a canvas)."""
    if isinstance(image, PILImage.Image):
        PILImageDraw.floodfill(image, xy, value, border, thresh)
        return
    edit = CanvasEdit(image)
    PILImageDraw.floodfill(edit.canvas(), xy, value, border, thresh)
    edit.changed()


class PixelAccess(CanvasEdit):
    """``PIL.Image.Image.load()``'s pixel access for a lazy image: ``access[x, y]`` reads the
    image's current pixels and ``access[x, y] = value`` writes them, as drawing does."""

    _access: Any  # Pillow's PixelAccess of the canvas

    def _new_canvas(self, canvas: PILImage.Image) -> None:
        self.__dict__["_access"] = canvas.load()

    def _pixels(self) -> Any:
        self.canvas()
        return self._access

    def __getitem__(self, xy: tuple[int, int]) -> Any:
        return self._pixels()[xy]

    def __setitem__(self, xy: tuple[int, int], value: Any) -> None:
        self._pixels()[xy] = value
        self.changed()

    def getpixel(self, xy: tuple[int, int]) -> Any:
        """The value at ``xy`` (as ``access[xy]``)."""
        return self[xy]

    def putpixel(self, xy: tuple[int, int], value: Any) -> None:
        """Set the value at ``xy`` (as ``access[xy] = value``)."""
        self[xy] = value
