"""Unmasked paste kernel: paste (including a lazy source) and putpixel."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["paste", "putpixel"]


def paste(
    program: Program,
    base: int,
    size: tuple[int, int],
    *,
    src: int,
    src_size: tuple[int, int],
    box: tuple[int, int],
) -> int:
    """``Image.paste(src, box)`` without a mask; the source region is clipped to the base."""
    dst = program.image(size)
    words = (*size, *src_size, *box, 0, 0)
    program.dispatch("paste", words=words, bindings=(base, src, dst), grid=size, invocation_work=1)
    return dst


def putpixel(
    program: Program, base: int, size: tuple[int, int], xy: tuple[int, int], value: int
) -> int:
    """``Image.putpixel(xy, value)`` with Pillow's stored word ``value``."""
    dst = program.image(size)
    words = (*size, 1, 1, *xy, 1, value)
    program.dispatch("paste", words=words, bindings=(base, base, dst), grid=size, invocation_work=1)
    return dst
