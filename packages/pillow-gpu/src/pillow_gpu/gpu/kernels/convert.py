"""Channel-selection kernel: grayscale, explicit conversions and getchannel."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = ["CONVERSIONS", "getchannel", "lower"]

_LUMA, _CMYK_LUMA, _CONST = 4, 5, 6

# (input mode, output mode) -> per output byte: (selector, constant). Each entry is proven
# against live Pillow (padding and alpha bytes included) by the parity suite.
CONVERSIONS: dict[tuple[str, str], tuple[tuple[int, int], ...]] = {
    ("L", "L"): ((0, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    ("LA", "L"): ((0, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    ("RGB", "L"): ((_LUMA, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    ("RGBA", "L"): ((_LUMA, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    ("RGBX", "L"): ((_LUMA, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    ("CMYK", "L"): ((_CMYK_LUMA, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)),
    ("L", "RGBA"): ((0, 0), (0, 0), (0, 0), (_CONST, 255)),
    ("LA", "RGBA"): ((0, 0), (0, 0), (0, 0), (3, 0)),
    ("RGB", "RGBA"): ((0, 0), (1, 0), (2, 0), (_CONST, 255)),
    ("L", "RGB"): ((0, 0), (0, 0), (0, 0), (_CONST, 255)),
    ("RGBA", "LA"): ((_LUMA, 0), (_LUMA, 0), (_LUMA, 0), (3, 0)),
}


def _lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    plan: tuple[tuple[int, int], ...],
    key: int | None = None,
) -> int:
    dst = program.image(size)
    selectors = tuple(selector for selector, _ in plan)
    constants = tuple(constant for _, constant in plan)
    keyed = (1, key) if key is not None else (0, 0)
    program.dispatch(
        "convert",
        words=(*size, *keyed, *selectors, *constants),
        bindings=(src, dst),
        grid=size,
        invocation_work=4,  # the per-byte loop
    )
    return dst


def lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    source_mode: str,
    mode: str,
    *,
    transparent: tuple[int, int, int] | None = None,
) -> int:
    """``Image.convert(mode)`` for a pair in :data:`CONVERSIONS`.

    ``transparent`` (an RGB colour, bytes 0..255) is Pillow's ``convert_transparent``: an
    output pixel of that colour with alpha 255 gets alpha 0 (``rgbT2rgba`` in Convert.c).
    """
    key = None
    if transparent is not None:
        red, green, blue = transparent
        key = red | green << 8 | blue << 16 | 0xFF << 24
    return _lower(program, src, size, CONVERSIONS[(source_mode, mode)], key)


def getchannel(program: Program, src: int, size: tuple[int, int], byte: int) -> int:
    """``Image.getchannel``: stored byte ``byte`` as an L image."""
    return _lower(program, src, size, ((byte, 0), (_CONST, 0), (_CONST, 0), (_CONST, 0)))
