"""The native route table: every (operation, mode, context) the GPU path admits.

Anything not listed is rejected at admission with ``Unsupported``; the planner
(:mod:`pillow_gpu.gpu._planner`) enforces the contexts, and ``docs/routes.md`` is generated from
:data:`ROUTES` (``python -m pillow_gpu.gpu._routes_doc``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pillow_gpu.gpu._affine_lowering import TRANSFORM
from pillow_gpu.gpu._autocontrast_lowering import AUTOCONTRAST, AUTOCONTRAST_MODES
from pillow_gpu.gpu._contrast_lowering import CONTRAST, CONTRAST_MODES
from pillow_gpu.gpu._equalize_lowering import EQUALIZE, EQUALIZE_MODES
from pillow_gpu.gpu._layout import NATIVE_MODES
from pillow_gpu.gpu._resize_lowering import REDUCE, RESIZE
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK
from pillow_gpu.gpu.kernels import bands, chops, convert, modefilter, rank, unsharp

__all__ = [
    "ALL_MODES",
    "BOX_MODES",
    "KERNEL_MODES",
    "MAX_BLUR_RADIUS",
    "MODE_FILTER_MODES",
    "RANK_MODES",
    "ROUTES",
    "UNSHARP_MODES",
    "Route",
    "render_routes_markdown",
]

#: Largest box radius (per axis, after the Gaussian conversion) the blur route admits.
MAX_BLUR_RADIUS = 256.0

ALL_MODES = NATIVE_MODES
BOX_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")
RANK_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")
MODE_FILTER_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")
UNSHARP_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")
KERNEL_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """One native route: a recorded operation, the modes it admits, its kernel family."""

    operation: str
    modes: tuple[str, ...]
    kernel: str
    contexts: str


#: The native route table: anything not listed here is rejected as Unsupported.
ROUTES: tuple[Route, ...] = (
    Route(
        operation="leaf upload / Image.new / cached result",
        modes=ALL_MODES,
        kernel="fill",
        contexts="decoded or PIL pixels uploaded once; Image.new filled on the device",
    ),
    Route(
        operation="ImageOps.invert",
        modes=("L", "RGB"),
        kernel="lut",
        contexts="Pillow admits L and RGB; RGB padding byte written as 0",
    ),
    Route(
        operation="ImageChops.invert",
        modes=ALL_MODES,
        kernel="lut",
        contexts="~x on every stored byte, alpha and padding included",
    ),
    Route(
        operation="Image.point",
        modes=ALL_MODES,
        kernel="lut",
        contexts="table of 256 x bands or a callable; mode= argument rejected",
    ),
    Route(
        operation="ImageOps.solarize / posterize",
        modes=("L", "RGB"),
        kernel="lut",
        contexts="any threshold; bits 0..8",
    ),
    Route(
        operation="ImageEnhance.Brightness",
        modes=ALL_MODES,
        kernel="lut",
        contexts="any factor; alpha unchanged",
    ),
    Route(
        operation="transpose / ImageOps.flip / mirror / exif_transpose",
        modes=ALL_MODES,
        kernel="remap",
        contexts="all seven Transpose methods; exif_transpose orientations 2..8",
    ),
    Route(
        operation="crop / ImageOps.crop",
        modes=ALL_MODES,
        kernel="remap",
        contexts="any box; areas outside the source are zero",
    ),
    Route(
        operation="ImageOps.expand", modes=ALL_MODES, kernel="remap", contexts="any border and fill"
    ),
    Route(
        operation="paste (unmasked)",
        modes=ALL_MODES,
        kernel="paste",
        contexts="same source mode; any offset incl. negative; lazy sources",
    ),
    Route(operation="putpixel", modes=ALL_MODES, kernel="paste", contexts="in-range coordinates"),
    Route(
        operation="resize NEAREST",
        modes=ALL_MODES,
        kernel="resize_nearest",
        contexts="any size and box; host-built index tables",
    ),
    Route(operation=RESIZE[0], modes=ALL_MODES, kernel=RESIZE[1], contexts=RESIZE[2]),
    Route(operation=TRANSFORM[0], modes=ALL_MODES, kernel=TRANSFORM[1], contexts=TRANSFORM[2]),
    Route(operation=REDUCE[0], modes=ALL_MODES, kernel=REDUCE[1], contexts=REDUCE[2]),
    Route(
        operation="convert / ImageOps.grayscale",
        modes=ALL_MODES,
        kernel="convert",
        contexts="pairs: "
        + ", ".join(f"{a}->{b}" for a, b in convert.CONVERSIONS)
        + "; info['transparency'] for L->RGBA (an int 0..255) and RGB->RGBA (3 ints 0..255) "
        "gives that colour alpha 0 (Pillow's convert_transparent), other values rejected",
    ),
    Route(
        operation="convert from P or 1 (to the modes marked)",
        modes=ALL_MODES,
        kernel="lut",
        contexts="an uploaded P/1 leaf or completed result as input; "
        "Pillow's 256-entry table (palette, transparency) built by live Pillow; no other "
        "operation reads P/1",
    ),
    Route(operation="getchannel / split", modes=ALL_MODES, kernel="convert", contexts="any band"),
    Route(
        operation="Image.merge",
        modes=ALL_MODES,
        kernel="bands",
        contexts="L bands; RGB padding and LA bytes 1-2 written 0 as Pillow writes them",
    ),
    Route(
        operation="putalpha",
        modes=tuple(bands.PUTALPHA_MODES),
        kernel="bands",
        contexts="L image or int alpha; L -> LA, RGB/RGBX -> RGBA as Pillow converts",
    ),
    Route(
        operation="ImageChops binary ops",
        modes=ALL_MODES,
        kernel="chops",
        contexts="both inputs in the same mode; output is the overlap: "
        + ", ".join(name for name in chops.OPS if name != "blend"),
    ),
    Route(
        operation="Image.blend / ImageChops.blend",
        modes=ALL_MODES,
        kernel="chops",
        contexts="any alpha (host 256x256 table)",
    ),
    Route(
        operation="BoxBlur / GaussianBlur",
        modes=BOX_MODES,
        kernel="boxblur",
        contexts=f"radius (or per-axis radii) with box radius <= {MAX_BLUR_RADIUS:g}",
    ),
    Route(
        operation="MedianFilter / MinFilter / MaxFilter / RankFilter",
        modes=RANK_MODES,
        kernel="rank",
        contexts=f"odd size <= {rank.MAX_SIZE}",
    ),
    Route(
        operation="ModeFilter",
        modes=MODE_FILTER_MODES,
        kernel="modefilter",
        contexts=f"any size <= {modefilter.MAX_SIZE} (even sizes and sizes <= 2 as Pillow "
        "treats them); per band, clipped window, ties to the smallest value",
    ),
    Route(
        operation="UnsharpMask",
        modes=UNSHARP_MODES,
        kernel="boxblur+unsharp",
        contexts=f"Gaussian box radius <= {MAX_BLUR_RADIUS:g}, percent within +-"
        f"{unsharp.MAX_PERCENT}, any threshold; every stored byte (alpha, RGB padding, X)",
    ),
    Route(
        operation="ImageFilter.Kernel and built-in kernels",
        modes=KERNEL_MODES,
        kernel="convolve",
        contexts="3x3 and 5x5",
    ),
    Route(
        operation="ImageEnhance.Color",
        modes=("L", "LA", "RGB", "RGBA"),
        kernel="convert+chops",
        contexts="any factor",
    ),
    Route(operation=CONTRAST[0], modes=CONTRAST_MODES, kernel=CONTRAST[1], contexts=CONTRAST[2]),
    Route(operation=EQUALIZE[0], modes=EQUALIZE_MODES, kernel=EQUALIZE[1], contexts=EQUALIZE[2]),
    Route(
        operation=AUTOCONTRAST[0],
        modes=AUTOCONTRAST_MODES,
        kernel=AUTOCONTRAST[1],
        contexts=AUTOCONTRAST[2],
    ),
    Route(
        operation="ImageEnhance.Sharpness",
        modes=KERNEL_MODES,
        kernel="convolve+bands+chops",
        contexts="any factor; recorded as filter(SMOOTH), putalpha of the alpha, blend",
    ),
    Route(
        operation="ImageOps.colorize",
        modes=("L",),
        kernel="convert+lut",
        contexts="any colours and points; recorded as convert(RGB) + point (Pillow's table)",
    ),
)


def render_routes_markdown() -> str:
    """The route table as Markdown (docs/routes.md is generated from this)."""
    lines = [
        "# Native GPU routes",
        "",
        "Generated from `pillow_gpu.gpu._routes.ROUTES` by",
        "`python -m pillow_gpu.gpu._routes_doc > docs/routes.md`; a test keeps it in sync.",
        "Everything else is rejected at admission with `Unsupported`, and so is a graph whose",
        f"shader work exceeds {MAX_SUBMISSION_WORK:_} units (each dispatch: invocations x",
        "(8 + the kernel's inner-loop samples); see `docs/executor.md`).",
        "",
        "| Operation | " + " | ".join(NATIVE_MODES) + " | Kernel | Contexts |",
        "|---|" + "---|" * len(NATIVE_MODES) + "---|---|",
    ]
    for route in ROUTES:
        marks = " | ".join("yes" if mode in route.modes else "-" for mode in NATIVE_MODES)
        lines.append(f"| {route.operation} | {marks} | {route.kernel} | {route.contexts} |")
    return "\n".join(lines) + "\n"
