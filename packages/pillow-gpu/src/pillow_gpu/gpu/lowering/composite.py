"""Lowerings of compositing: masked paste (``Image.composite``), masked colour fill and
``Image.alpha_composite`` (kernel ``composite``)."""

from __future__ import annotations

from PIL import Image as PILImage

from pillow_gpu._edits import paste_converts
from pillow_gpu._graph import Node
from pillow_gpu._pillow_memory import stored_word
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES, to_words
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu.kernels import composite
from pillow_gpu.gpu.lowering._admission import unsupported
from pillow_gpu.gpu.lowering._common import Inputs, Lowering, Route, require_mode
from pillow_gpu.gpu.lowering.indexed import MASK_INPUTS

__all__ = ["LOWERINGS", "ROUTES", "fill_ink", "refuse_hidden_bytes"]

#: Modes a masked paste or fill composes byte by byte (one stored byte, or four).
_BLEND_MODES = (*NATIVE_MODES, *LIMITED_MODES)
#: Modes ``Image.alpha_composite`` takes (Pillow's AlphaComposite.c).
_OVER_MODES = ("LA", "RGBA")
#: The byte Pillow's ``fill_mask_L`` reads as the base's alpha, per mode (its RGBA/RGBa case;
#: for LA/La/PA it reads byte 1, refused by :func:`refuse_hidden_bytes`).
_FILL_ALPHA_BYTE = {"RGBA": 3, "RGBa": 3}
#: Modes whose stored bytes 1 and 2 no band owns and Pillow's operations fill differently
#: (``Image.merge`` writes 0, decoders and conversions copy L, an int colour its own bytes).
_HIDDEN_BYTE_MODES = ("LA", "La")
_FIX = "evaluate this graph with to_pil()"


def _mask_mode(node: Node) -> str:
    mode = node.inputs[MASK_INPUTS[node.op]].mode
    if mode not in composite.MASKS:  # pragma: no cover - Pillow refuses these when recording
        raise unsupported(node, f"a mask of mode {mode} has no GPU route", _FIX)
    return mode


def refuse_hidden_bytes(node: Node, source_mode: str, reader: str) -> None:
    """Refuse an operation whose result reads an LA or La image's stored bytes 1 and 2.

    Those bytes belong to no band, so ``tobytes()`` and the GPU's uploads do not carry them,
    and which values they hold depends on the Pillow operation that made the image; a GPU
    result that depended on them could differ from Pillow's.
    """
    if source_mode in _HIDDEN_BYTE_MODES:
        raise unsupported(
            node,
            f"{reader} reads the stored bytes 1 and 2 of a {source_mode} image, which no band "
            "owns and which differ between the Pillow operations that made it",
            "convert the LA image to RGBA or L first, or evaluate this graph with to_pil()",
        )


def _paste_masked(program: Program, node: Node, ins: Inputs) -> int:
    require_mode(node, _BLEND_MODES, "masked paste")
    (base, base_node), (src, src_node), (mask, _mask_node) = ins
    if base_node.mode == "RGB":
        refuse_hidden_bytes(node, src_node.mode, "a paste into RGB (Pillow copies the words)")
    if paste_converts(base_node.mode, src_node.mode):
        raise unsupported(  # pragma: no cover - the recording converts as Pillow does
            node, f"paste of a {src_node.mode} source into {base_node.mode}", _FIX
        )
    x, y = node.params["box"]
    return composite.masked_paste(
        program,
        base,
        node.size,
        mask=mask,
        mask_mode=_mask_mode(node),
        region=(x, y, *src_node.size),
        src=src,
    )


def fill_ink(mode: str, color: object) -> int:
    """The stored word Pillow's fill writes for ``color`` in ``mode`` (its ``ink``), read from
    Pillow's storage so LA's bytes 1 and 2 are Pillow's too."""
    probe = PILImage.new(mode, (1, 1))
    probe.paste(color, (0, 0, 1, 1))  # type: ignore[arg-type]
    word = stored_word(probe)  # None for L, whose one byte to_words reads
    return int(to_words(probe)[0]) if word is None else word


def _fill_masked(program: Program, node: Node, ins: Inputs) -> int:
    require_mode(node, _BLEND_MODES, "masked colour fill")
    (base, _base_node), (mask, _mask_node) = ins
    if _mask_mode(node) == "L":
        refuse_hidden_bytes(node, node.mode, "Pillow's L-mask fill (its alpha test is byte 1)")
    x0, y0, x1, y1 = node.params["box"]
    return composite.masked_paste(
        program,
        base,
        node.size,
        mask=mask,
        mask_mode=_mask_mode(node),
        region=(x0, y0, x1 - x0, y1 - y0),
        ink=fill_ink(node.mode, node.params["color"]),
        alpha_byte=_FILL_ALPHA_BYTE.get(node.mode),
    )


def _alpha_composite(program: Program, node: Node, ins: Inputs) -> int:
    require_mode(node, _OVER_MODES, "alpha_composite")
    (dst, _dst_node), (src, _src_node) = ins
    return composite.alpha_composite(program, dst, src, node.size)


LOWERINGS: dict[str, Lowering] = {
    "paste_masked": _paste_masked,
    "fill_masked": _fill_masked,
    "alpha_composite": _alpha_composite,
}

ROUTES = (
    Route(
        operation="masked paste / Image.composite",
        modes=_BLEND_MODES,
        kernel="composite",
        contexts="masks of mode 1, L, LA, RGBA (alpha) and RGBa (premultiplied) as Pillow's "
        "Paste.c blends them, per stored byte (alpha and padding included); any offset incl. "
        "negative; a source of another mode converted as Pillow's paste converts it (RGBA "
        "and RGBa into RGB blended as stored; LA into RGB refused: it reads LA's unowned "
        "bytes 1 and 2); three L images of one size over the whole image (Image.composite) "
        "run four pixels to a word, each weighed by its own mask byte",
    ),
    Route(
        operation="masked colour fill paste(color, box, mask)",
        modes=_BLEND_MODES,
        kernel="composite",
        contexts="masks of mode 1, L, RGBA and RGBa; Pillow's ink word (read from its storage) "
        "and its L-mask rule for RGBA and RGBa (a colour byte over a transparent pixel takes "
        "the whole ink); an L mask on LA and La refused (the rule reads their unowned byte 1)",
    ),
    Route(
        operation="Image.alpha_composite / Image.Image.alpha_composite",
        modes=_OVER_MODES,
        kernel="composite",
        contexts="Pillow's integer 'over' (7 extra bits, rounded divisions); the in-place "
        "form's dest and source boxes as crops and a paste",
    ),
)
