"""Upload widening kernel: Pillow's packed stored bytes -> one u32 word per pixel."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["unpack"]


def unpack(program: Program, src: int, size: tuple[int, int], kind: int) -> int:
    """Widen the packed upload ``src`` (kinds: ``_layout.PACKED_UPLOADS``) into a new image."""
    pixels = size[0] * size[1]
    dst = program.image(size)
    program.dispatch(
        "unpack",
        words=(pixels, kind),
        bindings=(src, dst),
        grid=(pixels, 1),
        invocation_work=1,
        linear=True,
        constants={"KIND": kind},
    )
    return dst
