"""The ``info`` Pillow's ``ImageOps.exif_transpose`` gives an image, known without its pixels:
Pillow's own function run on a 1x1 image carrying that ``info`` (its XMP packets lose the
orientation, its EXIF bytes are written anew). ``pillow_gpu.ImageOps.exif_transpose`` records
its results' ``info`` so, and :mod:`pillow_gpu._load_info` a TIFF's, whose plugin ends its load
with the same call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps

__all__ = ["EXIF_INFO_KEYS", "info_probe", "probe_transposed"]

#: The EXIF orientation tag.
ORIENTATION = 0x0112
#: The ``info`` keys Pillow's own ``Image.getexif`` reads: EXIF bytes (or ImageMagick's hex
#: text of them) and XMP packets, whose orientation it takes where the EXIF has none.
EXIF_INFO_KEYS = ("exif", "Raw profile type exif", "XML:com.adobe.xmp", "xmp")


def info_probe(info: Mapping[str, Any]) -> PILImage.Image:
    """A 1x1 image carrying ``info``: Pillow's ``getexif`` reads it as a loaded image's."""
    probe = PILImage.new("L", (1, 1))
    probe.info.update(info)
    return probe


def probe_transposed(
    probe: PILImage.Image, handed: PILImage.Exif | None, orientation: int, *, in_place: bool
) -> tuple[Mapping[str, Any], PILImage.Exif | None]:
    """The ``info`` Pillow's ``exif_transpose`` gives, and the ``Exif`` its result keeps
    (None: the handle's own stays), from Pillow's own function run on a 1x1 ``probe`` carrying
    the image's ``info``; ``handed`` is the image's ``getexif()`` where the caller asked it.

    Pillow's result parses its ``Exif`` from ``info`` before deleting the orientation and
    keeps that object, so its ``getexif()`` reports the offsets of the bytes it was parsed
    from, not of the bytes written back to ``info``. In place Pillow deletes the orientation
    from ``handed`` itself and writes it back to ``info``.
    """
    if in_place and handed is not None:
        probe._exif = handed  # Pillow's own cache: the probe answers with the caller's Exif
        PILImageOps.exif_transpose(probe, in_place=True)
        return cast("Mapping[str, Any]", probe.info), None
    if probe._exif is None:
        # Only the turn is read from the image's own Exif (the result parses ``info`` again):
        # the probe is handed one holding just the turn, and ``info`` is parsed once.
        probe._exif = PILImage.Exif()
        probe._exif._loaded = True
    probe._exif[ORIENTATION] = orientation
    transposed = PILImageOps.exif_transpose(probe)
    return cast("Mapping[str, Any]", transposed.info), transposed._exif
