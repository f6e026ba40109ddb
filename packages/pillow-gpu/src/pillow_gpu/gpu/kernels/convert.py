"""Channel-selection kernel: Pillow's ``convert`` between native layouts, and getchannel."""

from __future__ import annotations

from pillow_gpu.gpu._program import Program

__all__ = [
    "CONVERSIONS",
    "KEY_OUTPUT",
    "KEY_SOURCE",
    "KEY_ZERO",
    "SELECTIONS",
    "getchannel",
    "lower",
]

# Selectors (see convert.wgsl): input bytes 0..3, luma, CMYK luma, constant, CMYK -> RGB
# channels, inverted input bytes.
_R, _G, _B, _A = 0, 1, 2, 3
_LUMA, _CMYK_LUMA, _CONST = 4, 5, 6
_CMYK_R, _CMYK_G, _CMYK_B = 7, 8, 9
_NOT_R, _NOT_G, _NOT_B = 10, 11, 12

_Plan = tuple[tuple[int, int], ...]

_ZERO = (_CONST, 0)
_OPAQUE = (_CONST, 255)
_COPY: _Plan = ((0, 0), (1, 0), (2, 0), (3, 0))
_TO_L: _Plan = ((_LUMA, 0), _ZERO, _ZERO, _ZERO)
_TO_LA_OPAQUE: _Plan = ((_LUMA, 0), (_LUMA, 0), (_LUMA, 0), _OPAQUE)
_GRAY_OPAQUE: _Plan = ((0, 0), (0, 0), (0, 0), _OPAQUE)  # l2rgb: v, v, v, 255
_GRAY_TO_CMYK: _Plan = (_ZERO, _ZERO, _ZERO, (_NOT_R, 0))  # l2cmyk / la2cmyk: 0, 0, 0, ~v
_RGB_OPAQUE: _Plan = ((_R, 0), (_G, 0), (_B, 0), _OPAQUE)  # rgb2rgba / rgba2rgb
_RGB_TO_CMYK: _Plan = ((_NOT_R, 0), (_NOT_G, 0), (_NOT_B, 0), _ZERO)  # no undercolour removal
_CMYK_TO_RGB: _Plan = ((_CMYK_R, 0), (_CMYK_G, 0), (_CMYK_B, 0), _OPAQUE)

# (input mode, output mode) -> per output byte: (selector, constant), each the stored bytes
# Pillow's Convert.c writes (padding and alpha included), taking the RGB detour Pillow takes
# where its converter table has no direct entry (RGBX -> RGBA, CMYK -> L/LA). An identity is
# a copy of every stored byte, as Pillow's ``convert`` to the same mode copies the image.
# Every entry is proven against live Pillow by the parity suite.
CONVERSIONS: dict[tuple[str, str], _Plan] = {
    ("L", "L"): _COPY,
    ("L", "LA"): _GRAY_OPAQUE,
    ("L", "RGB"): _GRAY_OPAQUE,
    ("L", "RGBA"): _GRAY_OPAQUE,
    ("L", "RGBX"): _GRAY_OPAQUE,
    ("L", "CMYK"): _GRAY_TO_CMYK,
    ("LA", "L"): ((0, 0), _ZERO, _ZERO, _ZERO),
    ("LA", "LA"): _COPY,
    ("LA", "RGB"): ((0, 0), (0, 0), (0, 0), (_A, 0)),  # la2rgb: the padding byte gets A
    ("LA", "RGBA"): ((0, 0), (0, 0), (0, 0), (_A, 0)),
    ("LA", "RGBX"): ((0, 0), (0, 0), (0, 0), (_A, 0)),
    ("LA", "CMYK"): _GRAY_TO_CMYK,
    ("RGB", "L"): _TO_L,
    ("RGB", "LA"): _TO_LA_OPAQUE,
    ("RGB", "RGB"): _COPY,
    ("RGB", "RGBA"): _RGB_OPAQUE,
    ("RGB", "RGBX"): _RGB_OPAQUE,
    ("RGB", "CMYK"): _RGB_TO_CMYK,
    ("RGBA", "L"): _TO_L,
    ("RGBA", "LA"): ((_LUMA, 0), (_LUMA, 0), (_LUMA, 0), (_A, 0)),
    ("RGBA", "RGB"): _RGB_OPAQUE,
    ("RGBA", "RGBA"): _COPY,
    ("RGBA", "RGBX"): _RGB_OPAQUE,
    ("RGBA", "CMYK"): _RGB_TO_CMYK,
    ("RGBX", "L"): _TO_L,
    ("RGBX", "LA"): _TO_LA_OPAQUE,
    ("RGBX", "RGB"): _RGB_OPAQUE,
    ("RGBX", "RGBA"): _RGB_OPAQUE,  # through RGB
    ("RGBX", "RGBX"): _COPY,
    ("RGBX", "CMYK"): _RGB_TO_CMYK,
    ("CMYK", "L"): ((_CMYK_LUMA, 0), _ZERO, _ZERO, _ZERO),  # through RGB
    ("CMYK", "LA"): ((_CMYK_LUMA, 0), (_CMYK_LUMA, 0), (_CMYK_LUMA, 0), _OPAQUE),  # through RGB
    ("CMYK", "RGB"): _CMYK_TO_RGB,
    ("CMYK", "RGBA"): _CMYK_TO_RGB,
    ("CMYK", "RGBX"): _CMYK_TO_RGB,
    ("CMYK", "CMYK"): _COPY,
}

_YCBCR_GRAY: _Plan = ((0, 0), (_CONST, 128), (_CONST, 128), _OPAQUE)  # l2ycbcr / la2ycbcr

#: Pillow's direct converters to or from YCbCr, La and RGBa (gpu.lowering.limited) that only
#: select or set stored bytes, as :data:`CONVERSIONS` entries are; the others (RGB <-> YCbCr,
#: premultiplication) have kernels of their own.
SELECTIONS: dict[tuple[str, str], _Plan] = {
    ("L", "YCbCr"): _YCBCR_GRAY,
    ("LA", "YCbCr"): _YCBCR_GRAY,
    ("YCbCr", "L"): ((0, 0), _ZERO, _ZERO, _ZERO),  # ycbcr2l
    ("YCbCr", "LA"): _GRAY_OPAQUE,  # ycbcr2la: Y, Y, Y, 255
    ("RGB", "La"): _TO_LA_OPAQUE,  # rgb2la
    ("RGB", "RGBa"): _RGB_OPAQUE,  # rgb2rgba
}

#: Keyed modes of the kernel (Pillow's rgbT2a): compare the output word, or the source word;
#: with ``KEY_ZERO`` added a match becomes 0 (the premultiplied targets La and RGBa).
KEY_OUTPUT, KEY_SOURCE, KEY_ZERO = 1, 2, 4


def _lower(
    program: Program,
    src: int,
    size: tuple[int, int],
    plan: _Plan,
    keyed: tuple[int, int] = (0, 0),
) -> int:
    dst = program.image(size)
    selectors = {f"SEL{j}": selector for j, (selector, _) in enumerate(plan)}
    constants = tuple(constant for _, constant in plan)
    pixels = size[0] * size[1]
    program.dispatch(
        "convert",
        words=(pixels, keyed[1], 0, 0, *constants),
        bindings=(src, dst),
        grid=(-(-pixels // 4), 1),
        invocation_work=16,  # four pixels' four output bytes
        linear=True,
        constants={**selectors, "KEYED": keyed[0]},
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
    compare_source: bool = False,
) -> int:
    """``Image.convert(mode)`` for a pair in :data:`CONVERSIONS` or :data:`SELECTIONS`.

    ``transparent`` (an RGB colour, bytes 0..255) is Pillow's ``convert_transparent``: an
    output pixel of that colour with alpha 255 gets alpha 0; with ``compare_source`` (Pillow's
    RGB -> LA/La) a pixel whose source word is that colour with padding 255 becomes the colour
    with alpha 0 (``rgbT2a`` in Convert.c). For the premultiplied targets (La, RGBa) a matched
    pixel becomes 0 in every byte, as ``rgbT2a`` writes it.
    """
    keyed = (0, 0)
    if transparent is not None:
        red, green, blue = transparent
        key = red | green << 8 | blue << 16 | 0xFF << 24
        zero = KEY_ZERO if mode in ("La", "RGBa") else 0
        keyed = ((KEY_SOURCE if compare_source else KEY_OUTPUT) | zero, key)
    pair = (source_mode, mode)
    plan = CONVERSIONS[pair] if pair in CONVERSIONS else SELECTIONS[pair]
    return _lower(program, src, size, plan, keyed)


def getchannel(program: Program, src: int, size: tuple[int, int], byte: int) -> int:
    """``Image.getchannel``: stored byte ``byte`` as an L image."""
    return _lower(program, src, size, ((byte, 0), _ZERO, _ZERO, _ZERO))
