"""Constant fill kernel: ``Image.new`` leaves are filled on the device, never uploaded."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["fill"]


def fill(program: Program, size: tuple[int, int], value: int) -> int:
    """A new image of ``size`` whose every pixel is the stored word ``value``."""
    dst = program.image(size)
    program.dispatch("fill", words=(*size, value), bindings=(dst,), grid=size, invocation_work=1)
    return dst
