"""The examples of Pillow's tutorial (handbook/tutorial), run as written with Pillow's modules
and again with pillow_gpu's: the same outputs (mode, size, bytes, info, printed lines), on the
CPU route and, for every image result, through the executor on the GPU."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import (
    GpuBatchExecutor,
    Image,
)
from pillow_gpu._testing import LAZY_MODULES, PILLOW_MODULES, assert_image_equal

PILLOW = PILLOW_MODULES
OURS = LAZY_MODULES


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """A photo-like JPEG with an EXIF orientation, a PPM, and a three-frame GIF."""
    folder = tmp_path_factory.mktemp("tutorial")
    rng = np.random.default_rng(7)
    ramp = np.linspace(0, 255, 160, dtype=np.float64)
    pixels = np.stack(
        [
            np.add.outer(ramp[:120] * 0.5, ramp * 0.5),
            np.tile(ramp, (120, 1)),
            rng.random((120, 160)) * 255,
        ],
        axis=-1,
    ).astype(np.uint8)
    photo = PILImage.fromarray(pixels, "RGB")
    exif = PILImage.Exif()
    exif[0x0112] = 6
    photo.save(folder / "photo.jpg", quality=90, exif=exif.tobytes())
    photo.save(folder / "hopper.ppm")
    frames = [photo.resize((40, 30)).convert("P", colors=16).rotate(turn) for turn in (0, 90, 180)]
    frames[0].save(folder / "animation.gif", save_all=True, append_images=frames[1:], duration=50)
    return SimpleNamespace(
        folder=folder,
        photo=folder / "photo.jpg",
        ppm=folder / "hopper.ppm",
        gif=folder / "animation.gif",
    )


def _roll(m: Any, im: Any, delta: int) -> Any:
    """Roll an image sideways (the tutorial's ``roll``)."""
    xsize, ysize = im.size
    delta = delta % xsize
    if delta == 0:
        return im
    part1 = im.crop((0, 0, delta, ysize))
    part2 = im.crop((delta, 0, xsize, ysize))
    im.paste(part1, (xsize - delta, 0, xsize, ysize))
    im.paste(part2, (0, 0, xsize - delta, ysize))
    return im


def _merge(m: Any, im1: Any, im2: Any) -> Any:
    """Merge two images into one, side by side (the tutorial's ``merge``)."""
    w = im1.size[0] + im2.size[0]
    h = max(im1.size[1], im2.size[1])
    im = m.Image.new("RGBA", (w, h))
    im.paste(im1)
    im.paste(im2, (im1.size[0], 0))
    return im


def _bands(m: Any, im: Any) -> Any:
    """Processing individual bands (the tutorial's mask, point and paste)."""
    source = im.split()
    red, green = 0, 1
    mask = source[red].point(lambda i: i < 100 and 255)
    out = source[green].point(lambda i: i * 0.7)
    source[green].paste(out, None, mask)
    return m.Image.merge(im.mode, source)


def _thumbnail(m: Any, path: Path) -> Any:
    im = m.Image.open(path)
    im.thumbnail((64, 64))  # in place: a JPEG decodes drafted
    return im


def _paste_back(m: Any, path: Path) -> Any:
    """Processing a subrectangle and pasting it back."""
    im = m.Image.open(path)
    box = (10, 10, 90, 70)
    region = im.crop(box).transpose(m.Image.Transpose.ROTATE_180)
    im.paste(region, box)
    return im


def _swap_bands(m: Any, path: Path) -> Any:
    r, g, b = m.Image.open(path).split()
    return m.Image.merge("RGB", (b, g, r))


def _draft(m: Any, path: Path) -> Any:
    im = m.Image.open(path)
    im.draft("L", (40, 30))
    return im.convert("L")


def _identify(m: Any, path: Path) -> tuple[Any, ...]:
    """The tutorial's file identification: format, size and mode, nothing decoded."""
    with m.Image.open(path) as im:
        return im.format, im.format_description, im.size, im.mode, sorted(im.info)


def _frames(m: Any, path: Path) -> list[Any]:
    """Every frame of an animation, each converted (the tutorial's ImageSequence loop)."""
    with m.Image.open(path) as im:
        return [frame.convert("RGB") for frame in m.ImageSequence.Iterator(im)]


def _seek_loop(m: Any, path: Path) -> list[Any]:
    """The tutorial's seek loop up to EOFError."""
    found = []
    with m.Image.open(path) as im:
        im.seek(1)  # skip to the second frame
        try:
            while True:
                found.append(im.convert("L"))
                im.seek(im.tell() + 1)
        except EOFError:
            pass  # end of sequence
    return found


#: name -> the example, given the modules (Pillow's or ours) and the files; returns the images
#: and values to compare.
EXAMPLES: dict[str, Callable[[Any, SimpleNamespace], Any]] = {
    "identify": lambda m, f: _identify(m, f.photo),
    "convert-to-jpeg": lambda m, f: m.Image.open(f.ppm),
    "thumbnail": lambda m, f: _thumbnail(m, f.photo),
    "crop": lambda m, f: m.Image.open(f.ppm).crop((10, 10, 90, 70)),
    "paste-back-rotated": lambda m, f: _paste_back(m, f.ppm),
    "roll": lambda m, f: _roll(m, m.Image.open(f.ppm), 37),
    "merge-side-by-side": lambda m, f: _merge(
        m, m.Image.open(f.ppm), m.Image.open(f.photo).resize((50, 40))
    ),
    "swap-bands": lambda m, f: _swap_bands(m, f.ppm),
    "resize": lambda m, f: m.Image.open(f.ppm).resize((128, 128)),
    "rotate-45": lambda m, f: m.Image.open(f.ppm).rotate(45),
    "transpose": lambda m, f: [
        m.Image.open(f.ppm).transpose(method) for method in m.Image.Transpose
    ],
    "relative-resizing": lambda m, f: [
        m.ImageOps.contain(m.Image.open(f.ppm), (100, 150)),
        m.ImageOps.cover(m.Image.open(f.ppm), (100, 150)),
        m.ImageOps.fit(m.Image.open(f.ppm), (100, 150)),
        m.ImageOps.pad(m.Image.open(f.ppm), (100, 150), color="#f00"),
    ],
    "convert-L": lambda m, f: m.Image.open(f.ppm).convert("L"),
    "filter-detail": lambda m, f: m.Image.open(f.ppm).filter(m.ImageFilter.DETAIL),
    "point-1.2": lambda m, f: m.Image.open(f.ppm).point(lambda i: i * 1.2),
    "bands": lambda m, f: _bands(m, m.Image.open(f.ppm)),
    "contrast": lambda m, f: m.ImageEnhance.Contrast(m.Image.open(f.ppm)).enhance(1.3),
    "sequence-iterator": lambda m, f: _frames(m, f.gif),
    "seek-loop": lambda m, f: _seek_loop(m, f.gif),
    "draft": lambda m, f: _draft(m, f.photo),
    "from-bytes": lambda m, f: m.Image.open(io.BytesIO(f.photo.read_bytes())).reduce(2),
    "exif-transpose": lambda m, f: m.ImageOps.exif_transpose(m.Image.open(f.photo)),
    "save-thumbnail-jpeg": lambda m, f: _saved(m, f.photo),
    "difference": lambda m, f: m.ImageChops.difference(
        m.Image.open(f.ppm), m.Image.open(f.ppm).filter(m.ImageFilter.BLUR)
    ),
}


def _saved(m: Any, path: Path) -> bytes:
    """The tutorial's thumbnail written as a JPEG: the file's bytes."""
    written = io.BytesIO()
    with m.Image.open(path) as im:
        im.thumbnail((64, 64))
        im.save(written, "JPEG")
    return written.getvalue()


def _flatten(value: Any) -> list[Any]:
    return (
        [item for part in value for item in _flatten(part)] if isinstance(value, list) else [value]
    )


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_tutorial_example_runs_as_in_pillow(name: str, files: SimpleNamespace) -> None:
    expected = _flatten(EXAMPLES[name](PILLOW, files))
    actual = _flatten(EXAMPLES[name](OURS, files))
    assert len(actual) == len(expected)
    lazy = [item for item in actual if isinstance(item, Image.Image)]
    for ours, theirs in zip(actual, expected, strict=True):
        if isinstance(theirs, PILImage.Image):
            assert isinstance(ours, Image.Image)
            assert_image_equal(ours.to_pil(), theirs)
            assert ours.to_pil().info == theirs.info
        else:
            assert ours == theirs
    if not lazy:
        return
    fresh = [
        item for item in _flatten(EXAMPLES[name](OURS, files)) if isinstance(item, Image.Image)
    ]
    theirs_images = [item for item in expected if isinstance(item, PILImage.Image)]
    with GpuBatchExecutor() as executor:
        results = {r.input_key: r.image for r in executor.run(enumerate(fresh))}
    for index, theirs in enumerate(theirs_images):
        assert_image_equal(results[index], theirs)
        assert results[index].info == theirs.info
