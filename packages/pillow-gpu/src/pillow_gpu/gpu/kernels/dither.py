"""Floyd-Steinberg dithering to 1 and to the WEB palette, as Pillow's ``Convert.c`` does it.

Pillow diffuses each pixel's error to the right and to the row below, one row after another
(``tobilevel``; ``topalette`` with ``dither``). Pixel x of a row needs the row above to be done
with column x + 1, so the kernel runs rows as a wavefront, each two columns behind the one
above, one invocation per row and one workgroup per image (see ``dither.wgsl``): an image's
rows take ``height * (width + 1) / ROWS + 2 * height`` steps however many images run at once.
Tall images are split into dispatches of at most about :data:`STEP_BUDGET` steps; the error
line, a working buffer, carries from one to the next.
"""

from __future__ import annotations

import functools

import numpy as np
from PIL import Image as PILImage

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.to_indexed import WEB_CELLS, web_cells

__all__ = [
    "BILEVEL_GRAY",
    "BILEVEL_LUMA",
    "MAX_WIDTH",
    "STEP_BUDGET",
    "lower_bilevel",
    "lower_web",
    "steps",
]

#: Source kinds of :func:`lower_bilevel`: byte 0 (L, LA) or Pillow's ``L(rgb) / 1000`` of
#: bytes 0..2 (RGB, RGBA, RGBX).
BILEVEL_GRAY = 0
BILEVEL_LUMA = 1
_WEB_KIND = 2

#: Loop steps one dispatch aims at (a taller image takes more dispatches); well inside the
#: 65,535 loop steps lavapipe runs per invocation, and a few milliseconds on a hardware GPU.
STEP_BUDGET = 16_384
#: Widest image dithered on the device: one dispatch's rows take at least width + 1 serial
#: steps, each with a barrier, whatever the adapter; this keeps them to 65,535 steps or fewer
#: (lavapipe's per-invocation loop bound, and a few tens of milliseconds on a hardware GPU).
MAX_WIDTH = 65_534 - 2 * 255
#: Workgroup sizes (rows at once) the kernel is compiled for, up to 256 (WebGPU's default
#: bound on a workgroup's invocations).
_ROWS = (16, 64, 256)
#: Shader-work units per invocation step: a sample and its error arithmetic, plus the storage
#: barrier every invocation waits at (measured on lavapipe, see ``_work``).
_UNITS_PER_STEP = (4, 4, 8)


def _rows(width: int, height: int) -> int:
    """The smallest workgroup that runs every row at once, or that keeps a narrow image's
    rows busy: a row starts two steps after the one above, so about (width + 1) / 2 rows are
    ever at work together, and more would only wait at the barriers."""
    busy = min(height, -(-(width + 1) // 2))
    return next((rows for rows in _ROWS if rows >= busy), _ROWS[-1])


def _period(width: int, rows: int) -> int:
    return max(width + 1, 2 * rows)


def steps(width: int, rows_in_dispatch: int, rows: int) -> int:
    """Wavefront steps of one dispatch of ``rows_in_dispatch`` rows, ``rows`` at a time."""
    last = rows_in_dispatch - 1
    return 2 * (last % rows) + (last // rows) * _period(width, rows) + width + 1


def _dispatches(width: int, height: int) -> list[tuple[int, int]]:
    """``(first row, rows)`` of each dispatch: whole workgroup rounds within the budget."""
    rows = _rows(width, height)
    rounds = max(1, (STEP_BUDGET - width - 1 - 2 * (rows - 1)) // _period(width, rows) + 1)
    chunk = rounds * rows
    return [(row0, min(chunk, height - row0)) for row0 in range(0, height, chunk)]


@functools.cache
def web_colours() -> bytes:
    """The WEB palette's colours as 256 ``0x00BBGGRR`` words (Pillow's C palette)."""
    image = PILImage.new("RGB", (1, 1)).convert("P", dither=PILImage.Dither.NONE)
    palette = np.asarray(image.getpalette("RGB"), dtype=np.uint32).reshape(-1, 3)
    used = int(np.frombuffer(web_cells(), dtype=np.uint8).max())
    if used >= len(palette):
        msg = f"the WEB palette cache names entry {used}; Pillow's palette has {len(palette)}"
        raise RuntimeError(msg)
    words = np.zeros(256, dtype="<u4")
    words[: len(palette)] = palette[:, 0] | palette[:, 1] << 8 | palette[:, 2] << 16
    return words.tobytes()


def _lower(program: Program, src: int, size: tuple[int, int], kind: int) -> int:
    width, height = size
    if width > MAX_WIDTH:  # the lowering refuses these first; a guard against misuse
        msg = f"dither takes images up to {MAX_WIDTH} pixels wide; observed {width}"
        raise ValueError(msg)
    dst = program.image(size)
    line = program.words((width + 1) * (3 if kind == _WEB_KIND else 1))
    if kind == _WEB_KIND:
        cells = program.resident(WEB_CELLS, len(web_cells()), web_cells)
        colours = program.table(np.frombuffer(web_colours(), dtype="<u4"))
    else:  # bound but unread: the kernel's bindings are the same for every kind
        cells = colours = program.table([0])
    rows = _rows(width, height)
    for row0, count in _dispatches(width, height):
        total = steps(width, count, rows)
        program.dispatch(
            "dither",
            words=(width, height, row0, count, _period(width, rows), total),
            bindings=(src, dst, line, cells, colours),
            grid=(rows, 1),
            invocation_work=_UNITS_PER_STEP[kind] * total,
            linear=True,
            constants={"KIND": kind, "ROWS": rows},
            loop_steps=total,
        )
    return dst


def lower_bilevel(program: Program, src: int, size: tuple[int, int], source: int) -> int:
    """Pillow's dithered ``convert("1")`` of ``src`` (``source``: :data:`BILEVEL_GRAY` or
    :data:`BILEVEL_LUMA`): 0 or 255 in every byte of each word."""
    return _lower(program, src, size, source)


def lower_web(program: Program, src: int, size: tuple[int, int]) -> int:
    """Pillow's dithered ``convert("P")`` to the WEB palette of bytes 0..2 of each word (RGB,
    RGBX, RGBa): the index in every byte of each word."""
    return _lower(program, src, size, _WEB_KIND)
