"""The random-graph draw against live Pillow: short graphs over every mode the GPU path stores
(native, band-twin, wide, indexed) and the steps users chain, and their outcome on both routes.

The steps: geometric, filter, conversion and ImageOps steps, ImageChops of every kind, blends,
composites and masked pastes (1, L, LA, RGBA and RGBa masks), band steps, the steps'
parameters beyond their defaults (boxes, centres, fill colours, cutoffs, masks, dither,
palettes, tables), drawing, ``putdata``, ``save`` and open again, and edits of the image's
``info`` between them (``transparency``, ``dpi``, an EXIF orientation, every key dropped). A
graph is exact on the GPU and on the CPU route (``to_pil()``; bytes, palette and ``info``),
refused (``Unsupported``/``Limit``) on the GPU with the CPU route exact, or raises what Pillow
raises when recorded. ``test_pgpu_parity_random_modes.py`` and
``corpus/test_pgpu_corpus_random_graphs.py`` run it in the suite, ``tools/random_graphs.py``
over any range of seeds (validation.md).
"""

from __future__ import annotations

import io
import itertools
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageDraw as PILImageDraw
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageMath as PILImageMath
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence
from PIL import ImageTransform as PILImageTransform
from pillow_gpu import (
    Image,
    ImageChops,
    ImageEnhance,
    ImageFilter,
    ImageMath,
    ImageOps,
    ImageSequence,
)
from pillow_gpu._crashing_saves import refuse_crashing_save
from pillow_gpu._palette_state import PaletteState
from pillow_gpu._testing import make_image, undated_info
from pillow_gpu.errors import Limit, Unsupported
from pillow_gpu.gpu import evaluate

from .random_graph_saves import SAVE_FORMATS, draw_options, same_saved, save_arguments

MODES = (
    "L", "LA", "RGB", "RGBA", "RGBX", "CMYK", "YCbCr", "HSV", "LAB", "La", "RGBa",
    "I", "I;16", "I;16B", "F", "P", "PA", "1",
)  # fmt: skip
FILTERS = tuple(PILImage.Resampling)
TARGETS = (
    "L", "LA", "RGB", "RGBA", "CMYK", "YCbCr", "HSV", "LAB", "La", "RGBa", "I", "I;16", "F",
    "P", "PA", "1",
)  # fmt: skip

ENHANCERS = ("Brightness", "Contrast", "Color", "Sharpness")
#: Edits of the image's own info dict, made in place in both libraries.
INFO_EDITS = ("clear", "dpi", "transparency-int", "transparency-tuple")
AFFINE = (1.1, 0.1, -1, -0.1, 0.9, 2)
QUAD = (0, 0, 2, 20, 18, 19, 20, 1)

Step = tuple[str, Any]


#: One seed in this many of an L, 1, I or F source draws Pillow's ``point`` of a P image,
#: which keeps the palette inside (``pillow_gpu._palette_inside``).
POINTED_EVERY = 8


def source_image(mode: str, size: tuple[int, int], seed: int) -> PILImage.Image:
    rng = np.random.default_rng(seed)
    height_width = (size[1], size[0])
    if mode in ("L", "1", "I", "F") and seed % POINTED_EVERY == 0:
        table = rng.integers(0, 256, 256).tolist()
        return make_image("RGB", size, seed).convert("P").point(table, mode)
    if mode == "I":
        return PILImage.fromarray(rng.integers(-70_000, 70_000, height_width, dtype=np.int32))
    if mode == "F":
        return PILImage.fromarray(rng.normal(0, 100, height_width).astype(np.float32))
    if mode in ("P", "PA", "1"):
        paletted = make_image("RGB", size, seed).convert("P")
        return paletted if mode == "P" else paletted.convert(mode)
    nbytes = size[0] * size[1] * (2 if mode.startswith("I;16") else PILImage.getmodebands(mode))
    return PILImage.frombytes(mode, size, rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes())


CHOPS = (
    "multiply", "screen", "overlay", "hard_light", "soft_light", "difference", "darker",
    "lighter", "add", "subtract", "add_modulo", "subtract_modulo", "logical_and", "logical_or",
    "logical_xor",
)  # fmt: skip
MASKS = ("1", "L", "LA", "RGBA", "RGBa")
#: Fill colours of rotations and transforms: none, a band value, a tuple, a colour name.
FILL_COLORS = (None, 77, (200, 10, 30), (200, 10, 30, 128), "gold")
#: Colours of ``Image.new``: a band value, tuples of three and four, a name, a float, none.
NEW_COLORS = (0, 200, (10, 20, 30), (10, 20, 30, 40), "red", 1.5, None)
#: Formats the ``save`` step writes (and opens again).
#: Filters rotations and transforms take.
ROTATE_FILTERS = (
    PILImage.Resampling.NEAREST, PILImage.Resampling.BILINEAR, PILImage.Resampling.BICUBIC
)  # fmt: skip
#: Modes the steps with a leading ``fit`` flag take (the first is converted to when it is set;
#: when it is not, any mode, so Pillow's refusals are checked too).
FITTED_MODES = {
    "autocontrast_args": ("RGB", "L"),
    "equalize_mask": ("L", "RGB"),
    "quantize": ("RGB", "RGBA", "L"),
    "putpalette": ("L", "LA", "P", "PA"),
    "remap_palette": ("P",),
    "alpha_composite_at": ("RGBA",),
    "putdata": ("L", "I", "F", "1", "P"),
}
BUILTIN_FILTERS = (
    "BLUR", "CONTOUR", "DETAIL", "EDGE_ENHANCE", "EDGE_ENHANCE_MORE", "EMBOSS", "FIND_EDGES",
    "SHARPEN", "SMOOTH", "SMOOTH_MORE",
)  # fmt: skip
#: Steps of two images (the second made from the first), masks, bands and more filters.
EXTRA: dict[str, Callable[[random.Random], Any]] = {
    "chop": lambda rng: rng.choice(CHOPS),
    "blend": lambda rng: rng.uniform(-1, 2),
    "composite": lambda rng: rng.choice(MASKS),
    "paste_mask": lambda rng: (rng.choice(MASKS), rng.randint(-5, 5), rng.randint(-5, 5)),
    "fill_mask": lambda rng: (rng.choice(MASKS), rng.randint(0, 255)),
    "putalpha": lambda rng: rng.choice([None, rng.randint(0, 255)]),
    "merge_split": lambda rng: None,
    "getchannel": lambda rng: None,
    "kernel": lambda rng: ([rng.randint(-3, 5) for _ in range(9)], rng.choice([None, 1, 3])),
    "modefilter": lambda rng: rng.choice([3, 5]),
    "rank": lambda rng: (rng.choice([3, 5]), rng.randint(0, 8)),
    "minmax": lambda rng: rng.choice(["min", "max"]),
    "unsharp": lambda rng: (
        rng.choice([0, rng.uniform(0, 3), rng.uniform(0, 3)]),
        rng.randint(0, 300),
        rng.randint(0, 10),
    ),
    "point_mode": lambda rng: rng.choice(["L", "1"]),
    "matrix": lambda rng: rng.choice(["L", "RGB"]),
    "colorize": lambda rng: rng.randint(0, 100),
    "fit": lambda rng: (rng.randint(1, 30), rng.randint(1, 30)),
    "pad": lambda rng: (rng.randint(1, 30), rng.randint(1, 30)),
    "contain": lambda rng: (rng.randint(1, 30), rng.randint(1, 30)),
    "scale": lambda rng: rng.choice([0.33, 0.5, 1.5]),
    "orientation": lambda rng: rng.randint(1, 8),
    "putpixel": lambda rng: (rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 255)),
    "alpha_composite": lambda rng: None,
    # Parameters beyond the defaults of the steps above, and more steps users reach for.
    "autocontrast_args": lambda rng: (
        rng.random() < 0.7,
        rng.choice([0, rng.uniform(0, 20), (rng.uniform(0, 10), rng.uniform(0, 10))]),
        rng.choice([None, rng.randint(0, 255), [rng.randint(0, 255), rng.randint(0, 255)]]),
        rng.choice([None, "1", "L"]),
        rng.random() < 0.5,
    ),
    "equalize_mask": lambda rng: (rng.random() < 0.7, rng.choice(["1", "L"])),
    "resize_box": lambda rng: (
        (rng.randint(1, 30), rng.randint(1, 30)),
        rng.choice(FILTERS),
        (rng.uniform(0, 0.4), rng.uniform(0, 0.4), rng.uniform(0.5, 1), rng.uniform(0.5, 1)),
        rng.choice([None, 1.0, 1.5, 3.0]),
    ),
    "reduce_box": lambda rng: (rng.choice([2, 3, (3, 2)]), rng.randint(0, 3), rng.randint(0, 3)),
    "rotate_args": lambda rng: (
        rng.choice([90, 180, rng.uniform(-180, 180)]),
        rng.choice(ROTATE_FILTERS),
        rng.random() < 0.5,
        rng.choice([None, (rng.uniform(-3, 10), rng.uniform(-3, 10))]),
        rng.choice([None, (rng.randint(-4, 4), rng.randint(-4, 4))]),
        rng.choice(FILL_COLORS),
    ),
    "transform_fill": lambda rng: (rng.choice(ROTATE_FILTERS), rng.choice(FILL_COLORS)),
    "quantize": lambda rng: (
        rng.random() < 0.7,
        rng.choice([2, 16, 256]),
        rng.choice([None, 0, 1, 2]),
        rng.choice(list(PILImage.Dither)[:1] + list(PILImage.Dither)[-1:]),
    ),
    "convert_dither": lambda rng: (
        rng.choice(["1", "P", "L", "RGB"]),
        rng.choice([PILImage.Dither.NONE, PILImage.Dither.FLOYDSTEINBERG]),
        rng.choice(list(PILImage.Palette)),
        rng.choice([2, 16, 255]),
    ),
    "point_table": lambda rng: rng.randint(0, 2**31),
    "offset": lambda rng: (rng.randint(-30, 30), rng.choice([None, rng.randint(-30, 30)])),
    "ops_flip": lambda rng: None,
    "ops_crop": lambda rng: rng.randint(0, 4),
    "grayscale": lambda rng: None,
    "cover": lambda rng: (rng.randint(1, 30), rng.randint(1, 30)),
    "builtin_filter": lambda rng: rng.choice(BUILTIN_FILTERS),
    "putpalette": lambda rng: (
        rng.random() < 0.7,
        rng.randint(0, 2**31),
        rng.choice([1, 16, 256]),
        rng.choice(["RGB", "RGB", "RGBA", "RGBX"]),
    ),
    "remap_palette": lambda rng: (rng.random() < 0.7, rng.randint(0, 2**31)),
    "draw": lambda rng: (
        rng.choice(["rectangle", "line", "ellipse", "text", "polygon"]),
        rng.randint(0, 255),
        rng.choice([None, rng.randint(0, 255)]),
        rng.randint(1, 3),
    ),
    "alpha_composite_at": lambda rng: (
        rng.random() < 0.7,
        (rng.randint(-1, 6), rng.randint(0, 6)),
        (rng.randint(0, 4), rng.randint(-1, 4)),
    ),
    "putdata": lambda rng: (rng.random() < 0.7, rng.choice([1.0, 0.5]), rng.randint(-5, 5)),
    "blur_radii": lambda rng: (
        rng.choice(["GaussianBlur", "BoxBlur"]),
        (rng.choice([0, 0.5, 1, 2.5]), rng.choice([0, 0.5, 1, 2.5])),
    ),
    "expand_args": lambda rng: (
        rng.choice([0, 2, (1, 3), (0, 2, 1, 3)]),
        rng.choice([0, 200, (200, 10, 30), "gold"]),
    ),
    "pad_args": lambda rng: (
        (rng.randint(1, 30), rng.randint(1, 30)),
        rng.choice([None, 90, (10, 200, 30), "teal"]),
        rng.choice([(0.5, 0.5), (0, 1), (0.3, 0.8)]),
    ),
    "fit_args": lambda rng: (
        (rng.randint(1, 30), rng.randint(1, 30)),
        rng.choice([0.0, 0.1, 0.3]),
        rng.choice([(0.5, 0.5), (0, 1), (0.3, 0.8)]),
    ),
    "seek": lambda rng: rng.randint(0, 3),
    "save": lambda rng: rng.choice(SAVE_FORMATS),
    "new_paste": lambda rng: (rng.choice(NEW_COLORS), rng.randint(0, 4), rng.randint(0, 3)),
    "eval": lambda rng: rng.randint(1, 4),
    "math": lambda rng: rng.choice(["add", "compare", "convert"]),
    "transform_handler": lambda rng: rng.choice(ROTATE_FILTERS),
    "deform": lambda rng: rng.randint(1, 3),
    "paste_pil": lambda rng: (
        rng.choice(["L", "RGB", "RGBA", "1", "P"]),
        rng.choice([None, "1", "L", "RGBA"]),
        rng.randint(-3, 8),
        rng.randint(-3, 8),
    ),
    "paste_plain": lambda rng: (
        rng.choice(["color", "L", "RGB", "RGBA", "1", "P", "I"]),
        rng.randint(-5, 10),
        rng.randint(-5, 10),
    ),
    "save_options": draw_options,
}


def _step(rng: random.Random) -> Step:
    if rng.random() < 0.4:
        kind = rng.choice(list(EXTRA))
        return kind, EXTRA[kind](rng)
    kind = rng.choice(
        ["resize", "rotate", "transpose", "gauss", "box", "median", "point", "convert",
         "perspective", "affine", "quad", "extent", "reduce", "invert", "thumbnail", "crop",
         "enhance", "autocontrast", "equalize", "posterize", "solarize", "expand", "mirror",
         "add", "info", "info"]
    )  # fmt: skip
    arguments: dict[str, Callable[[], Any]] = {
        "resize": lambda: ((rng.randint(1, 30), rng.randint(1, 30)), rng.choice(FILTERS)),
        "rotate": lambda: (rng.uniform(-180, 180), rng.choice(FILTERS[:4]), rng.random() < 0.5),
        "transpose": lambda: rng.choice(list(PILImage.Transpose)),
        "gauss": lambda: rng.uniform(0, 3),
        "box": lambda: rng.uniform(0, 3),
        "median": lambda: rng.choice([3, 5]),
        "point": lambda: rng.uniform(-2, 2),
        "convert": lambda: rng.choice(TARGETS),
        "perspective": lambda: (
            1 + rng.uniform(-0.1, 0.1),
            rng.uniform(-0.2, 0.2),
            rng.uniform(-3, 3),
            rng.uniform(-0.2, 0.2),
            1 + rng.uniform(-0.1, 0.1),
            rng.uniform(-3, 3),
            rng.uniform(-0.004, 0.004),
            rng.uniform(-0.004, 0.004),
        ),
        "reduce": lambda: rng.choice([2, 3, (2, 3)]),
        "thumbnail": lambda: (rng.randint(1, 20), rng.randint(1, 20)),
        "crop": lambda: (
            tuple(rng.randint(-3, 5) for _ in "xy") + tuple(rng.randint(6, 25) for _ in "xy")
        ),
        "enhance": lambda: (rng.choice(ENHANCERS), rng.uniform(-1, 3)),
        "posterize": lambda: rng.randint(1, 8),
        "solarize": lambda: rng.randint(0, 255),
        "expand": lambda: rng.randint(0, 3),
        "info": lambda: (rng.choice(INFO_EDITS), rng.randint(0, 255)),
    }
    return kind, arguments.get(kind, lambda: None)()


#: The bytes the last ``save`` step wrote, by library (True: ours), compared after each.
SAVED: dict[bool, bytes] = {}


def _apply(ours: bool, image: Any, step: Step) -> Any:
    kind, value = step
    if kind in EXTRA:
        return _apply_extra(ours, image, step)
    ops = ImageOps if ours else PILImageOps
    filters = ImageFilter if ours else PILImageFilter
    enhance = ImageEnhance if ours else PILImageEnhance
    chops = ImageChops if ours else PILImageChops
    transform = PILImage.Transform
    calls: dict[str, Callable[[], Any]] = {
        "resize": lambda: image.resize(*value),
        "rotate": lambda: image.rotate(value[0], value[1], expand=value[2]),
        "transpose": lambda: image.transpose(value),
        "gauss": lambda: image.filter(filters.GaussianBlur(value)),
        "box": lambda: image.filter(filters.BoxBlur(value)),
        "median": lambda: image.filter(filters.MedianFilter(value)),
        "point": lambda: image.point(lambda v: v * value + 10),
        "convert": lambda: image.convert(value),
        "perspective": lambda: image.transform(image.size, transform.PERSPECTIVE, value, 2),
        "affine": lambda: image.transform(image.size, transform.AFFINE, AFFINE, 3),
        "quad": lambda: image.transform((12, 10), transform.QUAD, QUAD, 2),
        "extent": lambda: image.transform((9, 8), transform.EXTENT, (2, 3, 15, 14), 2),
        "reduce": lambda: image.reduce(value),
        "invert": lambda: ops.invert(image),
        "crop": lambda: image.crop(value),
        "enhance": lambda: getattr(enhance, value[0])(image).enhance(value[1]),
        "autocontrast": lambda: ops.autocontrast(image),
        "equalize": lambda: ops.equalize(image),
        "posterize": lambda: ops.posterize(image, value),
        "solarize": lambda: ops.solarize(image, value),
        "expand": lambda: ops.expand(image, value, 0),
        "mirror": lambda: ops.mirror(image),
        "add": lambda: chops.add(image, image, 1.5, 3),
    }
    if kind == "info":  # the image's own dict, edited in place in both libraries
        edit, number = value
        if edit == "clear":
            image.info.clear()
        elif edit == "dpi":
            image.info["dpi"] = (number, number)
        elif edit == "transparency-int":
            image.info["transparency"] = number
        else:
            image.info["transparency"] = (number, number // 2, 255 - number)
        return image
    if kind == "thumbnail":
        copy = image.copy()
        copy.thumbnail(value)  # in place, in both libraries
        return copy
    return calls[kind]()


def _lazy_or_pil(ours: bool, image: PILImage.Image) -> Any:
    return Image.from_pil(image) if ours else image


def _apply_extra(ours: bool, image: Any, step: Step) -> Any:
    kind, value = step
    library = Image if ours else PILImage
    filters = ImageFilter if ours else PILImageFilter
    ops = ImageOps if ours else PILImageOps
    if kind == "chop":
        other = image.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
        return getattr(ImageChops if ours else PILImageChops, value)(image, other)
    if kind == "blend":
        return library.blend(image, image.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM), value)
    if kind in ("composite", "paste_mask", "fill_mask"):
        mode = value if kind == "composite" else value[0]
        mask = _lazy_or_pil(ours, source_image(mode, image.size, 11))
        if kind == "composite":
            other = image.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
            return library.composite(image, other, mask)
        out = image.copy()
        if kind == "paste_mask":
            out.paste(image.transpose(PILImage.Transpose.ROTATE_180), value[1:], mask)
        else:
            out.paste(value[1], (0, 0, *image.size), mask)
        return out
    if kind in ("putalpha", "putpixel", "orientation"):
        out = image.copy()
        if kind == "putalpha":
            out.putalpha(image.convert("L") if value is None else value)
        elif kind == "putpixel":
            if value[0] < out.size[0] and value[1] < out.size[1]:
                out.putpixel(value[:2], value[2])
        else:  # an EXIF orientation set in info, then exif_transpose
            exif = out.getexif()
            exif[0x0112] = value
            out.info["exif"] = exif.tobytes()
            return ops.exif_transpose(out)
        return out
    if kind in ARGUMENT_STEPS:
        return _apply_arguments(ours, image, step)
    calls: dict[str, Callable[[], Any]] = {
        "merge_split": lambda: library.merge(image.mode, image.split()[::-1]),
        "getchannel": lambda: image.getchannel(0),
        "kernel": lambda: image.filter(PILImageFilter.Kernel((3, 3), value[0], value[1])),
        "modefilter": lambda: image.filter(filters.ModeFilter(value)),
        "rank": lambda: image.filter(filters.RankFilter(*value)),
        "minmax": lambda: image.filter(
            filters.MinFilter(3) if value == "min" else filters.MaxFilter(3)
        ),
        "unsharp": lambda: image.filter(filters.UnsharpMask(*value)),
        "point_mode": lambda: (
            image.point(lambda v: v > 100, "1")
            if value == "1"
            else image.point(lambda v: 255 - v, "L")
        ),
        "matrix": lambda: image.convert(
            value,
            matrix=(0.3, 0.5, 0.2, 1)
            if value == "L"
            else (0.3, 0.5, 0.2, 1, 0.1, 0.8, 0.1, 2, 0.5, 0.5, 0.0, 0),
        ),
        "colorize": lambda: ops.colorize(image, "navy", "gold", None, value),
        "fit": lambda: ops.fit(image, value),
        "pad": lambda: ops.pad(image, value),
        "contain": lambda: ops.contain(image, value),
        "scale": lambda: ops.scale(image, value),
        "alpha_composite": lambda: library.alpha_composite(
            image, image.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)
        ),
    }
    return calls[kind]()


#: The EXTRA steps :func:`_apply_arguments` runs.
ARGUMENT_STEPS = frozenset(list(EXTRA)[list(EXTRA).index("autocontrast_args") :])


def _apply_arguments(ours: bool, image: Any, step: Step) -> Any:
    """The steps with parameters beyond the defaults, and the further steps of ``EXTRA``."""
    kind, value = step
    filters = ImageFilter if ours else PILImageFilter
    ops = ImageOps if ours else PILImageOps
    if kind in FITTED_MODES:
        fit, *rest = value
        value = rest[0] if len(rest) == 1 else tuple(rest)
        if fit and image.mode not in FITTED_MODES[kind]:
            image = image.convert(FITTED_MODES[kind][0])
    width, height = image.size
    if kind == "autocontrast_args":
        cutoff, ignore, mask_mode, preserve_tone = value
        mask = (
            None
            if mask_mode is None
            else _lazy_or_pil(ours, source_image(mask_mode, image.size, 5))
        )
        return ops.autocontrast(image, cutoff, ignore, mask, preserve_tone)
    if kind == "equalize_mask":
        return ops.equalize(image, _lazy_or_pil(ours, source_image(value, image.size, 7)))
    if kind == "resize_box":
        size, resample, (x0, y0, x1, y1), gap = value
        box = (x0 * width, y0 * height, x1 * width, y1 * height)
        return image.resize(size, resample, box, gap)
    if kind == "reduce_box":
        factor, left, top = value
        return image.reduce(factor, (left, top, width, height))
    if kind == "rotate_args":
        angle, resample, expand, center, translate, fill = value
        return image.rotate(angle, resample, expand, center, translate, fill)
    if kind == "transform_fill":
        resample, fill = value
        return image.transform(
            (width + 3, height + 2), PILImage.Transform.AFFINE, AFFINE, resample, 1, fill
        )
    if kind == "quantize":
        colors, method, dither = value
        return image.quantize(colors, method, dither=dither)
    if kind == "convert_dither":
        target, dither, palette, colors = value
        return image.convert(target, dither=dither, palette=palette, colors=colors)
    if kind in ("point_table", "putpalette", "remap_palette"):
        rng = random.Random(value[0] if kind == "putpalette" else value)
        if kind == "point_table":
            bands = len(image.getbands())
            return image.point([rng.randint(0, 255) for _ in range(256 * bands)])
        if kind == "putpalette":
            out = image.copy()
            entries, rawmode = value[1], value[2]
            data = bytes(rng.randint(0, 255) for _ in range(len(rawmode) * entries))
            out.putpalette(data, rawmode)
            return out
        order = list(range(256))
        rng.shuffle(order)
        return image.remap_palette(order)
    if kind in ("draw", "alpha_composite_at", "putdata"):
        return _edited_in_place(image, (kind, value))
    if kind == "blur_radii":
        name, radii = value
        return image.filter(getattr(filters, name)(radii))
    if kind == "expand_args":
        border, fill = value
        return ops.expand(image, border, fill)
    if kind == "pad_args":
        size, color, centering = value
        return ops.pad(image, size, color=color, centering=centering)
    if kind == "fit_args":
        size, bleed, centering = value
        return ops.fit(image, size, bleed=bleed, centering=centering)
    if kind == "seek":  # in place, on an opened file (any other image: frame 0 only)
        image.seek(value)
        return image
    if kind == "iterate":  # Pillow's loop idiom: the image sought to frame after frame
        sequence = ImageSequence if ours else PILImageSequence
        for index, _frame in enumerate(sequence.Iterator(image)):
            if index == value:
                break
        return image
    if kind in ("save", "save_options"):  # written to memory and opened again
        image_format, options = (value, {}) if kind == "save" else value
        saved = io.BytesIO()
        arguments = save_arguments(options, image, ops.mirror)
        if not ours:  # where Pillow's writer would end this process, its outcome is an error
            refuse_crashing_save(image, image_format, arguments)
        image.save(saved, image_format, **arguments)
        SAVED[ours] = saved.getvalue()
        saved.seek(0)
        return (Image if ours else PILImage).open(saved)
    if kind in ("new_paste", "paste_pil", "eval", "math", "transform_handler", "deform"):
        return _built_from(ours, image, step)
    if kind == "paste_plain":
        what, left, top = value
        out = image.copy()
        if what == "color":
            out.paste(200, (left, top, left + 7, top + 5))
        else:
            out.paste(_lazy_or_pil(ours, source_image(what, (7, 5), 3)), (left, top))
        return out
    calls: dict[str, Callable[[], Any]] = {
        "offset": lambda: (ImageChops if ours else PILImageChops).offset(image, *value),
        "ops_flip": lambda: ops.flip(image),
        "ops_crop": lambda: ops.crop(image, value),
        "grayscale": lambda: ops.grayscale(image),
        "cover": lambda: ops.cover(image, value),
        "builtin_filter": lambda: image.filter(getattr(filters, value)),
    }
    return calls[kind]()


class _Deformer:
    """An ``ImageOps.deform`` deformer: the image split into ``cells`` x ``cells`` quads, each
    taken from a box shifted by one pixel."""

    def __init__(self, cells: int) -> None:
        self.cells = cells

    def getmesh(self, image: Any) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        width, height = image.size
        xs = [width * index // self.cells for index in range(self.cells + 1)]
        ys = [height * index // self.cells for index in range(self.cells + 1)]
        mesh = []
        for left, right in itertools.pairwise(xs):
            for top, bottom in itertools.pairwise(ys):
                quad = (left + 1, top, left, bottom, right, bottom + 1, right, top)
                mesh.append(((left, top, right, bottom), quad))
        return mesh


def _built_from(ours: bool, image: Any, step: Step) -> Any:
    """New images made from ``image``: pasted on an ``Image.new`` of a colour, Pillow images
    pasted into it (the library's own objects, not lazy ones), ``Image.eval``, ``ImageMath``,
    a transform given as an ``ImageTransform`` handler, and ``ImageOps.deform``."""
    kind, value = step
    library = Image if ours else PILImage
    width, height = image.size
    if kind == "new_paste":
        color, left, top = value
        base = library.new(image.mode, (width + left + 2, height + top + 1), color)
        base.paste(image, (left, top))
        return base
    if kind == "paste_pil":  # Pillow's images, which a user of the lazy library passes too
        mode, mask_mode, left, top = value
        pasted = source_image(mode, (7, 5), 3)
        mask = None if mask_mode is None else source_image(mask_mode, (7, 5), 4)
        out = image.copy()
        out.paste(pasted, (left, top), mask)
        return out
    if kind == "eval":
        return library.eval(image, lambda v: v // value + 7)
    if kind == "math":
        math = ImageMath if ours else PILImageMath
        expressions = {
            "add": lambda names: names["a"] * 2 - 10,
            "compare": lambda names: names["min"](names["a"], 100),
            "convert": lambda names: names["convert"](names["a"] + 1, "L"),
        }
        return math.lambda_eval(expressions[value], a=image)
    if kind == "transform_handler":
        return image.transform(image.size, PILImageTransform.AffineTransform(AFFINE), value)
    return (ImageOps if ours else PILImageOps).deform(image, _Deformer(value))


def _edited_in_place(image: Any, step: Step) -> Any:
    """A copy of ``image`` drawn on, composited onto or given new data in place (Pillow's own
    ``ImageDraw.Draw`` asks a lazy image for its drawing interface)."""
    kind, value = step
    out = image.copy()
    width, height = image.size
    if kind == "draw":
        shape, fill, outline, line_width = value
        draw = PILImageDraw.Draw(out)
        box = (1, 1, max(1, width - 2), max(1, height - 2))
        if shape == "rectangle":
            draw.rectangle(box, fill, outline, line_width)
        elif shape == "ellipse":
            draw.ellipse(box, fill, outline, line_width)
        elif shape == "line":
            draw.line([(0, 0), (width, height // 2), (width // 3, height)], fill, line_width)
        elif shape == "polygon":
            draw.polygon([(0, 0), (width, 1), (1, height)], fill, outline, line_width)
        else:
            draw.text((1, 0), "Ag", fill)
    elif kind == "alpha_composite_at":
        dest, source = value
        out.alpha_composite(image.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT), dest, source)
    else:
        scale, offset = value
        out.putdata([index % 256 for index in range(width * height)], scale, offset)
    return out


def _size(rng: random.Random, large: bool) -> tuple[int, int]:
    if rng.random() < 0.04:  # empty: Pillow's C code returns early, before some checks
        return rng.choice([(0, 0), (rng.randint(1, 9), 0), (0, rng.randint(1, 9))])
    if not large:
        return rng.randint(1, 24), rng.randint(1, 24)
    width = rng.choice([rng.randint(1, 24), rng.randint(25, 140), rng.randint(250, 330)])
    return width, rng.choice([rng.randint(1, 24), rng.randint(25, 100)])


def outcome(seed: int, *, large: bool = False) -> str:
    """'exact', 'refused' or 'both raise' for the graph ``seed`` draws; else what differs.

    ``large``: some widths up to 330 and heights up to 100 (several workgroups, segments and
    rows of each kernel), where the default stays within 24 x 24.
    """
    mode, size, steps = draw(seed, large)
    return graph_outcome(mode, size, seed, steps)


def draw(seed: int, large: bool) -> tuple[str, tuple[int, int], list[Step]]:
    """The source mode, size and steps of the graph ``seed`` draws."""
    rng = random.Random(seed)
    mode, size = rng.choice(MODES), _size(rng, large)
    return mode, size, [_step(rng) for _ in range(rng.randint(1, 4 if large else 3))]


def graph_outcome(mode: str, size: tuple[int, int], seed: int, steps: list[Step]) -> str:
    """:func:`outcome` of the graph of ``steps`` on ``source_image(mode, size, seed)``."""
    source = source_image(mode, size, seed)
    what = f"{mode} {size} {steps}"
    ran = run_steps(source, Image.from_pil(source), steps, what)
    if isinstance(ran, str):
        return ran
    expected, lazy = ran
    recorded = (lazy.mode, lazy.size, undated_info(lazy.info))  # known before any evaluation
    if recorded != (expected.mode, expected.size, undated_info(expected.info)):
        return f"recorded {recorded[:2]} {sorted(recorded[2].items())} differs: {what}"
    return _evaluated_outcome(
        lazy,
        expected,
        what,
        lambda: _recorded(Image.from_pil(source_image(mode, size, seed)), steps),
    )


def _recorded(lazy: Any, steps: list[Step]) -> Any:
    """``lazy`` after ``steps`` (which the recording took before)."""
    for step in steps:
        lazy = _apply(True, lazy, step)
    return lazy


def _evaluated_outcome(
    lazy: Any, expected: PILImage.Image, what: str, again: Callable[[], Any]
) -> str:
    """'exact' where the GPU's result and the CPU route's are Pillow's ``expected``; 'refused'
    where the GPU refuses the graph and the CPU route gives Pillow's result; else what
    differs. The CPU route (Pillow's program replayed: what ``to_pil()``, ``save`` and the
    queries use where no executor runs the graph) runs on the graph ``again()`` records anew,
    as a graph the GPU completed answers with its result."""
    try:
        result = evaluate(lazy)
    except (Unsupported, Limit):
        return _replayed_outcome(lazy, expected, what, "refused")
    outcome = difference(result, expected, what)
    return _replayed_outcome(again(), expected, what, outcome) if outcome == "exact" else outcome


def _query_answer(image: Any, query: str) -> Any:
    """``image.getpalette()`` or ``image.has_transparency_data``, or the type of what it raised
    (Pillow's ``has_transparency_data`` fails an assertion on a P image without a palette, a
    PNG without PLTE)."""
    try:
        return image.getpalette() if query == "getpalette()" else image.has_transparency_data
    except Exception as error:  # the exception type is the answer
        return type(error)


def _replayed_outcome(lazy: Any, expected: PILImage.Image, what: str, agreed: str) -> str:
    """``agreed`` where the CPU route of ``lazy`` gives Pillow's ``expected`` and its metadata
    queries answered before that (from what the recording knows) are Pillow's, else how not."""
    for query in ("getpalette()", "has_transparency_data"):
        answers = [_query_answer(image, query) for image in (lazy, expected)]
        if answers[0] != answers[1]:
            found, wanted = (repr(answer)[:80] for answer in answers)
            return f"{query} before evaluation differs ({found} for {wanted}): {what}"
    try:
        replayed = lazy.to_pil()
    except Exception as error:  # any error is the difference reported
        return f"the CPU route raises {type(error).__name__} ({error}): {what}"
    outcome = difference(replayed, expected, what)
    return agreed if outcome == "exact" else f"CPU route: {outcome}"


def file_outcome(path: Path, seed: int) -> str:
    """:func:`outcome` of the steps ``seed`` draws on the file at ``path``, opened by each
    library ('not opened' where Pillow cannot open it).

    Pillow loads the file at its first operation and raises there when it cannot (a damaged
    file, or an edit of its info the loader needs); the lazy graph raises where its pixels are
    first needed, after the checks of the steps recorded on it. Where Pillow's error comes
    from loading, an error of the recording or of the evaluation is therefore Pillow's.
    A file of several frames (an animation, a multi-page TIFF) is sought to another frame
    first in a third of its graphs, half of those after a seek to a frame passed over unused.
    """
    try:
        opened = PILImage.open(path)
    except Exception:  # not a file Pillow opens: no case
        return "not opened"
    steps = file_steps(path, seed)
    what = f"{path.name} {steps}"
    with opened, Image.open(path) as lazy_opened:
        ran = run_steps(opened, lazy_opened, steps, what)
        if isinstance(ran, str):
            return ran
        expected, lazy = ran
        try:
            expected.load()
        except Exception:  # a file Pillow's steps never loaded, and cannot
            return _raises_on_evaluation(lazy, what)
        # The graph recorded anew opens the same path, as Pillow did: its TIFF reader can
        # decode a damaged file from a path and refuse it from bytes ("tile cannot extend
        # outside image", a damaged copy of 8bit.s.tif).
        return _evaluated_outcome(lazy, expected, what, lambda: _recorded(Image.open(path), steps))


def file_steps(path: Path, seed: int) -> list[Step]:
    """The steps ``seed`` draws for the file at ``path``: one to three, after one or two seeks
    in a third of the graphs on a file of several frames; a quarter of the others on such a
    file start with an ``ImageSequence.Iterator`` loop, left at a frame or run to its end
    (drawn apart, so the seeds without it draw what they drew before it was added)."""
    rng = random.Random(seed)
    steps = _steps(rng)
    frames = _frames(path)
    if frames > 1 and rng.random() < 1 / 3:
        steps.insert(0, ("seek", rng.randint(1, min(frames - 1, 4))))
        if rng.random() < 1 / 2:  # another frame first, passed over without a use
            steps.insert(0, ("seek", rng.randint(0, min(frames - 1, 4))))
    elif frames > 1 and not any(kind == "seek" for kind, _ in steps):
        loop = random.Random(f"iterate {seed}")
        if loop.random() < 1 / 4:
            steps.insert(0, ("iterate", loop.choice([0, 1, 2, frames + 1])))
    return steps


def _steps(rng: random.Random) -> list[Step]:
    return [_step(rng) for _ in range(rng.randint(1, 3))]


def steps_of(seed: int) -> list[Step]:
    """The one to three steps ``seed`` draws for a file (:func:`file_steps`, before seeks)."""
    return _steps(random.Random(seed))


def _frames(path: Path) -> int:
    """How many frames Pillow counts in the file (1 where it cannot count them), counted on a
    handle of its own: counting seeks through the file."""
    try:
        with PILImage.open(path) as counted:
            return int(getattr(counted, "n_frames", 1))
    except Exception:  # a damaged file: counted as one frame
        return 1


#: What a graph's caller does with it after its first step (``run_steps``): gets Pillow's
#: image and the lazy one as they are then, and may raise (the graph is then left out).
Midway = Callable[[PILImage.Image, Any], None]


def run_steps(
    expected: Any, lazy: Any, steps: list[Step], what: str, midway: Midway | None = None
) -> tuple[Any, Any] | str:
    """Pillow's ``expected`` and the lazy graph after ``steps``, or the outcome of the step that
    ends the graph: a refusal, or Pillow raising (the recording must raise the same, or, where
    Pillow's error comes from loading a file or from the pixels a load left in another mode
    than the image says, raise anywhere up to the evaluation: the recording reads no pixels).
    ``midway`` runs after the first of several steps (a copy or a load there changes Pillow's
    image; where it raises, the graph is left out: "midway raised")."""
    for index, step in enumerate(steps):
        try:
            before = expected
            expected = _apply(False, expected, step)
        except Exception as error:
            loading = _raised_loading(error) or _loaded_in_another_mode(before)
            try:
                lazy = _apply(True, lazy, step)
            except type(error):
                return "both raise"
            except Exception as other:
                if loading:
                    return "both raise"
                return f"{type(other).__name__} where Pillow raises {type(error).__name__}: {what}"
            if loading:
                return _raises_on_evaluation(lazy, what)
            return f"recorded where Pillow raises {type(error).__name__}: {what}"
        try:
            lazy = _apply(True, lazy, step)
        except (Unsupported, Limit):
            return "refused"
        if step[0] in ("save", "save_options"):
            ours, pillows = SAVED.pop(True), SAVED.pop(False)
            if not same_saved(ours, pillows):
                return f"saved bytes differ: {what}"
        if index == 0 and len(steps) > 1 and midway is not None:
            try:
                midway(expected, lazy)
            except Exception:  # Pillow cannot load it, say (its image is no longer as it was)
                return "midway raised"
    return expected, lazy


def _loaded_in_another_mode(image: Any) -> bool:
    """Whether Pillow's ``image`` holds pixels of another mode than it says (an L GIF whose
    load gives P pixels: ``pillow_gpu._cpu._loaded``)."""
    core = getattr(image, "_im", None)
    return core is not None and getattr(core, "mode", image.mode) != image.mode


def _raised_loading(error: Exception) -> bool:
    """Whether Pillow raised ``error`` while loading an image (a ``load`` frame)."""
    return any(frame.name == "load" for frame in traceback.extract_tb(error.__traceback__))


def _raises_on_evaluation(lazy: Any, what: str) -> str:
    """'both raise' where evaluating ``lazy`` raises (Pillow raised loading the file): the
    file's decode error, or a refusal before it."""
    try:
        evaluate(lazy)
    except Exception:  # the answer
        return "both raise"
    return f"evaluated where Pillow cannot load the file: {what}"


def difference(result: PILImage.Image, expected: PILImage.Image, what: str) -> str:
    """'exact', or what differs between ``result`` and Pillow's ``expected`` (graph ``what``)."""
    if (result.mode, result.size) != (expected.mode, expected.size):
        got, want = (result.mode, result.size), (expected.mode, expected.size)
        return f"{got} where Pillow gives {want}: {what}"
    if result.tobytes() != expected.tobytes():
        return f"bytes differ: {what}"
    # A 1 image stores any byte a point table gave it (tobytes packs "not zero"; getpixel and
    # later operations read the byte).
    if expected.mode == "1" and list(result.get_flattened_data()) != list(
        expected.get_flattened_data()
    ):
        return f"stored values differ: {what}"
    if result.getpalette() != expected.getpalette():  # of P and PA, or kept inside another
        return f"palette differs: {what}"
    if expected.mode in ("P", "PA") and _entries(result) != _entries(expected):
        return f"palette entries' fourth bytes differ: {what}"
    if undated_info(result.info) != undated_info(expected.info):
        return f"info differs ({sorted(result.info)} against {sorted(expected.info)}): {what}"
    return "exact"


def _entries(image: PILImage.Image) -> tuple[str, bytes] | None:
    """A P or PA image's C palette mode and every byte of its entries (an RGB palette's
    fourth byte, which ``convert`` to RGBA reads as alpha, included)."""
    state = PaletteState.of(image)
    return None if state is None else (state.mode, state.entries)


def drawn(
    seed: int, *, large: bool = False, source_seed: int | None = None, midway: Midway | None = None
) -> tuple[str, PILImage.Image, Any] | None:
    """(the graph, Pillow's result, the lazy graph) ``seed`` draws; None where Pillow or the
    recording raises, or the GPU refuses a step (:func:`outcome` checks those). ``source_seed``
    draws the source's pixels from another seed: a graph of the same shape over other pixels;
    ``midway`` runs after its first step (:func:`run_steps`)."""
    mode, size, steps = draw(seed, large)
    source = source_image(mode, size, seed if source_seed is None else source_seed)
    what = f"{mode} {size} {steps}"
    try:
        ran = run_steps(source, Image.from_pil(source), steps, what, midway)
    except Exception:  # the recording raised where Pillow did not: outcome() reports it
        ran = "raised"
    finally:
        SAVED.clear()
    return None if isinstance(ran, str) else (what, *ran)


def drawn_file(
    path: Path, seed: int, midway: Midway | None = None
) -> tuple[str, PILImage.Image, Any, list[Any]] | None:
    """(the graph, Pillow's loaded result, the lazy graph, the two opened handles) of the
    steps ``seed`` draws on the file at ``path`` (:func:`file_outcome`'s); None where Pillow
    cannot open or load it, or where either side raises or the GPU refuses a step (the caller
    closes the handles once the lazy graph is evaluated). ``midway`` runs after its first step
    (:func:`run_steps`)."""
    try:
        opened = PILImage.open(path)
    except Exception:  # not a file Pillow opens: no case
        return None
    steps = file_steps(path, seed)
    what = f"{path.name} {steps}"
    lazy_opened = Image.open(path)
    handles = [opened, lazy_opened]
    ran = loaded_run(opened, lazy_opened, steps, what, midway)
    if ran is None:
        for handle in handles:
            handle.close()
        return None
    return what, *ran, handles


def loaded_run(
    expected: Any, lazy: Any, steps: list[Step], what: str, midway: Midway | None = None
) -> tuple[PILImage.Image, Any] | None:
    """:func:`run_steps` with Pillow's result loaded; None where either side raises, the GPU
    refuses a step, or Pillow cannot load the result (the single-graph draws report those)."""
    try:
        ran = run_steps(expected, lazy, steps, what, midway)
        if isinstance(ran, str):
            return None
        ran[0].load()  # a file Pillow's steps never loaded may not load
    except Exception:  # the recording raised where Pillow did not, say
        return None
    finally:
        SAVED.clear()
    return ran
