"""Terminal packing kernel for L images (one byte per pixel, rows back to back)."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["pack_l"]


def pack_l(program: Program, src: int, size: tuple[int, int]) -> int:
    """Pack an L working buffer into ceil(pixels / 4) words; return the packed buffer."""
    pixels = size[0] * size[1]
    words = -(-pixels // 4)
    dst = program.words(words)
    program.dispatch(
        "pack_l",
        words=(pixels, words),
        bindings=(src, dst),
        grid=(words, 1),
        invocation_work=4,
        linear=True,
    )
    return dst
