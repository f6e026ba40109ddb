"""Pillow 13's ``Image.rotate`` Python layer, replayed: shortcuts, affine matrix, output size."""

from __future__ import annotations

import math

from PIL import Image as PILImage

__all__ = ["rotate_call"]

_Matrix = tuple[float, float, float, float, float, float]


def rotate_call(
    size: tuple[int, int],
    angle: float,
    expand: object,
    center: tuple[float, float] | None,
    translate: tuple[float, float] | None,
) -> int | tuple[tuple[int, int], _Matrix] | None:
    """What ``PIL.Image.Image.rotate`` calls for these arguments, as Pillow computes it.

    ``None``: ``self.copy()``; an int: ``self.transpose(method)``; else the output size and
    the affine matrix it passes to ``transform(size, AFFINE, matrix, resample, fillcolor=...)``.
    """
    angle = angle % 360.0
    if not (center or translate):
        if angle == 0:
            return None
        if angle == 180:
            return int(PILImage.Transpose.ROTATE_180)
        if angle in (90, 270) and (expand or size[0] == size[1]):
            return int(
                PILImage.Transpose.ROTATE_90 if angle == 90 else PILImage.Transpose.ROTATE_270
            )
    w, h = size
    post_trans = (0, 0) if translate is None else translate
    if center is None:
        center = (w / 2, h / 2)
    angle = -math.radians(angle)
    matrix = [
        round(math.cos(angle), 15),
        round(math.sin(angle), 15),
        0.0,
        round(-math.sin(angle), 15),
        round(math.cos(angle), 15),
        0.0,
    ]

    def transform(x: float, y: float, matrix: list[float]) -> tuple[float, float]:
        a, b, c, d, e, f = matrix
        return a * x + b * y + c, d * x + e * y + f

    matrix[2], matrix[5] = transform(-center[0] - post_trans[0], -center[1] - post_trans[1], matrix)
    matrix[2] += center[0]
    matrix[5] += center[1]
    if expand:
        xx = []
        yy = []
        for x, y in ((0, 0), (w, 0), (w, h), (0, h)):
            transformed_x, transformed_y = transform(x, y, matrix)
            xx.append(transformed_x)
            yy.append(transformed_y)
        nw = math.ceil(max(xx)) - math.floor(min(xx))
        nh = math.ceil(max(yy)) - math.floor(min(yy))
        matrix[2], matrix[5] = transform(-(nw - w) / 2.0, -(nh - h) / 2.0, matrix)
        w, h = nw, nh
    a, b, c, d, e, f = matrix
    return (w, h), (a, b, c, d, e, f)
