"""Reduction kernel: the exact integer sum of an L working image, kept on the device."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MAX_SUM_PIXELS", "sum_l"]

#: Most pixels whose sum fits the u32 accumulator: 255 * 2**24 = 4_278_190_080 < 2**32.
MAX_SUM_PIXELS = 1 << 24


def sum_l(program: Program, src: int, size: tuple[int, int]) -> int:
    """Record the sum of byte 0 over every pixel of ``src``; return its one-word buffer.

    The buffer is a working buffer, so it is zero when the plan's dispatches start (see
    :meth:`Program.words`); workgroups add their partial sums into it with ``atomicAdd``.
    """
    pixels = size[0] * size[1]
    if pixels > MAX_SUM_PIXELS:  # the planner's 4096 x 4096 bound keeps this unreachable
        msg = f"sum_l() sums at most {MAX_SUM_PIXELS} pixels in u32; observed {pixels}"
        raise ValueError(msg)
    total = program.words(1)
    program.dispatch(
        "sum_l",
        words=(pixels,),
        bindings=(src, total),
        grid=(pixels, 1),
        invocation_work=2,  # one sample plus the workgroup atomic
        linear=True,
    )
    return total
