"""Pickling lazy images (pillow_gpu._pickling) against Pillow's pickling of the same images.

Pillow pickles an image's pixels, mode, size, ``info`` and palette, loading it first, and an
opened file's ``filename``; the unpickled image keeps its plugin's ``format``. Each case opens
a file Pillow wrote (or wraps a PIL image), uses it the same way on both sides, pickles and
unpickles it with a protocol, and compares what code asks an image.
"""

from __future__ import annotations

import concurrent.futures
import io
import multiprocessing
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageDraw as PILImageDraw
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageDraw, ImageFilter, ImageOps
from pillow_gpu._testing import make_image, png_chunk, png_with_late_chunks

SIZE = (37, 29)
#: Modes of several bytes a band, from numpy arrays of these types (``make_image`` makes bytes).
_WIDE = {"I;16": np.uint16, "I": np.int32, "F": np.float32}


def _source(mode: str, seed: int = 0) -> PILImage.Image:
    """A random image of ``mode``, wide modes included."""
    if mode not in _WIDE:
        return make_image(mode, SIZE, seed)
    values = np.random.default_rng(seed).integers(0, 1 << 16, SIZE[::-1])
    return PILImage.fromarray(values.astype(_WIDE[mode]))


def _jpeg_with_orientation(path: Path) -> None:
    exif = PILImage.Exif()
    exif[0x0112] = 6
    make_image("RGB", SIZE).save(path, "JPEG", exif=exif, quality=90)


def _palette_png(path: Path) -> None:
    make_image("RGB", SIZE).quantize(12).save(path, "PNG", transparency=3)


def _png_with_late_text(path: Path) -> None:
    chunks = [png_chunk(b"tEXt", b"Comment\x00written after the pixels")]
    path.write_bytes(png_with_late_chunks(make_image("RGBA", SIZE), chunks))


def _animated_gif(path: Path) -> None:
    frames = [make_image("RGB", SIZE, seed).quantize(8) for seed in range(3)]
    frames[0].save(path, "GIF", save_all=True, append_images=frames[1:], duration=40, loop=0)


def _tiff_16bit(path: Path) -> None:
    _source("I;16").save(path, "TIFF", compression="tiff_adobe_deflate")


def _webp_rgba(path: Path) -> None:
    make_image("RGBA", SIZE).save(path, "WEBP", lossless=True)


def _bilevel_bmp(path: Path) -> None:
    make_image("L", SIZE).convert("1").save(path, "BMP")


#: name -> (file name, writer): files Pillow writes, opened by path on both sides.
FILES: dict[str, tuple[str, Callable[[Path], None]]] = {
    "jpeg-exif-orientation": ("photo.jpg", _jpeg_with_orientation),
    "png-palette-transparency": ("palette.png", _palette_png),
    "png-text-after-pixels": ("late.png", _png_with_late_text),
    "gif-animation": ("animation.gif", _animated_gif),
    "tiff-16-bit": ("grey16.tif", _tiff_16bit),
    "webp-rgba": ("alpha.webp", _webp_rgba),
    "bmp-bilevel": ("bilevel.bmp", _bilevel_bmp),
}


def _drawn(image: Any, draw: Any) -> Any:
    draw.Draw(image).rectangle((3, 4, 20, 14), fill=1 if image.mode in ("1", "P") else 200)
    return image


def _edited_info(image: Any, draw: Any) -> Any:
    image.info["comment"] = b"edited before the pickle"
    return image


def _thumbnail(image: Any, draw: Any) -> Any:
    image.thumbnail((20, 20))
    return image


#: name -> use(image, ImageDraw module): what is done before the pickle, on both sides.
USES: dict[str, Callable[[Any, Any], Any]] = {
    "opened": lambda image, draw: image,
    "info-edited": _edited_info,
    "drawn": _drawn,
    "thumbnail": _thumbnail,
    "converted-la": lambda image, draw: image.convert("LA"),
}

PROTOCOLS = {"protocol-2": 2, "protocol-highest": pickle.HIGHEST_PROTOCOL}


def _answers(image: Any) -> dict[str, Any]:
    """What code asks an image, each answer or the type name of what asking raised."""
    queries: dict[str, Callable[[], Any]] = {
        "mode": lambda: image.mode,
        "size": lambda: image.size,
        "pixels": image.tobytes,
        "info": lambda: dict(image.info),
        "palette": image.getpalette,
        "palette-mode": lambda: getattr(image.palette, "mode", None),
        "format": lambda: (image.format, image.format_description),
        "filename": lambda: image.filename,
        "getexif": lambda: dict(image.getexif()),
    }
    found: dict[str, Any] = {}
    for name, query in queries.items():
        try:
            found[name] = query()
        except Exception as error:  # the exception type is the answer
            found[name] = type(error).__name__
    return found


@pytest.mark.parametrize("protocol", PROTOCOLS.values(), ids=PROTOCOLS.keys())
@pytest.mark.parametrize("use", USES.values(), ids=USES.keys())
@pytest.mark.parametrize("file", FILES.values(), ids=FILES.keys())
def test_an_opened_file_pickles_as_pillows(
    file: tuple[str, Callable[[Path], None]],
    use: Callable[[Any, Any], Any],
    protocol: int,
    tmp_path: Path,
) -> None:
    name, write = file
    path = tmp_path / name
    write(path)
    with PILImage.open(path) as opened:
        expected = pickle.loads(pickle.dumps(use(opened, PILImageDraw), protocol))
    with Image.open(path) as lazy:
        actual = pickle.loads(pickle.dumps(use(lazy, ImageDraw), protocol))
    assert isinstance(actual, Image.Image)
    assert _answers(actual) == _answers(expected)


@pytest.mark.parametrize("mode", ["1", "L", "LA", "P", "RGB", "RGBA", "I;16", "I", "F", "CMYK"])
def test_an_image_of_pil_pixels_pickles_as_pillows(mode: str) -> None:
    source = _source(mode)
    assert source.mode == mode
    if mode == "P":
        source.putpalette(bytes(range(256)) * 3)
    source.info["dpi"] = (72, 72)
    expected = pickle.loads(pickle.dumps(source))
    actual = pickle.loads(pickle.dumps(Image.from_pil(source).rotate(90, expand=True)))
    assert _answers(actual) == _answers(expected.rotate(90, expand=True))


def test_a_sought_frame_pickles_as_pillows(tmp_path: Path) -> None:
    path = tmp_path / "animation.gif"
    _animated_gif(path)
    with PILImage.open(path) as expected, Image.open(path) as lazy:
        expected.seek(2)
        lazy.seek(2)
        assert _answers(pickle.loads(pickle.dumps(lazy))) == _answers(
            pickle.loads(pickle.dumps(expected))
        )


def test_a_file_object_pickles_with_an_empty_filename() -> None:
    data = io.BytesIO()
    make_image("RGB", SIZE).save(data, "PNG")
    expected = pickle.loads(pickle.dumps(PILImage.open(io.BytesIO(data.getvalue()))))
    actual = pickle.loads(pickle.dumps(Image.open(io.BytesIO(data.getvalue()))))
    assert actual.filename == expected.filename == ""
    assert _answers(actual) == _answers(expected)


def test_a_file_pillow_cannot_decode_raises_pillows_error_at_the_pickle(tmp_path: Path) -> None:
    path = tmp_path / "cut.png"
    whole = io.BytesIO()
    make_image("RGB", (64, 64)).save(whole, "PNG")
    path.write_bytes(whole.getvalue()[:-200])
    with PILImage.open(path) as opened, pytest.raises(OSError, match="truncated") as pillows:
        pickle.dumps(opened)
    with Image.open(path) as lazy, pytest.raises(OSError, match="truncated") as ours:
        pickle.dumps(lazy)  # it opened: the header is whole
    assert str(ours.value) == str(pillows.value)


def test_unpickled_images_run_on_the_gpu(tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    _jpeg_with_orientation(path)
    with Image.open(path) as lazy:
        lazies = [pickle.loads(pickle.dumps(ImageOps.exif_transpose(lazy)))] * 3
    with PILImage.open(path) as opened:
        expected = PILImageOps.exif_transpose(opened).filter(PILImageFilter.GaussianBlur(2))
    with GpuBatchExecutor(max_jobs=4) as executor:
        blur = ImageFilter.GaussianBlur(2)
        jobs = [(index, lazy.filter(blur)) for index, lazy in enumerate(lazies)]
        results = list(executor.run(jobs))
    assert len(results) == 3
    for result in results:
        assert result.image.tobytes() == expected.tobytes()
        assert result.image.info == expected.info


def test_a_process_pool_takes_and_returns_lazy_images(tmp_path: Path) -> None:
    """The images go to the worker pickled (decoded here), the worker records ``grayscale``
    on each, and its lazy results come back pickled (evaluated there)."""
    paths = []
    for key in ("png-palette-transparency", "jpeg-exif-orientation"):
        name, write = FILES[key]
        paths.append(tmp_path / name)
        write(paths[-1])
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        results = list(pool.map(ImageOps.grayscale, [Image.open(path) for path in paths]))
    for path, result in zip(paths, results, strict=True):
        assert isinstance(result, Image.Image)
        with PILImage.open(path) as opened:
            expected = pickle.loads(pickle.dumps(PILImageOps.grayscale(opened)))
        assert _answers(result) == _answers(expected)
