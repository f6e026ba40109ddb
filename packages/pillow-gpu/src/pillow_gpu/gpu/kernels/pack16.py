"""Terminal packing kernel for I;16, I;16L and I;16B images (two stored bytes per pixel)."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["pack16"]


def pack16(program: Program, src: int, size: tuple[int, int], *, big_endian: bool) -> int:
    """Pack the 16-bit values of ``src`` into ceil(pixels / 2) words in the mode's byte order."""
    pixels = size[0] * size[1]
    words = -(-pixels // 2)
    dst = program.words(words)
    program.dispatch(
        "pack16",
        words=(pixels, words, int(big_endian)),
        bindings=(src, dst),
        grid=(words, 1),
        invocation_work=2,
        linear=True,
    )
    return dst
