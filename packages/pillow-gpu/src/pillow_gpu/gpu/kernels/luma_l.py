"""RGB, RGBA and RGBX to L as Pillow's packed bytes (``convert("L")``, ``ImageOps.grayscale``)."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["SOURCES", "luma_l"]

#: Source modes whose ``convert("L")`` is Pillow's rgb2l of stored bytes 0..2.
SOURCES = ("RGB", "RGBA", "RGBX")


def luma_l(program: Program, src: int, size: tuple[int, int], words: int) -> int:
    """Record the luma of one-word-per-pixel ``src`` into a new packed L buffer of ``words``
    words (the image's packed grid, ``gpu._packed_l.grid``); return it."""
    pixels = size[0] * size[1]
    dst = program.words(words)
    written = -(-pixels // 4)
    program.dispatch(
        "luma_l",
        words=(pixels, written, 0),
        bindings=(src, dst),
        grid=(written, 1),
        invocation_work=4,
        linear=True,
    )
    return dst
