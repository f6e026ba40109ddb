"""The four-lane layout every rank kernel shares (see ``rank.wgsl``'s header).

Word packing 0 (RGB, RGBA, CMYK, RGBX) puts one pixel's four stored bytes in the lanes,
packing 1 (LA) bytes 0 and 3 of two adjacent pixels, packing 2 (L, one pixel per word) byte 0
of four adjacent pixels, and packing 3 (:data:`PACKED_L`: L as Pillow stores it, four pixels to
a word, rows of width / 4 words) the four bytes of one word. The packing is each kernel's
``PACKING`` pipeline constant.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["PACKED_L", "invocation_grid", "output", "packing", "sample_loads"]

#: The packing of L four pixels to a word in rows of width / 4 words (Pillow's bytes,
#: ``gpu._packed_l``, or ``kernels.pad_l``'s rows of a padded width).
PACKED_L = 3
#: Band masks whose pixels share one invocation's lanes: L (byte 0) four, LA (bytes 0, 3) two.
_PACKINGS = {0b0001: 2, 0b1001: 1}


def packing(mask: int) -> int:
    """The packing of a mode with band mask ``mask`` (bit j: stored byte j is a band)."""
    return _PACKINGS.get(mask, 0)


def sample_loads(packing: int) -> int:
    """Word loads of one window sample: one word, two LA or four L pixels, or a packed L
    word and its neighbour (no other packing's loads run, the packing being a pipeline
    constant)."""
    return 2 if packing == PACKED_L else 1 << packing


def _pixels(packing: int) -> int:
    return 4 if packing == PACKED_L else 1 << packing


def invocation_grid(size: tuple[int, int], packing: int) -> tuple[int, int]:
    """The invocations of a rank pass over an image of ``size``: one per 1, 2 or 4 pixels."""
    return (-(-size[0] // _pixels(packing)), size[1])


def output(program: Program, size: tuple[int, int], packing: int) -> int:
    """A rank pass's output buffer: packed L words, or one word per pixel."""
    if packing == PACKED_L:
        return program.words(size[0] // 4 * size[1])
    return program.image(size)
