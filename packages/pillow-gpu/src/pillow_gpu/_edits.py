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

from pillow_gpu._probes import _probe, _probe_image
from pillow_gpu.errors import Unsupported

__all__ = [
    "alpha_composited",
    "check_fill",
    "fill_region",
    "paste_box",
    "paste_converts",
    "pasted",
    "thumbnail_size",
]


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


def pasted(
    base: Any,
    im: Any,
    box: Any,
    mask: Any,
    *,
    wrap: Callable[[PILImage.Image], Any],
    new: Callable[[str, tuple[int, int], Any], Any],
) -> Any:
    """A new lazy image: ``base`` after Pillow 13's ``paste(im, box, mask)``.

    Records, after Pillow's checks in its order: a colour fill as ``Image.new`` pasted over
    the clipped region (``fill_masked`` with a mask); an image (``wrap`` makes a PIL one lazy)
    converted as Pillow's paste converts it, as ``paste`` (``paste_masked`` with a mask).
    """
    images = (type(base), PILImage.Image)
    region, mask = paste_box(im, box, mask, images)
    mask_image = None if mask is None else mask if isinstance(mask, images[0]) else wrap(mask)
    region_size = (region[2] - region[0], region[3] - region[1])
    clipped = fill_region(base.size, region)
    if not isinstance(im, images):
        color = check_fill(base.mode, im, region, mask_image, writes=clipped is not None)
        if clipped is None:  # Pillow's fill writes nothing outside the image
            return base.copy()
        if mask_image is not None:
            return base._derive("fill_masked", {"box": region, "color": color}, extra=[mask_image])
        corner, size = clipped  # the same ink as Pillow's fill, written by Image.new
        return base._pasted(new(base.mode, size, color), corner)
    source = im if isinstance(im, images[0]) else wrap(im)
    _probe(lambda dst, src: dst.paste(src, (0, 0)) or dst, base.mode, source.mode)
    if paste_converts(base.mode, source.mode):  # as Pillow's paste converts it
        source = source.convert(base.mode)
    if region_size != source.size:
        msg = "images do not match"
        raise ValueError(msg)
    if mask_image is None:
        return base._derive("paste", {"box": region[:2]}, extra=[source])
    if mask_image.size != source.size:
        msg = "images do not match"
        raise ValueError(msg)
    if clipped is None:  # Pillow's paste returns before it reads the mask's mode
        return base.copy()
    probe_mask = _probe_image(mask_image.mode)  # Pillow's mask-mode check
    _probe_image(base.mode).paste(_probe_image(source.mode), (0, 0), probe_mask)
    return base._derive("paste_masked", {"box": region[:2]}, extra=[source, mask_image])


def paste_converts(mode: str, source_mode: str) -> bool:
    """Whether Pillow's ``paste`` converts a ``source_mode`` image before pasting it into a
    ``mode`` image: any other mode, except LA, RGBA and RGBa into RGB, whose stored words it
    copies as they are."""
    return source_mode != mode and not (mode == "RGB" and source_mode in ("LA", "RGBA", "RGBa"))


def check_fill(
    mode: str, color: Any, box: tuple[int, int, int, int], mask: Any, *, writes: bool = True
) -> Any:
    """Pillow's checks of a colour fill ``paste(color, box, mask)``; returns the colour.

    In the order of Pillow's C paste: the colour (a string included) applied by Pillow itself
    to a 1x1 image, then ``mask`` (None, or an image) against the box's size and Pillow's mask
    modes; ``writes=False`` (the box lies outside the image) skips the modes, as Pillow's fill
    returns before reading them, and the palette refusal, as nothing is written. The value
    returned is the colour to record: with a mask, ``color`` itself where it
    is an immutable value Pillow reads again the same way, else the pixel Pillow's fill stored.
    An unmasked fill is recorded as ``Image.new`` of that colour pasted over the region, which
    is exact outside palette modes; those raise :class:`~pillow_gpu.errors.Unsupported`.
    """
    probe = PILImage.new(mode, (1, 1))
    probe.paste(color, (0, 0, 1, 1))  # Pillow's own colour checks (and string resolution)
    if mask is not None:
        if mask.size != (box[2] - box[0], box[3] - box[1]):
            msg = "images do not match"
            raise ValueError(msg)
        if writes:  # Pillow's mask-mode check, on a copy: an RGBa mask of 0 still adds ink
            probe.copy().paste(color, (0, 0, 1, 1), PILImage.new(mask.mode, (1, 1)))
    if writes and mode in ("P", "PA"):
        raise Unsupported(
            "a palette image's colour fill depends on its palette, which a lazy "
            "Image.new does not carry",
            observed=f"paste({color!r}, {box}{', mask' if mask is not None else ''}) on a "
            f"{mode} image",
            fix="fill with PIL: pil = im.to_pil(); pil.paste(color, box, mask); "
            "im = Image.from_pil(pil)",
            stage="admission",
        )
    if mask is not None and isinstance(color, (str, int, float, tuple)):
        return color  # replayed as given: Pillow's ink for an int differs from its pixel's
    stored = probe.getpixel((0, 0))
    if isinstance(color, int) and PILImage.new(mode, (1, 1), color).getpixel((0, 0)) == stored:
        # An int is Pillow's packed ink, and Image.new of it packs it the same way: its high
        # byte is a padded mode's fourth byte (RGB, LAB, YCbCr, HSV), which LAB's conversion
        # to RGBA reads as alpha, and which the pixel Pillow reports back does not carry.
        return color
    # The stored value Pillow's fill wrote (a 16-bit fill stores its low byte in both bytes,
    # 300 -> 0x2C2C, where Image.new of 300 stores 300); Image.new of it stores that pixel.
    return stored


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


def alpha_composited(
    base: Any, overlay: Any, dest: Any, source: Any, composite: Callable[[Any, Any], Any]
) -> Any:
    """``base`` after Pillow 13's in-place ``alpha_composite(overlay, dest, source)``.

    Checks the arguments as Pillow does, in its order and with its messages, then records what
    Pillow runs: the overlay's ``source`` box and the background under ``dest`` cropped where
    they are not whole images, ``composite(background, overlay)``, and a paste of the result.
    """
    if not isinstance(source, (list, tuple)):
        msg = "Source must be a list or tuple"
        raise ValueError(msg)
    if not isinstance(dest, (list, tuple)):
        msg = "Destination must be a list or tuple"
        raise ValueError(msg)
    if len(source) not in (2, 4):
        msg = "Source must be a sequence of length 2 or 4"
        raise ValueError(msg)
    crop_box = tuple(source) if len(source) == 4 else (*source, *overlay.size)
    if len(dest) != 2:
        msg = "Destination must be a sequence of length 2"
        raise ValueError(msg)
    if min(source) < 0:
        msg = "Source must be non-negative"
        raise ValueError(msg)
    if crop_box != (0, 0, *overlay.size):
        overlay = overlay.crop(crop_box)
    box = (*dest, dest[0] + overlay.width, dest[1] + overlay.height)
    background = base if box == (0, 0, *base.size) else base.crop(box)
    return base._pasted(composite(background, overlay), box)
