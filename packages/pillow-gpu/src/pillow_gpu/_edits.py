"""Pillow's argument handling for the in-place edits ``Image.paste`` and ``Image.thumbnail``.

These helpers replay the Python part of Pillow 13's ``paste`` and ``thumbnail`` (box and mask
forms, the thumbnail size) and run the C layer's argument checks on 1x1 images, so a lazy
handle raises what Pillow raises, before anything is recorded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage

from pillow_gpu.errors import Unsupported

__all__ = ["check_fill", "fill_region", "paste_box", "thumbnail_size"]


def paste_box(
    im: Any, box: Any, mask: Any, image_types: tuple[type, ...]
) -> tuple[tuple[int, int, int, int], Any]:
    """Pillow's ``paste`` box and mask: ``(box as four ints, mask)``.

    Replays Pillow's forms (``paste(im, mask)``, ``box=None``, a 2-tuple corner whose size
    comes from ``im`` or the mask, a 4-tuple region) and its checks, in its order; the four
    coordinates are parsed by Pillow's C layer (on an empty-area fill of a 1x1 image), so a
    wrong type, length or range raises Pillow's own TypeError or OverflowError. A mask that is
    not an image is Pillow's too: falsy means no mask, anything else fails as in Pillow.
    """
    if isinstance(box, image_types):
        if mask is not None:
            msg = "If using second argument as mask, third argument must be None"
            raise ValueError(msg)
        mask, box = box, None
    if box is None:
        box = (0, 0)
    if len(box) == 2:
        sized: Any = next((item for item in (im, mask) if isinstance(item, image_types)), None)
        if sized is None:
            msg = "cannot determine region size; use 4-item box"
            raise ValueError(msg)
        box = (*box, box[0] + sized.size[0], box[1] + sized.size[1])
    if mask is not None and not isinstance(mask, image_types):
        PILImage.new("L", (1, 1)).paste(0, (0, 0, 0, 0), mask)  # a truthy mask: Pillow's error
        mask = None
    PILImage.new("L", (1, 1)).im.paste(0, box)  # Pillow's C parse of the four coordinates
    x0, y0, x1, y1 = (int(value) for value in box)
    return (x0, y0, x1, y1), mask


def check_fill(mode: str, color: Any, box: tuple[int, int, int, int], masked: bool) -> Any:
    """Pillow's checks of a colour fill ``paste(color, box)``; returns the colour to fill with.

    The colour (a string included) is applied by Pillow itself to a 1x1 image, whose pixel is
    the value returned. A fill is recorded as ``Image.new`` of
    the colour pasted over the region, which is exact only without a mask and outside palette
    modes; those raise :class:`~pillow_gpu.errors.Unsupported`.
    """
    probe = PILImage.new(mode, (1, 1))
    probe.paste(color, (0, 0, 1, 1))  # Pillow's own colour checks (and string resolution)
    if masked or mode in ("P", "PA"):
        reason = (
            "Pillow's masked colour fill blends alpha bands differently from a masked paste, "
            "so it has no exact lazy equivalent"
            if masked
            else "a palette image's colour fill depends on its palette, which a lazy "
            "Image.new does not carry"
        )
        raise Unsupported(
            reason,
            observed=f"paste({color!r}, {box}{', mask' if masked else ''}) on a {mode} image",
            fix="fill with PIL: pil = im.to_pil(); pil.paste(color, box, mask); "
            "im = Image.from_pil(pil)",
            stage="admission",
        )
    # The stored value Pillow's fill wrote (a 16-bit fill stores its low byte in both bytes,
    # 300 -> 0x2C2C); Image.new of it stores the same pixel.
    return probe.getpixel((0, 0))


def fill_region(
    size: tuple[int, int], box: tuple[int, int, int, int]
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The part of ``box`` inside an image of ``size`` as ``(corner, size)``; None if empty.

    Pillow's fill clips its region to the image the same way before writing.
    """
    left, top = max(box[0], 0), max(box[1], 0)
    right, bottom = min(box[2], size[0]), min(box[3], size[1])
    if right <= left or bottom <= top:
        return None
    return (left, top), (right - left, bottom - top)


def thumbnail_size(current: tuple[int, int], size: tuple[float, float]) -> tuple[int, int] | None:
    """Pillow 13's thumbnail size (``preserve_aspect_ratio``); None when ``current`` fits."""
    provided_size = tuple(map(math.floor, size))

    def round_aspect(number: float, key: Callable[[int], float]) -> int:
        return max(min(math.floor(number), math.ceil(number), key=key), 1)

    x, y = provided_size
    width, height = current
    if x >= width and y >= height:
        return None
    aspect = width / height
    if x / y >= aspect:
        x = round_aspect(y * aspect, key=lambda n: abs(aspect - n / y))
    else:
        y = round_aspect(x / aspect, key=lambda n: 0 if n == 0 else abs(aspect - x / n))
    return x, y
