"""Per-byte lookup kernel: copy, invert, point, solarize, posterize, brightness."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from pillow_gpu.gpu._layout import BYTE_BANDS
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import invert
from pillow_gpu.gpu.kernels.chops import blend_bytes

__all__ = ["IDENTITY", "look_up", "lower", "tables_for"]

IDENTITY = np.arange(256, dtype=np.int64)
_ZERO = np.zeros(256, dtype=np.int64)
#: The band of each stored byte: the native layouts', and P and 1 words, which repeat their
#: one stored byte (the index, 1's 0/255) in all four bytes.
_BYTE_BANDS = {**BYTE_BANDS, "P": (0, 0, 0, 0), "1": (0, 0, 0, 0)}


def _from_band_tables(
    mode: str, bands: Sequence[npt.NDArray[np.int64]], padding: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    rows = [padding if band is None else bands[band] for band in _BYTE_BANDS[mode]]
    return np.stack(rows)


def _brightness(factor: float) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(colour, alpha) tables of Image.blend(degenerate, image, factor), as Pillow blends.

    The degenerate image is black with the image's own alpha: colour bytes blend 0 with v,
    alpha bytes v with v, which is v for a finite float32 factor and 0 for an infinite or NaN
    one (v + inf * 0 is NaN, and Pillow's cast of NaN gives 0).
    """
    values = np.arange(256, dtype=np.float32)
    return blend_bytes(factor, np.zeros(256, dtype=np.float32), values), blend_bytes(
        factor, values, values
    )


def tables_for(op: str, mode: str, params: Mapping[str, Any]) -> npt.NDArray[np.int64]:
    """The (4, 256) per-stored-byte table Pillow's operation amounts to."""
    if op == "chops_invert":
        return np.stack([255 - IDENTITY] * 4)
    if op == "brightness":
        scaled, kept = _brightness(params["factor"])
        alpha = "A" in mode
        bands = [scaled, scaled, scaled, kept if alpha else scaled]
        if mode == "LA":
            bands = [scaled, kept]
        return _from_band_tables(mode, bands, scaled)
    nbands = len(set(_BYTE_BANDS[mode]) - {None})
    if op == "invert":
        band = 255 - IDENTITY
    elif op == "solarize":
        band = np.where(params["threshold"] > IDENTITY, IDENTITY, 255 - IDENTITY)
    elif op == "posterize":
        band = IDENTITY & ~(2 ** (8 - params["bits"]) - 1)
    else:  # point: 256 entries per band, Python rounding, clamped
        values = np.asarray(params["lut"])
        if values.dtype.kind in "iu":  # plain ints: round() is the identity
            flat = values.astype(np.int64)
        else:
            flat = np.array([round(v) for v in params["lut"]], dtype=np.int64)
        flat = np.clip(flat, 0, 255)
        return _from_band_tables(
            mode, [flat[256 * b : 256 * (b + 1)] for b in range(nbands)], _ZERO
        )
    return _from_band_tables(mode, [band] * nbands, _ZERO)


def lower(program: Program, src: int, size: tuple[int, int], table: npt.NDArray[np.int64]) -> int:
    """Record one lookup dispatch from ``src``; return the output buffer.

    A lookup of a lookup's output composes the two tables (per stored byte, ``second[first]``)
    and reads the first one's source: consecutive per-byte operations are one dispatch (the
    planner prunes the first when nothing else reads it). An inverting table (see
    :mod:`.invert`) runs as a bitwise not, without table reads.
    """
    prior = program.lookups.get(src)
    if prior is not None:
        src, first = prior
        table = np.take_along_axis(table, first, axis=1)
    mask = invert.inversion_mask(table)
    if mask is not None:
        dst = invert.lower(program, src, size, mask)
    else:
        dst = program.image(size)
        look_up(program, src, dst, program.table(table.reshape(-1)), size)
    program.lookups[dst] = (src, table)
    return dst


def look_up(program: Program, src: int, dst: int, table: int, size: tuple[int, int]) -> None:
    """Record the lookup of every stored byte of ``src`` (a word grid of ``size``) into
    ``dst`` through the (4, 256) table in buffer ``table``, one vec4 word per invocation."""
    words = size[0] * size[1]
    program.dispatch(
        "lut",
        words=(words, 0, 0),
        bindings=(src, dst, table),
        grid=(-(-words // 4), 1),
        invocation_work=4,
        linear=True,
    )
