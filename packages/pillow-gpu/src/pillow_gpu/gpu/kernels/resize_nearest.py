"""Nearest-neighbour resize kernel with host-built index tables (Pillow's affine walk)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = ["index_table", "lower"]


def index_table(start: float, end: float, source: int, count: int) -> npt.NDArray[np.int64]:
    """Source indices of ``count`` outputs over [start, end): -1 marks outside the source.

    Pillow (ImagingScaleAffine): a = (double)(f32(end) - f32(start)) / count;
    x = start + a * 0.5, then x += a per output; index = x < 0 ? -1 : (int)x.
    """
    f_start, f_end = np.float32(start), np.float32(end)
    step = float(np.float32(f_end - f_start)) / count
    position = float(f_start) + step * 0.5
    table = np.empty(count, dtype=np.int64)
    for i in range(count):
        index = -1 if position < 0 else int(position)
        table[i] = index if 0 <= index < source else -1
        position += step
    return table


def lower(
    program: Program,
    src: int,
    src_size: tuple[int, int],
    size: tuple[int, int],
    box: tuple[float, float, float, float],
) -> int:
    """``Image.resize(size, NEAREST, box)``."""
    xs = index_table(box[0], box[2], src_size[0], size[0])
    ys = index_table(box[1], box[3], src_size[1], size[1])
    dst = program.image(size)
    table = program.table(np.concatenate([xs, ys]), dtype="<i4")
    program.dispatch(
        "resize_nearest",
        words=(*size, src_size[0]),
        bindings=(src, dst, table),
        grid=size,
        invocation_work=1,
    )
    return dst
