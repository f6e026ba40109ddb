"""Binary composition kernel: ImageChops operations and blend (host tables where float)."""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = ["OPS", "blend_bytes", "blend_table", "lower", "scaled_table"]

#: ImageChops function name -> kernel op code.
OPS = {
    "multiply": 0,
    "screen": 1,
    "overlay": 2,
    "hard_light": 3,
    "soft_light": 4,
    "difference": 5,
    "darker": 6,
    "lighter": 7,
    "add": 8,
    "subtract": 9,
    "add_modulo": 10,
    "subtract_modulo": 11,
    "blend": 12,
    "logical_and": 13,
    "logical_or": 14,
    "logical_xor": 15,
}


def blend_bytes(
    alpha: float, a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]
) -> npt.NDArray[np.int64]:
    """Pillow's ``ImagingBlend`` of bytes ``a`` and ``b``: (u8)f32(a + f32(alpha) * (b - a)).

    Clipped to 0..255 as Pillow's extrapolation branch does; a NaN sum (a NaN ``alpha``, or an
    infinite one, which includes any factor beyond float32's range, times ``b - a == 0``) gives
    0, as Pillow's ``(UINT8)`` cast of NaN does (both of its clip comparisons are false).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        value = a + np.float32(alpha) * (b - a)
        clipped = np.where(value >= 255, 255, np.where(value > 0, np.trunc(value), 0))
    return clipped.astype(np.int64)


@functools.lru_cache(maxsize=64)
def blend_table(alpha: float) -> npt.NDArray[np.int64]:
    """table[a * 256 + b] = Pillow's blend of a and b (:func:`blend_bytes`).

    Cached per alpha (batches repeat factors); the returned array is read-only.
    """
    a = np.repeat(np.arange(256, dtype=np.float32), 256)
    b = np.tile(np.arange(256, dtype=np.float32), 256)
    table = blend_bytes(alpha, a, b)
    table.flags.writeable = False
    return table


def scaled_table(name: str, scale: float, offset: float) -> npt.NDArray[np.int64]:
    """ImageChops.add/subtract: trunc(f32(f32(a +- b) / scale) + offset), clipped to 0..255."""
    totals = (
        np.arange(511, dtype=np.float32)
        if name == "add"
        else np.arange(-255, 256, dtype=np.float32)
    )
    value = totals / np.float32(scale) + np.float32(offset)
    return np.clip(np.trunc(value), 0, 255).astype(np.int64)


def lower(
    program: Program,
    a: int,
    a_size: tuple[int, int],
    *,
    b: int,
    b_size: tuple[int, int],
    name: str,
    table: npt.NDArray[np.int64] | None,
) -> int:
    """Record one binary composition over the overlap of ``a`` and ``b``."""
    size = (min(a_size[0], b_size[0]), min(a_size[1], b_size[1]))
    dst = program.image(size)
    lookup = program.table(np.zeros(1, dtype=np.int64) if table is None else table)
    words = (*size, a_size[0], b_size[0], OPS[name])
    if a_size == b_size == size:  # rows back to back alike: four words per invocation
        pixels = size[0] * size[1]
        program.dispatch(
            "chops",
            words=words,
            bindings=(a, b, dst, lookup),
            grid=(-(-pixels // 4), 1),
            invocation_work=16,  # four words' per-byte loops
            linear=True,
            constants={"OP": OPS[name], "FLAT": 1},
        )
    else:
        program.dispatch(
            "chops",
            words=words,
            bindings=(a, b, dst, lookup),
            grid=size,
            invocation_work=4,  # the per-byte loop
            constants={"OP": OPS[name]},
        )
    return dst
