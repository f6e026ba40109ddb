"""L as Pillow's packed bytes from one word per pixel: the terminal of an L image, getchannel,
LA -> L and (with :data:`LUMA`) RGB, RGBA, RGBX -> L."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["LUMA", "LUMA_SOURCES", "pack_l"]

#: The ``band`` that writes the ITU-R 601-2 luma of stored bytes 0..2 (Pillow's rgb2l).
LUMA = 4
#: Source modes whose ``convert("L")`` is that luma.
LUMA_SOURCES = ("RGB", "RGBA", "RGBX")


def pack_l(
    program: Program, src: int, size: tuple[int, int], *, band: int = 0, words: int = 0
) -> int:
    """Write each pixel's stored byte ``band`` (0..3) of one-word-per-pixel ``src``, or its
    luma (:data:`LUMA`), as packed L into a new buffer of ``words`` words (the image's packed
    grid, ``gpu._packed_l.grid``; by default ceil(pixels / 4)); return the buffer."""
    pixels = size[0] * size[1]
    written = -(-pixels // 4)
    dst = program.words(max(words, written))
    program.dispatch(
        "pack_l",
        words=(pixels, written),
        bindings=(src, dst),
        grid=(written, 1),
        invocation_work=4,
        linear=True,
        constants={"BAND": band} if band else None,
    )
    return dst
