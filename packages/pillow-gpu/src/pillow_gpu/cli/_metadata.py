"""The metadata ``pillow-gpu apply`` writes into each output.

Pillow's ``save`` writes a JPEG or WebP without the EXIF, ICC profile, XMP packet and
resolution of the image it saves unless they are passed, and a PNG without its EXIF and
resolution; so a photo run through a plain Pillow script loses its camera data and its
orientation tag (and shows turned), and a wide-gamut photo its colours. ``apply`` passes them
(``--strip-metadata`` does not), each as the result's ``info`` holds it after the chain, as
Pillow's operations leave it there: ``exif_transpose`` removes the orientation it applied, and
a resize keeps the rest as it was.

An ICC profile is written only when its colour space is the output's (a profile describes how
to read the pixels, so an RGB profile on a grayscale result would misdescribe them; Pillow's
PNG, TIFF and AVIF plugins would write it from ``info`` on their own): RGB for
RGB, RGBA, RGBX, P and PA results, GRAY for L, LA, 1 and the integer modes, CMYK for CMYK, Lab
for LAB, YCbr for YCbCr. A format that cannot hold an item ignores it, as Pillow's plugins do.

A PNG saved from a PNG also keeps its text chunks (``tEXt``, ``zTXt`` and ``iTXt``: a
``Software`` or ``Comment`` entry, an image generator's ``parameters``), which Pillow's reader
puts in ``info`` as strings and its writer writes only from a ``pnginfo`` (``zTXt`` ones are
written uncompressed). Other formats' string entries in ``info`` (a TIFF's ``compression``)
are not text chunks, so only a PNG's are carried.

``--strip-metadata`` writes none of them, the ICC profile included (Pillow's PNG, TIFF and
AVIF plugins write the one ``info`` holds unless told otherwise): for publishing a photo
without its camera data, GPS position included.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from PIL import PngImagePlugin

__all__ = ["metadata_options"]

#: Colour space signature of an ICC profile (header bytes 16..19) by the modes it describes.
_PROFILE_SPACES = {
    b"RGB ": frozenset({"RGB", "RGBA", "RGBX", "RGBa", "P", "PA"}),
    b"GRAY": frozenset({"L", "LA", "La", "1", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"}),
    b"CMYK": frozenset({"CMYK"}),
    b"Lab ": frozenset({"LAB"}),
    b"YCbr": frozenset({"YCbCr"}),
}


def _profile_fits(profile: bytes, mode: str) -> bool:
    return mode in _PROFILE_SPACES.get(profile[16:20], frozenset())


def _resolution(value: Any) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 2
        and all(  # a TIFF's are rationals (IFDRational)
            isinstance(item, numbers.Real) and math.isfinite(float(item)) and float(item) > 0
            for item in value
        )
    )


def metadata_options(image: Any, *, keep: bool = True, text: bool = False) -> dict[str, Any]:
    """``save`` options that write ``image.info``'s EXIF, ICC profile (where it describes the
    image's mode, else ``icc_profile=None``), XMP and resolution into its file (another item
    absent or empty is left out), and with ``text`` (a PNG saved from a PNG) its text chunks;
    or with ``keep=False`` that write none of them."""
    if not keep:
        return {"icc_profile": None}  # the one item plugins fall back to ``info`` for
    info = getattr(image, "info", None) or {}
    options: dict[str, Any] = {}
    exif = info.get("exif")
    if isinstance(exif, bytes) and exif:
        options["exif"] = exif
    profile = info.get("icc_profile")
    fits = isinstance(profile, bytes) and _profile_fits(profile, image.mode)
    # None, not absent: Pillow's PNG, TIFF and AVIF plugins would write ``info``'s otherwise.
    options["icc_profile"] = profile if fits else None
    xmp = info.get("xmp")
    if isinstance(xmp, (bytes, str)) and xmp:
        options["xmp"] = xmp
    dpi = info.get("dpi")
    if _resolution(dpi):
        options["dpi"] = dpi
    chunks = [(key, value) for key, value in info.items() if isinstance(value, str)] if text else []
    if chunks:
        pnginfo = PngImagePlugin.PngInfo()
        for key, value in chunks:
            pnginfo.add_text(key, value)  # an iTXt keeps its language and translated key
        options["pnginfo"] = pnginfo
    return options
