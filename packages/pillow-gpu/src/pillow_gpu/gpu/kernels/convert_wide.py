"""Per-pixel conversions of 16/32-bit words (I;16*, I, F) and their L sources and targets.

One dispatch applies one operation to ``word & mask`` (the source value): ``CLAMP`` (an int32
clipped to ``lo..hi``: i2l, I_I16*, I16*_L, I16*_I, l2i, L_I16*), ``TO_F`` (an int32 rounded
to the nearest float32, ties to even: i2f, I16*_F, l2f), ``F_TO_L`` (f2l) and ``F_TO_I``
(f2i). The last two work on the float's bits (no float compare, so NaN and denormals behave
the same on every adapter); the results C leaves to the platform (a NaN, an out-of-range
value) are passed in, as live Pillow produced them (gpu.lowering.wide).
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["CLAMP", "F_TO_I", "F_TO_L", "TO_F", "lower"]

CLAMP, TO_F, F_TO_L, F_TO_I = 0, 1, 2, 3


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    op: int,
    *,
    mask: int,
    args: tuple[int, int, int] = (0, 0, 0),
) -> int:
    """A new image: operation ``op`` on every ``word & mask`` of ``src`` with ``args``."""
    pixels = size[0] * size[1]
    dst = program.image(size)
    program.dispatch(
        "convert_wide",
        words=(pixels, op, mask, *args),
        bindings=(src, dst),
        grid=(pixels, 1),
        invocation_work=1,
        linear=True,
    )
    return dst
