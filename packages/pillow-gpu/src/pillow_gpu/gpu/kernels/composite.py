"""Compositing kernel: masked paste, masked colour fill and ``Image.alpha_composite``.

Per stored byte with Pillow's integer arithmetic (``Paste.c``, ``AlphaComposite.c``); see
``composite.wgsl`` for the formulas.
"""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["MASKS", "alpha_composite", "masked_paste", "packed_l_composite"]

#: Mask mode -> (kernel op, the mask's stored byte that weighs): Pillow's ``ImagingPaste`` and
#: ``ImagingFill2`` dispatch on the mask's mode the same way (1: select; L: its byte; LA and
#: RGBA: the alpha byte; RGBa: the alpha byte, premultiplied blend).
MASKS: dict[str, tuple[int, int]] = {
    "1": (2, 0),
    "L": (0, 0),
    "LA": (0, 3),
    "RGBA": (0, 3),
    "RGBa": (1, 3),
}

_ALPHA_COMPOSITE = 3


def masked_paste(
    program: Program,
    base: int,
    size: tuple[int, int],
    *,
    mask: int,
    mask_mode: str,
    region: tuple[int, int, int, int],
    src: int | None = None,
    ink: int = 0,
    alpha_byte: int | None = None,
) -> int:
    """``paste(src or ink, region, mask)`` over ``base``; ``mask`` has the region's size.

    ``region`` is (x, y, width, height) before clipping to ``base`` (Pillow's box). Without
    ``src`` the region is filled with the stored word ``ink``; with an L mask ``alpha_byte``
    then names the base's alpha byte for the rule of Pillow's ``fill_mask_L``.
    """
    op, mask_byte = MASKS[mask_mode]
    dst = program.image(size)
    x, y, width, height = region
    constants = {"OP": op, "MASK_BYTE": mask_byte, "USE_INK": int(src is None)}
    if src is None and mask_mode == "L" and alpha_byte is not None:
        constants["ALPHA_BYTE"] = alpha_byte
    _dispatch(
        program,
        size,
        (*size, width, height, x, y, ink),
        (base, base if src is None else src, mask, dst),
        constants,
        whole=region == (0, 0, *size),
    )
    return dst


def packed_l_composite(
    program: Program, base: int, src: int, mask: int, words: tuple[int, int]
) -> int:
    """``Image.composite`` of three same-size L images packed four pixels to a word
    (:mod:`pillow_gpu.gpu._packed_l`; ``words`` is their word grid): each pixel of ``src``
    over ``base``, weighed by its own mask byte."""
    dst = program.image(words)
    constants = {"OP": 0, "MASK_BYTE": 0, "USE_INK": 0, "PACKED": 1}
    _dispatch(
        program, words, (*words, *words, 0, 0, 0), (base, src, mask, dst), constants, whole=True
    )
    return dst


def alpha_composite(program: Program, dst_image: int, src: int, size: tuple[int, int]) -> int:
    """``Image.alpha_composite(dst_image, src)`` of two same-size RGBA or LA images."""
    dst = program.image(size)
    words = (*size, *size, 0, 0, 0)
    bindings = (dst_image, src, src, dst)
    _dispatch(program, size, words, bindings, {"OP": _ALPHA_COMPOSITE}, whole=True)
    return dst


def _dispatch(
    program: Program,
    size: tuple[int, int],
    words: tuple[int, ...],
    bindings: tuple[int, ...],
    constants: dict[str, int],
    *,
    whole: bool,
) -> None:
    """One ``composite`` dispatch; over the whole image, four words per invocation on a
    linear grid (the grid's column count is the last parameter word)."""
    if whole:
        program.dispatch(
            "composite",
            words=words,
            bindings=bindings,
            grid=(-(-size[0] * size[1] // 4), 1),
            invocation_work=16,  # four words' per-byte loops
            linear=True,
            constants={**constants, "FLAT": 1},
        )
        return
    program.dispatch(
        "composite",
        words=(*words, 0),
        bindings=bindings,
        grid=size,
        invocation_work=4,  # the per-byte loop
        constants=constants,
    )
