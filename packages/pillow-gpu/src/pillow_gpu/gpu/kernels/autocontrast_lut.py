"""ImageOps.autocontrast's lookup table, chosen on the device from the histogram bins.

Pillow 13.0.0's only floating-point step is ``LUT(lo, hi)``: ``scale = 255.0 / (hi - lo)``,
``offset = -lo * scale``, entry ``ix`` = ``int(ix * scale + offset)`` clipped to 0..255 (IEEE
double). It depends on the pair alone, so :func:`pair_table` precomputes every pair
``lo < hi`` once per process with numpy float64 in Pillow's operation order (elementwise
multiply and add are correctly rounded, as CPython's floats; the tests check every entry).
The device keeps it as a resident read-only buffer (:data:`PAIR_TABLE`); the kernel trims
each band's histogram with integer arithmetic, finds ``lo``/``hi`` and copies their row.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._program import Program

__all__ = [
    "INVOCATION_WORK",
    "PAIR_COUNT",
    "PAIR_TABLE",
    "autocontrast_lut",
    "pair_bytes",
    "pair_row",
    "pair_table",
]

#: Pairs ``0 <= lo < hi <= 255``: row ``hi * (hi - 1) // 2 + lo`` of the table.
PAIR_COUNT = 256 * 255 // 2
#: Name of the per-device resident buffer holding :func:`pair_bytes` (8,355,840 bytes).
PAIR_TABLE = "autocontrast_pairs"
#: Per invocation: load + ignore + sum, two trims, two scans, the row copy (256 steps each).
INVOCATION_WORK = 6 * 256


def pair_row(lo: int, hi: int) -> int:
    """Row of pair ``(lo, hi)`` (``lo < hi``) in :func:`pair_table`."""
    return hi * (hi - 1) // 2 + lo


@cache
def pair_table() -> npt.NDArray[np.uint8]:
    """The (32640, 256) u8 table: row :func:`pair_row` is Pillow's clipped LUT for the pair."""
    table = np.empty((PAIR_COUNT, 256), dtype=np.uint8)
    ix = np.arange(256, dtype=np.float64)
    for hi in range(1, 256):
        lo = np.arange(hi, dtype=np.float64)[:, None]
        scale = np.float64(255.0) / (np.float64(hi) - lo)  # 255.0 / (hi - lo)
        offset = -lo * scale  # -lo * scale
        values = np.trunc(ix * scale + offset)  # int(ix * scale + offset)
        start = pair_row(0, hi)
        table[start : start + hi] = np.clip(values, 0, 255).astype(np.uint8)
    table.flags.writeable = False
    return table


@cache
def pair_bytes() -> bytes:
    """:func:`pair_table` as the device reads it: 64 little-endian u32 words per row."""
    return pair_table().tobytes()


def _ignore_words(ignored: tuple[int, ...]) -> tuple[int, ...]:
    bits = 0
    for value in ignored:
        bits |= 1 << value
    return tuple((bits >> (32 * word)) & 0xFFFFFFFF for word in range(8))


def autocontrast_lut(
    program: Program,
    bins: int,
    *,
    hist_bands: int,
    out_bands: int,
    ignored: tuple[int, ...],
    cuts: tuple[int, int] | None,
    device_cuts: tuple[tuple[int, int], tuple[int, int]] | None,
) -> int:
    """Record the table choice from ``bins``; return the (4, 256) per-stored-byte table.

    ``ignored`` are bins set to 0 first. Trimming uses the host-computed ``cuts`` (low, high),
    or with ``device_cuts`` ``((p, k), (p, k))`` the cut ``((n * p) >> k) // 100`` of the band's
    count ``n`` (Pillow's ``int(n * cutoff // 100)`` for ``cutoff = p / 2**k`` when
    ``n * p < 2**32``). Rows of stored bytes ``>= out_bands`` are 0; with one histogram band
    every row uses it (``preserve_tone``).
    """
    pairs = program.resident(PAIR_TABLE, PAIR_COUNT * 256, pair_bytes)  # built on first use
    table = program.words(4 * 256)
    (p_lo, k_lo), (p_hi, k_hi) = device_cuts or ((0, 0), (0, 0))
    cut_lo, cut_hi = cuts or (0, 0)
    program.dispatch(
        "autocontrast_lut",
        words=(
            *(hist_bands, out_bands, int(device_cuts is not None), 0),
            *(cut_lo, cut_hi, p_lo, k_lo),
            *(p_hi, k_hi, 0, 0),
            *_ignore_words(ignored),
        ),
        bindings=(bins, table, pairs),  # the shared pair table after the images
        grid=(4, 1),
        invocation_work=INVOCATION_WORK,
    )
    return table
