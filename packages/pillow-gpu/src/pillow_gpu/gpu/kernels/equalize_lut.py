"""ImageOps.equalize's lookup table, built on the device from the histogram bins.

The kernel mirrors Pillow 13.0.0's ``ImageOps.equalize`` integer arithmetic (quoted in
``equalize_lut.wgsl``) plus ``Image.point``'s clipping of table entries to 0..255;
:func:`equalize_table` is the same computation on the host, for tests.
"""

from __future__ import annotations

from collections.abc import Sequence

from pillow_gpu.gpu._program import Program

__all__ = ["equalize_lut", "equalize_table"]


def equalize_table(histogram: Sequence[int]) -> list[int]:
    """Host mirror of one band's row: the clipped table for a 256-bin ``histogram``."""
    nonzero = [count for count in histogram if count]
    step = (sum(nonzero) - nonzero[-1]) // 255 if len(nonzero) > 1 else 0
    if not step:
        return list(range(256))
    table, n = [], step // 2
    for count in histogram:
        table.append(min(n // step, 255))
        n += count
    return table


def equalize_lut(program: Program, bins: int, *, bands: int) -> int:
    """Record the table build from ``bins`` (``bands`` rows); return the (4, 256) table."""
    table = program.words(4 * 256)
    program.dispatch(
        "equalize_lut",
        words=(bands,),
        bindings=(bins, table),
        grid=(4, 1),
        invocation_work=2 * 256,  # two scans of a band's 256 bins
        linear=True,
    )
    return table
