"""HSV and LAB conversions read from a table of live Pillow's own results.

Pillow's ``rgb2hsv`` / ``hsv2rgb`` (``libImaging/Convert.c``) mix float and double arithmetic
(``fmod``, ``round``) that WGSL's f32 cannot reproduce, and ``Image.convert`` takes RGB <-> LAB
through LittleCMS (``ImageCms`` sRGB <-> LAB transforms). Each is a function of a pixel's
first three stored bytes that copies byte 3 (Convert.c copies ``in[3]``; Pillow's
``_imagingcms`` copies the extra channel), so :func:`table_bytes` converts one 4096 x 4096
image holding every (b0, b1, b2) with live Pillow, once per process and converter, and the
device keeps the 2^24 results as a resident table (64 MiB each, built on first use, outside
the plans' credits). The parity suite checks every table over all 2^24 inputs.
"""

from __future__ import annotations

import warnings

import numpy as np

from pillow_gpu.gpu._layout import image_of_words, words_of_image
from pillow_gpu.gpu._program import Program

__all__ = ["CONVERTERS", "TABLE_NBYTES", "lower", "resident_name", "table_bytes"]

#: Converter name -> the (source, target) modes Pillow converts with it.
CONVERTERS: dict[str, tuple[str, str]] = {
    "rgb2hsv": ("RGB", "HSV"),  # Convert.c rgb2hsv (RGB, RGBA and RGBX sources alike)
    "hsv2rgb": ("HSV", "RGB"),  # Convert.c hsv2rgb
    "rgb2lab": ("RGB", "LAB"),  # ImageCms sRGB -> LAB (TYPE_RGBA_8 for RGB, RGBA and RGBX)
    "lab2rgb": ("LAB", "RGB"),  # ImageCms LAB -> sRGB (RGB, RGBA and RGBX targets alike)
}

_EDGE = 4096  # 4096 x 4096 pixels: one per (b0, b1, b2)
#: Bytes of each table: one u32 word per input triple.
TABLE_NBYTES = 4 << 24


def resident_name(converter: str) -> str:
    """Name of the per-device resident buffer holding ``converter``'s table."""
    return f"convert_table_{converter}"


def table_bytes(converter: str) -> bytes:
    """Live Pillow's output bytes 0..2 (byte 3 zero) for each input ``b0 | b1 << 8 | b2 << 16``."""
    source, target = CONVERTERS[converter]
    triples = np.arange(1 << 24, dtype="<u4")
    image = image_of_words(source, (_EDGE, _EDGE), triples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = image.convert(target)
    words = words_of_image(converted) & np.uint32(0xFFFFFF)
    return words.astype("<u4").tobytes()


def lower(program: Program, src: int, size: tuple[int, int], converter: str) -> int:
    """``converter`` applied to each word of ``src``: one lookup, byte 3 copied."""
    dst = program.image(size)
    table = program.resident(resident_name(converter), TABLE_NBYTES, lambda: table_bytes(converter))
    program.dispatch(
        "convert_table",
        words=size,
        bindings=(src, dst, table),
        grid=size,
        invocation_work=1,
    )
    return dst
