"""Integer affine gather kernel: transpose (all seven methods), crop, expand.

Each takes ``packed_grid``: given, the image is L as Pillow's packed bytes (``gpu._packed_l``)
and the output packed L on that word grid (``gpu._packed_l.grid`` of the output size), each
output word gathered byte by byte (pipeline constant PACKED).
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["crop", "expand", "transpose"]


def _lower(
    program: Program,
    src: int,
    src_size: tuple[int, int],
    *,
    dst_size: tuple[int, int],
    affine: tuple[int, int, int, int, int, int],
    fill: int = 0,
    packed_grid: tuple[int, int] | None = None,
) -> int:
    if packed_grid is None:
        dst = program.image(dst_size)
        words = (*dst_size, *src_size, *affine, fill, 0)
        program.dispatch(
            "remap", words=words, bindings=(src, dst), grid=dst_size, invocation_work=1
        )
        return dst
    columns, rows = packed_grid
    dst = program.words(columns * rows)
    program.dispatch(
        "remap",
        words=(*dst_size, *src_size, *affine, fill & 255, columns),
        bindings=(src, dst),
        grid=(columns, rows),
        invocation_work=4,
        constants={"PACKED": 1},
    )
    return dst


def transpose(
    program: Program,
    src: int,
    size: tuple[int, int],
    method: int,
    *,
    packed_grid: tuple[int, int] | None = None,
) -> int:
    """``Image.transpose(method)``: dst(x, y) = src(ax*x + bx*y + cx, ay*x + by*y + cy)."""
    w, h = size
    affines = {
        0: (-1, 0, w - 1, 0, 1, 0),  # FLIP_LEFT_RIGHT
        1: (1, 0, 0, 0, -1, h - 1),  # FLIP_TOP_BOTTOM
        2: (0, -1, w - 1, 1, 0, 0),  # ROTATE_90
        3: (-1, 0, w - 1, 0, -1, h - 1),  # ROTATE_180
        4: (0, 1, 0, -1, 0, h - 1),  # ROTATE_270
        5: (0, 1, 0, 1, 0, 0),  # TRANSPOSE
        6: (0, -1, w - 1, -1, 0, h - 1),  # TRANSVERSE
    }
    dst_size = (h, w) if method in (2, 4, 5, 6) else (w, h)
    return _lower(
        program, src, size, dst_size=dst_size, affine=affines[method], packed_grid=packed_grid
    )


def crop(
    program: Program,
    src: int,
    size: tuple[int, int],
    box: tuple[int, int, int, int],
    *,
    packed_grid: tuple[int, int] | None = None,
) -> int:
    """``Image.crop(box)`` with integer box; outside areas are zero in every byte."""
    dst_size = (box[2] - box[0], box[3] - box[1])
    affine = (1, 0, box[0], 0, 1, box[1])
    return _lower(program, src, size, dst_size=dst_size, affine=affine, packed_grid=packed_grid)


def expand(
    program: Program,
    src: int,
    size: tuple[int, int],
    border: tuple[int, int, int, int],
    fill: int,
    *,
    packed_grid: tuple[int, int] | None = None,
) -> int:
    """``ImageOps.expand``: the source at (left, top) over a ``fill`` ink."""
    left, top, right, bottom = border
    dst_size = (left + size[0] + right, top + size[1] + bottom)
    affine = (1, 0, -left, 0, 1, -top)
    return _lower(
        program, src, size, dst_size=dst_size, affine=affine, fill=fill, packed_grid=packed_grid
    )
