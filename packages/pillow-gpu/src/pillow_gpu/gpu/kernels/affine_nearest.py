"""Pillow's NEAREST affine transform on the device: scale tables, 16.16 fixed point, gathers."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = ["lower_fixed", "lower_gather", "lower_scale"]

_Size = tuple[int, int]
_SCALE, _FIXED, _GATHER = 0, 1, 2


def lower_scale(
    program: Program,
    src: int,
    src_size: _Size,
    size: _Size,
    *,
    tables: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
    fill: int,
) -> int:
    """``ImagingScaleAffine``: dst(x, y) = src(xs[x], ys[y]), ``fill`` where either is -1."""
    table = program.table(np.concatenate(tables), dtype="<i4")
    return _dispatch(program, src, src_size, size, _SCALE, fixed=(0,) * 6, fill=fill, table=table)


def lower_fixed(
    program: Program,
    src: int,
    src_size: _Size,
    size: _Size,
    *,
    fixed: tuple[int, int, int, int, int, int],
    fill: int,
) -> int:
    """``affine_fixed`` with Pillow's FIX() constants (a0, a1, a2, a3, a4, a5) as i32."""
    table = program.table(np.zeros(1, dtype=np.int64), dtype="<i4")
    return _dispatch(program, src, src_size, size, _FIXED, fixed=fixed, fill=fill, table=table)


def lower_gather(
    program: Program, src: int, src_size: _Size, size: _Size, *, table: npt.ArrayLike, fill: int
) -> int:
    """dst[i] = src[table[i]] per output pixel (row-major), ``fill`` where ``table[i]`` is -1."""
    buffer = program.table(table, dtype="<i4")
    return _dispatch(program, src, src_size, size, _GATHER, fixed=(0,) * 6, fill=fill, table=buffer)


def _dispatch(
    program: Program,
    src: int,
    src_size: _Size,
    size: _Size,
    kind: int,
    *,
    fixed: tuple[int, ...],
    fill: int,
    table: int,
) -> int:
    dst = program.image(size)
    program.dispatch(
        "affine_nearest",
        words=(*size, *src_size, kind, *fixed, fill),
        bindings=(src, dst, table),
        grid=size,
        invocation_work=1,
        constants={"KIND": kind},
    )
    return dst
