"""YCbCr, La, RGBa, HSV and LAB images: admission, and ``convert`` to or from them.

These modes are stored like RGB (YCbCr, HSV and LAB, their padding byte included), LA (La)
and RGBA (RGBa) (:mod:`pillow_gpu.gpu._layout`). Pillow moves their pixels as opaque words in
transpose, crop, expand, paste (same mode), putpixel, resize NEAREST (or the same-size copy) and
transform NEAREST, reads their bands by stored byte in getchannel and writes them in merge, so
those routes take them (their lowerings live in ``geometry``, ``resample``, ``affine``,
``convert`` and ``bands``). Its 8-bit resampling, reduce, transform filters, ``point`` and
the kernel, rank, mode and box filters choose their code by band count alone, so those routes
run them as their band twins (``_layout.BAND_TWINS``: YCbCr, HSV, LAB as RGB; La, RGBa as LA,
RGBA without the premultiplication Pillow's Python layer adds around LA and RGBA); Pillow
itself refuses the box filters (BoxBlur, GaussianBlur, UnsharpMask) on YCbCr, HSV and LAB.
ImageChops and blend work on every stored byte of any mode, so their routes take these too.

``convert`` replays ``Image.convert``: Pillow's direct converter of ``libImaging/Convert.c``
where it has one, else the detour through ``getmodebase`` (RGB) that ``Image.convert`` takes,
each step one dispatch (``convert_ycbcr`` for RGB <-> YCbCr, ``premultiply`` for LA/RGBA <->
La/RGBa, ``convert`` for the byte selections, ``convert_table`` for Pillow's rgb2hsv and
hsv2rgb and its LittleCMS RGB <-> LAB transforms, read off live Pillow for all 2^24 inputs).
``Image.convert`` takes a source other than RGB, RGBA or RGBX to LAB through
``convert("RGBA")``, and converts LAB to those three modes only. A P or 1 image converts to
YCbCr, HSV or LAB through Pillow's own 256-entry table.
Every other operation on these modes (putalpha, the fused Color and Contrast kernels, ImageOps'
own functions...) is refused; ``ImageEnhance.Color`` and ``ImageEnhance.Contrast`` of YCbCr and
HSV are recorded as their steps.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu.errors import Limit
from pillow_gpu.gpu._device import DeviceLimits
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import convert, convert_table, convert_ycbcr, lut, premultiply
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route
from pillow_gpu.gpu.lowering.indexed import palette_table

__all__ = [
    "LIMITED_OPERATIONS",
    "LOWERINGS",
    "ROUTES",
    "TABLE_MODES",
    "admitted_pairs",
    "check_limited",
    "lower_indexed_to_limited",
    "lower_limited_convert",
]

#: Operations admitted on YCbCr, La, RGBa, HSV and LAB: those that move their words unchanged,
#: read/write their bands by byte, blend them byte by byte (with a mask, ImageChops, blend), or
#: that Pillow runs by band count (resize, reduce, transform, filter, point: their lowerings
#: check the method, filter and mode).
LIMITED_OPERATIONS = (
    "convert",
    "transpose",
    "crop",
    "expand",
    "paste",
    "paste_masked",
    "fill_masked",
    "putpixel",
    "resize",
    "reduce",
    "transform",
    "filter",
    "point",
    "chops_invert",
    "chop",
    "blend",
    "brightness",
    "getchannel",
    "merge",
)

#: The limited modes whose conversions read a table of live Pillow's results (convert_table).
TABLE_MODES = ("HSV", "LAB")
_YCC_MODES = tuple(mode for mode in LIMITED_MODES if mode not in TABLE_MODES)
_RGB_LIKE = ("RGB", "RGBA", "RGBX")  # the modes Pillow's LittleCMS path takes directly
_INDEXED_TARGETS = ("YCbCr", "HSV", "LAB")  # the limited modes Pillow converts P and 1 to

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


class _Table:
    """A step that reads ``convert_table``'s table of converter ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, program: Program, src: int, size: tuple[int, int]) -> int:
        return convert_table.lower(program, src, size, self.name)


_RGB2HSV, _HSV2RGB = _Table("rgb2hsv"), _Table("hsv2rgb")
_RGB2LAB, _LAB2RGB = _Table("rgb2lab"), _Table("lab2rgb")

#: Pillow's direct converters (Convert.c) with a limited mode on one side, as steps.
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
    ("RGB", "HSV"): (_RGB2HSV,),  # rgb2hsv: byte 3 kept (RGBA's alpha becomes HSV's padding)
    ("RGBA", "HSV"): (_RGB2HSV,),
    ("RGBX", "HSV"): (_RGB2HSV,),
    ("HSV", "RGB"): (_HSV2RGB,),  # hsv2rgb: padding kept
    # l2hsv (0, 0, v, 255), la2hsv (0, 0, v, a) and cmyk2hsv (rgb2hsv of cmyk2rgb, 255) are
    # rgb2hsv of Pillow's L/LA/CMYK -> RGB (a grey's hue and saturation are 0)
    ("L", "HSV"): (_select("L", "RGB"), _RGB2HSV),
    ("LA", "HSV"): (_select("LA", "RGB"), _RGB2HSV),
    ("CMYK", "HSV"): (_select("CMYK", "RGB"), _RGB2HSV),
}


def _direct(pair: tuple[str, str]) -> tuple[_Step, ...] | None:
    if pair in _DIRECT:
        return _DIRECT[pair]
    if pair in convert.CONVERSIONS:  # from L or RGB, or to the base: Pillow's direct ones
        return (_select(*pair),)
    return None


def _steps(source: str, target: str) -> tuple[_Step, ...] | None:
    """``Image.convert``'s steps: the direct converter, else through ``getmodebase``.

    LAB is Image.convert's LittleCMS path: RGB, RGBA and RGBX to and from LAB directly, other
    sources to LAB after their own ``convert("RGBA")``; LAB converts to nothing else.
    """
    if target == "LAB":
        first = () if source in _RGB_LIKE else _steps(source, "RGBA")
        return None if first is None else (*first, _RGB2LAB)
    if source == "LAB":
        return (_LAB2RGB,) if target in _RGB_LIKE else None
    direct = _direct((source, target))
    if direct is not None:
        return direct
    base = PILImage.getmodebase(source)
    if base == source:
        return None
    first, second = _direct((source, base)), _direct((base, target))
    return None if first is None or second is None else (*first, *second)


def admitted_pairs() -> tuple[tuple[str, str], ...]:
    """The (source, target) 8-bit pairs with a limited mode on one side that are admitted."""
    modes = (*NATIVE_MODES, *LIMITED_MODES)
    return tuple(
        (a, b)
        for a in modes
        for b in modes
        if a != b and {a, b} & set(LIMITED_MODES) and _steps(a, b) is not None
    )


def _tables(node: Node) -> list[str]:
    # The convert_table converters a convert node of an 8-bit source reads.
    if node.op != "convert" or not node.inputs or node.params.get("matrix") is not None:
        return []
    steps = _steps(node.inputs[0].mode, node.mode) or ()
    return [step.name for step in steps if isinstance(step, _Table)]


def _check_table_limits(node: Node, limits: DeviceLimits | None) -> None:
    tables = _tables(node)
    if limits is None or not tables:
        return
    binding = min(limits.max_storage_buffer_binding_size, limits.max_buffer_size)
    if binding < convert_table.TABLE_NBYTES:
        raise Limit(
            f"conversion {node.inputs[0].mode} -> {node.mode} reads a "
            f"{convert_table.TABLE_NBYTES >> 20} MiB table of Pillow's results, larger than "
            "this device's storage buffers",
            observed=f"table {tables[0]} of {convert_table.TABLE_NBYTES} bytes; binding limit "
            f"{binding}",
            fix="use a device with a larger max-storage-buffer-binding-size (WebGPU guarantees "
            "128 MiB) or evaluate with to_pil()",
            stage="admission",
        )


def check_limited(node: Node, limits: DeviceLimits | None = None) -> None:
    """Reject an operation that reads or produces a limited mode unless a route is proven.

    With ``limits``, a conversion whose table exceeds the device's storage binding raises
    :class:`~pillow_gpu.errors.Limit`.
    """
    if node.is_leaf or node.cache.get() is not None:  # uploaded or filled: no operation runs
        return
    _check_table_limits(node, limits)
    limited = sorted({node.mode, *(child.mode for child in node.inputs)} & set(LIMITED_MODES))
    if not limited:
        return
    if node.op not in LIMITED_OPERATIONS:
        raise unsupported(
            node,
            f"mode {limited[0]} is not a native GPU layout, and operation {node.op!r} has no "
            f"route for it: {', '.join(LIMITED_MODES)} images are admitted only for "
            f"{', '.join(LIMITED_OPERATIONS)}",
            fix=_FIX,
        )


def lower_limited_convert(
    program: Program,
    node: Node,
    ins: Inputs,
    transparent: tuple[int, int, int] | None = None,
) -> int:
    """``convert`` with a limited mode on either side, as Pillow's converter steps.

    ``transparent`` (RGB -> La/RGBa with ``info['transparency']``) is Pillow's
    ``convert_transparent``: the matched pixels become 0 in every byte.
    """
    src, source = ins[0]
    pair = (source.mode, node.mode)
    if transparent is not None:
        return convert.lower(
            program, src, node.size, *pair, transparent=transparent, compare_source=pair[1] == "La"
        )
    if pair[1] == "LAB" and pair[0] not in _RGB_LIKE and "transparency" in source.info:
        raise unsupported(
            node,
            f"conversion {pair[0]} -> LAB with info['transparency'] is not proven on the GPU "
            "(Pillow's convert('RGBA') before LittleCMS makes that colour transparent)",
            fix="remove info['transparency'] first, or evaluate with to_pil()",
        )
    steps = _steps(*pair)
    if steps is None:
        raise unsupported(
            node,
            f"conversion {pair[0]} -> {pair[1]} is not proven on the GPU (the pairs admitted "
            f"with {', '.join(LIMITED_MODES)} are listed in docs/routes.md)",
            fix=_FIX,
        )
    for step in steps:
        src = step(program, src, node.size)
    return src


def lower_indexed_to_limited(program: Program, node: Node, ins: Inputs) -> int:
    """``convert`` of a P or 1 image to YCbCr, HSV or LAB: one lookup of Pillow's own
    256-entry table (LAB: Pillow's convert("RGBA") then LittleCMS, per index)."""
    src, source = ins[0]
    if node.mode not in _INDEXED_TARGETS:  # Pillow converts P and 1 to no other of these
        raise unsupported(node, f"conversion {source.mode} -> {node.mode} is not proven")
    return lut.lower(program, src, node.size, palette_table(source, node.mode))


def _pairs_text(modes: tuple[str, ...]) -> str:
    targets: dict[str, list[str]] = {}
    for source, target in admitted_pairs():
        if {source, target} & set(modes) and not {source, target} & set(TABLE_MODES) - set(modes):
            targets.setdefault(source, []).append(target)
    return "; ".join(f"{source} -> {'/'.join(modes)}" for source, modes in targets.items())


_NAMES = ", ".join(LIMITED_MODES)

LOWERINGS: dict[str, Lowering] = {}  # convert is dispatched by lowering.convert's _convert

ROUTES = (
    Route(
        operation="convert to / from YCbCr, La, RGBa",
        modes=_YCC_MODES,
        kernel="convert_ycbcr / premultiply / convert",
        contexts="pairs: "
        + _pairs_text(_YCC_MODES)
        + "; P/1 -> YCbCr (Pillow's 256-entry table). Pillow's direct converter or its detour "
        "through RGB, step by step: RGB <-> YCbCr with Pillow's 6-bit fixed-point tables "
        "(byte 3 kept: RGBA's alpha becomes YCbCr's padding), premultiply MULDIV255 and "
        "unpremultiply min(255 c / a, 255); RGB -> La/RGBa with info['transparency'] (3 ints "
        "0..255) zeroes that colour as Pillow's convert_transparent",
    ),
    Route(
        operation="convert to / from HSV, LAB",
        modes=TABLE_MODES,
        kernel="convert_table (+convert / convert_ycbcr / premultiply)",
        contexts="pairs: "
        + _pairs_text(TABLE_MODES)
        + "; P/1 -> HSV/LAB (Pillow's 256-entry table). Pillow's rgb2hsv and hsv2rgb and its "
        "LittleCMS sRGB <-> LAB transforms (LAB from RGB/RGBA/RGBX, other sources through "
        "their convert('RGBA'); LAB to RGB/RGBA/RGBX only) are lookups in a table of live "
        "Pillow's results for all 2^24 (b0, b1, b2), byte 3 kept as Pillow keeps it; each "
        "converter used keeps a 64 MiB per-device resident table, built once per process on "
        "first use (about 0.5 s) and not charged to the credits; a device whose storage "
        "binding is under 64 MiB refuses these with Limit; L -> LAB with "
        "info['transparency'] refused; the other steps as for YCbCr, La, RGBa",
    ),
    Route(
        operation=f"Image.merge ({_NAMES})",
        modes=LIMITED_MODES,
        kernel="bands",
        contexts="L bands; the padding byte of YCbCr, HSV and LAB written 0 as Pillow writes it",
    ),
    Route(
        operation=f"leaf upload / Image.new ({_NAMES})",
        modes=LIMITED_MODES,
        kernel="unpack / fill",
        contexts="YCbCr with its padding byte (raw YCbCrX), HSV and LAB as their stored words "
        "(padding included; LAB's a and b as stored, not XOR 128 as its raw mode), La as its "
        "two stored bytes widened on the device, RGBa as stored; results carry the same bytes "
        "back; Image.new filled with Pillow's stored colour",
    ),
)
