"""Upload widening kernel: Pillow's packed stored bytes -> one u32 word per pixel."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["GRAY_OPAQUE", "unpack"]

#: The kind that widens an L byte to Pillow's l2rgb word: the byte in bytes 0..2, 255 in byte
#: 3 (what L -> RGB, RGBA, RGBX and LA store).
GRAY_OPAQUE = 5


def unpack(program: Program, src: int, size: tuple[int, int], kind: int) -> int:
    """Widen the packed upload ``src`` (kinds: ``_layout.PACKED_UPLOADS``, or
    :data:`GRAY_OPAQUE`) into a new image, four pixels per invocation."""
    pixels = size[0] * size[1]
    dst = program.image(size)
    quads = -(-pixels // 4)
    program.dispatch(
        "unpack",
        words=(pixels, kind, 0),
        bindings=(src, dst),
        grid=(quads, 1),
        invocation_work=4,
        linear=True,
        constants={"KIND": kind},
    )
    return dst
