"""Pillow's read-only queries and constructors on lazy images, against live Pillow.

What code written for ``PIL.Image`` calls besides operations: ``with Image.open(path) as im``,
``im.format``, ``im.getexif()``, ``im.getpixel``, ``numpy.asarray(im)``, ``im.histogram()``,
``Image.fromarray``, ... Each query runs on a lazy graph and on Pillow's own result of the same
calls, and must answer the same (values, types and exceptions).
"""

from __future__ import annotations

import importlib
import io
import pkgutil
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import PIL
import pillow_gpu
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageOps
from pillow_gpu._not_recorded import NOT_RECORDED
from pillow_gpu._testing import (
    assert_image_equal,
    make_image,
    png_chunk,
    png_with_late_chunks,
    png_without_chunk,
)
from pillow_gpu.gpu import evaluate

_PIL = SimpleNamespace(Image=PILImage, ImageOps=PILImageOps)
_GPU = SimpleNamespace(Image=Image, ImageOps=ImageOps)

#: Sources: every family of modes, the palette with transparency included.
MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "P", "1", "I;16", "I", "F")


def _source(mode: str) -> PILImage.Image:
    if mode == "P":
        image = make_image("RGB", (13, 9)).quantize(7)
        image.info["transparency"] = 2
        return image
    if mode == "1":
        return make_image("L", (13, 9)).convert("1", dither=PILImage.Dither.NONE)
    if mode in ("I;16", "I", "F"):
        return make_image("L", (13, 9)).convert(mode if mode != "I;16" else "I").convert(mode)
    image = make_image(mode, (13, 9))
    if mode in ("LA", "RGBA"):  # a transparent border, so getbbox has something to find
        alpha = PILImage.new("L", image.size, 0)
        alpha.paste(255, (2, 1, 10, 7))
        image.putalpha(alpha)
    return image


def _graph(image: Any, ns: Any) -> Any:
    """The same calls on either side: a flip, so the answer is a computed result's."""
    return ns.ImageOps.mirror(image)


QUERIES: dict[str, Callable[[Any], Any]] = {
    "getpixel": lambda im: im.getpixel((3, 2)),
    "getpixel-negative": lambda im: im.getpixel((-1, -2)),
    "getbbox": lambda im: im.getbbox(),
    "getbbox-all-bands": lambda im: im.getbbox(alpha_only=False),
    "getextrema": lambda im: im.getextrema(),
    "histogram": lambda im: im.histogram(),
    "entropy": lambda im: im.entropy(),
    "getcolors": lambda im: im.getcolors(),
    "getcolors-too-many": lambda im: im.getcolors(3),
    "getdata": lambda im: list(im.getdata()),
    "getdata-band-0": lambda im: list(im.getdata(0)),
    "get_flattened_data": lambda im: im.get_flattened_data(),
    "getprojection": lambda im: im.getprojection(),
    "numpy": lambda im: (np.asarray(im).dtype, np.asarray(im).shape, np.asarray(im).tobytes()),
    "getpalette": lambda im: im.getpalette(),
    "getpalette-rgba": lambda im: im.getpalette("RGBA"),
    "has_transparency_data": lambda im: im.has_transparency_data,
}


def _answer(call: Callable[[], Any]) -> Any:
    """The value, or the exception's type and message (Pillow's own errors must match)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()
    except Exception as error:
        return type(error), str(error)


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("mode", MODES)
def test_query_answers_as_pillow(mode: str, query: str) -> None:
    source, ask = _source(mode), QUERIES[query]
    expected = _answer(lambda: ask(_graph(source.copy(), _PIL)))
    assert _answer(lambda: ask(_graph(Image.from_pil(source), _GPU))) == expected


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P"])
def test_queries_read_the_gpu_result_once_evaluated(mode: str) -> None:
    """After ``evaluate`` the queries read the GPU's cached pixels (no Pillow replay)."""
    source = _source(mode)
    lazy = _graph(Image.from_pil(source), _GPU)
    evaluate(lazy)
    assert lazy.is_evaluated
    expected = _graph(source, _PIL)
    assert lazy.histogram() == expected.histogram()
    assert lazy.getpixel((0, 0)) == expected.getpixel((0, 0))
    assert np.array_equal(np.asarray(lazy), np.asarray(expected))


def test_histogram_and_entropy_take_a_lazy_mask() -> None:
    source = _source("RGB")
    mask = PILImage.new("L", source.size, 0)
    mask.paste(255, (0, 0, 6, 4))
    lazy_mask = ImageOps.invert(Image.from_pil(mask))
    lazy = Image.from_pil(source)
    assert lazy.histogram(lazy_mask) == source.histogram(PILImageOps.invert(mask))
    assert lazy.entropy(lazy_mask) == source.entropy(PILImageOps.invert(mask))


# -- files: context manager, format, getexif -----------------------------------------------
def _photo(tmp_path: Path, name: str) -> Path:
    exif = PILImage.Exif()
    # A TIFF Pillow transposes while loading is refused lazily (test_pgpu_parity_exif_*)
    exif[0x0112] = 1 if name.endswith(".tif") else 6  # orientation
    exif[0x010F] = "Camera maker"
    exif[0x0132] = "2026:12:04 09:00:00"
    path = tmp_path / name
    image = make_image("RGB", (40, 30))
    if name.endswith(".tif"):
        image.save(path, exif=exif)
    else:
        image.save(path, exif=exif.tobytes())
    return path


@pytest.mark.parametrize("name", ["photo.jpg", "photo.png", "photo.webp", "photo.tif"])
def test_getexif_of_a_file_and_of_results(tmp_path: Path, name: str) -> None:
    """An opened file's EXIF (header), and its transposed or converted result's (info)."""
    path = _photo(tmp_path, name)
    with PILImage.open(path) as opened:
        expected = [
            dict(opened.getexif()),
            dict(PILImageOps.exif_transpose(opened).getexif()),
            dict(opened.convert("L").getexif()),
        ]
    lazy = Image.open(path)
    actual = [
        dict(lazy.getexif()),
        dict(ImageOps.exif_transpose(lazy).getexif()),
        dict(lazy.convert("L").getexif()),
    ]
    assert actual == expected
    assert expected[0][0x010F] == "Camera maker"  # the file carried what the test wrote


def _thumbnail_in_with(path: Path, ns: Any) -> tuple[Any, ...]:
    """Code written for Pillow: open in a with block, edit in place, save, read attributes."""
    buffer = io.BytesIO()
    with ns.Image.open(path) as im:
        opened = (im.format, im.format_description)
        im.thumbnail((16, 16))
        after_edit = im.format
        copied, derived = im.copy().format, im.rotate(90).format
        im.save(buffer, format="PNG")
    return opened, after_edit, copied, derived, buffer.getvalue()


@pytest.mark.parametrize("name", ["photo.jpg", "photo.png"])
def test_with_open_and_format_as_in_pillow(tmp_path: Path, name: str) -> None:
    path = _photo(tmp_path, name)
    assert _thumbnail_in_with(path, _GPU) == _thumbnail_in_with(path, _PIL)
    assert _thumbnail_in_with(path, _PIL)[0][0] in ("JPEG", "PNG")


def _loaded(image: Any) -> Any:
    image.load()
    return image


def _with_info(image: Any) -> Any:
    image = image.copy()
    image.info["comment"] = b"edited"
    return image


def _thumbnail(image: Any) -> Any:
    image.thumbnail((16, 16))
    return image


def _repalette(image: Any) -> Any:
    image.putpalette(bytes(range(24)))
    return image


#: Pairs of images Pillow's ``==`` compares: each built with Pillow's modules and with ours.
EQUALITY: dict[str, Callable[[Any, Path], tuple[Any, Any]]] = {
    "one-file-twice": lambda ns, path: (ns.Image.open(path), ns.Image.open(path)),
    "file-and-its-copy": lambda ns, path: (ns.Image.open(path), ns.Image.open(path).copy()),
    "copies": lambda ns, path: (ns.Image.open(path).copy(), ns.Image.open(path).copy()),
    "file-and-loaded-file": lambda ns, path: (ns.Image.open(path), _loaded(ns.Image.open(path))),
    "inverted-twice": lambda ns, path: (
        ns.ImageOps.invert(ns.ImageOps.invert(ns.Image.open(path))),
        ns.Image.open(path).copy(),
    ),
    "other-pixels": lambda ns, path: (
        ns.Image.open(path).copy(),
        ns.Image.open(path).transpose(ns.Image.Transpose.FLIP_LEFT_RIGHT),
    ),
    "other-info": lambda ns, path: (ns.Image.open(path).copy(), _with_info(ns.Image.open(path))),
    "other-mode": lambda ns, path: (
        ns.Image.open(path).convert("RGBA").convert("RGB"),
        ns.Image.open(path).convert("RGBA"),
    ),
    "thumbnail-in-place": lambda ns, path: (
        _thumbnail(ns.Image.open(path)),
        _thumbnail(ns.Image.open(path)),
    ),
    "palettes": lambda ns, path: (
        ns.Image.open(path).convert("P", palette=ns.Image.ADAPTIVE, colors=8),
        ns.Image.open(path).convert("P", palette=ns.Image.ADAPTIVE, colors=8),
    ),
    "other-palettes": lambda ns, path: (
        ns.Image.open(path).convert("P", palette=ns.Image.ADAPTIVE, colors=8),
        _repalette(ns.Image.open(path).convert("P", palette=ns.Image.ADAPTIVE, colors=8)),
    ),
    "new-images": lambda ns, path: (
        ns.Image.new("RGB", (4, 3), "red"),
        ns.Image.new("RGB", (4, 3), (255, 0, 0)),
    ),
}


@pytest.mark.parametrize("name", ["photo.jpg", "photo.png"])
@pytest.mark.parametrize("pair", EQUALITY)
def test_equality_as_pillow(tmp_path: Path, name: str, pair: str) -> None:
    path = _photo(tmp_path, name)
    expected = EQUALITY[pair](_PIL, path)
    actual = EQUALITY[pair](_GPU, path)
    assert (actual[0] == actual[1], actual[0] != actual[1]) == (
        expected[0] == expected[1],
        expected[0] != expected[1],
    )
    for image in (*expected, *actual):
        image.close()  # Pillow's files not loaded are still open


def test_equality_with_other_objects_and_hashing_as_pillow(tmp_path: Path) -> None:
    path = _photo(tmp_path, "photo.png")
    lazy, pil = Image.open(path), PILImage.open(path)
    assert lazy != pil
    assert pil != lazy
    assert lazy != "photo.png"
    assert lazy == lazy
    for image in (lazy, pil):
        with pytest.raises(TypeError, match="unhashable"):
            hash(image)
    pil.close()


def _xmp_file(tmp_path: Path, name: str) -> Path:
    xmp = (
        b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
        b'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
        b'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="3"/></rdf:RDF>'
        b"</x:xmpmeta>"
    )
    path = tmp_path / name
    make_image("RGB", (9, 7)).save(path, xmp=xmp)
    return path


@pytest.mark.parametrize("name", ["photo.jpg", "photo.png", "photo.webp"])
@pytest.mark.parametrize("strip", [True, False], ids=["stripped", "namespaced"])
def test_getxmp_and_verify_as_pillow(tmp_path: Path, name: str, strip: bool) -> None:
    """getxmp of the opened file and of a result; verify of a good file leaves it usable."""
    path = _xmp_file(tmp_path, name)
    with PILImage.open(path) as opened:
        assert _answer(opened.verify) is None  # Pillow verifies only right after open
    with PILImage.open(path) as opened:
        expected = _answer(lambda: opened.getxmp(strip_namespaces=strip))
        expected_result = _answer(lambda: opened.convert("L").getxmp(strip_namespaces=strip))
    # the packet was read (defusedxml is installed); Pillow's PNG keeps it under another key
    assert ("xmpmeta" in str(expected)) == (name != "photo.png")
    lazy = Image.open(path)
    assert _answer(lambda: lazy.getxmp(strip_namespaces=strip)) == expected
    assert _answer(lambda: lazy.convert("L").getxmp(strip_namespaces=strip)) == expected_result
    assert lazy.verify() is None
    with PILImage.open(path) as opened:
        assert_image_equal(lazy.to_pil(), opened)


def test_verify_raises_what_pillow_raises_for_a_damaged_png(tmp_path: Path) -> None:
    path = tmp_path / "damaged.png"
    make_image("RGB", (9, 7)).save(path)
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # inside the IDAT chunk: its CRC no longer matches
    path.write_bytes(bytes(data))
    with PILImage.open(path) as opened:
        expected = _answer(opened.verify)
    assert isinstance(expected, tuple)  # Pillow raises
    assert _answer(Image.open(path).verify) == expected


def test_show_bitmap_and_qt_go_through_pillows_result(monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import ImageShow

    shown: list[PILImage.Image] = []
    monkeypatch.setattr(ImageShow, "show", lambda image, title=None, **options: shown.append(image))
    source = _source("1")
    lazy = _graph(Image.from_pil(source), _GPU)
    lazy.show("title")
    assert_image_equal(shown[0], _graph(source, _PIL))
    assert lazy.tobitmap("x") == _graph(source, _PIL).tobitmap("x")
    for name in ("toqimage", "toqpixmap"):  # Qt is not installed here: Pillow's own error
        expected = _answer(getattr(_graph(source, _PIL), name))
        assert _answer(getattr(lazy, name)) == expected


@pytest.mark.parametrize("hook", ["_repr_png_", "_repr_jpeg_"])
@pytest.mark.parametrize("mode", MODES)
def test_notebook_display_hooks_give_pillows_bytes(mode: str, hook: str) -> None:
    # IPython and Jupyter show an image through these; Pillow's give None for a mode the
    # format does not store (JPEG of RGBA, F, ...), and the notebook shows the text form.
    source = _source(mode)
    expected = getattr(_graph(source.copy(), _PIL), hook)()
    lazy = _graph(Image.from_pil(source), _GPU)
    assert getattr(lazy, hook)() == expected


def test_notebook_display_hooks_of_a_broken_file_give_none_as_pillows(tmp_path: Path) -> None:
    path = tmp_path / "cut.png"
    make_image("RGB", (40, 30)).save(path)
    path.write_bytes(path.read_bytes()[:-60])  # the pixels end early
    for hook in ("_repr_png_", "_repr_jpeg_"):
        with PILImage.open(path) as opened:
            assert getattr(opened, hook)() is None
        assert getattr(Image.open(path), hook)() is None
    make_image("RGB", (40, 30)).save(path)  # whole again: an opened file shows as Pillow's
    with PILImage.open(path) as opened:
        assert Image.open(path)._repr_png_() == opened._repr_png_()


def _drafted(path: Path, ns: Any, mode: str | None, size: tuple[int, int]) -> tuple[Any, ...]:
    """Code written for Pillow: draft before the first load, read the answer, then resize."""
    with ns.Image.open(path) as im:
        answer = im.draft(mode, size)
        again = im.draft("RGB", (4, 4))  # only the first draft counts
        header = (im.mode, im.size)
        im.thumbnail((20, 20))
        pixels = (im.mode, im.size, np.asarray(im).tobytes())
    return answer, again, header, pixels


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize(
    ("name", "mode", "size"),
    [
        ("photo.jpg", "L", (20, 15)),
        ("photo.jpg", "RGB", (10, 8)),
        ("photo.jpg", None, (50, 40)),
        ("photo.png", "L", (20, 15)),
    ],
    ids=["jpeg-gray-quarter", "jpeg-rgb-eighth", "jpeg-too-big", "png-no-draft"],
)
def test_draft_as_pillow(
    tmp_path: Path, name: str, mode: str | None, size: tuple[int, int]
) -> None:
    path = tmp_path / name
    make_image("RGB", (160, 120)).save(path)
    expected = _drafted(path, _PIL, mode, size)
    assert _drafted(path, _GPU, mode, size) == expected
    lazy = Image.open(path)
    lazy.draft(mode, size)
    with PILImage.open(path) as opened:
        opened.draft(mode, size)
        assert_image_equal(evaluate(ImageOps.mirror(lazy)), PILImageOps.mirror(opened))


def test_close_leaves_a_lazy_image_usable(tmp_path: Path) -> None:
    """A lazy image holds no open file; closing it (or leaving its with block) frees nothing
    and it still evaluates, reopening the file."""
    path = _photo(tmp_path, "photo.png")
    image = Image.open(path)
    image.close()
    with PILImage.open(path) as opened:
        assert_image_equal(image.to_pil(), opened)


# -- constructors and module functions ------------------------------------------------------
CONSTRUCTORS: dict[str, Callable[[Any], Any]] = {
    "fromarray-gray": lambda ns: ns.Image.fromarray(np.arange(60, dtype=np.uint8).reshape(6, 10)),
    "fromarray-rgb": lambda ns: ns.Image.fromarray(
        np.arange(180, dtype=np.uint8).reshape(6, 10, 3)
    ),
    "fromarray-float": lambda ns: ns.Image.fromarray(np.linspace(0, 1, 24, dtype=np.float32)),
    "fromarray-bool": lambda ns: ns.Image.fromarray(np.eye(5, dtype=bool)),
    "fromarray-mode-l": lambda ns: ns.Image.fromarray(np.full((3, 4), 7, np.uint8), "L"),
    "frombuffer": lambda ns: ns.Image.frombuffer("L", (4, 3), bytes(range(12)), "raw", "L", 0, 1),
    "fromarrow": lambda ns: ns.Image.fromarrow(_source("RGBA"), "RGBA", (13, 9)),
    "linear_gradient": lambda ns: ns.Image.linear_gradient("L"),
    "radial_gradient": lambda ns: ns.Image.radial_gradient("L"),
}


@pytest.mark.parametrize("name", CONSTRUCTORS)
def test_constructors_give_pillows_image(name: str) -> None:
    expected = CONSTRUCTORS[name](_PIL)
    actual = CONSTRUCTORS[name](_GPU)
    assert isinstance(actual, Image.Image)
    assert_image_equal(actual.to_pil(), expected)


def test_fromarray_copies_the_array_now() -> None:
    array = np.zeros((4, 4), dtype=np.uint8)
    lazy = Image.fromarray(array)
    array[:] = 200
    assert lazy.getpixel((0, 0)) == 0


def test_fromarray_errors_are_pillows() -> None:
    bad = np.zeros((2, 2, 7), dtype=np.uint8)
    with pytest.raises(TypeError) as expected:
        PILImage.fromarray(bad)
    with pytest.raises(TypeError, match=str(expected.value)):
        Image.fromarray(bad)


@pytest.mark.usefixtures("device")
def test_blend_and_eval_record_on_the_gpu_route() -> None:
    first, second = _source("RGB"), make_image("RGB", (13, 9), seed=4)
    lazy_blend = Image.blend(Image.from_pil(first), Image.from_pil(second), 0.3)
    assert_image_equal(evaluate(lazy_blend), PILImage.blend(first, second, 0.3))
    assert ImageChops.blend is Image.blend
    lazy_eval = Image.eval(Image.from_pil(first), lambda v: 255 - v)
    assert_image_equal(evaluate(lazy_eval), PILImage.eval(first, lambda v: 255 - v))


def test_pillow_names_are_re_exported() -> None:
    for name in (
        "UnidentifiedImageError",
        "DecompressionBombError",
        "DecompressionBombWarning",
        "Exif",
        "Quantize",
        "getmodebands",
        "getmodebase",
        "getmodetype",
        "getmodebandnames",
        "registered_extensions",
    ):
        assert getattr(Image, name) is getattr(PILImage, name), name


def test_every_pillow_image_method_is_provided_or_listed() -> None:
    """Public ``PIL.Image.Image`` names a lazy image does not have are the library's own list
    (``_not_recorded.NOT_RECORDED``: the C image and its flag), each raising an AttributeError
    that says why; anything else Pillow has (now or in a later release) must exist here."""
    pillow = {name for name in dir(PILImage.Image) if not name.startswith("_")}
    lazy = {name for name in dir(Image.Image) if not name.startswith("_")}
    assert sorted(pillow - lazy - set(NOT_RECORDED)) == []
    image = Image.new("L", (1, 1))  # the list stays honest: a lazy image has none of them
    assert [name for name in NOT_RECORDED if hasattr(image, name)] == []
    assert sorted(NOT_RECORDED) == ["getim", "im", "readonly"]


#: What other libraries call on Pillow's image besides its public methods: notebook display
#: hooks (IPython, Jupyter), NumPy's and Arrow's array interfaces, equality, copying, ``with``.
PROTOCOL_HOOKS = (
    "_repr_png_",
    "_repr_jpeg_",
    "__array_interface__",
    "__arrow_c_schema__",
    "__arrow_c_array__",
    "__eq__",
    "__copy__",
    "__enter__",
    "__exit__",
)


def test_protocol_hooks_other_libraries_call_exist() -> None:
    assert [name for name in PROTOCOL_HOOKS if not hasattr(PILImage.Image, name)] == []
    assert [name for name in PROTOCOL_HOOKS if not hasattr(Image.Image, name)] == []


_TYPING = "a typing name"
_PILLOW_INTERNAL = "Pillow's own helper, imported into the module, not its API"

#: Public names of Pillow's modules that a lazy counterpart does not have, and why.
MODULES_NOT_PROVIDED = {
    "Image": {
        "DecoderInput": _TYPING,
        "IntEnum": _TYPING,
        "MutableMapping": _TYPING,
        "Protocol": _TYPING,
        "SupportsArrayInterface": _TYPING,
        "SupportsArrowArrayInterface": _TYPING,
        "SupportsGetData": _TYPING,
        "TYPE_CHECKING": _TYPING,
        "cast": _TYPING,
        "deprecate": _PILLOW_INTERNAL,
        "i32le": _PILLOW_INTERNAL,
        "is_path": _PILLOW_INTERNAL,
        "o32be": _PILLOW_INTERNAL,
        "o32le": _PILLOW_INTERNAL,
        "enum": "a loop variable Pillow's module leaves behind (its last enum)",
        "item": "a loop variable Pillow's module leaves behind (that enum's last member)",
    },
    "ImageOps": {
        "Protocol": _TYPING,
        "SupportsGetMesh": _TYPING,
        "TYPE_CHECKING": _TYPING,
    },
    "ImageFilter": {"TYPE_CHECKING": _TYPING, "cast": _TYPING},
    "ImageChops": {},
    "ImageEnhance": {},
    "ImageSequence": {"TYPE_CHECKING": _TYPING},
    "ImageStat": {"cached_property": _PILLOW_INTERNAL},
    "ImageDraw": {
        "getdraw": "Pillow's ImageDraw2/aggdraw hook for PIL images; use Draw",
        "TYPE_CHECKING": _TYPING,
        "cast": _TYPING,
    },
}


@pytest.mark.parametrize("module", MODULES_NOT_PROVIDED)
def test_every_pillow_module_function_is_provided_or_listed(module: str) -> None:
    pillow = importlib.import_module(f"PIL.{module}")
    lazy = importlib.import_module(f"pillow_gpu.{module}")
    public = {
        name
        for name in dir(pillow)
        if not name.startswith("_") and not isinstance(getattr(pillow, name), type(pillow))
    }
    listed = MODULES_NOT_PROVIDED[module]
    assert sorted(public - set(dir(lazy)) - set(listed)) == []
    assert sorted(set(listed) & set(dir(lazy))) == []


#: Pillow's modules that take no lazy image (or take it through its public methods):
#: ``pillow_gpu.<name>`` is Pillow's module object itself.
PILLOW_MODULES = (
    "ExifTags",
    "ImageColor",
    "ImageFile",
    "ImageFont",
    "ImageMode",
    "ImagePalette",
    "ImagePath",
    "ImageText",
    "ImageTransform",
    "JpegPresets",
    "TiffTags",
    "features",
)

#: Pillow's modules with no ``pillow_gpu`` name, and why.
PILLOW_MODULES_NOT_PROVIDED = {
    "BdfFontFile": "a font file reader (fonts come from ImageFont)",
    "ContainerIO": "a plugin's file helper",
    "FontFile": "a font file reader (fonts come from ImageFont)",
    "GdImageFile": "a plugin (Image.open reads every format Pillow reads)",
    "GimpGradientFile": "a palette file reader (ImagePalette loads them)",
    "GimpPaletteFile": "a palette file reader (ImagePalette loads them)",
    "ImageDraw2": "Pillow's aggdraw-style wrapper of ImageDraw for PIL images",
    "ImageGrab": "grabs the screen or clipboard into a PIL image (Image.from_pil records it)",
    "ImageQt": "a Qt bridge for PIL images (Image.fromqimage records a Qt image)",
    "ImageShow": "shows PIL images (a lazy image's show() completes it first)",
    "ImageTk": "a Tk bridge for PIL images",
    "ImageWin": "a Windows display bridge for PIL images",
    "PSDraw": "draws PostScript from PIL images",
    "PaletteFile": "a palette file reader (ImagePalette loads them)",
    "PcfFontFile": "a font file reader (fonts come from ImageFont)",
    "PdfParser": "the PDF plugin's parser",
    "TarIO": "a plugin's file helper",
    "WalImageFile": "a plugin (Image.open reads every format Pillow reads)",
    "report": "prints Pillow's build report (features.pilinfo)",
}


@pytest.mark.parametrize("module", PILLOW_MODULES)
def test_pillow_module_is_the_same_object(module: str) -> None:
    assert importlib.import_module(f"pillow_gpu.{module}") is importlib.import_module(
        f"PIL.{module}"
    )


def test_every_pillow_module_is_provided_or_listed() -> None:
    """Every public module of the installed Pillow (a plugin or a later release's new one
    included) has a ``pillow_gpu`` counterpart, is Pillow's own here, or is listed with why."""
    pillow = {
        found.name
        for found in pkgutil.iter_modules(PIL.__path__)
        if not found.name.startswith("_") and not found.name.endswith("ImagePlugin")
    }
    ours = {
        found.name
        for found in pkgutil.iter_modules(pillow_gpu.__path__)
        if not found.name.startswith("_")
    }
    listed = set(PILLOW_MODULES_NOT_PROVIDED)
    assert sorted(pillow - ours - listed) == []
    assert sorted(listed & ours) == []  # the list stays honest
    assert set(PILLOW_MODULES) <= ours


def test_getpalette_of_an_opened_file_loads_it_as_pillow_s(tmp_path: Path) -> None:
    path = tmp_path / "late-text.png"
    source = make_image("RGB", (9, 7), seed=2).convert("P")
    path.write_bytes(png_with_late_chunks(source, [png_chunk(b"tEXt", b"comment\0after")]))
    found = []
    for opened in (PILImage.open(path), Image.open(path)):
        palette = opened.getpalette()  # Pillow's getpalette loads the image first
        found.append((palette, dict(opened.info)))
    assert found[1] == found[0]
    assert found[0][1]["comment"] == "after"


def test_getpalette_of_a_broken_file_raises_pillow_s_decode_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.gif"
    make_image("RGB", (40, 30), seed=2).convert("P").save(path)
    path.write_bytes(path.read_bytes()[:-60])
    with PILImage.open(path) as opened:
        try:
            opened.getpalette()
        except OSError as error:
            expected = error
        else:
            pytest.fail("Pillow decoded the cut file")
    with pytest.raises(type(expected), match=re.escape(str(expected))):
        Image.open(path).getpalette()


def _png_without_palette(tmp_path: Path) -> Path:
    """A palette-type PNG whose PLTE chunk is gone (no writer makes one; a damaged file or a
    faulty editor does): Pillow opens and loads it with ``palette`` None."""
    out = io.BytesIO()
    make_image("RGB", (13, 9)).quantize(7).save(out, "PNG", transparency=2)
    path = tmp_path / "no-plte.png"
    path.write_bytes(png_without_chunk(out.getvalue(), b"PLTE"))
    return path


@pytest.mark.parametrize("loaded", [False, True], ids=["opened", "loaded"])
def test_palette_type_png_without_a_palette(tmp_path: Path, loaded: bool) -> None:
    """Pillow's ``has_transparency_data`` fails an assertion on it once its ``info`` has no
    transparency (it reads the missing palette's mode), and ``getpalette`` gives the decoder's
    default table; the lazy image answers the same, before and after its pixels are decoded.
    Its operations' results get an empty palette object, as Pillow's do."""
    path = _png_without_palette(tmp_path)
    with PILImage.open(path) as expected, Image.open(path) as lazy:
        assert expected.palette is None
        if loaded:
            expected.load()
            lazy.load()
        for image in (expected, lazy):
            assert image.has_transparency_data  # info["transparency"] answers first
            del image.info["transparency"]
        for image in (expected, lazy):
            with pytest.raises(AssertionError):
                getattr(image, "has_transparency_data")  # noqa: B009 - the property raises
        assert lazy.getpalette() == expected.getpalette()
        for step in (
            lambda image: image.rotate(90),
            lambda image: image.crop((1, 1, 5, 4)),
            lambda image: image.point(lambda value: 6 - value),
        ):
            assert step(expected).palette is not None  # Pillow's result gets an empty one
            assert not step(expected).has_transparency_data
            assert not step(lazy).has_transparency_data  # asked before evaluation
        turned = expected.rotate(90)
        assert_image_equal(lazy.rotate(90).to_pil(), turned)
        assert_image_equal(evaluate(lazy.rotate(90)), turned)
