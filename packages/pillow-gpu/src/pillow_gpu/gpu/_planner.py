"""Graph -> :class:`Plan`: admission against the route table and device limits, then lowering.

Plan API (the batch executor builds on it)::

    plan = plan_graph(image)          # admission + lowering; no device, no decode
    plan.gpu_bytes, plan.host_bytes   # conservative reservations (the spec's credit table)
    plan.mode, plan.size, plan.output_nbytes, plan.staging_nbytes, plan.sources
    plan.dispatch_count, plan.shader_work   # submission bounds (see gpu._work)
    plan.allocate(device)             # decode sources, create buffers, queue uploads
    plan.encode(encoder, staging, offset)   # dispatches + terminal copy; offset % 256 == 0
    image = plan.build(mapped[offset:offset + plan.terminal_nbytes])   # copies the bytes
    plan.release()                    # give the buffers back to the pool (idempotent)

Reservations: ``gpu_bytes`` charges every working image buffer (one u32 per pixel per node,
uploads included), host tables (LUTs, index and coefficient tables), one parameter block per
dispatch (each rounded up to 256 bytes) and the terminal staging range. ``host_bytes`` charges
per source its decode temporary, upload words and encoded bytes, plus the terminal copy, the
output CPU pixels (4 bytes per pixel) and the metadata (measured as the executor's snapshot
measures it, running no code of the caller's ``info`` values). Pass ``limits=device.limits``
to check the device's binding/buffer/workgroup limits too. The staging buffer passed to
``encode`` needs ``MAP_READ | COPY_DST`` usage and at least ``offset + staging_nbytes`` bytes.
``allocate`` raises ``DecodeError`` (kind ``"Decode"``) when a source fails to decode.

``plan_graph`` walks the graph inputs-first and checks every node's (operation, mode,
parameters) against the route table (:mod:`pillow_gpu.gpu._routes`) and the device limits
before anything is decoded or allocated; an unproven context or one whose total shader work
exceeds the per-submission bound (:mod:`pillow_gpu.gpu._work`) raises
:class:`~pillow_gpu.errors.Unsupported` and a size or device bound raises
:class:`~pillow_gpu.errors.Limit` (stage ``"admission"``). Completed (cached) nodes are
uploaded as leaves; their inputs are not replayed. ``Image.new`` leaves are filled on the
device. Each node gets its own buffers and each dispatch its own parameters.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image as PILImage
from PIL import ImageFilter, ImageOps

from pillow_gpu._graph import Node, walk
from pillow_gpu.errors import Limit
from pillow_gpu.gpu._admission import unsupported
from pillow_gpu.gpu._affine_lowering import lower_transform
from pillow_gpu.gpu._autocontrast_lowering import lower_autocontrast
from pillow_gpu.gpu._bands_lowering import lower_merge, lower_putalpha
from pillow_gpu.gpu._contrast_lowering import lower_contrast
from pillow_gpu.gpu._device import DeviceLimits
from pillow_gpu.gpu._equalize_lowering import lower_equalize
from pillow_gpu.gpu._indexed_lowering import check_consumer, lower_indexed_convert
from pillow_gpu.gpu._layout import INDEXED_MODES, NATIVE_MODES, ink, terminal_nbytes, to_words
from pillow_gpu.gpu._plan import Plan, Upload
from pillow_gpu.gpu._program import WORKGROUP, Program
from pillow_gpu.gpu._resize_lowering import lower_reduce, lower_resize
from pillow_gpu.gpu._routes import (
    BOX_MODES,
    KERNEL_MODES,
    MAX_BLUR_RADIUS,
    MODE_FILTER_MODES,
    RANK_MODES,
    UNSHARP_MODES,
)
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK, over_bound
from pillow_gpu.gpu.kernels import (
    boxblur,
    chops,
    convert,
    convolve,
    fill,
    lut,
    modefilter,
    pack_l,
    paste,
    rank,
    remap,
    unsharp,
)

__all__ = ["MAX_PIXELS", "plan_graph"]

#: Peak pixels of any image in a graph (the workspace bound of the spec).
MAX_PIXELS = 4096 * 4096
# Stored bytes Pillow writes per mode (bit j = byte j); others are 0 or don't-care.
_BAND_MASK = {
    "L": 0b0001,
    "LA": 0b1001,
    "RGB": 0b0111,
    "RGBA": 0b1111,
    "CMYK": 0b1111,
    "RGBX": 0b1111,
}
_BAND_BYTES = {
    "L": (0,),
    "LA": (0, 3),
    "RGB": (0, 1, 2),
    "RGBA": (0, 1, 2, 3),
    "CMYK": (0, 1, 2, 3),
    "RGBX": (0, 1, 2, 3),
}


def _check_image(node: Node, limits: DeviceLimits | None) -> None:
    uploaded = node.is_leaf or node.cache.get() is not None
    if node.mode in INDEXED_MODES and not uploaded:
        raise unsupported(
            node,
            f"a mode {node.mode} result is not a native GPU layout (P and 1 images are admitted "
            "only as uploaded inputs of convert())",
            fix="convert to RGB/RGBA/L instead, or evaluate with to_pil()",
        )
    if node.mode not in (*NATIVE_MODES, *INDEXED_MODES):
        raise unsupported(
            node,
            f"mode {node.mode} is not a native GPU layout ({', '.join(NATIVE_MODES)})",
            fix="convert to a native mode first or evaluate with to_pil()",
        )
    width, height = node.size
    if width <= 0 or height <= 0:
        raise unsupported(node, "empty images are not planned on the GPU")
    if width * height > MAX_PIXELS:
        raise Limit(
            "the image exceeds the per-graph pixel bound (4096 x 4096)",
            observed=f"{width}x{height} = {width * height} pixels in operation {node.op!r}",
            fix="split the image into tiles or evaluate it with to_pil()",
            stage="admission",
        )
    if limits is not None:
        nbytes = width * height * 4
        binding = min(limits.max_storage_buffer_binding_size, limits.max_buffer_size)
        groups = max(-(-width // WORKGROUP), -(-height // WORKGROUP))
        if nbytes > binding or groups > limits.max_compute_workgroups_per_dimension:
            raise Limit(
                "the image exceeds this device's buffer or workgroup limits",
                observed=f"{nbytes} bytes (binding limit {binding}), {groups} workgroups per "
                f"dimension (limit {limits.max_compute_workgroups_per_dimension})",
                fix="use a smaller image or a device with larger limits",
                stage="admission",
            )


def _require_mode(node: Node, modes: tuple[str, ...], what: str) -> None:
    if node.inputs[0].mode not in modes:
        raise unsupported(node, f"{what} is proven only for modes {', '.join(modes)}")


_Inputs = list[tuple[int, Node]]
_Lowering = Callable[[Program, Node, _Inputs], int]


def _lut(program: Program, node: Node, ins: _Inputs) -> int:
    if node.op in ("invert", "solarize", "posterize"):
        _require_mode(node, ("L", "RGB"), f"ImageOps.{node.op}")
    table = lut.tables_for(node.op, ins[0][1].mode, node.params)
    return lut.lower(program, ins[0][0], node.size, table)


def _transpose(program: Program, node: Node, ins: _Inputs) -> int:
    return remap.transpose(program, ins[0][0], ins[0][1].size, node.params["method"])


def _crop(program: Program, node: Node, ins: _Inputs) -> int:
    return remap.crop(program, ins[0][0], ins[0][1].size, node.params["box"])


def _expand_ink(mode: str, fill_color: Any) -> int:
    probe = ImageOps.expand(PILImage.new(mode, (1, 1)), border=1, fill=fill_color)
    return int(to_words(probe)[0])


def _expand(program: Program, node: Node, ins: _Inputs) -> int:
    value = _expand_ink(node.mode, node.params["fill"])
    return remap.expand(program, ins[0][0], ins[0][1].size, node.params["border"], value)


def _paste(program: Program, node: Node, ins: _Inputs) -> int:
    if node.params["masked"]:
        raise unsupported(node, "masked paste is not proven exact on the GPU")
    (base, base_node), (src, src_node) = ins[0], ins[1]
    if src_node.mode != base_node.mode:
        raise unsupported(
            node,
            f"paste of a {src_node.mode} source into {base_node.mode} needs a conversion",
            fix="convert the source to the same mode first",
        )
    return paste.paste(
        program, base, node.size, src=src, src_size=src_node.size, box=node.params["box"]
    )


def _putpixel(program: Program, node: Node, ins: _Inputs) -> int:
    probe = PILImage.new(node.mode, (1, 1))
    probe.putpixel((0, 0), node.params["value"])
    value = int(to_words(probe)[0])
    return paste.putpixel(program, ins[0][0], node.size, node.params["xy"], value)


def _convert(program: Program, node: Node, ins: _Inputs) -> int:
    if ins[0][1].mode in INDEXED_MODES:
        return lower_indexed_convert(program, node, ins)
    pair = (ins[0][1].mode, node.mode)
    if pair not in convert.CONVERSIONS:
        raise unsupported(node, f"conversion {pair[0]} -> {pair[1]} is not proven on the GPU")
    transparent = _transparent_colour(node, ins[0][1])
    return convert.lower(program, ins[0][0], node.size, *pair, transparent=transparent)


def _transparent_colour(node: Node, source: Node) -> tuple[int, int, int] | None:
    # Pillow's convert_transparent (L -> RGBA, RGB -> RGBA with info["transparency"]): the
    # colour whose pixels get alpha 0. Other pairs keep pixels as they are.
    if node.mode != "RGBA" or source.mode not in ("L", "RGB"):
        return None
    if "transparency" not in source.info:
        return None
    value = source.info["transparency"]
    if source.mode == "L" and type(value) is int and 0 <= value <= 255:
        return (value, value, value)
    proven = isinstance(value, tuple) and len(value) == 3
    if source.mode == "RGB" and proven and all(type(v) is int and 0 <= v <= 255 for v in value):
        return (value[0], value[1], value[2])
    raise unsupported(
        node,
        f"a {source.mode} -> RGBA conversion with info['transparency'] {value!r} is proven only "
        "for " + ("an int 0..255" if source.mode == "L" else "a tuple of 3 ints 0..255"),
        fix="set info['transparency'] to such a value, remove it, or evaluate with to_pil()",
    )


def _getchannel(program: Program, node: Node, ins: _Inputs) -> int:
    byte = _BAND_BYTES[ins[0][1].mode][node.params["channel"]]
    return convert.getchannel(program, ins[0][0], node.size, byte)


def _chop(program: Program, node: Node, ins: _Inputs) -> int:
    (a, a_node), (b, b_node) = ins[0], ins[1]
    if a_node.mode != b_node.mode:
        raise unsupported(
            node,
            f"ImageChops on {a_node.mode} x {b_node.mode} is not proven",
            fix="convert both images to the same mode first",
        )
    if node.op == "blend":
        name, table = "blend", chops.blend_table(node.params["alpha"])
    else:
        name = node.params["name"]
        table = None
        if name in ("add", "subtract"):
            table = chops.scaled_table(name, node.params["scale"], node.params["offset"])
    return chops.lower(program, a, a_node.size, b=b, b_size=b_node.size, name=name, table=table)


def _color(program: Program, node: Node, ins: _Inputs) -> int:
    # ImageEnhance.Color: blend(image.convert(L or LA).convert(mode), image, factor).
    src, mode = ins[0][0], ins[0][1].mode
    if mode in ("L", "LA"):  # the degenerate image is the image itself: an exact copy
        return lut.lower(program, src, node.size, np.stack([lut.IDENTITY] * 4))
    if mode not in ("RGB", "RGBA"):
        raise unsupported(node, "ImageEnhance.Color is proven only for L, LA, RGB and RGBA")
    steps = (("RGB", "L"), ("L", "RGB")) if mode == "RGB" else (("RGBA", "LA"), ("LA", "RGBA"))
    degenerate = src
    for pair in steps:
        degenerate = convert.lower(program, degenerate, node.size, *pair)
    table = chops.blend_table(node.params["factor"])
    return chops.lower(
        program, degenerate, node.size, b=src, b_size=node.size, name="blend", table=table
    )


def _mode_filter(
    program: Program, node: Node, ins: _Inputs, instance: ImageFilter.ModeFilter
) -> int:
    # Pillow filters each band alone (ModeFilter is no MultibandFilter): the mask picks them.
    _require_mode(node, MODE_FILTER_MODES, "ModeFilter")
    size = operator.index(instance.size)
    if size > modefilter.MAX_SIZE:
        raise unsupported(
            node,
            f"mode filter size {size} exceeds the proven maximum {modefilter.MAX_SIZE}",
            fix=f"use ModeFilter(size <= {modefilter.MAX_SIZE}) or evaluate with to_pil()",
        )
    half = modefilter.half_window(size)
    return modefilter.lower(
        program, ins[0][0], node.size, half=half, mask=_BAND_MASK[ins[0][1].mode]
    )


def _unsharp_mask(
    program: Program, node: Node, ins: _Inputs, instance: ImageFilter.UnsharpMask
) -> int:
    # Pillow: ImagingGaussianBlur(radius, radius, 3), then per stored byte the combine.
    _require_mode(node, UNSHARP_MODES, "UnsharpMask")
    box_radius = boxblur.gaussian_box_radius(float(instance.radius))
    if not 0 <= box_radius <= MAX_BLUR_RADIUS:
        raise unsupported(
            node,
            f"UnsharpMask radius {instance.radius!r} gives box radius {box_radius:g}, outside "
            f"the proven 0..{MAX_BLUR_RADIUS:g} range",
            fix="use a smaller radius or evaluate with to_pil()",
        )
    percent = operator.index(instance.percent)
    if abs(percent) > unsharp.MAX_PERCENT:
        raise unsupported(
            node,
            f"UnsharpMask percent {percent} is outside +-{unsharp.MAX_PERCENT}, where Pillow's "
            "integer arithmetic overflows",
            fix=f"use |percent| <= {unsharp.MAX_PERCENT} or evaluate with to_pil()",
        )
    return unsharp.lower(
        program,
        ins[0][0],
        node.size,
        box_radius=box_radius,
        percent=percent,
        threshold=operator.index(instance.threshold),
    )


def _filter(program: Program, node: Node, ins: _Inputs) -> int:
    instance = node.params["filter"]
    src, mode = ins[0][0], ins[0][1].mode
    if isinstance(instance, (ImageFilter.BoxBlur, ImageFilter.GaussianBlur)):
        _require_mode(node, BOX_MODES, type(instance).__name__)
        xy = instance.radius
        radii = (float(xy), float(xy)) if isinstance(xy, (int, float)) else tuple(map(float, xy))
        passes = 1
        if isinstance(instance, ImageFilter.GaussianBlur):
            radii = tuple(boxblur.gaussian_box_radius(r) for r in radii)
            passes = 3
        if max(radii) > MAX_BLUR_RADIUS or min(radii) < 0:
            raise unsupported(node, f"blur radius {radii} is outside the proven 0..256 range")
        return boxblur.lower(program, src, node.size, (radii[0], radii[1]), passes)
    if isinstance(instance, ImageFilter.RankFilter):
        _require_mode(node, RANK_MODES, type(instance).__name__)
        if instance.size > rank.MAX_SIZE:
            raise unsupported(node, f"rank filter size {instance.size} exceeds {rank.MAX_SIZE}")
        return rank.lower(
            program,
            src,
            node.size,
            window=instance.size,
            rank=instance.rank,
            mask=_BAND_MASK[mode],
        )
    if isinstance(instance, ImageFilter.ModeFilter):
        return _mode_filter(program, node, ins, instance)
    if isinstance(instance, ImageFilter.UnsharpMask):
        return _unsharp_mask(program, node, ins, instance)
    if isinstance(instance, ImageFilter.Kernel | ImageFilter.BuiltinFilter):
        _require_mode(node, KERNEL_MODES, "ImageFilter.Kernel")
        (kw, kh), scale, offset, weights = instance.filterargs
        if (kw, kh) not in ((3, 3), (5, 5)):
            raise unsupported(node, f"kernel size {kw}x{kh} is not 3x3 or 5x5")
        return convolve.lower(
            program,
            src,
            node.size,
            ksize=kw,
            kernel=weights,
            scale=scale,
            offset=offset,
            mask=_BAND_MASK[mode],
        )
    raise unsupported(node, f"filter {type(instance).__name__} has no proven GPU route")


_LOWERINGS: dict[str, _Lowering] = {
    "invert": _lut,
    "chops_invert": _lut,
    "point": _lut,
    "solarize": _lut,
    "posterize": _lut,
    "brightness": _lut,
    "transpose": _transpose,
    "crop": _crop,
    "expand": _expand,
    "paste": _paste,
    "putpixel": _putpixel,
    "resize": lower_resize,
    "reduce": lower_reduce,
    "transform": lower_transform,
    "convert": _convert,
    "getchannel": _getchannel,
    "merge": lower_merge,
    "putalpha": lower_putalpha,
    "chop": _chop,
    "blend": _chop,
    "color": _color,
    "contrast": lower_contrast,
    "equalize": lower_equalize,
    "autocontrast": lower_autocontrast,
    "filter": _filter,
}


def _leaf_host_bytes(node: Node) -> int:
    pixels = node.size[0] * node.size[1]
    encoded = node.params["encoded_nbytes"] if node.op == "open" else 0
    decoded = pixels * 4 if node.op == "open" and node.cache.get() is None else 0
    return decoded + pixels * 4 + encoded  # decode temporary, upload words, encoded bytes


def plan_graph(
    image: Any, *, limits: DeviceLimits | None = None, max_work: int = MAX_SUBMISSION_WORK
) -> Plan:
    """Admit and lower the graph of ``image`` (a lazy Image or a Node); nothing runs yet.

    A graph whose shader work (:mod:`pillow_gpu.gpu._work`) exceeds ``max_work`` is rejected.
    """
    root: Node = getattr(image, "node", image)
    program = Program()
    buffers: dict[int, int] = {}
    uploads: list[Upload] = []
    host_bytes = 0
    for node in walk(root):
        check_consumer(node)
        _check_image(node, limits)
        if node.cache.get() is not None or (node.is_leaf and node.op != "new"):
            buffers[id(node)] = program.image(node.size)
            uploads.append(Upload(buffer=buffers[id(node)], node=node))
            host_bytes += _leaf_host_bytes(node)
        elif node.op == "new":
            buffers[id(node)] = fill.fill(program, node.size, ink(node.mode, node.params["color"]))
        else:
            lowering = _LOWERINGS.get(node.op)
            if lowering is None:
                raise unsupported(node, f"operation {node.op!r} has no proven GPU route")
            inputs = [(buffers[id(child)], child) for child in node.inputs]
            buffers[id(node)] = lowering(program, node, inputs)
    if root.mode in INDEXED_MODES:
        raise unsupported(
            root,
            f"a mode {root.mode} image is not returned from the GPU (no native layout)",
            fix='convert to RGB/RGBA/L first, e.g. image.convert("RGB")',
        )
    terminal = buffers[id(root)]
    if root.mode == "L":
        terminal = pack_l.pack_l(program, terminal, root.size)
    if program.work > max_work:
        raise over_bound(root, program.work, max_work)
    nbytes = terminal_nbytes(root.mode, root.size)
    from pillow_gpu.executor._metadata import info_nbytes  # the executor imports the planner

    metadata = info_nbytes(root.info)  # runs no caller code; the executor validates
    host_bytes += nbytes + root.size[0] * root.size[1] * 4 + metadata
    return Plan(
        root=root,
        program=program,
        uploads=tuple(uploads),
        terminal=terminal,
        terminal_nbytes=nbytes,
        host_bytes=host_bytes,
    )
