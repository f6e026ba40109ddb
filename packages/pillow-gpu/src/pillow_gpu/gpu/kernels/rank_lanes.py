"""The four-lane layout every rank kernel shares (see ``rank.wgsl``'s header).

Word packing 0 (RGB, RGBA, CMYK, RGBX) puts one pixel's four stored bytes in the lanes,
packing 1 (LA) bytes 0 and 3 of two adjacent pixels, packing 2 (L) byte 0 of four adjacent
pixels. The packing is each kernel's ``PACKING`` pipeline constant.
"""

from __future__ import annotations

__all__ = ["packing", "sample_loads"]

#: Band masks whose pixels share one invocation's lanes: L (byte 0) four, LA (bytes 0, 3) two.
_PACKINGS = {0b0001: 2, 0b1001: 1}


def packing(mask: int) -> int:
    """The packing of a mode with band mask ``mask`` (bit j: stored byte j is a band)."""
    return _PACKINGS.get(mask, 0)


def sample_loads(packing: int) -> int:
    """Word loads of one window sample: one word, two LA or four L pixels (no other
    packing's loads run, the packing being a pipeline constant)."""
    return 1 << packing
