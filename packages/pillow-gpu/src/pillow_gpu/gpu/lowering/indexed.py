"""Palette (P) and bilevel (1) images: ``convert`` from them as one table lookup, and ``convert``
to them where Pillow's result is a fixed per-pixel function.

A P or 1 leaf uploads its stored bytes (P: the palette index; 1: Pillow's internal 0 or 255)
repeated in all four bytes of its word. Pillow converts such an image pixel by pixel from that
byte alone (palette entry, transparency as palette alpha, luma of the entry), so the result
is a 256-entry table of output words, applied by the per-byte ``lut`` kernel. The table is
Pillow's by construction: live Pillow converts a 256 x 1 image holding every stored value
with the leaf's own palette and ``info`` (transparency included) to the target mode.

As targets (:func:`lower_to_indexed`): L, LA and 1 -> P copy the gray value as the index (a
256-entry gray palette, whatever the dither); RGB, RGBX and RGBa -> P with the WEB palette are
the palette cache's 64^3 cells (CMYK, YCbCr and HSV through RGB, as Pillow goes); L and LA
-> 1 threshold byte 0 at 128; RGB, RGBA and RGBX -> 1 are Pillow's ``rgb2bit`` (RGBa, CMYK,
YCbCr and HSV through RGB); P -> 1 is the palette's table whatever the dither. Those are
``dither=NONE``; with Pillow's default Floyd-Steinberg dither (any non-zero ``dither``, as its
C code reads it) the same sources go through ``kernels.dither``, which replays Pillow's error
diffusion. ADAPTIVE palettes and RGBA -> P (a ``quantize``: a palette made from the pixels)
are refused.

P and 1 images also go through the copies (:data:`INDEX_COPIES`: transpose, crop, expand,
paste, putpixel, resize and transform, which Pillow runs NEAREST for them), ``point`` (a table
of the stored byte) and ``ImageOps.invert`` (1: a table; P: Pillow inverts the palette and
keeps the indices, so no kernel runs). A P result is admitted wherever its palette is known
before it runs (:func:`~pillow_gpu._convert_info.palette_of`: the file header's, ``from_pil``'s,
a fixed ``convert`` palette, or one Pillow rebuilds from those).

PA images (:func:`check_palette_alpha`) keep the index in bytes 0..2 and alpha in byte 3.
Pillow's ``pa2*`` converters read the palette entry of the index and either drop the alpha
(L, RGB, CMYK, YCbCr, HSV, 1, P, I, F) or copy it to byte 3 (LA, RGBA, RGBX); the palette's
own alpha and ``info["transparency"]`` are never read. A ``convert`` from PA is thus a table:
live Pillow converts a 256 x 256 carrier holding every (index, alpha) pair with the node's own
palette, and the result is admitted only if it is one per-byte lookup (bytes 0..2 from the
index, byte 3 from the alpha) or a function of the index alone, checked on all 65,536 pairs.
To PA, Pillow's ``topalette`` writes the P index with alpha 255 (so the P routes apply) and
``p2pa`` the palette's alpha (a 256-entry table).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu._convert_info import probe
from pillow_gpu._cpu import convert_options
from pillow_gpu._graph import Node
from pillow_gpu.gpu._layout import (
    INDEXED_MODES,
    NATIVE_MODES,
    PALETTE_ALPHA_MODES,
    WIDE_MODES,
    to_words,
)
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import dither, lut, to_indexed
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route

__all__ = [
    "BILEVEL_CHOPS",
    "BILEVEL_SOURCES",
    "INDEXED_TARGETS",
    "INDEX_COPIES",
    "INDEX_OPERATIONS",
    "INDEX_PALETTES",
    "INDEX_POINTWISE",
    "INDEX_ROUTES_TEXT",
    "LOWERINGS",
    "MASK_INPUTS",
    "PALETTE_ALPHA_COPIES",
    "PALETTE_SOURCES",
    "ROUTES",
    "check_consumer",
    "check_palette_alpha",
    "check_palette_alpha_root",
    "check_root",
    "indexed_operation",
    "lower_from_palette_alpha",
    "lower_indexed_convert",
    "lower_to_indexed",
    "lower_to_palette_alpha",
    "palette_table",
]

#: Modes a P or 1 image converts to on the GPU (every native layout).
INDEXED_TARGETS = NATIVE_MODES
#: Sources of ``convert("P")`` on the GPU: gray ones (the gray palette) and RGB-like ones (the
#: WEB palette; CMYK, YCbCr and HSV through RGB). RGBA -> P is Pillow's ``quantize``.
PALETTE_SOURCES = ("L", "LA", "1", "RGB", "RGBX", "RGBa", "CMYK", "YCbCr", "HSV")
#: Sources of ``convert("1")`` on the GPU (any dither; P's ignores it).
BILEVEL_SOURCES = ("L", "LA", "P", "RGB", "RGBA", "RGBX", "RGBa", "CMYK", "YCbCr", "HSV")
_GRAY = ("L", "LA", "1")  # byte 0 is the gray value Pillow reads (LA -> L -> P)
_WEB = ("RGB", "RGBX", "RGBa")  # Pillow's topalette reads stored bytes 0..2 of these
_RGB2BIT = ("RGB", "RGBA", "RGBX")  # Pillow's rgb2bit reads stored bytes 0..2 of these
_THROUGH_RGB = ("CMYK", "YCbCr", "RGBa", "HSV")  # Pillow converts these to RGB first (modebase)
_THRESHOLD = np.where(np.arange(256) >= 128, 255, 0)  # Pillow's l2bit
#: Pillow's bit2l: a 1 image's stored byte (any value after point or a chop) as its gray value.
_BIT2L = np.where(np.arange(256) != 0, 255, 0)

#: Lowers a ``convert("RGB")`` of the source of a node: (program, node, inputs) -> buffer
#: (the step Pillow takes first for CMYK, YCbCr, RGBa and HSV sources of P, PA and 1).
ToRgb = Callable[[Program, Node, list[tuple[int, Any]]], int]

#: Operations that move stored P, PA and 1 words unchanged (resize: NEAREST, which Pillow
#: forces for P and 1, or the same-size copy; transform: AFFINE, EXTENT, QUAD or PERSPECTIVE
#: with NEAREST). The result keeps the palette, or gets the one Pillow rebuilds (expand,
#: transform; see ``_convert_info``).
INDEX_COPIES = ("transpose", "crop", "expand", "paste", "putpixel", "resize", "transform")
#: Per-pixel operations on P and 1 images: ``point`` maps the stored byte (a P result keeps
#: the palette; with a mode, to L or 1: ``lowering.pointwise``); ``ImageOps.invert`` maps 1's
#: stored byte, and a P image's palette (Pillow's ``ImageOps._lut``), keeping its indices.
INDEX_POINTWISE = ("point", "point_mode", "invert")
#: ``Image.filter`` on the stored byte, as Pillow's single-band filters run: 1 with the kernel,
#: rank and mode filters, P with ModeFilter (``lowering.filters`` checks which).
INDEX_FILTERS = ("filter",)
#: ``putpalette``: a P image's new palette (its indices kept), or an L image made P;
#: ``palette_alpha``: the transparency a ``convert`` wrote into its P source's palette.
INDEX_PALETTES = ("putpalette", "palette_alpha")
#: Everything that may read or produce a P or 1 image on the GPU.
INDEX_OPERATIONS = ("convert", *INDEX_COPIES, *INDEX_POINTWISE, *INDEX_FILTERS, *INDEX_PALETTES)
#: ImageChops of two 1 images (the logical ones and the arithmetic ones Pillow also runs on
#: their stored bytes, the result a 1 image): per stored byte, as for L (``lowering.chops``).
BILEVEL_CHOPS = ("chop",)


def indexed_operation(node: Node) -> bool:
    """Whether ``node`` may read or produce its P or 1 images on the GPU (the operation is
    one of :data:`INDEX_OPERATIONS`, or a chop of 1 images)."""
    if node.op in BILEVEL_CHOPS:
        return node.mode == "1" and all(child.mode == "1" for child in node.inputs)
    return node.op in INDEX_OPERATIONS


#: Operations that read a mode 1 image as a mask (its stored 0/255 byte): the mask's position
#: among the node's inputs.
MASK_INPUTS = {"paste_masked": 2, "fill_masked": 1}
#: What P and 1 images are admitted for, as the refusals say it.
INDEX_ROUTES_TEXT = (
    "convert(), the copies, point(), ImageOps.invert, filter(), putpalette() and the "
    "ImageChops of two 1 images"
)
_FIX = (
    "convert to RGB/RGBA/L first (P and 1 images are admitted as inputs of convert(), the "
    f"copies {', '.join(INDEX_COPIES)} (NEAREST), point(), ImageOps.invert, filter(): "
    "1 with kernel, rank and mode filters, P with ModeFilter; putpalette() of P; the ImageChops "
    "of two 1 images)"
)


def check_consumer(node: Node) -> None:
    """Reject any operation other than :data:`INDEX_OPERATIONS` reading P or 1 (a mode 1
    image may be the mask of a masked paste or fill: :data:`MASK_INPUTS`), and a copy's
    parameters Pillow resolves through the palette."""
    if node.cache.get() is not None:  # completed: uploaded as a leaf, its inputs unused
        return
    mask_at = MASK_INPUTS.get(node.op)
    for position, child in enumerate(node.inputs):
        if child.mode == "1" and position == mask_at:
            continue
        if child.mode in INDEXED_MODES and not indexed_operation(node):
            raise unsupported(
                node,
                f"operation {node.op!r} on a mode {child.mode} image has no GPU route: palette "
                f"and bilevel images are admitted only as inputs of {INDEX_ROUTES_TEXT}",
                fix=_FIX,
            )
    if node.mode in INDEXED_MODES and node.op in INDEX_COPIES:
        _check_copy(node, fix=_FIX)


def _applied_palette(
    node: Node, size: tuple[int, int], fix: str = "evaluate this graph with to_pil()"
) -> PILImage.Image:
    """``probe(node, size)`` with a P or PA palette applied, as Pillow applies it on load.

    ``Unsupported`` for a palette not known before the graph runs (a quantizer's) and for one
    Pillow cannot apply (e.g. a file's palette of more than 256 entries, or of values past a
    byte: a TIFF colour map whose entries' type was written wrong).
    """
    palette_mode = node.mode in ("P", "PA")
    try:
        image = probe(node, size)  # replays what Pillow does to the palette (e.g. invert)
        if image is not None and image.palette is not None:
            image.getpalette(None)  # Pillow applies a pending palette here, as when it loads
    except (ValueError, OverflowError) as error:
        raise unsupported(
            node, f"the palette of this image cannot be applied by Pillow: {error}", fix=fix
        ) from error
    if image is None or (palette_mode and image.palette is None):
        raise unsupported(
            node, f"the palette of this mode {node.mode} image is not known before it runs", fix
        )
    return image


def _carrier(node: Node) -> PILImage.Image:
    """A 256 x 1 image with the palette (C level included) and info of ``node``'s pixels."""
    carrier = _applied_palette(node, (256, 1))
    carrier.putdata(list(range(256) if node.mode == "P" else (0, 255, *([0] * 254))))
    return carrier


def palette_table(
    node: Node, mode: str, options: Mapping[str, Any] | None = None
) -> npt.NDArray[np.int64]:
    """The (4, 256) per-byte table of ``node.convert(mode, **options)`` (Pillow's warnings
    included)."""
    converted = _carrier(node).convert(mode, **(options or {}))
    words = to_words(converted).astype(np.int64)
    table = np.stack([(words >> (8 * byte)) & 255 for byte in range(4)])
    if node.mode == "1":  # Pillow's bit2* converters read any non-zero stored byte as 255
        table[:, 1:] = table[:, 1:2]
    return table


def lower_indexed_convert(program: Program, node: Node, ins: list[tuple[int, Any]]) -> int:
    """``convert`` of a P or 1 input to a native or wide mode: one lookup of Pillow's table.

    (P -> 1 and 1 -> P are :func:`lower_to_indexed`'s.)"""
    src, source = ins[0]
    if node.mode not in (*INDEXED_TARGETS, *WIDE_MODES):
        raise unsupported(node, f"conversion {source.mode} -> {node.mode} is not proven")
    return lut.lower(program, src, node.size, palette_table(source, node.mode))


def _dithered(node: Node) -> bool:
    """Whether Pillow dithers this conversion (the caller knows the source can be dithered);
    ``Unsupported`` for an image too wide for the dithering kernel."""
    # Pillow: dither None means FLOYDSTEINBERG, and its C code dithers for any non-zero value.
    value = node.params.get("dither")
    if value is not None and int(value) == 0:
        return False
    if node.size[0] > dither.MAX_WIDTH:
        raise unsupported(
            node,
            f"Floyd-Steinberg dithering runs each row serially, and a row of {node.size[0]} "
            f"pixels is over the {dither.MAX_WIDTH} the GPU kernel takes",
            fix="pass dither=Image.Dither.NONE, split the image into narrower tiles (the "
            "error diffusion then restarts at each tile) or evaluate with to_pil()",
        )
    return True


def _to_palette(program: Program, node: Node, ins: list[tuple[int, Any]], to_rgb: ToRgb) -> int:
    src, source = ins[0]
    if node.params.get("palette", PILImage.Palette.WEB) == PILImage.Palette.ADAPTIVE:
        raise unsupported(
            node,
            "convert('P', palette=ADAPTIVE) is a quantizer: its palette and every index "
            "depend on all the pixels of the image",
            fix="use palette=Image.Palette.WEB (Pillow's default), or evaluate with to_pil()",
        )
    if source.mode == "RGBA":
        raise unsupported(
            node,
            "Pillow converts RGBA to P with quantize() (an adaptive palette that depends on "
            "every pixel; dither and palette are ignored)",
            fix='convert("RGB") first, then convert("P"), or evaluate with to_pil()',
        )
    if source.mode not in PALETTE_SOURCES:
        raise unsupported(node, f"conversion {source.mode} -> P is not proven on the GPU")
    if source.mode in _GRAY:  # Pillow's gray palette: the index is the gray value
        table = _BIT2L if source.mode == "1" else np.arange(256)
        return to_indexed.lower_byte_table(program, src, node.size, table)
    if source.mode not in _WEB:
        src = to_rgb(program, node, ins)
    if _dithered(node):
        return dither.lower_web(program, src, node.size)
    return to_indexed.lower_web(program, src, node.size)


def _to_bilevel(program: Program, node: Node, ins: list[tuple[int, Any]], to_rgb: ToRgb) -> int:
    src, source = ins[0]
    if source.mode == "P":  # Pillow's frompalette ignores dither: the palette's table
        table = palette_table(source, "1", convert_options(node.params))
        return lut.lower(program, src, node.size, table)
    if source.mode not in BILEVEL_SOURCES:
        raise unsupported(node, f"conversion {source.mode} -> 1 is not proven on the GPU")
    dithered = _dithered(node)
    if source.mode in _GRAY:
        if dithered:
            return dither.lower_bilevel(program, src, node.size, dither.BILEVEL_GRAY)
        return to_indexed.lower_byte_table(program, src, node.size, _THRESHOLD)
    if source.mode not in _RGB2BIT:
        src = to_rgb(program, node, ins)
    if dithered:
        return dither.lower_bilevel(program, src, node.size, dither.BILEVEL_LUMA)
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
    """Admit a P result whose palette is known before it runs (Pillow's, see palette_of).

    A 1 result is its stored bytes alone: always admitted.
    """
    if root.mode == "1":
        return
    _check_palette(
        root, 'convert to RGB/RGBA/L first, e.g. image.convert("RGB"), or evaluate with to_pil()'
    )


def _check_palette(root: Node, fix: str) -> None:
    """Reject a P or PA result whose palette is unknown, or one Pillow cannot apply."""
    _applied_palette(root, (1, 1), fix)


#: Operations that move stored PA words unchanged: the copies of P and 1.
PALETTE_ALPHA_COPIES = INDEX_COPIES
_PA_FIX = 'convert to RGBA first (e.g. image.convert("RGBA")), or evaluate with to_pil()'


#: The filters a PA image's transform interpolates with (its palette indices averaged, as in
#: Pillow, whose result keeps the palette).
FILTERED_PA = (PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC)


def _palette_colour(value: object) -> bool:
    # A colour Pillow looks up (or adds) in the image's palette: a name, or 3 or 4 values.
    return isinstance(value, str) or (isinstance(value, (tuple, list)) and len(value) in (3, 4))


def _check_copy(node: Node, fix: str) -> None:
    """Reject a copy of a P, PA or 1 image that is not a pure copy of stored words."""
    params = node.params
    if node.op == "resize":
        source = node.inputs[0]
        same = node.size == source.size and tuple(params["box"]) == (0, 0, *source.size)
        if not same and params["resample"] != PILImage.Resampling.NEAREST:
            raise unsupported(
                node,
                f"resize of a {node.mode} image is proven only for NEAREST (Pillow's other "
                "filters average the palette indices, and its result's C image has no palette: "
                "getpalette() returns [])",
                fix="use Image.Resampling.NEAREST, or " + fix,
            )
    if node.op == "transform":
        copying = params["method"] in (
            PILImage.Transform.AFFINE,
            PILImage.Transform.QUAD,
            PILImage.Transform.PERSPECTIVE,
        )
        # Pillow forces NEAREST for P and 1 only: PA's (index, alpha) pairs are interpolated
        # as two bands, as an La image's (lowering.affine).
        interpolated_pa = node.mode == "PA" and params["resample"] in FILTERED_PA
        if not copying or (
            params["resample"] != PILImage.Resampling.NEAREST and not interpolated_pa
        ):
            method = PILImage.Transform(params["method"]).name
            raise unsupported(
                node,
                f"transform of a {node.mode} image is proven only for AFFINE, EXTENT, QUAD and "
                "PERSPECTIVE "
                f"with NEAREST (pure copies), not {method} with "
                f"{PILImage.Resampling(params['resample']).name}",
                fix="use Image.Transform.AFFINE (Image.rotate), EXTENT, QUAD or PERSPECTIVE, or "
                + fix,
            )
    colour = params.get("fill") if node.op == "expand" else params.get("value")
    palette = node.mode in ("P", "PA")
    if palette and node.op in ("expand", "putpixel") and _palette_colour(colour):
        raise unsupported(
            node,
            f"{node.op} of a {node.mode} image with the colour {colour!r}: Pillow looks the "
            "colour up in the image's own palette (palette.getcolor, which may add an entry)",
            fix="pass a palette index (or an (index, alpha) pair for PA), or evaluate with "
            "to_pil()",
        )


def check_palette_alpha(node: Node) -> None:
    """Reject an operation that reads or produces PA unless it is ``convert`` or a PA copy."""
    if node.is_leaf or node.cache.get() is not None:  # uploaded: no operation runs
        return
    if not {node.mode, *(child.mode for child in node.inputs)} & set(PALETTE_ALPHA_MODES):
        return
    if node.op == "convert":  # the lowering checks the pair
        return
    if node.op not in PALETTE_ALPHA_COPIES:
        raise unsupported(
            node,
            f"operation {node.op!r} has no GPU route for mode PA: PA images are admitted only "
            f"for convert() and the copies {', '.join(PALETTE_ALPHA_COPIES)} (NEAREST)",
            fix=_PA_FIX,
        )
    _check_copy(node, fix=_PA_FIX)


#: Every (index, alpha) pair: index = column, alpha = row of a 256 x 256 PA carrier.
_PA_PAIRS = np.stack(
    [np.tile(np.arange(256, dtype=np.uint8), 256), np.repeat(np.arange(256, dtype=np.uint8), 256)],
    axis=1,
).tobytes()
_OPAQUE = np.stack([np.arange(256)] * 3 + [np.full(256, 255)]).astype(np.int64)


def _pa_results(node: Node, source: Node) -> npt.NDArray[np.int64]:
    """Pillow's stored bytes of ``node``'s conversion of every (index, alpha) pair of
    ``source``'s palette: shape (4 bytes, 256 alphas, 256 indices)."""
    carrier = probe(source, (256, 256))
    if carrier is None:
        raise unsupported(node, "the palette of this mode PA image is not recorded")
    carrier.im.paste(PILImage.frombytes("PA", (256, 256), _PA_PAIRS).im, (0, 0, 256, 256))
    try:
        converted = carrier.convert(node.mode, **convert_options(node.params))
    except ValueError as error:  # e.g. a PA image without a palette
        raise unsupported(node, f"Pillow cannot convert this PA image: {error}") from error
    words = to_words(converted).astype(np.int64).reshape(256, 256)
    return np.stack([(words >> (8 * byte)) & 255 for byte in range(4)])


def lower_from_palette_alpha(program: Program, node: Node, ins: list[tuple[int, Any]]) -> int:
    """``convert`` of a PA image: Pillow's result as a per-byte or per-index table.

    Bytes 0..2 from the index and byte 3 from the alpha: one ``lut``. A function of the index
    alone: the index as a P word (``to_indexed``), then a ``lut`` (P and 1: the one table).
    """
    src, source = ins[0]
    results = _pa_results(node, source)
    by_index = results[:, 0, :]
    if (results[:3] == by_index[:3, None, :]).all() and (results[3] == results[3, :, :1]).all():
        table = np.concatenate([by_index[:3], results[3, :, 0][None]])
        return lut.lower(program, src, node.size, table)
    if not (results == by_index[:, None, :]).all():
        raise unsupported(
            node,
            f"Pillow's PA -> {node.mode} result is neither a per-byte table of (index, alpha) "
            "nor a function of the index alone (checked on all 65,536 pairs)",
            fix=_PA_FIX,
        )
    if (by_index == by_index[0]).all():  # one byte repeated (P and 1)
        return to_indexed.lower_byte_table(program, src, node.size, by_index[0])
    index = to_indexed.lower_byte_table(program, src, node.size, np.arange(256))
    return lut.lower(program, index, node.size, by_index)


def lower_to_palette_alpha(
    program: Program, node: Node, ins: list[tuple[int, Any]], to_rgb: ToRgb
) -> int:
    """``convert("PA")``: P through its palette's alpha (``p2pa``), every other source as its
    P index with alpha 255 (Pillow's ``topalette``)."""
    src, source = ins[0]
    if source.mode == "P":
        table = palette_table(source, "PA", convert_options(node.params))
        return lut.lower(program, src, node.size, table)
    if source.mode == "RGBA":
        raise unsupported(
            node,
            "Pillow converts RGBA to PA by quantize() of the RGB bands (an adaptive palette "
            "that depends on every pixel) merged with the alpha",
            fix="evaluate with to_pil(), or convert to RGBA's P result on the CPU first",
        )
    index = _to_palette(program, node, ins, to_rgb)
    return lut.lower(program, index, node.size, _OPAQUE)


def check_palette_alpha_root(root: Node) -> None:
    """Admit a PA result whose palette is known before it runs (Pillow's, see palette_of)."""
    _check_palette(
        root, 'convert to RGBA first, e.g. image.convert("RGBA"), or evaluate with to_pil()'
    )


def _columns(sources: tuple[str, ...]) -> tuple[str, ...]:
    # The route table's mode columns hold the layouts; P and 1 sources are named in contexts.
    return tuple(mode for mode in sources if mode not in INDEXED_MODES)


def _put_palette(program: Program, node: Node, ins: Inputs) -> int:
    """``putpalette``: a P image keeps its indices (no dispatch), an L image's value becomes
    the index (the result's palette is the recorded one, ``_convert_info``)."""
    src, source = ins[0]
    if source.mode == "P":
        return src
    if source.mode == "L":
        return to_indexed.lower_byte_table(program, src, node.size, np.arange(256))
    raise unsupported(
        node,
        f"putpalette of a {source.mode} image is proven for L and P images only (LA and PA "
        "keep their alpha beside the index)",
        fix="convert to L or P first, or evaluate with to_pil()",
    )


def _palette_alpha(program: Program, node: Node, ins: Inputs) -> int:
    """The transparency Pillow's ``convert`` of a P image to LA, PA or RGBA writes into the
    image's own palette: the indices kept (no dispatch), the palette ``_convert_info``'s."""
    return ins[0][0]


LOWERINGS: Mapping[str, Lowering] = {"putpalette": _put_palette, "palette_alpha": _palette_alpha}

ROUTES = (
    Route(
        operation="a P image after its convert to LA, PA or RGBA",
        modes=("P",),
        kernel="none",
        contexts="Pillow's convert writes the image's info['transparency'] into its own "
        "palette (putpalettealpha): recorded on the image converted, its indices kept, the "
        "palette's alpha read by what follows (getpalette('RGBA'), a later convert)",
    ),
    Route(
        operation="putpalette (L made P, P's palette replaced)",
        modes=("L", "P"),
        kernel="to_indexed (P: none)",
        contexts="the palette data read at the call (bytes, a list, an ImagePalette; any raw "
        "mode Pillow takes); L's value becomes the index, P keeps its indices (no dispatch); "
        "the result carries the palette Pillow installs",
    ),
    Route(
        operation="convert from P or 1 (to the modes marked)",
        modes=INDEXED_TARGETS,
        kernel="lut",
        contexts="an uploaded P/1 leaf, a completed result or a convert() to P/1 as input, or "
        "a P/1 copy, point or invert of one; Pillow's 256-entry table (palette, "
        "transparency) built by live Pillow",
    ),
    Route(
        operation="P and 1 copies: transpose, crop, expand, paste, putpixel, resize, "
        "transform AFFINE, EXTENT, QUAD (so thumbnail, rotate, exif_transpose, "
        "ImageOps.contain/fit/mirror)",
        modes=INDEXED_MODES,
        kernel="remap / paste / resize_nearest / affine_nearest / generic_transform",
        contexts="uploaded as Pillow's stored byte (P: the index, 1: 0/255) and widened by "
        "unpack; the stored bytes copied, resize and transform NEAREST whatever filter is "
        "asked for (as Pillow forces it); expand and putpixel with an index (a palette colour, "
        "3/4 values or a name, refused), transform with any fillcolor (as Image.new converts "
        "it); P results carry the palette and info Pillow gives them (the file header's, "
        "from_pil's, or rebuilt by expand and transform as Pillow rebuilds it); a P result "
        "whose palette depends on the pixels (a quantizer's) refused",
    ),
    Route(
        operation="P and 1: Image.point, ImageOps.invert",
        modes=INDEXED_MODES,
        kernel="lut (P invert: none)",
        contexts="point: a table of 256 values of the stored byte (a callable tabled as Pillow "
        "does), the palette kept; invert: 1 as 255 - x of the stored byte, P as Pillow's "
        "ImageOps._lut (the palette's colour entries inverted, alpha kept, the indices "
        "unchanged: no dispatch)",
    ),
    Route(
        operation="convert to P (from the modes marked)",
        modes=_columns(PALETTE_SOURCES),
        kernel="to_indexed / dither",
        contexts="L, LA and 1: the gray value as index with Pillow's 256-entry gray palette, any "
        "dither (1's stored byte, any value after point or a chop, read as 0 or 255 as Pillow's "
        "bit2l reads it); RGB, RGBX, RGBa (stored bytes), CMYK, YCbCr and HSV (through RGB) "
        "with the WEB palette: Pillow's palette cache as a 64^3-cell table read off live Pillow "
        "(exhaustive over 2^24 inputs), with dither=NONE per pixel, with Floyd-Steinberg (the "
        "default; any non-zero dither) Pillow's topalette error diffusion replayed exactly "
        "(rows as a wavefront, one workgroup per image); the result carries Pillow's palette "
        "(transparency colour included) and info; ADAPTIVE and RGBA -> P (quantize) refused",
    ),
    Route(
        operation="convert to 1 (from the modes marked)",
        modes=_columns(BILEVEL_SOURCES),
        kernel="to_indexed / dither / lut",
        contexts="dither=NONE: L, LA byte 0 >= 128; RGB, RGBA, RGBX Pillow's rgb2bit "
        "(r*299 + g*587 + b*114 >= 128000, exhaustive over 2^24 inputs); Floyd-Steinberg "
        "(the default; any non-zero dither): Pillow's tobilevel error diffusion of byte 0 or "
        "of (r*299 + g*587 + b*114) / 1000, replayed exactly (rows as a wavefront, one "
        "workgroup per image); RGBa, CMYK, YCbCr, HSV through RGB; P (any dither) the "
        "palette's table; returned as Pillow's 0/255 bytes",
    ),
    Route(
        operation="convert from PA (to every mode Pillow converts it to)",
        modes=("PA",),
        kernel="lut / to_indexed+lut",
        contexts="Pillow's pa2* converters (or its detour through RGB, or RGBA for LAB) read "
        "off live Pillow for all 256 x 256 (index, alpha) pairs with the image's own palette: "
        "admitted when the result is a per-byte table (bytes 0..2 from the index, byte 3 from "
        "the alpha: LA, RGBA, RGBX, LAB, ...) or a function of the index alone (L, RGB, 1, P, "
        "I, F, I;16*, ...); the palette's alpha and info['transparency'] are not read, as in "
        "Pillow; P results keep the PA palette (Pillow itself rejects palette=ADAPTIVE)",
    ),
    Route(
        operation="convert to PA (from the modes marked)",
        modes=("PA", *_columns(PALETTE_SOURCES)),
        kernel="lut / to_indexed+lut",
        contexts="P: Pillow's p2pa (the index, the palette's alpha or 255; info['transparency'] "
        "applied to the palette first), a 256-entry table; the convert('P') sources: Pillow's "
        "topalette index with alpha 255 (dither and palette rules as for P); RGBA -> PA "
        "(quantize) refused; the result carries Pillow's palette",
    ),
    Route(
        operation="PA copies: transpose, crop, expand, paste, putpixel, resize NEAREST, "
        "transform AFFINE, EXTENT, QUAD NEAREST",
        modes=("PA",),
        kernel="remap / paste / resize_nearest / affine_nearest / generic_transform",
        contexts="uploaded as Pillow's two stored bytes (index, alpha) and widened by unpack; "
        "the stored index and alpha copied (exif_transpose included); expand and "
        "putpixel with an index or (index, alpha), a palette colour (3/4 values or a name) "
        "refused; the result's palette as Pillow keeps or rebuilds it",
    ),
)
