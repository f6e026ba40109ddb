"""GPU parity for P and 1 images kept in their mode: the copies (transpose, crop, expand,
paste, putpixel, resize, transform, and the calls built on them: thumbnail, rotate,
ImageOps.contain/pad/fit/mirror/exif_transpose, ``getchannel``), ``point`` and
``ImageOps.invert``.

Every case is written once against a namespace of modules (Pillow's or pillow_gpu's), runs the
real kernels and compares mode, size, ``tobytes()``, the palette and ``info`` with live
Pillow, for in-memory images (several palettes, transparency as an int and as bytes) and for
files Pillow wrote (GIF, palette PNG with transparency, bilevel PNG) opened lazily.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._graph import Node
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import DecodeError, Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

pytestmark = pytest.mark.usefixtures("device")

SIZE = (37, 19)
#: In-memory sources: P with palettes of several lengths and raw modes, and 1.
PALETTES: dict[str, tuple[str, int, Any]] = {
    "P-rgb256": ("RGB", 256, None),
    "P-rgb256-trns-int": ("RGB", 256, 77),
    "P-rgb16-short": ("RGB", 16, None),
    "P-rgba40-trns-bytes": ("RGBA", 40, bytes([9, 0, 255, 128])),
}
SOURCES = (*PALETTES, "1")
#: Files written by Pillow's encoders, opened lazily (the palette comes from the header).
FILES = ("gif", "png-P-trns", "png-1")

_PIL = SimpleNamespace(Image=PILImage, ImageOps=PILImageOps)
_GPU = SimpleNamespace(Image=Image, ImageOps=ImageOps)


def _source(name: str) -> PILImage.Image:
    rng = np.random.default_rng(len(name))
    if name == "1":
        bits = rng.integers(0, 2, SIZE[::-1], dtype=np.uint8) * 255
        return PILImage.fromarray(bits).convert("1", dither=PILImage.Dither.NONE)
    rawmode, entries, transparency = PALETTES[name]
    indices = rng.integers(0, 256, SIZE[0] * SIZE[1], dtype=np.uint8)
    image = PILImage.frombytes("P", SIZE, indices.tobytes())
    palette = rng.integers(0, 256, entries * len(rawmode), dtype=np.uint8)
    image.putpalette(palette.tobytes(), rawmode)
    if transparency is not None:
        image.info["transparency"] = transparency
    return image


def _file(tmp_path: Path, name: str) -> Path:
    rng = np.random.default_rng(7)
    rgb = PILImage.fromarray(rng.integers(0, 256, (29, 41, 3), dtype=np.uint8))
    if name == "gif":
        path = tmp_path / "palette.gif"
        rgb.quantize(32).save(path)
    elif name == "png-P-trns":
        path = tmp_path / "palette.png"
        rgb.quantize(64).save(path, transparency=3)
    else:
        path = tmp_path / "bilevel.png"
        rgb.convert("1", dither=PILImage.Dither.NONE).save(path)
    return path


def _thumbnail(im: Any, ns: Any) -> Any:
    out = im.copy()
    out.thumbnail((16, 16))  # Pillow resizes P and 1 NEAREST whatever the filter
    return out


def _paste_putpixel(im: Any, ns: Any) -> Any:
    out = im.copy()
    out.paste(im.crop((0, 0, 10, 6)), (3, 4))
    out.putpixel((0, 0), 5)
    out.putpixel((-1, -1), 200)
    return out


#: name -> the call, written once for both namespaces.
OPERATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "transpose-ROTATE_90": lambda im, ns: im.transpose(PILImage.Transpose.ROTATE_90),
    "transpose-TRANSVERSE": lambda im, ns: im.transpose(PILImage.Transpose.TRANSVERSE),
    "mirror": lambda im, ns: ns.ImageOps.mirror(im),
    "crop-outside": lambda im, ns: im.crop((-3, 2, 30, 25)),
    "expand-index": lambda im, ns: ns.ImageOps.expand(im, (2, 1, 3, 4), fill=9),
    "paste-putpixel": _paste_putpixel,
    "resize-nearest": lambda im, ns: im.resize((23, 41), PILImage.Resampling.NEAREST),
    "resize-bicubic-box": lambda im, ns: im.resize((50, 12), box=(2.5, 1, 30, 17.5)),
    "resize-lanczos-reducing-gap": lambda im, ns: im.resize(
        (9, 5), PILImage.Resampling.LANCZOS, reducing_gap=2.0
    ),
    "thumbnail": _thumbnail,
    "rotate-30-bicubic-expand": lambda im, ns: im.rotate(
        30, PILImage.Resampling.BICUBIC, expand=True
    ),
    "rotate-17-fill-index": lambda im, ns: im.rotate(17, fillcolor=4),
    "rotate-90": lambda im, ns: im.rotate(90),
    "transform-affine-scale": lambda im, ns: im.transform(
        (20, 30), PILImage.Transform.AFFINE, (1.7, 0, 1, 0, 0.6, -2), PILImage.Resampling.BILINEAR
    ),
    "transform-quad-bicubic-fill": lambda im, ns: im.transform(
        (20, 15),
        PILImage.Transform.QUAD,
        (0, 0, 2, 22, 35, 20, 30, 1),
        PILImage.Resampling.BICUBIC,
        fillcolor=3,
    ),
    "transform-perspective-bilinear": lambda im, ns: im.transform(
        (20, 15),
        PILImage.Transform.PERSPECTIVE,
        (1.1, 0.2, -1.0, 0.05, 0.9, 2.0, 0.004, -0.003),
        PILImage.Resampling.BILINEAR,
    ),
    "transform-extent": lambda im, ns: im.transform(
        (14, 9), PILImage.Transform.EXTENT, (2.5, 1, 30, 17.5)
    ),
    "contain": lambda im, ns: ns.ImageOps.contain(im, (30, 30)),
    "pad": lambda im, ns: ns.ImageOps.pad(im, (30, 30), color=6, centering=(0.2, 0.7)),
    "fit": lambda im, ns: ns.ImageOps.fit(im, (12, 12)),
    "invert": lambda im, ns: ns.ImageOps.invert(im),
    "getchannel-index": lambda im, ns: im.getchannel(0),  # a one-band image: Pillow's copy
    "getchannel-name>rotate-90": lambda im, ns: im.getchannel(im.getbands()[0]).rotate(90),
    "point-table": lambda im, ns: im.point([(v * 7) % 256 for v in range(256)]),
    "point-callable": lambda im, ns: im.point(lambda v: 255 - v // 2),
    "thumbnail>invert>rotate-90": lambda im, ns: ns.ImageOps.invert(_thumbnail(im, ns)).rotate(
        90, expand=True
    ),
}


def _run(call: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():  # Pillow's transparency-as-bytes warning, on both sides
        warnings.simplefilter("ignore")
        return call()


def assert_same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    """Pillow's mode, size, bytes, palette (P) and info."""
    assert_image_equal(actual, expected)
    if expected.mode == "P":
        assert actual.palette is not None
        assert expected.palette is not None
        assert actual.palette.mode == expected.palette.mode
        assert actual.getpalette(None) == expected.getpalette(None)
    assert actual.info == expected.info


@pytest.mark.parametrize("then", ["as-is", "RGBA"])
@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("source", SOURCES)
def test_in_memory(source: str, operation: str, then: str) -> None:
    image, call = _source(source), OPERATIONS[operation]
    expected = _run(lambda: call(image.copy(), _PIL))
    lazy = call(Image.from_pil(image), _GPU)
    if then != "as-is":
        expected, lazy = _run(lambda: expected.convert(then)), lazy.convert(then)
    assert_same(_run(lambda: evaluate(lazy)), expected)


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("name", FILES)
def test_files(tmp_path: Path, name: str, operation: str) -> None:
    path, call = _file(tmp_path, name), OPERATIONS[operation]
    with PILImage.open(path) as opened:
        expected = _run(lambda: call(PILImageOps.exif_transpose(opened), _PIL))
    lazy = call(ImageOps.exif_transpose(Image.open(path)), _GPU)
    assert_same(_run(lambda: evaluate(lazy)), expected)


@pytest.mark.parametrize("source", ["P-rgb256", "1"])
def test_invert_of_p_runs_no_kernel_and_of_1_one(source: str) -> None:
    """ImageOps.invert of a P image changes only its palette; of a 1 image, its bytes."""
    plan = plan_graph(ImageOps.invert(Image.from_pil(_source(source))))
    kernels = [dispatch.shader for dispatch in plan.program.dispatches]
    assert ("invert" in kernels or "lut" in kernels) == (source == "1"), kernels


@pytest.mark.parametrize("table", ["times-7", "constant-7"])
def test_bilevel_point_stores_pillows_bytes(table: str) -> None:
    """Pillow stores a bilevel point's table values as they are (its readers, tobytes() and
    convert, take any non-zero byte as 255), and a second point reads them."""
    lut = [(v * 7) % 256 for v in range(256)] if table == "times-7" else [7] * 256
    only_255 = [0 if v == 255 else 255 for v in range(256)]  # tells 255 from any other byte
    source = _source("1")
    expected = source.point(lut).point(only_255)
    assert_same(evaluate(Image.from_pil(source).point(lut).point(only_255)), expected)


def _with_header_palette(path: Path, data: Callable[[bytes], bytes]) -> Image.Image:
    """``Image.open(path)`` as if its header had held the palette entries ``data(entries)``."""
    leaf = Image.open(path).node
    recorded = leaf.params["palette"]
    palette = (recorded[0], recorded[1], data(recorded[2]))
    return Image.Image(
        Node(
            op="open",
            params={**leaf.params, "palette": palette},
            mode=leaf.mode,
            size=leaf.size,
            info=leaf.info,
        )
    )


@pytest.mark.parametrize("operation", ["invert", "rotate-90", "invert>RGB", "expand>L"])
def test_palette_pillow_cannot_apply_is_refused(tmp_path: Path, operation: str) -> None:
    """A header palette of more than 256 entries (a hostile BMP has one): Pillow raises
    ValueError when it applies it, the planner refuses the graph before anything runs."""
    image = _with_header_palette(_file(tmp_path, "gif"), lambda data: bytes(300 * 3))
    graph = {
        "invert": lambda: ImageOps.invert(image),
        "rotate-90": lambda: image.rotate(90),
        "invert>RGB": lambda: ImageOps.invert(image).convert("RGB"),
        "expand>L": lambda: ImageOps.expand(image, 2).convert("L"),
    }[operation]()
    with pytest.raises(Unsupported, match="cannot be applied by Pillow: invalid palette size"):
        plan_graph(graph)


def test_palette_decoded_unlike_the_header_is_a_decode_error(tmp_path: Path) -> None:
    """Tables and the result's palette are planned from the header; a file whose decoder
    changes the palette would give other colours, so the upload refuses it by name."""
    other = _with_header_palette(_file(tmp_path, "png-P-trns"), lambda data: bytes(len(data)))
    with pytest.raises(DecodeError, match="decoded palette differs") as caught:
        evaluate(other.transpose(PILImage.Transpose.ROTATE_90))
    assert (caught.value.kind, caught.value.stage) == ("Decode", "decode")
    assert "fix: " in str(caught.value)


def test_executor_thumbnails_palette_files(tmp_path: Path, executor: GpuBatchExecutor) -> None:
    """A folder's palette and bilevel files thumbnailed in their own mode, in one stream."""
    expected: dict[str, PILImage.Image] = {}
    jobs = []
    for name in FILES:
        path = _file(tmp_path, name)
        with PILImage.open(path) as opened:
            expected[name] = _thumbnail(opened, _PIL)
        jobs.append((name, _thumbnail(Image.open(path), _GPU)))
    results = {result.input_key: result.image for result in executor.run(jobs)}
    assert set(results) == set(expected)
    for name, image in expected.items():
        assert image.mode in ("P", "1")
        assert_same(results[name], image)
