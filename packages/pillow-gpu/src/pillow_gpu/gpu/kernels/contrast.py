"""ImageEnhance.Contrast's blend against a degenerate image whose mean lives on the device.

Pillow (``PIL/ImageEnhance.py``, Pillow 13.0.0)::

    mean = int(ImageStat.Stat(image.convert("L")).mean[0] + 0.5)
    degenerate = Image.new("L", size, mean).convert(mode)   # + putalpha(source alpha)
    enhance(factor) = Image.blend(degenerate, image, factor)

``ImageStat`` computes ``mean = sum / count`` with Python's true division of two integers
(correctly rounded to a double), then adds 0.5 in double precision and truncates. The
``contrast`` kernel computes the same value in integers from the device-side sum (two words,
see :mod:`pillow_gpu.gpu.kernels.sum_l`): ``q, r = divmod(sum, count)`` by an 8-step restoring
division, and ``mean = q + (2 * r >= count)``.

Proof that both agree for every image the planner admits (count = pixels <= 2**26, so
0 <= sum <= 255 * count and q <= 255). Let x = sum / count = q + r / count exactly, d the
double nearest x, e = fl(d + 0.5), and note Python's ``int`` of e >= 0 is floor(e). All of
q, q + 0.5 and q + 1 are exact doubles, and rounding is monotone. For x < 256 one ulp is at
most 2**-45, so |d - x| <= 2**-46, while any x that is not exactly q + 0.5 lies at least
1 / (2 * count) >= 2**-27 away from q + 0.5 (r / count - 1/2 = (2r - count) / (2 count)).

* 2r == count (exact half): x = q + 0.5 is a double, d = x, d + 0.5 = q + 1 exactly, so the
  mean is q + 1, as the integer rule says.
* 2r > count: d >= x - 2**-46 > q + 0.5, so d + 0.5 > q + 1 and e >= q + 1 (monotone); and
  d < q + 1 (x < q + 1 by at least 1/count, far more than the error), so d + 0.5 < q + 1.5
  and e <= q + 1.5: floor(e) = q + 1.
* 2r < count: q <= d <= x + 2**-46 < q + 0.5 - 2**-27 + 2**-46, so d + 0.5 lies below q + 1
  by more than 2**-28, far more than half an ulp there (values below 512 have ulps of at
  most 2**-44): e < q + 1, and e >= q (monotone), so floor(e) = q.

``tests/gpu/test_pgpu_contrast_mean.py`` checks this exhaustively for every (sum, count) with
small counts, at the half-way boundaries for large counts up to 2**26, and against
``ImageStat`` on images; the GPU parity tests run it on images whose sum passes 2**32.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels.chops import blend_table

__all__ = ["DEGENERATE", "degenerate_word", "lower", "mean_of_sum"]

_MEAN, _INVERTED_MEAN, _CONST, _SOURCE = 0, 1, 2, 3

#: Per native mode and stored byte: how the degenerate byte is built (selector, constant).
#: ``Image.new("L", size, m).convert(mode)`` stores (m, m, m, 255) for LA/RGB/RGBA/RGBX and
#: (0, 0, 0, 255 - m) for CMYK; LA and RGBA then get the source alpha back (byte 3).
DEGENERATE: dict[str, tuple[tuple[int, int], ...]] = {
    "L": ((_MEAN, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    "LA": ((_MEAN, 0), (_MEAN, 0), (_MEAN, 0), (_SOURCE, 0)),
    "RGB": ((_MEAN, 0), (_MEAN, 0), (_MEAN, 0), (_CONST, 255)),
    "RGBA": ((_MEAN, 0), (_MEAN, 0), (_MEAN, 0), (_SOURCE, 0)),
    "CMYK": ((_CONST, 0), (_CONST, 0), (_CONST, 0), (_INVERTED_MEAN, 0)),
    "RGBX": ((_MEAN, 0), (_MEAN, 0), (_MEAN, 0), (_CONST, 255)),
}


def mean_of_sum(total: int, count: int) -> int:
    """The kernel's integer rounding of ``total / count`` (host mirror, for tests)."""
    q, r = divmod(total, count)
    return q + (1 if 2 * r >= count else 0)


def degenerate_word(mode: str, mean: int, source: int) -> int:
    """Host mirror of the kernel's degenerate word for ``mean`` and source word ``source``."""
    word = 0
    for j, (selector, constant) in enumerate(DEGENERATE[mode]):
        byte = {
            _MEAN: mean,
            _INVERTED_MEAN: 255 - mean,
            _CONST: constant,
            _SOURCE: (source >> (8 * j)) & 255,
        }[selector]
        word |= byte << (8 * j)
    return word


def lower(
    program: Program,
    src: int,
    total: int,
    size: tuple[int, int],
    *,
    mode: str,
    factor: float,
) -> int:
    """Record the blend of ``src`` with its degenerate image; ``total`` holds the L sum."""
    selectors = tuple(selector for selector, _ in DEGENERATE[mode])
    constants = tuple(constant for _, constant in DEGENERATE[mode])
    dst = program.image(size)
    lookup = program.table(blend_table(factor))
    program.dispatch(
        "contrast",
        words=(*size, size[0] * size[1], 0, *selectors, *constants),
        bindings=(src, total, dst, lookup),
        grid=size,
        invocation_work=12,  # the division's 8 steps and the per-byte loop
    )
    return dst
