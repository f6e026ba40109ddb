"""Histogram kernel: per-band 256-bin counts of a working image, kept on the device."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MAX_BANDS", "MAX_HISTOGRAM_PIXELS", "histogram"]

#: Most pixels counted (the planner's 8192 x 8192 bound): every bin fits u32 with room to spare.
MAX_HISTOGRAM_PIXELS = 1 << 26
#: Most bands one dispatch counts (stored bytes 0..bands-1).
MAX_BANDS = 4


def histogram(
    program: Program,
    src: int,
    size: tuple[int, int],
    *,
    bands: int,
    mask: int | None = None,
) -> int:
    """Record the histograms of bytes ``0..bands-1`` of ``src``; return the bins buffer.

    The buffer holds ``bands * 256`` u32 bins (band ``b``, value ``v`` at ``b * 256 + v``).
    It is a working buffer, so it is zero when the plan's dispatches start (see
    :meth:`Program.words`). With ``mask`` (an L working image of the same size) only pixels
    whose mask byte is non-zero are counted, as Pillow's ``Image.histogram(mask)``.
    """
    pixels = size[0] * size[1]
    if pixels > MAX_HISTOGRAM_PIXELS:  # the planner's pixel bound keeps this unreachable
        msg = f"histogram() counts at most {MAX_HISTOGRAM_PIXELS} pixels; observed {pixels}"
        raise ValueError(msg)
    if not 1 <= bands <= MAX_BANDS:
        msg = f"histogram() counts 1..{MAX_BANDS} bands; observed {bands}"
        raise ValueError(msg)
    bins = program.words(bands * 256)
    program.dispatch(
        "histogram",
        words=(pixels, bands, 0 if mask is None else 1),
        bindings=(src, src if mask is None else mask, bins),
        grid=(pixels, 1),
        # per band: clear a local bin, one local atomic for the sample, flush a local bin
        invocation_work=1 + 3 * bands,
        linear=True,
    )
    return bins
