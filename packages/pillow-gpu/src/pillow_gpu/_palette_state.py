"""A P or PA image's palette as Pillow holds it: at two levels that can differ.

The C image holds the entries that pixels, ``getpalette``, ``convert`` and the encoders read;
the Python :class:`PIL.ImagePalette.ImagePalette` object is what ``image.palette`` shows, and
``load()`` pushes it to the C image while it is ``dirty``. Pillow keeps them apart where an
operation copies the palette object onto a new C image: ``ImageChops`` of P images returns a
C palette with no entries beside a copy of the source's palette object, so every index reads
black. A result built from GPU bytes gets both levels of Pillow's result (:meth:`apply`), not
one ``putpalette`` that would make them agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image as PILImage
from PIL import ImagePalette

__all__ = ["PaletteState"]


@dataclass(frozen=True, slots=True)
class PaletteState:
    """Both levels of one image's palette (see the module docstring)."""

    #: The C image's palette mode (``RGB`` or ``RGBA``) and its entries, four bytes each:
    #: an RGB palette's fourth byte is stored too (Pillow's ``putpalette`` of RGBX data
    #: keeps the X there, and ``convert`` to RGBA and LA reads it as alpha).
    mode: str
    entries: bytes
    #: A private copy of the Python palette object (mode, raw mode, bytes, dirty flag).
    kept: ImagePalette.ImagePalette

    @classmethod
    def of(cls, image: PILImage.Image) -> PaletteState | None:
        """The palette state of P or PA ``image`` (None when it has no palette object)."""
        if image.palette is None:
            return None
        mode = image.im.getpalettemode()
        entries = image.im.getpalette(mode, _RAWMODES[mode])
        return cls(mode, bytes(entries), image.palette.copy())

    def apply(self, image: PILImage.Image) -> None:
        """Give ``image`` (same mode, a fresh P or PA image) exactly this palette state."""
        image.im.putpalette(self.mode, _RAWMODES[self.mode], self.entries)
        image.palette = self.kept.copy()


#: The raw mode that reads and writes every byte of a C palette's entries, by palette mode.
_RAWMODES = {"RGB": "RGBX", "RGBA": "RGBA"}
