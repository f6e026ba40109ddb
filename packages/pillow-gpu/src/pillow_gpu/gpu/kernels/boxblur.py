"""Box-blur line-pass kernel: ImageFilter.BoxBlur (n = 1) and GaussianBlur (n = 3).

Each pass is Pillow's line pass as a running sum (``boxblur.wgsl``): one invocation slides the
window along a segment of one line, so a pass costs O(1) per pixel whatever the radius.

Memory order (coalescing on hardware GPUs): the vertical passes read row-major columns, one
invocation per column segment, so neighbouring invocations touch consecutive words. A
horizontal pass over a row-major buffer has each invocation walk its own row (strided across
invocations); so with several horizontal passes the first writes a transposed intermediate
(sample x of row y at word ``x * height + y``), the middle ones read and write that layout
(consecutive words across invocations again) and the last writes row-major. Only the first
read and the last write of the horizontal group stride; each invocation walks its row
sequentially, so its next steps reuse the cache line its previous access brought in.

Packed L (``packed=True``) is four pixels to a word in rows of whole words (Pillow's bytes
where the width divides by four, else ``pad_l``'s rows), so every pass runs a quarter of the
steps of the one-pixel-per-word layout: the vertical passes treat the rows as a
``ceil(width / 4)`` x height image (a word's lanes are four adjacent columns); for the
horizontal passes ``interleave_l`` regroups rows ``4q .. 4q + 3`` into row q of a row-group
image (lane j = row 4q + j, rows of ``4 * ceil(width / 4)`` words of which the first ``width``
are pixels), which the passes blur like any other, and packs it back into rows afterwards.

The per-pixel form (sum the 2r + 1 taps for every output) is not kept for small radii: on
lavapipe it was slower at every radius measured, r = 0 included, and at 32x32 to 2048x2048.
"""

from __future__ import annotations

import math

import numpy as np

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import interleave_l

__all__ = [
    "SEGMENT",
    "STEP_UNITS",
    "gaussian_box_radius",
    "invocation_work",
    "lower",
    "segment",
    "weights",
]

#: Shortest line segment one invocation slides along (longer for wide windows, see
#: :func:`segment`); splitting long lines keeps enough invocations in flight.
SEGMENT = 64

#: Shader-work units of one output step: its two reads (entering and leaving sample) and the
#: fixed-point rounding, packing and store, which cost about three reads more. Measured on
#: lavapipe (2048x2048 RGBA, BoxBlur 0.5/1/20 and GaussianBlur 2): a step takes about 0.6x a
#: lut (invert) invocation, i.e. ~5.5 of its 9 units.
STEP_UNITS = 5

_ONE = 1 << 24  # Pillow's fixed-point 1.0


def gaussian_box_radius(radius: float, passes: int = 3) -> float:
    """Pillow's box radius (float32) for a Gaussian ``radius`` approximated by ``passes`` boxes.

    As BoxBlur.c's ``_gaussian_blur_radius``: sigma2, L, l and a are C floats, so every step
    rounds to float32 (only the sqrt and floor arguments are doubles). A non-finite radius
    gives ``inf`` (callers reject it).
    """
    f32 = np.float32
    with np.errstate(over="ignore", invalid="ignore"):
        sigma2 = f32(f32(radius) * f32(radius)) / f32(passes)
        if not math.isfinite(sigma2):
            return math.inf
        big_l = f32(math.sqrt(12.0 * float(sigma2) + 1.0))
        small_l = f32(math.floor((float(big_l) - 1.0) / 2.0))
        a = (f32(2) * small_l + f32(1)) * (small_l * (small_l + f32(1)) - f32(3) * sigma2)
        a = a / (f32(6) * (sigma2 - (small_l + f32(1)) * (small_l + f32(1))))
        return float(small_l + a)


def weights(radius: float) -> tuple[int, int, int]:
    """(r, ww, fw) of one pass: integer radius and Pillow's 24-bit fixed-point weights.

    ``(2r + 1) * ww <= 2^24`` always (the shader's u32 bound rests on it): the float32
    ``2 * radius + 1`` is at least ``2r + 1`` (exact for r <= 256), and a correctly rounded
    quotient is monotonic, so ww <= trunc(fl(2^24 / (2r + 1))). For r = 0 that is 2^24
    exactly; otherwise q = 2^24 / (2r + 1) is not an integer and lies at least 1 / (2r + 1)
    below the next one, while the rounding error is below q * 2^-24 = 1 / (2r + 1), so the
    truncation is floor(q).
    """
    fr = np.float32(radius)
    r = int(fr)
    ww = int(np.float32(16777216.0) / (fr * np.float32(2) + np.float32(1)))
    fw = (_ONE - (2 * r + 1) * ww) // 2
    return r, ww, fw


def segment(r: int, length: int) -> int:
    """Samples one invocation outputs along a line of ``length``: at least the window.

    A segment first sums its window (up to 2r + 1 reads), so it is at least as long as the
    window: that start-up costs at most one extra read per output.
    """
    return max(1, min(length, max(SEGMENT, 2 * r + 1)))


def invocation_work(r: int, length: int) -> int:
    """Shader-work units of one invocation: the first window's reads (at most
    min(2r + 1, length) samples, the two clamped ends and the left edge), then
    :data:`STEP_UNITS` per output."""
    return min(2 * r + 1, length) + 3 + STEP_UNITS * segment(r, length)


def _line_pass(
    program: Program,
    src: int,
    *,
    shape: tuple[int, int],
    strides: tuple[int, int, int, int],
    rww_fw: tuple[int, int, int],
    dst_words: int | None = None,
) -> int:
    """One pass over ``shape`` = (lines, length); ``strides`` = (src line, src step, dst line,
    dst step) in words; ``rww_fw`` = :func:`weights`; ``dst_words``: the output's size where
    its lines are longer than ``length``. Returns the output buffer."""
    lines, length = shape
    seg = segment(rww_fw[0], length)
    dst = program.image((lines, length)) if dst_words is None else program.words(dst_words)
    program.dispatch(
        "boxblur",
        words=(lines, length, *strides, *rww_fw, seg),
        bindings=(src, dst),
        grid=(lines * -(-length // seg), 1),
        invocation_work=invocation_work(rww_fw[0], length),
        linear=True,
    )
    return dst


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    radius: tuple[float, float],
    passes: int,
    *,
    packed: bool = False,
) -> int:
    """``passes`` horizontal passes then ``passes`` vertical passes; zero radii skip an axis.

    ``packed``: ``src`` (and the result) is L four pixels to a word in rows of whole words
    (``gpu._packed_l``, ``pad_l``), blurred four pixels per word (module docstring).
    """
    width, height = size
    current = src
    if radius[0] != 0:
        current = _horizontal(program, src, size, weights(radius[0]), passes, packed=packed)
    lines = interleave_l.row_words(width) if packed else width  # words per row
    columns = (1, lines, 1, lines)
    if radius[1] != 0:
        vertical = weights(radius[1])
        for _ in range(passes):
            current = _line_pass(
                program, current, shape=(lines, height), strides=columns, rww_fw=vertical
            )
    if current == src:  # both radii zero: Pillow returns a copy (r = 0, weight 1.0)
        current = _line_pass(
            program, src, shape=(lines, height), strides=columns, rww_fw=(0, _ONE, 0)
        )
    return current


def _horizontal(
    program: Program,
    src: int,
    size: tuple[int, int],
    rww_fw: tuple[int, int, int],
    passes: int,
    *,
    packed: bool,
    line: int | None = None,
) -> int:
    """The ``passes`` horizontal passes (module docstring); packed L through its row groups.
    ``line``: the words from one row's start to the next (``width`` unless padded)."""
    width, height = size
    if packed:  # four rows to a word, blurred as a width x groups image, then back
        grouped = interleave_l.to_groups(program, src, size)
        grouped_size = (width, interleave_l.groups(height))
        line = 4 * interleave_l.row_words(width)  # group rows padded to whole words
        blurred = _horizontal(
            program, grouped, grouped_size, rww_fw, passes, packed=False, line=line
        )
        return interleave_l.to_rows(program, blurred, size)
    line = line or width
    rows, transposed = (line, 1), (1, height)  # (line stride, sample step) of a row
    current = src
    for n in range(passes):
        read = rows if n == 0 else transposed
        write = rows if n == passes - 1 else transposed
        current = _line_pass(
            program,
            current,
            shape=(height, width),
            strides=(*read, *write),
            rww_fw=rww_fw,
            dst_words=height * line if write == rows else None,
        )
    return current
