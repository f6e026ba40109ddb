"""Results Pillow's writers fail on with an error that names neither the cause nor a fix.

``apply`` writes around the failures it can (metadata a format cannot store is left out and
named, see :mod:`pillow_gpu.cli._metadata` and :func:`pillow_gpu.cli._frames.animation_options`);
where the pixels themselves cannot be written as asked (a palette alpha into GIF, a side longer
than the format holds), the writer's error is replaced by one that says why and what to change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class WriterLimit(ValueError):
    """A result Pillow's writer failed on, explained: ``why`` it failed and the ``fix``; its
    message is what was observed."""

    why = ""
    fix = ""


def _frame_named(number: int, frames: Sequence[Any]) -> str:
    """``"frame N "`` where ``frames`` are several, else nothing."""
    return f"frame {number} " if len(frames) > 1 else ""


class PaletteAlphaForGif(WriterLimit):
    """A palette result whose transparency gives each palette entry an alpha value (a PNG's
    ``tRNS`` chunk, as Pillow's reader gives it: bytes), written as GIF, which holds one
    transparent index at most; Pillow's GIF writer fails on it with a TypeError wherever its
    palette optimisation keeps the palette. Its message is what was observed."""

    why = (
        "the result's palette gives its entries alpha values (a PNG's tRNS chunk), which a GIF "
        "cannot hold (one transparent index at most), and Pillow's GIF writer fails on them"
    )
    fix = (
        "add convert:RGBA to the end of the chain (the GIF then keeps the fully transparent "
        "pixels transparent), or choose a --format that keeps the palette's alpha, such as "
        "png or webp"
    )


def refuse_palette_alpha(
    error: TypeError, file_format: str, frames: Sequence[Any]
) -> PaletteAlphaForGif | None:
    """The explained error for ``error``, raised by Pillow's writer saving ``frames`` as
    ``file_format``, where one of them is such a palette result for a GIF; None otherwise."""
    if file_format != "GIF":
        return None
    for number, frame in enumerate(frames):
        alpha = frame.info.get("transparency")
        if frame.mode in ("P", "PA") and isinstance(alpha, bytes):
            return PaletteAlphaForGif(
                f"{_frame_named(number, frames)}{frame.mode} {frame.width}x{frame.height} "
                f"with {len(alpha)} alpha values for its palette, as GIF "
                f"({type(error).__name__} in Pillow's GIF writer: {error})"
            )
    return None


#: The largest width and height each format's writer takes (Pillow 13): past them, the writer
#: fails with an encoder's error (WebP's 16383, libjpeg's 65500 for JPEG and MPO and the JPEG
#: inside an RGB PDF, libavif's 65536) or a 16-bit header field's OverflowError (GIF, TGA,
#: SGI, MSP; PCX stores a row's bytes in 16 bits, so an RGB or L row stops short of 65535).
LARGEST_SIZE = {
    "WEBP": (16383, 16383),
    "JPEG": (65500, 65500),
    "MPO": (65500, 65500),
    "PDF": (65500, 65500),
    "AVIF": (65536, 65536),
    "GIF": (65535, 65535),
    "TGA": (65535, 65535),
    "SGI": (65535, 65535),
    "MSP": (65535, 65535),
    "PCX": (65534, 65535),
}


class TooLargeForFormat(WriterLimit):
    """A result wider or taller than the output format's writer takes (:data:`LARGEST_SIZE`);
    its message is what was observed."""

    why = "the result is larger than the output format holds, and Pillow's writer fails on it"

    def __init__(self, observed: str, largest: tuple[int, int] = (0, 0)) -> None:
        super().__init__(observed)
        self.largest = largest
        width, height = largest
        # A step that brings the result within the format's size, or formats without one.
        self.fix = (
            f"add thumbnail:{width}x{height} to the end of the chain (it shrinks the result to "
            "fit, keeping its aspect), or choose a --format without that limit, such as png or "
            "tiff"
        )


#: The largest icon an ICO holds. Its writer makes icons of 16 to 256 pixels from an image
#: (none larger than the image), and one icon of the image's own size where a side is under 16
#: pixels: such an image longer than 256 on its other side gives it none, and it fails.
_LARGEST_ICON = (256, 256)


def _largest(file_format: str, size: tuple[int, int]) -> tuple[int, int] | None:
    """The largest width and height ``file_format``'s writer takes for an image of ``size``
    (None: no limit known)."""
    if file_format == "ICO":
        return _LARGEST_ICON if min(size) < 16 else None
    return LARGEST_SIZE.get(file_format)


def refuse_too_large(
    error: Exception, file_format: str, frames: Sequence[Any]
) -> TooLargeForFormat | None:
    """The explained error for ``error``, raised by Pillow's writer saving ``frames`` as
    ``file_format``, where one of them is wider or taller than the format takes; None
    otherwise."""
    for number, frame in enumerate(frames):
        largest = _largest(file_format, frame.size)
        if largest is not None and (frame.width > largest[0] or frame.height > largest[1]):
            return TooLargeForFormat(
                f"{_frame_named(number, frames)}{frame.width}x{frame.height} as {file_format}, "
                f"whose writer takes at most {largest[0]}x{largest[1]} "
                f"({type(error).__name__} in Pillow's writer: {error})",
                largest,
            )
    return None
