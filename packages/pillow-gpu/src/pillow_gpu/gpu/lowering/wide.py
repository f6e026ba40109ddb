"""16- and 32-bit images (I;16, I;16B, I;16L, I, F): admission and ``convert``.

A wide image holds its value in the word (:mod:`pillow_gpu.gpu._layout`). Pillow treats such
pixels as opaque units in transpose, crop, paste (same mode), putpixel, expand (the fill
converted by Pillow itself on a probe), resize NEAREST or the same-size copy and the NEAREST
affine transform (``rotate`` included; the 16-bit modes through Pillow's generic double path,
see ``lowering.affine``), so those routes copy words (their lowerings live in ``geometry``,
``resample`` and ``affine``). Resizing I;16, I;16B, I;16L and I with the interpolating filters
is Pillow's double arithmetic, done in software on the GPU (``lowering.resample``); F's is
refused. ``split`` of these one-band images is a copy, and Pillow itself
rejects ``getchannel`` on them and ``reduce`` on the 16-bit modes; ``reduce`` of I and F
averages in double (I) or float (F) arithmetic (``Reduce.c``) and is refused. ``convert`` applies
Pillow's per-pixel converters of ``libImaging/Convert.c`` (``I16*_L`` and ``I16_RGB`` clip at
255, ``i2l`` to 0..255, ``f2l`` truncates inside 0..255, ``I_I16*`` clip to 0..65535, ``i2f``
rounds to nearest even, ``f2i`` truncates) as one ``convert_wide`` dispatch; a pair Pillow has
no converter for goes through L, as ``Image.convert`` does (``getmodebase``), the L -> target
step being the 8-bit ``convert`` route. Every other operation on a wide image is refused.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import WIDE16_MODES, WIDE_MODES, to_words
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import convert, convert_wide, resample_wide
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route

__all__ = ["LOWERINGS", "ROUTES", "WIDE_MODES", "check_wide", "lower_wide_convert"]

#: Operations that copy wide pixels as opaque units (resize and transform: NEAREST, checked by
#: their lowerings; resize also the same-size copy).
WIDE_COPIES = ("transpose", "crop", "expand", "paste", "putpixel", "resize", "transform")
_FIX = 'convert to L or RGB first (e.g. image.convert("L")), or evaluate with to_pil()'
_ALL = 0xFFFFFFFF
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
_MASKS = {"L": 0xFF, "I;16": 0xFFFF, "I;16L": 0xFFFF, "I;16B": 0xFFFF, "I": _ALL, "F": _ALL}


def _clamp(lo: int, hi: int) -> tuple[int, tuple[int, int, int]]:
    return convert_wide.CLAMP, (lo, hi, 0)


#: (source, target) -> (operation, args): Pillow's direct converters between L and wide modes.
_DIRECT: dict[tuple[str, str], tuple[int, tuple[int, int, int]]] = {
    **{(m, "L"): _clamp(0, 255) for m in WIDE16_MODES},  # I16L_L / I16B_L
    **{(m, "I"): _clamp(0, 65535) for m in WIDE16_MODES},  # I16L_I / I16B_I
    **{(m, "F"): (convert_wide.TO_F, (0, 0, 0)) for m in WIDE16_MODES},  # I16L_F / I16B_F
    **{("L", m): _clamp(0, 255) for m in WIDE16_MODES},  # L_I16L / L_I16B
    **{("I", m): _clamp(0, 65535) for m in WIDE16_MODES},  # I_I16L / I_I16B (CLIP16)
    ("I", "L"): _clamp(0, 255),  # i2l
    ("I", "F"): (convert_wide.TO_F, (0, 0, 0)),  # i2f
    ("L", "I"): _clamp(0, 255),  # l2i
    ("L", "F"): (convert_wide.TO_F, (0, 0, 0)),  # l2f
}


def check_wide(node: Node) -> None:
    """Reject an operation that reads or produces a wide image unless it has a wide route."""
    if node.is_leaf or node.cache.get() is not None:  # uploaded or filled: no operation runs
        return
    wide = sorted({node.mode, *(child.mode for child in node.inputs)} & set(WIDE_MODES))
    if not wide or node.op == "convert":
        return
    if node.op == "resize":
        source = node.inputs[0]
        same = node.size == source.size and tuple(node.params["box"]) == (0, 0, *source.size)
        if same or node.params["resample"] == PILImage.Resampling.NEAREST:
            return
        if source.mode in resample_wide.KINDS:  # Pillow's double passes (lowering.resample)
            return
        raise unsupported(
            node,
            f"resize of a mode {wide[0]} image is proven only for NEAREST (Pillow resamples "
            "F in doubles rounded to float32, with NaN and infinity payloads of its own)",
            fix="use Image.Resampling.NEAREST, " + _FIX,
        )
    if node.op == "reduce":
        if node.mode == "I":  # Pillow's doubles, in software (lowering.resample, reduce_wide)
            return
        raise unsupported(
            node,
            f"Image.reduce of a mode {wide[0]} image sums each block in float32 groups and "
            "doubles and stores float32 (Pillow's Reduce.c), which is not proven exact on "
            "the GPU",
            fix=_FIX,
        )
    if node.op == "filter" and node.mode in ("I", *WIDE16_MODES):
        return  # I's rank filters, the 16-bit modes' convolutions (lowering.filters)
    if node.op not in WIDE_COPIES:
        raise unsupported(
            node,
            f"operation {node.op!r} on a mode {wide[0]} image has no GPU route: 16/32-bit "
            f"images are admitted only for {', '.join(WIDE_COPIES)} (NEAREST) and convert()",
            fix=_FIX,
        )


@functools.cache
def _float_specials() -> tuple[int, tuple[int, int, int]] | None:
    """Live Pillow's f2l NaN result and f2i (NaN, >= 2^31, < -2^31) results, or None for f2i
    when the platform does not give one value per class (then F -> I is refused)."""
    values = [math.nan, -math.nan, math.inf, 3e9, 2.0**31, -math.inf, -3e9, -(2.0**32)]
    floats = PILImage.frombytes("F", (len(values), 1), np.array(values, "<f4").tobytes())
    as_l = floats.convert("L").tobytes()
    as_i = [int(word) for word in to_words(floats.convert("I"))]
    if as_l[0] != as_l[1] or len(set(as_i[0:2])) + len(set(as_i[2:5])) + len(set(as_i[5:])) > 3:
        return None
    return as_l[0], (as_i[0], as_i[2], as_i[5])


def _step(program: Program, node: Node, src: int, pair: tuple[str, str]) -> int:
    if pair == ("F", "L"):
        specials = _float_specials()
        if specials is None:  # pragma: no cover - platform dependent
            raise unsupported(node, "this Pillow's f2l NaN result is not uniform")
        op, args = convert_wide.F_TO_L, (specials[0], 0, 0)
    else:
        op, args = _DIRECT[pair]
    return convert_wide.lower(program, src, node.size, op, mask=_MASKS[pair[0]], args=args)


def lower_wide_convert(program: Program, node: Node, ins: Inputs) -> int:
    """``convert`` from or to a wide mode (Pillow's converter, or through L as Pillow does)."""
    src, source = ins[0]
    pair = (source.mode, node.mode)
    if node.params.get("matrix") is not None:
        raise unsupported(node, f"convert({node.mode!r}, matrix) of {source.mode} is not proven")
    if node.mode in ("LA", "RGBA", "La", "RGBa", "PA") and "transparency" in source.info:
        key = _transparent_key(node.mode, source)
        if key is not None:  # Pillow's convert_transparent: I16_RGB / i2rgb, then rgbT2a
            gray = _step(program, node, src, (source.mode, "L"))
            return convert.lower(program, gray, node.size, "L", node.mode, transparent=key)
        raise unsupported(
            node,
            f"conversion {pair[0]} -> {pair[1]} with info['transparency'] (Pillow's "
            "convert_transparent) is not proven on the GPU",
            fix="remove info['transparency'] first, or evaluate with to_pil()",
        )
    if pair == ("F", "I"):
        specials = _float_specials()
        if specials is None:  # pragma: no cover - platform dependent
            raise unsupported(node, "this Pillow's f2i out-of-range results are not uniform")
        op, args = convert_wide.F_TO_I, specials[1]
        return convert_wide.lower(program, src, node.size, op, mask=_ALL, args=args)
    if pair in _DIRECT or pair == ("F", "L"):
        return _step(program, node, src, pair)
    if source.mode in WIDE_MODES:  # no converter: Pillow converts to getmodebase (L) first
        if ("L", node.mode) in _DIRECT:
            gray = _step(program, node, src, (source.mode, "L"))
            return _step(program, node, gray, ("L", node.mode))
        if ("L", node.mode) in convert.CONVERSIONS:
            gray = _step(program, node, src, (source.mode, "L"))
            return convert.lower(program, gray, node.size, "L", node.mode)
    raise unsupported(
        node,
        f"conversion {pair[0]} -> {pair[1]} is not proven on the GPU (the 16/32-bit pairs "
        "admitted are listed in docs/routes.md)",
        fix=f'convert to L first, e.g. image.convert("L").convert("{pair[1]}"), or evaluate '
        "with to_pil()",
    )


def _transparent_key(target: str, source: Node) -> tuple[int, int, int] | None:
    """The colour ``convert_transparent`` keys an I;16 or I image's LA/RGBA ``target`` on, or
    None where Pillow takes another path (the other wide modes, the premultiplied targets).

    Pillow converts the pixels as ``convert("L")`` does (clipped to 0..255, copied to the
    colour bands) and gives alpha 0 to the pixels equal to the key's low byte in all three
    (``rgbT2a``: C keeps ``r & 0xff`` of the int).
    """
    value = source.info["transparency"]
    if source.mode not in ("I;16", "I") or target not in ("LA", "RGBA"):
        return None
    if type(value) is not int or not _I32_MIN <= value <= _I32_MAX:
        return None
    return (value & 0xFF,) * 3


def _admitted_pairs() -> str:
    direct = [f"{a}->{b}" for a, b in (*_DIRECT, ("F", "L"), ("F", "I"))]
    return ", ".join(direct) + "; other wide sources -> L -> the L routes of convert"


_PAIRS = _admitted_pairs()

LOWERINGS: dict[str, Lowering] = {}  # convert is dispatched by lowering.convert's _convert

ROUTES = (
    Route(
        operation="convert from/to 16/32-bit (Pillow's Convert.c)",
        modes=WIDE_MODES,
        kernel="convert_wide(+convert)",
        contexts="pairs: " + _PAIRS + " (e.g. I;16->RGB clips at 255); f2l/f2i NaN and "
        "out-of-range results as this Pillow gives them; info['transparency'] (an int) of "
        "I;16 and I to LA/RGBA keyed on its low byte as Pillow's convert_transparent does, "
        "of the other wide modes refused",
    ),
    Route(
        operation="resize NEAREST / same-size copy (16/32-bit)",
        modes=WIDE_MODES,
        kernel="resize_nearest / affine_nearest",
        contexts="any size and box; I;16/I;16B/I;16L through Pillow's generic transform "
        "formula (host tables); the interpolating filters: see resize (16/32-bit); F refused",
    ),
    Route(
        operation="split (16/32-bit)",
        modes=WIDE_MODES,
        kernel="none (the same node)",
        contexts="one band: a copy of the image, as in Pillow (getchannel raises Pillow's "
        "ValueError; reduce of I/F refused, of I;16* Pillow's ValueError)",
    ),
    Route(
        operation="leaf upload (16-bit)",
        modes=WIDE16_MODES,
        kernel="unpack/pack16",
        contexts="Pillow's two stored bytes per pixel uploaded and widened on the device; "
        "results packed back in the mode's byte order",
    ),
)
