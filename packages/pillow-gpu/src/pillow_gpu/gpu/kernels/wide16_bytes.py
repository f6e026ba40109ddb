"""A 16-bit image's stored bytes as an L image, and an L result back (``wide16_bytes.wgsl``).

Pillow filters I;16, I;16L and I;16B transforms (BILINEAR, BICUBIC) with its 8-bit filters,
over the rows' stored bytes (see the .wgsl): :func:`to_bytes` makes the L image those filters
read, the L lowering runs on it, and :func:`from_bytes` stores each result byte where Pillow's
filter writes it.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["from_bytes", "to_bytes"]


def _dispatch(
    program: Program, src: int, size: tuple[int, int], *, to_bytes: bool, big: bool, keep: int
) -> int:
    dst = program.image(size)
    count = size[0] * size[1]
    program.dispatch(
        "wide16_bytes",
        words=(size[0], count, keep),
        bindings=(src, dst),
        grid=(count, 1),
        invocation_work=1,
        linear=True,
        constants={"TO_BYTES": int(to_bytes), "BIG_ENDIAN": int(big)},
    )
    return dst


def to_bytes(program: Program, src: int, size: tuple[int, int], *, big_endian: bool) -> int:
    """The L image whose pixel x of row y is stored byte x of row y of the 16-bit ``src``
    (I;16B's bytes big-endian, the other modes' little-endian)."""
    return _dispatch(program, src, size, to_bytes=True, big=big_endian, keep=0)


def from_bytes(
    program: Program, src: int, size: tuple[int, int], *, big_endian: bool, keep: int
) -> int:
    """The 16-bit image whose pixels' first stored byte is the L ``src`` and whose other byte is
    ``keep``'s (``keep`` holds only that byte: the low one for I;16B, else the high one)."""
    return _dispatch(program, src, size, to_bytes=False, big=big_endian, keep=keep)
