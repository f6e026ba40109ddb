"""Results Pillow's writers fail on with an error that names neither the cause nor a fix.

``apply`` writes around the failures it can (metadata a format cannot store is left out and
named, see :mod:`pillow_gpu.cli._metadata` and :func:`pillow_gpu.cli._frames.animation_options`);
where the pixels themselves cannot be written as asked, the writer's error is replaced by one
that says why and what to change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class PaletteAlphaForGif(ValueError):
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
            where = f"frame {number} " if len(frames) > 1 else ""
            return PaletteAlphaForGif(
                f"{where}{frame.mode} {frame.width}x{frame.height} with {len(alpha)} alpha "
                f"values for its palette, as GIF ({type(error).__name__} in Pillow's GIF "
                f"writer: {error})"
            )
    return None
