"""Save steps of the random graphs (``random_graph_draw``): a format and encoder options its
Pillow writer reads, drawn as plain values so that each library is handed an equal set, and the
comparison of the bytes each library writes.

Each option is drawn in about half the steps, so a step holds a few of them, sometimes none.
``save_all`` steps append a mirrored copy of the image as a second frame (a lazy one for
pillow-gpu, which completes it first, as its ``save`` completes every appended frame).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage
from PIL import ImageCms as PILImageCms
from PIL import PngImagePlugin
from pillow_gpu._testing import unstamped

__all__ = ["FRAMES_FORMATS", "SAVE_FORMATS", "draw_options", "same_saved", "save_arguments"]

SAVE_FORMATS = (
    "PNG", "JPEG", "TIFF", "WEBP", "GIF", "BMP", "PPM", "TGA", "ICO", "PCX", "SGI", "IM", "QOI",
    "DDS", "JPEG2000", "AVIF", "BLP", "MSP", "XBM", "SPIDER", "DIB",
)  # fmt: skip
#: The formats whose writers take ``save_all`` and ``append_images``.
FRAMES_FORMATS = ("PNG", "GIF", "WEBP", "TIFF", "AVIF")


#: The compressions Pillow's TIFF writer names (group4 and tiff_ccitt for 1 images only).
TIFF_COMPRESSIONS = (
    "raw", "tiff_lzw", "tiff_deflate", "packbits", "tiff_adobe_deflate", "jpeg", "group4",
    "tiff_ccitt", "webp",
)  # fmt: skip


def _exif() -> bytes:
    exif = PILImage.Exif()
    exif[0x0112] = 6  # orientation: turned
    exif[0x010E] = "a random graph"  # image description
    exif[0x0131] = "pillow-gpu tests"  # software
    return exif.tobytes()


#: An Exif block and an ICC profile (sRGB, made once: its header holds the time it was made).
EXIF = _exif()
ICC = PILImageCms.ImageCmsProfile(PILImageCms.createProfile("sRGB")).tobytes()
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'


def _dpi(rng: random.Random) -> tuple[int, int]:
    return rng.randint(1, 600), rng.randint(1, 600)


#: By format: each option's drawn value.
_OPTIONS: dict[str, dict[str, Callable[[random.Random], Any]]] = {
    "PNG": {
        "optimize": lambda rng: True,
        "compress_level": lambda rng: rng.randint(0, 9),
        "bits": lambda rng: rng.choice([1, 2, 4, 8]),
        "dpi": _dpi,
        "transparency": lambda rng: rng.choice([rng.randint(0, 255), (10, 20, 30)]),
        "pnginfo": lambda rng: [("Comment", "pillow-gpu"), ("Author", str(rng.randint(0, 9)))],
        "exif": lambda rng: EXIF,
        "icc_profile": lambda rng: ICC,
    },
    "JPEG": {
        "quality": lambda rng: rng.choice([1, 50, 95, 100, "keep", "web_low"]),
        "subsampling": lambda rng: rng.choice([0, 1, 2, -1, "4:4:4", "4:2:2", "4:2:0", "keep"]),
        "progressive": lambda rng: True,
        "optimize": lambda rng: True,
        "dpi": _dpi,
        "exif": lambda rng: EXIF,
        "icc_profile": lambda rng: ICC,
        "comment": lambda rng: "pillow-gpu",
        "keep_rgb": lambda rng: True,
        "restart_marker_blocks": lambda rng: rng.randint(1, 4),
        "qtables": lambda rng: rng.choice(["web_low", "web_high", "keep"]),
        "xmp": lambda rng: XMP,
    },
    "TIFF": {
        "compression": lambda rng: rng.choice(TIFF_COMPRESSIONS),
        "dpi": _dpi,
        "description": lambda rng: "a random graph",
        "software": lambda rng: "pillow-gpu tests",
        "quality": lambda rng: rng.randint(1, 100),
        "exif": lambda rng: EXIF,
        "icc_profile": lambda rng: ICC,
        "xmp": lambda rng: XMP,
    },
    "WEBP": {
        "lossless": lambda rng: rng.random() < 0.5,
        "quality": lambda rng: rng.randint(0, 100),
        "method": lambda rng: rng.randint(0, 6),
        "exact": lambda rng: True,
        "alpha_quality": lambda rng: rng.randint(0, 100),
        "exif": lambda rng: EXIF,
        "icc_profile": lambda rng: ICC,
        "xmp": lambda rng: XMP,
    },
    "GIF": {
        "optimize": lambda rng: rng.random() < 0.5,
        "transparency": lambda rng: rng.randint(0, 255),
        "duration": lambda rng: rng.randint(0, 500),
        "loop": lambda rng: rng.randint(0, 3),
        "disposal": lambda rng: rng.randint(0, 3),
        "comment": lambda rng: b"pillow-gpu",
        "interlace": lambda rng: False,
        "include_color_table": lambda rng: True,
        "background": lambda rng: rng.randint(0, 255),
    },
    "TGA": {
        "compression": lambda rng: "tga_rle",
        "id_section": lambda rng: b"pillow-gpu",
        "orientation": lambda rng: rng.choice([1, -1]),
    },
    "ICO": {
        "sizes": lambda rng: [(16, 16), (rng.randint(1, 32), rng.randint(1, 32))],
        "bitmap_format": lambda rng: "bmp",
    },
    "BMP": {"dpi": _dpi},
    "PCX": {"dpi": _dpi},
    "SGI": {"bpc": lambda rng: 1},
    "DDS": {"pixel_format": lambda rng: rng.choice(["DXT1", "DXT3", "DXT5", "BC1", "BC5"])},
    "JPEG2000": {
        "irreversible": lambda rng: True,
        "quality_mode": lambda rng: "rates",
        "quality_layers": lambda rng: [rng.choice([5, 20, 40])],
        "num_resolutions": lambda rng: rng.randint(1, 3),
        "no_jp2": lambda rng: True,
        "tile_size": lambda rng: (rng.randint(4, 32), rng.randint(4, 32)),
        "plt": lambda rng: True,
    },
    "AVIF": {
        "quality": lambda rng: rng.randint(0, 100),
        "speed": lambda rng: 10,
        "subsampling": lambda rng: rng.choice(["4:0:0", "4:2:0", "4:2:2", "4:4:4"]),
        "exif": lambda rng: EXIF,
        "icc_profile": lambda rng: ICC,
    },
}


def draw_options(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A format and options for it; for a format of several frames, ``save_all`` with an
    appended frame in a third of the steps (and ``duration``/``loop`` where it takes them)."""
    image_format = rng.choice(SAVE_FORMATS)
    options = {
        name: value(rng)
        for name, value in _OPTIONS.get(image_format, {}).items()
        if rng.random() < 0.5
    }
    if image_format in FRAMES_FORMATS and rng.random() < 1 / 3:
        options["save_all"] = True
        options["append_images"] = "mirrored"
        if image_format != "TIFF" and rng.random() < 0.5:
            options["duration"] = [rng.randint(0, 300), rng.randint(0, 300)]
            options["loop"] = rng.randint(0, 2)
    return image_format, options


def save_arguments(
    options: dict[str, Any], image: Any, mirrored: Callable[[Any], Any]
) -> dict[str, Any]:
    """The keyword arguments of one library's ``save``: the drawn options, with the appended
    frame (``mirrored(image)``) and the PNG text chunks made as that library's objects."""
    arguments = dict(options)
    if arguments.get("append_images") == "mirrored":
        arguments["append_images"] = [mirrored(image)]
    if "pnginfo" in arguments:
        info = PngImagePlugin.PngInfo()
        for key, value in arguments["pnginfo"]:
            info.add_text(key, value)
        arguments["pnginfo"] = info
    return arguments


def same_saved(ours: bytes, pillows: bytes) -> bool:
    """Whether pillow-gpu wrote Pillow's bytes (a TIFF's page count, which libtiff leaves
    uninitialised, and an AVIF sequence's times, which libavif takes from the clock, aside)."""
    return ours == pillows or unstamped(ours) == unstamped(pillows)
