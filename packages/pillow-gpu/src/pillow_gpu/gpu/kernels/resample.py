"""Separable resampling kernel: ``Image.resize`` with BOX, BILINEAR, HAMMING, BICUBIC, LANCZOS.

Pillow (live 13.0.0 behaviour, checked byte for byte by the parity tests):

- ``_imaging.c`` crops (every stored byte kept) when the box, as C floats, has an integer
  origin and exactly the output size. (``Image.resize``'s copy shortcut, premultiplication and
  ``reducing_gap`` are replayed by :mod:`pillow_gpu.gpu.lowering.resample`.)
- ``ImagingResampleInner``: a pass runs per axis that changes (``need_horizontal`` =
  ``xsize != in.xsize or box[0] or box[2] != xsize`` with the box as C floats; vertical
  likewise); no pass at all is a plain copy. With both passes, the vertical pass runs first
  when ``ysize < in.ysize and 2 * (in.xsize - xsize) < in.ysize - ysize`` (observed on live
  Pillow 13: every sampled size and box agrees, the stored 2016-era source always ran the
  horizontal pass first). The first pass covers only the rows (columns) the second reads, so
  the intermediate image is never larger than max(source, output) per axis.
- Each pass: ``ss = 1 << 21 + sum(byte * k)`` in 32-bit ints, ``clip8(ss >> 22)``, per band by
  band count (L: byte 0; LA/La: bytes 0 and 3; RGB: bytes 0..2 with padding 0; else all four).

The kernel computes outputs four at a time along the pass axis, from one dense window per block
of four (:func:`blocked_windows`): each input word is loaded once for the four. Coefficients come
from :mod:`pillow_gpu.gpu.kernels.resample_coeffs` on the host.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import remap, resample_long, resample_wide
from pillow_gpu.gpu.kernels.resample_coeffs import (
    Coefficients,
    kernel_size,
    precompute,
    precompute_doubles,
)

__all__ = [
    "BAND_MASKS",
    "BLOCK",
    "MAX_CHUNKS",
    "MAX_TABLE_WORDS",
    "TABLE_ROWS",
    "BlockedWindows",
    "ResizePlan",
    "blocked_windows",
    "lower_passes",
    "plan_resize",
    "table_words",
]

#: Largest coefficient table (i32 words: 2 bounds + ksize weights per output) of one pass.
MAX_TABLE_WORDS = 1 << 22
#: Outputs one block (one invocation of resample.wgsl) computes along the pass axis.
BLOCK = 4
#: vec4 rows of resample.wgsl's uniform table: 64 KiB, the uniform binding every adapter takes.
TABLE_ROWS = 4096
#: Most dispatches of one pass in blocked windows; a pass needing more takes resample_long.
MAX_CHUNKS = 16
#: Stored bytes a pass computes, by mode (Pillow's 8bpc passes by band count: L one byte,
#: two-band modes bytes 0 and 3, RGB bytes 0..2; every other mode all four); the rest are 0.
BAND_MASKS = {"L": 0b0001, "LA": 0b1001, "RGB": 0b0111}


@dataclass(frozen=True, slots=True, kw_only=True)
class _Pass:
    axis: int  # 0 horizontal, 1 vertical
    coefficients: Coefficients
    shift: int  # subtracted from the table's first inputs (the previous pass's crop)
    offset: int  # first row (axis 0) or column (axis 1) of the input the pass reads
    size: tuple[int, int]  # output size


@dataclass(frozen=True, slots=True, kw_only=True)
class ResizePlan:
    """The passes of one ``_imaging.c`` resize, decided on the host."""

    passes: tuple[_Pass, ...]
    crop: tuple[int, int, int, int] | None = None  # _imaging.c: integer box of the output size


def table_words(
    resample: int,
    src_size: tuple[int, int],
    size: tuple[int, int],
    box: tuple[float, ...],
    *,
    wide: bool = False,
) -> int:
    """The larger per-pass coefficient table, in 32-bit words, of the long-window layout
    (resample_long: 2 bounds + ksize weights per output, which bounds the blocked one's
    windows too; ``wide``: resample_wide's 2 words per double weight). Cheap: nothing is
    computed."""
    per_weight = 2 if wide else 1
    return max(
        size[axis] * (2 + per_weight * kernel_size(resample, box[axis], box[axis + 2], size[axis]))
        for axis in (0, 1)
    )


def plan_resize(
    resample: int,
    src_size: tuple[int, int],
    size: tuple[int, int],
    box: tuple[float, float, float, float],
    *,
    wide: bool = False,
) -> ResizePlan:
    """Decide Pillow's passes (after Image.resize's own shortcuts) and their coefficients:
    fixed point for 8-bit images, Pillow's doubles for ``wide`` (16/32-bit) ones."""
    f32 = [float(np.float32(value)) for value in box]
    if all(
        f32[axis] == int(f32[axis])
        and float(np.float32(f32[axis + 2]) - np.float32(f32[axis])) == size[axis]
        for axis in (0, 1)
    ):
        left, top = int(f32[0]), int(f32[1])
        return ResizePlan(passes=(), crop=(left, top, left + size[0], top + size[1]))
    need = (
        size[0] != src_size[0] or f32[0] != 0 or f32[2] != size[0],
        size[1] != src_size[1] or f32[1] != 0 or f32[3] != size[1],
    )
    table = precompute_doubles if wide else precompute
    coefficients = tuple(
        table(resample, src_size[axis], box[axis], box[axis + 2], size[axis]) for axis in (0, 1)
    )
    if not all(need):
        passes = tuple(
            _Pass(axis=axis, coefficients=coefficients[axis], shift=0, offset=0, size=size)
            for axis in (0, 1)
            if need[axis]
        )
        return ResizePlan(passes=passes)
    vertical_first = size[1] < src_size[1] and 2 * (src_size[0] - size[0]) < src_size[1] - size[1]
    first_axis = 1 if vertical_first else 0
    second_axis = 1 - first_axis
    bounds = coefficients[second_axis].bounds
    start = int(bounds[0, 0])
    stop = int(bounds[-1, 0] + bounds[-1, 1])
    crop = (size[0], stop - start) if first_axis == 0 else (stop - start, size[1])
    first = _Pass(
        axis=first_axis, coefficients=coefficients[first_axis], shift=0, offset=start, size=crop
    )
    second = _Pass(
        axis=second_axis,
        coefficients=coefficients[second_axis],
        shift=start,
        offset=0,
        size=size,
    )
    return ResizePlan(passes=(first, second))


@dataclass(frozen=True, slots=True)
class BlockedWindows:
    """resample.wgsl's dense windows of one pass: blocks of four consecutive outputs."""

    headers: npt.NDArray[np.int64]  # (blocks, 4): first input, inputs read, 0, 0
    weights: npt.NDArray[np.int64]  # (blocks, span, 4): weight of input first + t per output

    @property
    def span(self) -> int:
        """Window steps every block's weights take (the longest window)."""
        return int(self.weights.shape[1])


def _block_inputs(coefficients: Coefficients, shift: int) -> tuple[npt.NDArray[np.int64], ...]:
    """(first input less ``shift``, inputs read) of each block of four outputs."""
    bounds = coefficients.bounds
    outputs = len(bounds)
    blocks = -(-outputs // BLOCK)
    firsts = bounds[:, 0] - shift
    lows = np.full(blocks * BLOCK, np.iinfo(np.int64).max)
    highs = np.zeros(blocks * BLOCK, dtype=np.int64)
    lows[:outputs], highs[:outputs] = firsts, firsts + bounds[:, 1]
    first = lows.reshape(blocks, BLOCK).min(axis=1)
    return first, highs.reshape(blocks, BLOCK).max(axis=1) - first


def blocked_windows(coefficients: Coefficients, shift: int) -> BlockedWindows:
    """Merge each block of four outputs' taps (firsts less ``shift``) into one window."""
    first, count = _block_inputs(coefficients, shift)
    return _windows(coefficients, shift, first, count)


def _windows(
    coefficients: Coefficients,
    shift: int,
    first: npt.NDArray[np.int64],
    count: npt.NDArray[np.int64],
) -> BlockedWindows:
    bounds = coefficients.bounds
    weights = np.zeros((len(first), int(count.max(initial=1)), BLOCK), dtype=np.int64)
    output, tap = np.nonzero(np.arange(coefficients.ksize)[None, :] < bounds[:, 1:2])
    block = output // BLOCK
    step = bounds[output, 0] - shift - first[block] + tap
    weights[block, step, output % BLOCK] = coefficients.weights[output, tap]
    headers = np.zeros((len(first), 4), dtype=np.int64)
    headers[:, 0], headers[:, 1] = first, count
    return BlockedWindows(headers=headers, weights=weights)


def _chunks(count: npt.NDArray[np.int64]) -> list[range] | None:
    """The blocks of each resample.wgsl dispatch of a pass whose blocks read ``count`` inputs
    (a header and ``span`` rows per block within :data:`TABLE_ROWS`), or None where the pass
    needs resample_long."""
    per = TABLE_ROWS // (1 + int(count.max(initial=1)))
    blocks = len(count)
    if per < 1 or -(-blocks // per) > MAX_CHUNKS:
        return None
    return [range(first, min(first + per, blocks)) for first in range(0, blocks, per)]


def _dispatch(program: Program, src: int, src_width: int, step: _Pass, mask: int) -> int:
    coefficients = step.coefficients
    first, count = _block_inputs(coefficients, step.shift)
    chunks = _chunks(count)
    if chunks is None:
        return resample_long.lower(
            program,
            src,
            src_width=src_width,
            axis=step.axis,
            coefficients=coefficients,
            shift=step.shift,
            offset=step.offset,
            size=step.size,
            mask=mask,
        )
    windows = _windows(coefficients, step.shift, first, count)
    dst = program.image(step.size)
    across = step.size[1 - step.axis]
    span = windows.span
    for chunk in chunks:
        blocks = len(chunk)
        table = np.zeros((TABLE_ROWS, 4), dtype=np.int64)
        table[:blocks] = windows.headers[chunk.start : chunk.stop]
        table[blocks : blocks + blocks * span] = windows.weights[chunk.start : chunk.stop].reshape(
            -1, 4
        )
        program.dispatch(
            "resample",
            words=(*step.size, src_width, step.offset, chunk.start, blocks, span, mask),
            bindings=(src, dst, program.table(table.reshape(-1), dtype="<i4")),
            # One 16x16 workgroup per block and 256 lines across the axis.
            grid=(16 * -(-across // 256), 16 * blocks),
            invocation_work=max(1, span + span // 4),  # a word and a uniform vector per step
            loop_steps=span,
            constants={"AXIS": step.axis},
        )
    return dst


def lower_passes(
    program: Program,
    src: int,
    mode: str,
    src_size: tuple[int, int],
    plan: ResizePlan,
    *,
    out_of_range: tuple[int, int] = (0, 0),
) -> int:
    """Record the crop or the passes of ``plan`` on ``src`` (premultiplied for LA/RGBA).

    A 16/32-bit ``mode`` (:data:`resample_wide.KINDS`) takes resample_wide, whose I results
    out of int32 range become ``out_of_range`` (see :func:`resample_wide.lower`). Returns
    ``src`` itself when the plan has neither (Pillow's ImagingCopy).
    """
    current, width = src, src_size[0]
    if plan.crop is not None:
        return remap.crop(program, current, src_size, plan.crop)
    for step in plan.passes:
        if mode in resample_wide.KINDS:
            current = resample_wide.lower(
                program,
                current,
                mode=mode,
                src_width=width,
                axis=step.axis,
                coefficients=step.coefficients,
                shift=step.shift,
                offset=step.offset,
                size=step.size,
                out_of_range=out_of_range,
            )
        else:
            current = _dispatch(program, current, width, step, BAND_MASKS.get(mode, 0b1111))
        width = step.size[0]
    return current
