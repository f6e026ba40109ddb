"""Terminal packing kernel for modes with two stored bytes per pixel (``pack16.wgsl``).

I;16, I;16L and I;16B keep their value in the low half of a word; the pair modes LA, La and PA
keep band 0 in byte 0 (and 1, 2) and band 1 in byte 3. Either way the result is Pillow's
stored bytes, two per pixel, so a result image is filled straight from them.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["BIG_ENDIAN", "LITTLE_ENDIAN", "PAIR", "pack16"]

#: Kinds of :func:`pack16`: a 16-bit value stored little-endian, big-endian, or a pair mode.
LITTLE_ENDIAN, BIG_ENDIAN, PAIR = 0, 1, 2


def pack16(program: Program, src: int, size: tuple[int, int], *, kind: int) -> int:
    """Pack the two stored bytes of each pixel of ``src`` into ceil(pixels / 2) words."""
    pixels = size[0] * size[1]
    words = -(-pixels // 2)
    dst = program.words(words)
    program.dispatch(
        "pack16",
        words=(pixels, words, kind),
        bindings=(src, dst),
        grid=(words, 1),
        invocation_work=2,
        linear=True,
    )
    return dst
