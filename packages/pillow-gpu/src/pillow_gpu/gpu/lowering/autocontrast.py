"""Planner lowering of ``ImageOps.autocontrast``: lo/hi and the table never leave the device.

Kept beside :mod:`pillow_gpu.gpu._planner`, which registers it. Dispatches in the graph's one
submission: ``histogram`` (per band, or of ``convert("L")`` for ``preserve_tone``; masked by an
L mask as ``Image.histogram(mask)``), ``autocontrast_lut`` (ignore, cutoff trimming, lo/hi,
and the row of the resident pair table: see :mod:`pillow_gpu.gpu.kernels.autocontrast_lut`)
and the ``lut`` kernel reading that table. Pillow's ``_lut`` applies the table only to L and
RGB (other modes raise, P raises ``NotImplementedError``).

Cuts: with ``mask=None`` and ``ignore=None`` the band's count is the pixel count, so the host
evaluates Pillow's ``int(n * cutoff // 100)`` itself. Otherwise the count is only known on
the device, which computes ``((n * p) >> k) // 100`` for ``cutoff = p / 2**k``: exact (Python's
``n * cutoff`` is then exact and ``//`` of an exact non-negative double by 100 is the floor)
when ``p * pixels < 2**32``; other cutoffs are rejected at admission.
"""

from __future__ import annotations

import math
from typing import Any

from pillow_gpu._graph import Node
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import autocontrast_lut, convert, histogram, lut
from pillow_gpu.gpu.lowering._admission import TABLE_BANDS, TABLE_MODES, table_inputs, unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route

__all__ = ["AUTOCONTRAST_MODES", "LOWERINGS", "ROUTES", "lower_autocontrast"]

#: Source modes the lowering admits (the modes Pillow's ``_lut`` accepts).
AUTOCONTRAST_MODES = TABLE_MODES


def _cutoffs(node: Node) -> tuple[Any, Any] | None:
    cutoff = node.params["cutoff"]
    if not cutoff:  # Pillow skips trimming (a cut of 0 trims nothing either)
        return None
    pair = cutoff if isinstance(cutoff, tuple) else (cutoff, cutoff)
    for value in pair:
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise unsupported(
                node,
                f"autocontrast cutoff {value!r} is not proven on the GPU (finite, >= 0 ints "
                "and floats only)",
                "use a non-negative int or float cutoff, or evaluate with to_pil()",
            )
    return pair[0], pair[1]


def _device_cut(node: Node, value: float, pixels: int) -> tuple[int, int]:
    numerator, denominator = (value, 1) if isinstance(value, int) else value.as_integer_ratio()
    shift = denominator.bit_length() - 1
    if numerator * pixels >= 1 << 32:
        raise unsupported(
            node,
            f"autocontrast cutoff {value!r} with a mask or ignore needs n * {numerator} / "
            f"2**{shift} on the device, which is not exact in 32 bits for {pixels} pixels",
            "use a short binary cutoff (e.g. 2, 0.5, 49.5), drop mask and ignore, or "
            "evaluate with to_pil()",
        )
    return (0, 0) if shift >= 32 else (numerator, shift)  # n * p < 2**32 <= 2**shift: cut 0


def lower_autocontrast(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``ImageOps.autocontrast(image, cutoff, ignore, mask, preserve_tone)``."""
    src, mask = table_inputs(node, ins, "ImageOps.autocontrast")
    mode = ins[0][1].mode
    cutoffs = _cutoffs(node)
    ignored: tuple[int, ...] = node.params["ignored"]
    pixels = node.size[0] * node.size[1]
    cuts, device_cuts = None, None
    if cutoffs is not None and mask is None and node.params["ignore"] is None:
        # Pillow's own arithmetic on n = pixels; a cut above n trims everything, as n does
        cuts = (
            min(int(pixels * cutoffs[0] // 100), pixels),
            min(int(pixels * cutoffs[1] // 100), pixels),
        )
    elif cutoffs is not None:
        device_cuts = (_device_cut(node, cutoffs[0], pixels), _device_cut(node, cutoffs[1], pixels))
    hist_src, hist_bands = src, TABLE_BANDS[mode]
    if node.params["preserve_tone"]:
        if mode == "RGB":
            hist_src = convert.lower(program, src, node.size, "RGB", "L")
        hist_bands = 1
    bins = histogram.histogram(program, hist_src, node.size, bands=hist_bands, mask=mask)
    table = autocontrast_lut.autocontrast_lut(
        program,
        bins,
        hist_bands=hist_bands,
        out_bands=TABLE_BANDS[mode],
        ignored=ignored,
        cuts=cuts,
        device_cuts=device_cuts,
    )
    dst = program.image(node.size)
    lut.look_up(program, src, dst, table, node.size)  # reading the device-chosen table
    return dst


LOWERINGS: dict[str, Lowering] = {"autocontrast": lower_autocontrast}

ROUTES = (
    Route(
        operation="ImageOps.autocontrast",
        modes=AUTOCONTRAST_MODES,
        kernel="histogram+autocontrast_lut+lut",
        contexts=(
            "mask=None or an L mask of the same size; any ignore; preserve_tone; cutoff >= 0 (any"
            " int or float without mask and ignore; with either, cutoff = p / 2**k with p * "
            "pixels < 2**32, e.g. 2, 0.5, 49.5); lo/hi found on the device, table rows "
            "precomputed per pair (8 MB resident per device); RGB padding byte written as 0"
        ),
    ),
)
