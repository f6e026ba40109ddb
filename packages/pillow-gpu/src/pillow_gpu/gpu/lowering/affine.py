"""Planner lowering of ``Image.transform`` (and so ``Image.rotate``): AFFINE with NEAREST, and
the generic transform (AFFINE with BILINEAR or BICUBIC, QUAD with all three).

Pillow's ``ImagingTransformAffine`` (Geometry.c) picks one of three paths for NEAREST on 8-bit
and 32-bit (I, F) images: ``ImagingScaleAffine`` when ``a[1] == 0 and a[3] == 0`` (index
tables from a double walk, replayed here on the host in the same IEEE double order),
``affine_fixed`` when all four output corners map within +-32768 (``check_fixed``; 16.16
fixed-point integer arithmetic after the host computes Pillow's ``FIX()`` constants in double),
else a double-precision walk. The first two are integer-exact on the device.

The 16-bit modes (I;16, I;16B, I;16L; ``IMAGING_TYPE_SPECIAL``) always take
``ImagingGenericTransform``: per output pixel ``xx = a0*(x+0.5) + a1*(y+0.5) + a2`` (likewise
``yy``) in unfused IEEE double, then ``COORD`` and a bounds check. The host evaluates that
formula with numpy in the same order (:func:`generic_coordinates`): as column and row tables
when ``a[1] == a[3] == 0`` (``a1*(y+0.5)`` is then +-0 for every row, so ``xx`` depends on
``x`` alone), else as one source index per output pixel (at most
:data:`MAX_PIXEL_TABLE` pixels). A one-time probe of live Pillow checks that its build does
not fuse the multiply-adds.

BILINEAR and BICUBIC on L, LA, RGB, RGBA, CMYK and RGBX also take
``ImagingGenericTransform`` (with Pillow's bilinear and bicubic filters; LA/RGBA premultiplied
around it as Pillow converts them to La/RGBa), and so does QUAD with every filter (its eight
coefficients computed as Pillow's Python computes them): generic_transform computes the
coordinates and the sampling in software binary64 on the device, so no host table is needed.
Pillow filters I;16, I;16L and I;16B with its 8-bit filters over the rows' stored bytes
(``getfilter`` picks by storage, and the 2-byte modes keep 8-bit rows), each result byte
becoming the output pixel's first stored byte: the L route runs on those bytes
(``kernels.wide16_bytes``), after a probe of live Pillow confirms the behaviour.
EXTENT is recorded as the affine map Pillow makes of it. Everything else (the filters on the
other modes, the double fallback of the 8/32-bit modes, PERSPECTIVE, MESH) is rejected at
admission.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import (
    BAND_TWINS,
    INDEXED_MODES,
    LIMITED_MODES,
    NATIVE_MODES,
    WIDE16_MODES,
    WIDE_MODES,
    ink,
)
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import affine_nearest, generic_transform, premultiply, wide16_bytes
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Lowering, Route
from pillow_gpu.gpu.lowering._platform import (
    filters_16bit_bytes,
    filters_wrap_int32,
    int_out_of_range,
)

__all__ = [
    "LOWERINGS",
    "MAX_PIXEL_TABLE",
    "ROUTES",
    "fixed_constants",
    "generic_coordinates",
    "generic_scale_tables",
    "lower_transform",
    "quad_coefficients",
    "scale_table",
]


_FIX_LIMIT = 2**31
#: Most output pixels of a 16-bit transform whose source index table is built per pixel.
MAX_PIXEL_TABLE = 1 << 22
#: Output pixels per numpy chunk of the per-pixel table (bounds the host temporaries).
_CHUNK_PIXELS = 1 << 18


def scale_table(offset: float, step: float, source: int, count: int) -> npt.NDArray[np.int64]:
    """ImagingScaleAffine's table: v = offset + step * 0.5, then v += step; -1 outside."""
    table = np.full(count, -1, dtype=np.int64)
    position = offset + step * 0.5
    for i in range(count):
        # COORD(v): v < 0 -> -1, else (int)v; non-finite values land outside as in C.
        if math.isfinite(position) and 0 <= position < source:
            table[i] = int(position)
        position += step
    return table


def _check_fixed(a: Sequence[float], x: int, y: int) -> bool:
    return abs(x * a[0] + y * a[1] + a[2]) < 32768.0 and abs(x * a[3] + y * a[4] + a[5]) < 32768.0


def _fix(value: float) -> int:
    return math.floor(value * 65536.0 + 0.5)


def fixed_constants(
    a: Sequence[float], size: tuple[int, int]
) -> tuple[int, int, int, int, int, int] | None:
    """``affine_fixed``'s (a0, a1, a2, a3, a4, a5), or None where Pillow takes another path."""
    w, h = size
    if not all(_check_fixed(a, x, y) for x, y in ((0, 0), (w, h), (0, h), (w, 0))):
        return None
    return (
        _fix(a[0]),
        _fix(a[1]),
        _fix(a[2] + a[0] * 0.5 + a[1] * 0.5),
        _fix(a[3]),
        _fix(a[4]),
        _fix(a[5] + a[3] * 0.5 + a[4] * 0.5),
    )


def generic_coordinates(
    a: Sequence[float], xs: npt.ArrayLike, ys: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``affine_transform``'s (xx, yy) for output columns ``xs`` by rows ``ys`` (2-D arrays).

    The C order, unfused: ``(a0*xin + a1*yin) + a2`` with ``xin = x + 0.5``.
    """
    xin = np.asarray(xs, dtype=np.float64) + 0.5
    yin = np.asarray(ys, dtype=np.float64) + 0.5
    with np.errstate(over="ignore", invalid="ignore"):
        xx = (a[0] * xin)[None, :] + (a[1] * yin)[:, None]
        yy = (a[3] * xin)[None, :] + (a[4] * yin)[:, None]
        return xx + a[2], yy + a[5]


def _coord(values: npt.NDArray[np.float64], limit: int) -> npt.NDArray[np.int64]:
    """``COORD`` then the bounds check: ``(int)v`` where ``0 <= v < limit``, else -1.

    Infinities and values past int32 fall outside on every platform; NaN must be refused
    before (C's ``(int)NaN`` is platform-defined).
    """
    inside = (values >= 0) & (values < limit)
    return np.where(inside, np.where(inside, values, 0).astype(np.int64), -1)


def generic_scale_tables(
    a: Sequence[float], src_size: tuple[int, int], size: tuple[int, int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Column and row tables of the generic path for ``a[1] == a[3] == 0``; None on NaN."""
    xx, _ = generic_coordinates(a, np.arange(size[0]), np.zeros(1))
    _, yy = generic_coordinates(a, np.zeros(1), np.arange(size[1]))
    if np.isnan(xx).any() or np.isnan(yy).any():
        return None
    return _coord(xx[0], src_size[0]), _coord(yy[:, 0], src_size[1])


def _generic_pixel_table(
    a: Sequence[float], src_size: tuple[int, int], size: tuple[int, int]
) -> npt.NDArray[np.int64] | None:
    """Source index ``sy * src_w + sx`` (or -1) per output pixel, row-major; None on NaN."""
    columns = np.arange(size[0])
    step = max(1, _CHUNK_PIXELS // size[0])
    chunks = []
    for top in range(0, size[1], step):
        xx, yy = generic_coordinates(a, columns, np.arange(top, min(size[1], top + step)))
        if np.isnan(xx).any() or np.isnan(yy).any():
            return None
        sx, sy = _coord(xx, src_size[0]), _coord(yy, src_size[1])
        chunks.append(np.where((sx >= 0) & (sy >= 0), sy * src_size[0] + sx, -1).ravel())
    return np.concatenate(chunks)


#: A matrix whose unfused and fused (fma) evaluations pick different columns at (3, 4).
_FMA_PROBE = ((-0.1, 0.3, 1.0, 0.0, 0.0, 0.5), (4, 1), (4, 5))


@functools.cache
def _pillow_is_unfused() -> bool:
    """Whether live Pillow's generic transform matches the unfused host formula."""
    a, src_size, size = _FMA_PROBE
    source = PILImage.frombytes("I;16", src_size, np.arange(4, dtype="<u2").tobytes())
    out = source.transform(size, PILImage.Transform.AFFINE, a, PILImage.Resampling.NEAREST)
    table = _generic_pixel_table(a, src_size, size)
    got = np.frombuffer(out.tobytes(), dtype="<u2").astype(np.int64)
    # each source pixel holds its column; outside pixels are 0 (no fillcolor)
    return table is not None and bool(np.array_equal(got, np.maximum(table, 0)))


def _check_unfused(node: Node, *, fix: str) -> None:
    """Refuse the generic transform where live Pillow fuses its multiply-adds."""
    if not _pillow_is_unfused():  # pragma: no cover - platform dependent
        raise unsupported(
            node,
            "this Pillow build evaluates the generic transform with fused multiply-adds, "
            "which the GPU route does not replay",
            fix=fix,
        )


def _perspective_refusal(a: Sequence[float], size: tuple[int, int]) -> str | None:
    """What of ``perspective_transform``'s doubles at some output pixel is not a normal double
    (or zero): a denominator a6 xx + a7 yy + 1, a numerator or a quotient; None when all are.
    The numerators and the denominator are affine forms in Pillow's order
    (:func:`generic_coordinates`), and numpy's float64 division rounds as C's."""
    tiny = np.finfo(np.float64).tiny
    columns = np.arange(size[0])
    step = max(1, _CHUNK_PIXELS // size[0])

    def regular(values: npt.NDArray[np.float64], zero: bool) -> bool:
        return bool(
            (np.isfinite(values) & ((zero & (values == 0)) | (np.abs(values) >= tiny))).all()
        )

    with np.errstate(all="ignore"):
        for top in range(0, size[1], step):
            rows = np.arange(top, min(size[1], top + step))
            denominator, _ = generic_coordinates((a[6], a[7], 1.0, 0, 0, 0), columns, rows)
            if not regular(denominator, zero=False):
                return "a denominator that is zero, infinite or subnormal"
            for numerator in generic_coordinates(a[:6], columns, rows):
                if not regular(numerator, zero=True):
                    return "a numerator that is infinite or subnormal"
                if not regular(numerator / denominator, zero=True):
                    return "a source coordinate that is infinite or subnormal"
    return None


def _int_filters(node: Node) -> tuple[int, int]:
    """What the I filters' (INT32) cast gives out of range; ``Unsupported`` where live Pillow's
    row arithmetic or cast is not the one replayed (the C standard leaves both open)."""
    found = int_out_of_range()
    if found is None or not filters_wrap_int32():  # pragma: no cover - platform dependent
        raise unsupported(
            node,
            "this Pillow build's BILINEAR/BICUBIC filters of I images overflow or cast "
            "differently from the replayed x86-64 behaviour (int32 wrap, one out-of-range "
            "value)",
            fix="use NEAREST, or evaluate with to_pil()",
        )
    return found


def _nan_refusal(node: Node) -> Exception:
    return unsupported(
        node,
        "this matrix gives NaN source coordinates, which C's (int) conversion maps "
        "differently per platform",
        fix="use a finite matrix, or evaluate with to_pil()",
    )


def _lower_generic(
    program: Program, node: Node, src: int, src_size: tuple[int, int], *, a: list[float], fill: int
) -> int:
    """The 16-bit modes: ``ImagingGenericTransform`` with the nearest filter."""
    _check_unfused(node, fix='convert("I") before the transform, or evaluate with to_pil()')
    if a[1] == 0 and a[3] == 0:
        tables = generic_scale_tables(a, src_size, node.size)
        if tables is None:
            raise _nan_refusal(node)
        return affine_nearest.lower_scale(
            program, src, src_size, node.size, tables=tables, fill=fill
        )
    pixels = node.size[0] * node.size[1]
    if pixels > MAX_PIXEL_TABLE:
        raise unsupported(
            node,
            f"a rotated or sheared 16-bit transform needs one host index per output pixel; "
            f"{pixels} pixels exceed the {MAX_PIXEL_TABLE} bound",
            fix="transform a smaller image or tile, or evaluate with to_pil()",
        )
    table = _generic_pixel_table(a, src_size, node.size)
    if table is None:
        raise _nan_refusal(node)
    return affine_nearest.lower_gather(program, src, src_size, node.size, table=table, fill=fill)


#: Modes whose BILINEAR and BICUBIC transforms run on the device (generic_transform; LA and
#: RGBA through La and RGBa, as Pillow converts them; the limited modes by their band twins).
_FILTERED_MODES = (*generic_transform.KINDS, *LIMITED_MODES, *WIDE16_MODES, "PA")
#: Modes filtered as another mode's bands (Pillow picks its filter by band count): the
#: limited modes' twins, and PA, whose index (bytes 0..2) and alpha (byte 3) are La's layout.
_FILTER_TWINS = {**BAND_TWINS, "PA": "LA"}
_FILTERS = (PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC)
#: Modes whose NEAREST quad warp runs on the device (the source word is copied).
_QUAD_NEAREST_MODES = (*NATIVE_MODES, *LIMITED_MODES, *WIDE_MODES, *INDEXED_MODES, "PA")
#: Multiplied coefficients are 0 or within these magnitudes and the offsets (affine a2, a5;
#: quad a0, a4) any normal double below the upper one: every product, sum and fraction then
#: stays a normal double, as the software arithmetic assumes (the products are 0 or at least
#: 2**-500, so their sums are 0 or at least 2**-552 and an offset is either the coordinate or
#: far below it).
_COEFFICIENT_RANGE = (2.0**-500, 2.0**500)
_SMALLEST_NORMAL = 2.0**-1022
#: Which coefficients of each map are offsets (the others are multiplied).
_OFFSETS = {"affine": (2, 5), "quad": (0, 4), "perspective": (2, 5)}


def quad_coefficients(data: Sequence[float], size: tuple[int, int]) -> tuple[float, ...]:
    """The quad warp's eight coefficients from the corners NW, SW, SE, NE, in the Python
    arithmetic of Pillow's ``Image.__transformer`` (ints stay ints where Pillow's do)."""
    nw, sw, se, ne = data[0:2], data[2:4], data[4:6], data[6:8]
    x0, y0 = nw
    step_x = 1.0 / size[0]
    step_y = 1.0 / size[1]
    return (
        x0,
        (ne[0] - x0) * step_x,
        (sw[0] - x0) * step_y,
        (se[0] - sw[0] - ne[0] + x0) * step_x * step_y,
        y0,
        (ne[1] - y0) * step_x,
        (sw[1] - y0) * step_y,
        (se[1] - sw[1] - ne[1] + y0) * step_x * step_y,
    )


def _lower_generic_map(
    program: Program, node: Node, src: int, src_node: Node, *, map_name: str, a: list[float]
) -> int:
    """``ImagingGenericTransform`` through the affine or quad map with Pillow's filters."""
    mode = src_node.mode
    resample = int(node.params["resample"])
    filtered = resample != PILImage.Resampling.NEAREST
    modes = _FILTERED_MODES if filtered else _QUAD_NEAREST_MODES
    if mode not in modes:
        name = PILImage.Resampling(resample).name
        proven = "NEAREST is" if name == "NEAREST" else "BILINEAR and BICUBIC are"
        raise unsupported(
            node,
            f"transform ({map_name} map) with {name} of a mode {mode} image is not proven "
            f"exact on the GPU ({proven} proven for {', '.join(modes)})",
            fix="convert to one of those modes first, use NEAREST where it is proven, or "
            "evaluate with to_pil()",
        )
    low, high = _COEFFICIENT_RANGE
    offsets = _OFFSETS[map_name]
    lows = [_SMALLEST_NORMAL if i in offsets else low for i in range(len(a))]
    if not all(v == 0 or least <= abs(v) < high for v, least in zip(a, lows, strict=True)):
        raise unsupported(  # NaN and infinities fail the test too
            node,
            f"the {map_name} map's coefficients (the transform matrix) are proven on the GPU "
            f"for finite values of magnitude {low:g} to {high:g} (or 0; the offsets any normal "
            f"double below {high:g}); observed {tuple(a)}",
            fix="use such coefficients, or evaluate with to_pil()",
        )
    _check_unfused(node, fix="evaluate with to_pil()")
    if filtered and mode in WIDE16_MODES:
        return _lower_wide16_filtered(program, node, src, src_node, map_name=map_name, a=a)
    out_of_range = (0, 0)
    if mode == "I" and filtered:
        out_of_range = _int_filters(node)
    premultiplied = mode in ("LA", "RGBA") and filtered
    work_mode = {"LA": "La", "RGBA": "RGBa"}[mode] if premultiplied else mode
    colour = node.params["fillcolor"]
    fill = 0 if colour is None else ink(work_mode, colour)
    current = src
    if premultiplied:
        current = premultiply.lower(program, src, src_node.size, mode, unpremultiply=False)
    kind = generic_transform.KINDS.get(_FILTER_TWINS.get(mode, mode), 4)  # by band count
    out = _sampled(
        program,
        node,
        current,
        src_node,
        kind=kind,
        fill=fill,
        map_name=map_name,
        a=a,
        out_of_range=out_of_range,
    )
    if premultiplied:
        out = premultiply.lower(program, out, node.size, mode, unpremultiply=True)
    return out


def _lower_wide16_filtered(
    program: Program, node: Node, src: int, src_node: Node, *, map_name: str, a: list[float]
) -> int:
    """A filtered transform of I;16, I;16L or I;16B as Pillow runs it: its 8-bit filter over
    the rows' stored bytes, each result byte stored as the output pixel's first byte
    (:mod:`~pillow_gpu.gpu.kernels.wide16_bytes`), the other byte the fill's."""
    if not filters_16bit_bytes():  # a Pillow that filters 16-bit values otherwise
        raise unsupported(
            node,
            f"this Pillow's filtered transform of a {src_node.mode} image is not the 8-bit "
            "filter over the rows' stored bytes that the GPU route replays",
            fix="evaluate with to_pil()",
        )
    big = src_node.mode == "I;16B"
    colour = node.params["fillcolor"]
    fill = 0 if colour is None else ink(src_node.mode, colour) & 0xFFFF
    first, other = (fill >> 8, fill & 0xFF) if big else (fill & 0xFF, fill & 0xFF00)
    stored = wide16_bytes.to_bytes(program, src, src_node.size, big_endian=big)
    kind = generic_transform.KINDS["L"]
    out = _sampled(program, node, stored, src_node, kind=kind, fill=first, map_name=map_name, a=a)
    return wide16_bytes.from_bytes(program, out, node.size, big_endian=big, keep=other)


def _sampled(
    program: Program,
    node: Node,
    src: int,
    src_node: Node,
    *,
    kind: int,
    fill: int,
    map_name: str,
    a: list[float],
    out_of_range: tuple[int, int] = (0, 0),
) -> int:
    """``generic_transform`` of ``src`` (``src_node``'s size) to transform ``node``'s size,
    with its map and filter."""
    return generic_transform.lower(
        program,
        src,
        src_node.size,
        node.size,
        kind=kind,
        map_name=map_name,
        coefficients=tuple(a),
        fill=fill,
        resample=int(node.params["resample"]),
        out_of_range=out_of_range,
    )


def lower_transform(program: Program, node: Node, ins: list[tuple[int, Node]]) -> int:
    """Lower ``Image.transform(size, AFFINE or QUAD, data, resample, fillcolor=...)``."""
    ((src, src_node),) = ins
    params = node.params
    method = params["method"]
    if method == PILImage.Transform.QUAD:
        a = [float(v) for v in quad_coefficients(params["data"], node.size)]
        return _lower_generic_map(program, node, src, src_node, map_name="quad", a=a)
    if method == PILImage.Transform.PERSPECTIVE:
        a = [float(v) for v in params["data"][:8]]
        refusal = _perspective_refusal(a, node.size)
        if refusal is not None:
            raise unsupported(
                node,
                f"the perspective map {tuple(a)} gives {refusal} at some output pixel, where "
                "the software doubles of the GPU route are not proven",
                fix="use a map whose horizon lies outside the output, or evaluate with to_pil()",
            )
        return _lower_generic_map(program, node, src, src_node, map_name="perspective", a=a)
    if method != PILImage.Transform.AFFINE:
        name = PILImage.Transform(method).name
        raise unsupported(node, f"transform method {name} has no proven GPU route")
    a = [float(v) for v in params["data"][:6]]
    colour = params["fillcolor"]
    if params["resample"] in _FILTERS:
        return _lower_generic_map(program, node, src, src_node, map_name="affine", a=a)
    if params["resample"] != PILImage.Resampling.NEAREST:
        name = PILImage.Resampling(params["resample"]).name
        raise unsupported(node, f"transform/rotate with {name} has no proven GPU route")
    fill = 0 if colour is None else ink(node.mode, colour)
    if src_node.mode in WIDE16_MODES:
        return _lower_generic(program, node, src, src_node.size, a=a, fill=fill)
    if a[1] == 0 and a[3] == 0:
        xs = scale_table(a[2], a[0], src_node.size[0], node.size[0])
        ys = scale_table(a[5], a[4], src_node.size[1], node.size[1])
        return affine_nearest.lower_scale(
            program, src, src_node.size, node.size, tables=(xs, ys), fill=fill
        )
    fixed = fixed_constants(a, node.size)
    if fixed is None or any(abs(v) >= _FIX_LIMIT for v in fixed):
        raise unsupported(
            node,
            "this affine matrix maps an output corner outside +-32768 (or overflows 16.16), "
            "where Pillow uses its double-precision walk, which is not proven on the GPU",
            fix="use a matrix whose output corners map within +-32768, or evaluate with to_pil()",
        )
    return affine_nearest.lower_fixed(
        program, src, src_node.size, node.size, fixed=fixed, fill=fill
    )


LOWERINGS: dict[str, Lowering] = {"transform": lower_transform}

ROUTES = (
    Route(
        operation="Image.transform AFFINE / Image.rotate (NEAREST)",
        modes=(*NATIVE_MODES, *LIMITED_MODES, *WIDE_MODES),
        kernel="affine_nearest",
        contexts=(
            "NEAREST only; Pillow's scale path (a[1] == a[3] == 0, host index tables) and its "
            "16.16 fixed-point path (all corners within +-32768); I;16/I;16B/I;16L take "
            "Pillow's generic double path (host column/row tables, or one index per output "
            f"pixel up to {MAX_PIXEL_TABLE} pixels; NaN coordinates refused); fillcolor None "
            "(0) or any colour (as Image.new converts it); rotate's 0/90/180/270 shortcuts are "
            "copies/transposes; the double fallback of the other modes and other methods "
            "rejected"
        ),
    ),
    Route(
        operation="Image.transform AFFINE / Image.rotate (BILINEAR, BICUBIC)",
        modes=_FILTERED_MODES,
        kernel="generic_transform (+premultiply)",
        contexts=(
            "any size, angle, center, translate, expand and fillcolor; matrix entries 0 or of "
            "magnitude 2**-500..2**500 (offsets: normal doubles); Pillow's generic transform "
            "and its filters in "
            "software binary64 (an FMA-fused Pillow build refused); LA/RGBA premultiplied "
            "around it as Pillow converts them; YCbCr, HSV and LAB filtered as three bands "
            "(byte 3 the fill's, as Image.new fills it), La and RGBa as two and four bands "
            "as they are, as Pillow picks its filter by band count; I in C ints and "
            "doubles as Pillow's filter32I (a row's int differences wrap, the result is "
            "truncated, out-of-range values cast as this platform does, both probed on live "
            "Pillow); I;16, I;16L and I;16B as Pillow filters them, with its 8-bit filters "
            "over the rows' stored bytes, each result byte the pixel's first stored byte and "
            "the other the fill's (probed on live Pillow); PA as two bands, its palette "
            "index and alpha averaged as Pillow does, the palette kept"
        ),
    ),
    Route(
        operation="Image.transform QUAD (NEAREST, BILINEAR, BICUBIC)",
        modes=_QUAD_NEAREST_MODES,
        kernel="generic_transform (+premultiply)",
        contexts=(
            "Pillow's quad_transform coefficients (its Python arithmetic) and the generic "
            "transform in software binary64; NEAREST copies source words in every mode "
            "listed, BILINEAR and BICUBIC in "
            + ", ".join(_FILTERED_MODES)
            + "; coefficients as for the affine map"
        ),
    ),
    Route(
        operation="Image.transform PERSPECTIVE (NEAREST, BILINEAR, BICUBIC)",
        modes=_QUAD_NEAREST_MODES,
        kernel="generic_transform (+premultiply)",
        contexts=(
            "Pillow's perspective_transform, (a0 xx + a1 yy + a2) / (a6 xx + a7 yy + 1) and "
            "likewise y, with its double division in software binary64 (restoring division, "
            "round to nearest even); NEAREST in every mode listed, BILINEAR and BICUBIC in "
            + ", ".join(_FILTERED_MODES)
            + "; coefficients as for the affine map, and every denominator, numerator and "
            "source coordinate of the output a normal double or zero (checked on the host: a "
            "horizon crossing the output is refused)"
        ),
    ),
)
