"""YCbCr, La and RGBa images: admission, and ``convert`` to or from them.

These modes are stored like RGB (YCbCr, its padding byte included), LA (La) and RGBA (RGBa)
(:mod:`pillow_gpu.gpu._layout`). Pillow moves their pixels as opaque words in transpose,
crop, expand, paste (same mode), putpixel, resize NEAREST (or the same-size copy) and
transform AFFINE NEAREST, reads their bands by stored byte in getchannel and writes them in
merge, so those routes take them (their lowerings live in ``geometry``, ``resample``,
``affine``, ``convert`` and ``bands``). ``convert`` replays ``Image.convert``: Pillow's direct
converter of ``libImaging/Convert.c`` where it has one, else the detour through
``getmodebase`` (RGB) that ``Image.convert`` takes, each step one dispatch (``convert_ycbcr``
for RGB <-> YCbCr, ``premultiply`` for LA/RGBA <-> La/RGBa, ``convert`` for the byte
selections). A P or 1 image converts to YCbCr through Pillow's own 256-entry table. Every
other operation on these modes is refused, and so are the HSV and LAB modes altogether.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import convert, convert_ycbcr, lut, premultiply
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route
from pillow_gpu.gpu.lowering.indexed import palette_table

__all__ = [
    "LIMITED_COPIES",
    "LOWERINGS",
    "ROUTES",
    "UNPROVEN_MODES",
    "admitted_pairs",
    "check_limited",
    "lower_indexed_to_limited",
    "lower_limited_convert",
]

#: Operations that move YCbCr/La/RGBa words unchanged or read/write their bands by byte
#: (resize: NEAREST or the same-size copy; transform: AFFINE with NEAREST).
LIMITED_COPIES = (
    "convert",
    "transpose",
    "crop",
    "expand",
    "paste",
    "putpixel",
    "resize",
    "transform",
    "getchannel",
    "merge",
)

#: Modes Pillow converts to and from that have no GPU layout, and why.
UNPROVEN_MODES = {
    "HSV": "mode HSV is not a native GPU layout: Pillow's rgb2hsv/hsv2rgb compute hue and "
    "saturation in floating point (float and double, fmod and round), not proven exact on "
    "the GPU",
    "LAB": "mode LAB is not a native GPU layout: Pillow converts to and from LAB through "
    "LittleCMS (ImageCms sRGB <-> LAB transforms), whose arithmetic the GPU path does not "
    "reproduce",
}

_FIX = 'convert to RGB, RGBA or LA first (e.g. image.convert("RGB")), or evaluate with to_pil()'

_Step = Callable[[Program, int, tuple[int, int]], int]


def _select(source: str, target: str) -> _Step:
    def step(program: Program, src: int, size: tuple[int, int]) -> int:
        return convert.lower(program, src, size, source, target)

    return step


def _ycbcr(*, to_rgb: bool) -> _Step:
    def step(program: Program, src: int, size: tuple[int, int]) -> int:
        return convert_ycbcr.lower(program, src, size, to_rgb=to_rgb)

    return step


def _premultiply(mode: str, *, undo: bool) -> _Step:
    def step(program: Program, src: int, size: tuple[int, int]) -> int:
        return premultiply.lower(program, src, size, mode, unpremultiply=undo)

    return step


#: Pillow's direct converters (Convert.c) with YCbCr, La or RGBa on one side, as steps.
_DIRECT: dict[tuple[str, str], tuple[_Step, ...]] = {
    ("RGB", "YCbCr"): (_ycbcr(to_rgb=False),),  # ImagingConvertRGB2YCbCr: byte 3 kept
    ("RGBA", "YCbCr"): (_ycbcr(to_rgb=False),),  # alpha becomes YCbCr's padding byte
    ("RGBX", "YCbCr"): (_ycbcr(to_rgb=False),),
    ("YCbCr", "RGB"): (_ycbcr(to_rgb=True),),  # ImagingConvertYCbCr2RGB: padding kept
    **{pair: (_select(*pair),) for pair in convert.SELECTIONS},
    ("LA", "La"): (_premultiply("LA", undo=False),),  # lA2la
    ("La", "LA"): (_premultiply("LA", undo=True),),  # la2lA
    ("RGBA", "RGBa"): (_premultiply("RGBA", undo=False),),  # rgbA2rgba
    ("RGBa", "RGBA"): (_premultiply("RGBA", undo=True),),  # rgba2rgbA
    ("RGBa", "RGB"): (_premultiply("RGBA", undo=True), _select("RGBA", "RGB")),  # rgba2rgb_
}


def _direct(pair: tuple[str, str]) -> tuple[_Step, ...] | None:
    if pair in _DIRECT:
        return _DIRECT[pair]
    if pair in convert.CONVERSIONS:  # from L or RGB, or to the base: Pillow's direct ones
        return (_select(*pair),)
    return None


def _steps(source: str, target: str) -> tuple[_Step, ...] | None:
    """``Image.convert``'s steps: the direct converter, else through ``getmodebase``."""
    direct = _DIRECT.get((source, target))
    if direct is not None:
        return direct
    base = PILImage.getmodebase(source)
    if base == source:
        return None
    first, second = _direct((source, base)), _direct((base, target))
    return None if first is None or second is None else (*first, *second)


def admitted_pairs() -> tuple[tuple[str, str], ...]:
    """The (source, target) pairs with YCbCr, La or RGBa on one side that are admitted."""
    modes = (*NATIVE_MODES, *LIMITED_MODES)
    return tuple(
        (a, b)
        for a in modes
        for b in modes
        if a != b and {a, b} & set(LIMITED_MODES) and _steps(a, b) is not None
    )


def check_limited(node: Node) -> None:
    """Reject an operation that reads or produces YCbCr, La or RGBa unless a route is proven."""
    if node.is_leaf or node.cache.get() is not None:  # uploaded or filled: no operation runs
        return
    limited = sorted({node.mode, *(child.mode for child in node.inputs)} & set(LIMITED_MODES))
    if not limited:
        return
    if node.op not in LIMITED_COPIES:
        raise unsupported(
            node,
            f"mode {limited[0]} is not a native GPU layout, and operation {node.op!r} has no "
            f"route for it: YCbCr, La and RGBa images are admitted only for "
            f"{', '.join(LIMITED_COPIES)} (resize and transform with NEAREST)",
            fix=_FIX,
        )
    if node.op == "resize":
        source = node.inputs[0]
        same = node.size == source.size and tuple(node.params["box"]) == (0, 0, *source.size)
        if not same and node.params["resample"] != PILImage.Resampling.NEAREST:
            raise unsupported(
                node,
                f"resize of a mode {limited[0]} image is proven only for NEAREST (the "
                "interpolating filters are not checked against Pillow on this mode)",
                fix="use Image.Resampling.NEAREST, or " + _FIX,
            )
    if node.op == "transform":
        params = node.params
        affine = params["method"] == PILImage.Transform.AFFINE
        if not affine or params["resample"] != PILImage.Resampling.NEAREST:
            raise unsupported(
                node,
                f"transform of a mode {limited[0]} image is proven only for AFFINE with "
                "NEAREST (pure copies of stored words)",
                fix="use Image.Transform.AFFINE with Image.Resampling.NEAREST, or " + _FIX,
            )


def lower_limited_convert(
    program: Program,
    node: Node,
    ins: Inputs,
    transparent: tuple[int, int, int] | None = None,
) -> int:
    """``convert`` with YCbCr, La or RGBa on either side, as Pillow's converter steps.

    ``transparent`` (RGB -> La/RGBa with ``info['transparency']``) is Pillow's
    ``convert_transparent``: the matched pixels become 0 in every byte.
    """
    src, source = ins[0]
    pair = (source.mode, node.mode)
    if transparent is not None:
        return convert.lower(
            program, src, node.size, *pair, transparent=transparent, compare_source=pair[1] == "La"
        )
    steps = _steps(*pair)
    if steps is None:
        raise unsupported(
            node,
            f"conversion {pair[0]} -> {pair[1]} is not proven on the GPU (the pairs admitted "
            "with YCbCr, La or RGBa are listed in docs/routes.md)",
            fix=_FIX,
        )
    for step in steps:
        src = step(program, src, node.size)
    return src


def lower_indexed_to_limited(program: Program, node: Node, ins: Inputs) -> int:
    """``convert`` of a P or 1 image to YCbCr: one lookup of Pillow's own 256-entry table."""
    src, source = ins[0]
    if node.mode != "YCbCr":  # Pillow converts P and 1 to no other of these modes
        raise unsupported(node, f"conversion {source.mode} -> {node.mode} is not proven")
    return lut.lower(program, src, node.size, palette_table(source, node.mode))


def _pairs_text() -> str:
    targets: dict[str, list[str]] = {}
    for source, target in admitted_pairs():
        targets.setdefault(source, []).append(target)
    return "; ".join(f"{source} -> {'/'.join(modes)}" for source, modes in targets.items())


LOWERINGS: dict[str, Lowering] = {}  # convert is dispatched by lowering.convert's _convert

ROUTES = (
    Route(
        operation="convert to / from YCbCr, La, RGBa",
        modes=LIMITED_MODES,
        kernel="convert_ycbcr / premultiply / convert",
        contexts="pairs: "
        + _pairs_text()
        + "; P/1 -> YCbCr (Pillow's 256-entry table). Pillow's direct converter or its detour "
        "through RGB, step by step: RGB <-> YCbCr with Pillow's 6-bit fixed-point tables "
        "(byte 3 kept: RGBA's alpha becomes YCbCr's padding), premultiply MULDIV255 and "
        "unpremultiply min(255 c / a, 255); RGB -> La/RGBa with info['transparency'] (3 ints "
        "0..255) zeroes that colour as Pillow's convert_transparent; HSV and LAB refused "
        "(floating point, LittleCMS)",
    ),
    Route(
        operation="resize NEAREST / same-size copy (YCbCr, La, RGBa)",
        modes=LIMITED_MODES,
        kernel="resize_nearest",
        contexts="any size and box; the interpolating filters refused",
    ),
    Route(
        operation="Image.transform AFFINE / Image.rotate NEAREST (YCbCr, La, RGBa)",
        modes=LIMITED_MODES,
        kernel="affine_nearest",
        contexts="as for the native modes (scale and 16.16 fixed-point paths, any fillcolor); "
        "other methods and filters refused",
    ),
    Route(
        operation="Image.merge (YCbCr, La, RGBa)",
        modes=LIMITED_MODES,
        kernel="bands",
        contexts="L bands; YCbCr's padding byte written 0 as Pillow writes it",
    ),
    Route(
        operation="leaf upload / Image.new (YCbCr, La, RGBa)",
        modes=LIMITED_MODES,
        kernel="unpack / fill",
        contexts="YCbCr with its padding byte (raw YCbCrX), La as its two stored bytes widened "
        "on the device, RGBa as stored; results carry the same bytes back; Image.new filled "
        "with Pillow's stored colour",
    ),
)
