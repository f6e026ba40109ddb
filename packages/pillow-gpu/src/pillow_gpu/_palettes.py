"""Pillow's palette editors on lazy images: ``putpalette`` (in place) and ``quantize``.

``putpalette`` replaces the palette of a P or PA image, or makes an L or LA image P or PA with
that palette (as Pillow does, mode changing in place); the palette data is read at the call.
The GPU keeps the indices (L's value becomes the index) and the result carries the new palette
(``lowering.indexed``), so a class mask coloured by a palette runs on the GPU. ``quantize``
builds an adaptive palette from every pixel: it is recorded, runs with Pillow (``to_pil()``,
``save()``, ``pillow-gpu apply --cpu-fallback``) and is refused on the GPU with that reason.
Pillow's own checks run now, on a small image of the mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PIL import Image as PILImage
from PIL import ImagePalette

from pillow_gpu._cpu import put_palette, quantized
from pillow_gpu._probes import _probe_image
from pillow_gpu._queries import _pil

if TYPE_CHECKING:
    from pillow_gpu._image import Image

__all__ = ["PaletteEdits"]


class PaletteEdits:
    """``putpalette`` and ``quantize`` for :class:`pillow_gpu.Image.Image`."""

    __slots__ = ()
    _node: Any

    def putpalette(
        self,
        data: ImagePalette.ImagePalette | bytes | list[int] | tuple[int, ...],
        rawmode: str = "RGB",
    ) -> None:
        """``PIL.Image.Image.putpalette`` in place: L becomes P, LA becomes PA (as in Pillow)."""
        kept = data.copy() if isinstance(data, ImagePalette.ImagePalette) else bytes(data)
        probe = put_palette(_probe_image(self._node.mode), kept, rawmode)  # Pillow's checks
        self._node = self._derive(  # type: ignore[attr-defined]
            "putpalette", {"data": kept, "rawmode": rawmode}, mode=probe.mode
        )._node

    def quantize(
        self,
        colors: int = 256,
        method: int | None = None,
        kmeans: int = 0,
        palette: Any = None,
        dither: PILImage.Dither = PILImage.Dither.FLOYDSTEINBERG,
    ) -> Image:
        """Record ``PIL.Image.Image.quantize`` (runs with Pillow; refused on the GPU: the
        palette and every index depend on all the pixels). ``palette`` is read now."""
        source = _pil(palette)
        if source is not None:
            source = source.copy()
        params = {
            "colors": colors,
            "method": method,
            "kmeans": kmeans,
            "palette": source,
            "dither": dither,
        }
        quantized(_probe_image(self._node.mode), params)  # Pillow's checks
        return self._derive("quantize", params, mode="P")  # type: ignore[attr-defined]
