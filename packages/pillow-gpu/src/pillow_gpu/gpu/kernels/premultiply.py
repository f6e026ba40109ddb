"""Alpha premultiplication kernel: Pillow's LA/RGBA <-> La/RGBa conversions."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["lower"]


def lower(
    program: Program, src: int, size: tuple[int, int], mode: str, *, unpremultiply: bool
) -> int:
    """``convert("La"/"RGBa")`` of an LA/RGBA image, or back with ``unpremultiply``."""
    dst = program.image(size)
    program.dispatch(
        "premultiply",
        words=(*size, int(unpremultiply), int(mode == "LA")),
        bindings=(src, dst),
        grid=size,
        invocation_work=3,  # up to three converted bytes
    )
    return dst
