"""Palette (P) and bilevel (1) images: ``convert`` from them as one table lookup, and ``convert``
to them where Pillow's result is a fixed per-pixel function.

A P or 1 leaf uploads its stored bytes (P: the palette index; 1: Pillow's internal 0 or 255)
repeated in all four bytes of its word. Pillow converts such an image pixel by pixel from that
byte alone (palette entry, transparency as palette alpha, luma of the entry), so the result
is a 256-entry table of output words, applied by the per-byte ``lut`` kernel. The table is
Pillow's by construction: live Pillow converts a 256 x 1 image holding every stored value
with the leaf's own palette and ``info`` (transparency included) to the target mode.

As targets (:func:`lower_to_indexed`), P and 1 are admitted where Pillow's result depends on
the pixel alone: L, LA and 1 -> P copy the gray value as the index (a 256-entry gray palette,
whatever the dither); RGB, RGBX and RGBa -> P with ``dither=NONE`` and the WEB palette are the
palette cache's 64^3 cells (CMYK and YCbCr through RGB, as Pillow goes); L and LA -> 1 with
``dither=NONE`` threshold byte 0 at 128; RGB, RGBA and RGBX -> 1 with ``dither=NONE`` are
Pillow's ``rgb2bit`` (RGBa, CMYK and YCbCr through RGB); P -> 1 is the palette's table
whatever the dither. Floyd-Steinberg dithering (Pillow's default), ADAPTIVE palettes and
RGBA -> P (a ``quantize``) depend on other pixels and are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu._convert_info import palette_of, probe
from pillow_gpu._cpu import convert_options
from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import INDEXED_MODES, NATIVE_MODES, to_words
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import lut, to_indexed
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Route

__all__ = [
    "BILEVEL_SOURCES",
    "INDEXED_TARGETS",
    "INDEX_COPIES",
    "PALETTE_SOURCES",
    "ROUTES",
    "check_consumer",
    "check_root",
    "lower_indexed_convert",
    "lower_to_indexed",
    "palette_table",
]

#: Modes a P or 1 image converts to on the GPU (every native layout).
INDEXED_TARGETS = NATIVE_MODES
#: Sources of ``convert("P")`` on the GPU: gray ones (any dither) and RGB-like ones (dither
#: NONE, WEB palette; CMYK and YCbCr through RGB). RGBA -> P is Pillow's ``quantize``.
PALETTE_SOURCES = ("L", "LA", "1", "RGB", "RGBX", "RGBa", "CMYK", "YCbCr")
#: Sources of ``convert("1")`` on the GPU (dither NONE; P whatever the dither).
BILEVEL_SOURCES = ("L", "LA", "P", "RGB", "RGBA", "RGBX", "RGBa", "CMYK", "YCbCr")
_GRAY = ("L", "LA", "1")  # byte 0 is the gray value Pillow reads (LA -> L -> P)
_WEB = ("RGB", "RGBX", "RGBa")  # Pillow's topalette reads stored bytes 0..2 of these
_RGB2BIT = ("RGB", "RGBA", "RGBX")  # Pillow's rgb2bit reads stored bytes 0..2 of these
_THROUGH_RGB = ("CMYK", "YCbCr", "RGBa")  # Pillow converts these to RGB first (modebase)
_THRESHOLD = np.where(np.arange(256) >= 128, 255, 0)  # Pillow's l2bit

#: Lowers a ``convert("RGB")`` of the source of a node: (program, node, inputs) -> buffer.
ToRgb = Callable[[Program, Node, list[tuple[int, Any]]], int]

#: Operations that move stored P/1 bytes unchanged (the result keeps the palette, as in
#: Pillow), so ``exif_transpose`` or a crop may come before the ``convert``.
INDEX_COPIES = ("transpose", "crop")
_FIX = (
    "convert to RGB/RGBA/L first (P and 1 images are admitted only as inputs of convert(), "
    "transpose and crop)"
)


def check_consumer(node: Node) -> None:
    """Reject any operation other than ``convert`` and :data:`INDEX_COPIES` reading P or 1."""
    if node.cache.get() is not None:  # completed: uploaded as a leaf, its inputs unused
        return
    for child in node.inputs:
        if child.mode in INDEXED_MODES and node.op not in ("convert", *INDEX_COPIES):
            raise unsupported(
                node,
                f"operation {node.op!r} on a mode {child.mode} image has no GPU route: palette "
                "and bilevel images are admitted only as inputs of convert(), transpose and crop",
                fix=_FIX,
            )


def _carrier(node: Node) -> PILImage.Image:
    """A 256 x 1 image with the palette (C level included) and info of ``node``'s pixels."""
    carrier = probe(node, (256, 1))
    if carrier is None:  # uploaded leaves, or INDEX_COPIES of one (see the planner's _check_image)
        raise unsupported(node, f"the palette of this mode {node.mode} image is not recorded")
    values = range(256) if node.mode == "P" else (0, 255, *([0] * 254))
    try:
        carrier.putdata(list(values))
    except ValueError as error:  # a palette Pillow cannot apply (e.g. more than 256 entries)
        raise unsupported(
            node, f"the palette of this image cannot be applied by Pillow: {error}"
        ) from error
    return carrier


def palette_table(
    node: Node, mode: str, options: Mapping[str, Any] | None = None
) -> npt.NDArray[np.int64]:
    """The (4, 256) per-byte table of ``node.convert(mode, **options)`` (Pillow's warnings
    included)."""
    converted = _carrier(node).convert(mode, **(options or {}))
    words = to_words(converted).astype(np.int64)
    table = np.stack([(words >> (8 * byte)) & 255 for byte in range(4)])
    if node.mode == "1":  # stored values are 0 or 255 only
        table[:, 255] = table[:, 1]
        table[:, 1:255] = 0
    return table


def lower_indexed_convert(program: Program, node: Node, ins: list[tuple[int, Any]]) -> int:
    """``convert`` of a P or 1 input to a native mode: one lookup of Pillow's table.

    (P -> 1 and 1 -> P are :func:`lower_to_indexed`'s.)"""
    src, source = ins[0]
    if node.mode not in INDEXED_TARGETS:
        raise unsupported(node, f"conversion {source.mode} -> {node.mode} is not proven")
    return lut.lower(program, src, node.size, palette_table(source, node.mode))


def _dithered(node: Node) -> bool:
    # Pillow: dither None means FLOYDSTEINBERG, and its C code dithers for any non-zero value.
    dither = node.params.get("dither")
    return dither is None or int(dither) != 0


def _dither_text(node: Node) -> str:
    dither = node.params.get("dither")
    return "None, Pillow's default FLOYDSTEINBERG" if dither is None else repr(dither)


def _refuse_dither(node: Node, source: str) -> None:
    if _dithered(node):
        raise unsupported(
            node,
            f"convert({node.mode!r}) of a mode {source} image dithers (observed dither="
            f"{_dither_text(node)}): Pillow's Floyd-Steinberg result is not a fixed per-pixel "
            "table, each pixel depends on the errors diffused from earlier pixels",
            fix=f'convert to {node.mode} without dithering, convert("{node.mode}", '
            "dither=Image.Dither.NONE), for Pillow's per-pixel result, or evaluate with "
            "to_pil()",
        )


def _to_palette(program: Program, node: Node, ins: list[tuple[int, Any]], to_rgb: ToRgb) -> int:
    src, source = ins[0]
    if node.params.get("palette", PILImage.Palette.WEB) == PILImage.Palette.ADAPTIVE:
        raise unsupported(
            node,
            "convert('P', palette=ADAPTIVE) is a quantizer: its palette and every index "
            "depend on all the pixels of the image",
            fix="use palette=Image.Palette.WEB with dither=Image.Dither.NONE, or evaluate "
            "with to_pil()",
        )
    if source.mode == "RGBA":
        raise unsupported(
            node,
            "Pillow converts RGBA to P with quantize() (an adaptive palette that depends on "
            "every pixel; dither and palette are ignored)",
            fix='convert("RGB") first, then convert("P", dither=Image.Dither.NONE), or '
            "evaluate with to_pil()",
        )
    if source.mode not in PALETTE_SOURCES:
        raise unsupported(node, f"conversion {source.mode} -> P is not proven on the GPU")
    if source.mode in _GRAY:  # Pillow's gray palette: the index is the gray value
        return to_indexed.lower_byte_table(program, src, node.size, np.arange(256))
    _refuse_dither(node, source.mode)
    if source.mode not in _WEB:
        src = to_rgb(program, node, ins)
    return to_indexed.lower_web(program, src, node.size)


def _to_bilevel(program: Program, node: Node, ins: list[tuple[int, Any]], to_rgb: ToRgb) -> int:
    src, source = ins[0]
    if source.mode == "P":  # Pillow's frompalette ignores dither: the palette's table
        table = palette_table(source, "1", convert_options(node.params))
        return lut.lower(program, src, node.size, table)
    if source.mode not in BILEVEL_SOURCES:
        raise unsupported(node, f"conversion {source.mode} -> 1 is not proven on the GPU")
    _refuse_dither(node, source.mode)
    if source.mode in _GRAY:
        return to_indexed.lower_byte_table(program, src, node.size, _THRESHOLD)
    if source.mode not in _RGB2BIT:
        src = to_rgb(program, node, ins)
    return to_indexed.lower_rgb2bit(program, src, node.size)


def lower_to_indexed(
    program: Program, node: Node, ins: list[tuple[int, Any]], to_rgb: ToRgb
) -> int:
    """``convert`` to P or 1 where Pillow's result is a fixed per-pixel function.

    ``to_rgb`` lowers the ``convert("RGB")`` Pillow goes through for CMYK, YCbCr and RGBa.
    """
    if node.mode == "P":
        return _to_palette(program, node, ins, to_rgb)
    return _to_bilevel(program, node, ins, to_rgb)


def check_root(root: Node) -> None:
    """Admit a P result only when it comes from a ``convert`` (through copies).

    Its palette is then Pillow's fixed one (WEB or gray, with any transparency colour Pillow
    adds), known without pixels. A 1 result is its stored 0/255 bytes alone: always admitted.
    """
    if root.mode == "1":
        return
    node = root
    while node.op in INDEX_COPIES and node.cache.get() is None:
        node = node.inputs[0]
    if node.op != "convert":
        raise unsupported(
            root,
            f"a mode {root.mode} image is returned from the GPU only as the result of a "
            f"convert() to {root.mode} (here it comes from {node.op!r})",
            fix='convert to RGB/RGBA/L first, e.g. image.convert("RGB"), or evaluate with to_pil()',
        )
    if palette_of(root) is None:
        raise unsupported(root, "the palette of this P result is not known before it runs")


def _columns(sources: tuple[str, ...]) -> tuple[str, ...]:
    # The route table's mode columns hold the layouts; P and 1 sources are named in contexts.
    return tuple(mode for mode in sources if mode not in INDEXED_MODES)


ROUTES = (
    Route(
        operation="convert from P or 1 (to the modes marked)",
        modes=INDEXED_TARGETS,
        kernel="lut",
        contexts="an uploaded P/1 leaf, a completed result or a convert() to P/1 as input, or "
        "a transpose or crop of one (exif_transpose); Pillow's 256-entry table (palette, "
        "transparency) built by live Pillow; other operations on P/1 are refused",
    ),
    Route(
        operation="convert to P (from the modes marked)",
        modes=_columns(PALETTE_SOURCES),
        kernel="to_indexed",
        contexts="L, LA and 1: the gray value as index with Pillow's 256-entry gray palette, any "
        "dither; RGB, RGBX, RGBa (stored bytes), CMYK and YCbCr (through RGB): "
        "dither=NONE with the WEB palette, Pillow's palette cache as a 64^3-cell table read "
        "off live Pillow (exhaustive over 2^24 inputs); the result carries Pillow's palette "
        "(transparency colour included) and info; Floyd-Steinberg, ADAPTIVE and RGBA -> P "
        "(quantize) refused",
    ),
    Route(
        operation="convert to 1 (from the modes marked)",
        modes=_columns(BILEVEL_SOURCES),
        kernel="to_indexed/lut",
        contexts="dither=NONE: L, LA byte 0 >= 128; RGB, RGBA, RGBX Pillow's rgb2bit "
        "(r*299 + g*587 + b*114 >= 128000, exhaustive over 2^24 inputs); RGBa, CMYK, "
        "YCbCr through RGB; P (any dither) the palette's table; returned as Pillow's 0/255 "
        "bytes; Floyd-Steinberg (the default) refused with the dither=NONE fix",
    ),
)
