"""Reduction kernel: the exact integer sum of an L working image, kept on the device."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MAX_SUM_PIXELS", "SUM_WORDS", "sum_l"]

#: Most pixels :func:`sum_l` sums (the planner's 8192 x 8192 bound): the sum, at most
#: 255 * 2**26 < 2**34, is kept as two u32 words, and the contrast kernel divides it by the
#: pixel count in 8 restoring steps, which needs a quotient below 256 and a count below 2**31.
MAX_SUM_PIXELS = 1 << 26
#: Words of the sum buffer: the low word, then the carries out of it.
SUM_WORDS = 2


def sum_l(program: Program, src: int, size: tuple[int, int]) -> int:
    """Record the sum of byte 0 over every pixel of ``src``; return its two-word buffer.

    The buffer holds ``sum mod 2**32`` and ``sum >> 32``. It is a working buffer, so it is zero
    when the plan's dispatches start (see :meth:`Program.words`); workgroups add their partial
    sums into the low word with ``atomicAdd`` and count its wraps in the high word.
    """
    pixels = size[0] * size[1]
    if pixels > MAX_SUM_PIXELS:  # the planner's pixel bound keeps this unreachable
        msg = f"sum_l() sums at most {MAX_SUM_PIXELS} pixels; observed {pixels}"
        raise ValueError(msg)
    total = program.words(SUM_WORDS)
    program.dispatch(
        "sum_l",
        words=(pixels,),
        bindings=(src, total),
        grid=(pixels, 1),
        invocation_work=2,  # one sample plus the workgroup atomic
        linear=True,
    )
    return total
