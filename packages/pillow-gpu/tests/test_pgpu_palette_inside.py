"""An L image Pillow's ``point(..., "L")`` made from a P image keeps the palette inside, and
Pillow's ``blend`` and ``ImageEnhance`` refuse it: the recording raises where Pillow raises,
after every operation that keeps or drops that palette (pillow_gpu._palette_inside). The
pointed image enters the graph either recorded (``point`` of a lazy P image) or as a
``from_pil`` leaf of the image Pillow's ``point`` made."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageEnhance, ImageFilter, ImageOps

NEAREST, BILINEAR, BICUBIC = (
    PILImage.Resampling.NEAREST,
    PILImage.Resampling.BILINEAR,
    PILImage.Resampling.BICUBIC,
)


def _pasted(image: Any) -> Any:
    out = image.copy()
    out.paste(0, (0, 0, 2, 2))
    return out


def _putpixel(image: Any) -> Any:
    out = image.copy()
    out.putpixel((0, 0), 3)
    return out


def _thumbnail(image: Any) -> Any:
    out = image.copy()
    out.thumbnail((3, 3))
    return out


#: A point table that keeps every value.
_TABLE = list(range(256))
#: (steps after the point, with the libraries (Image, ImageChops, ImageFilter, ImageOps)).
Step = Callable[[Any, tuple[Any, ...]], Any]
CHAINS: dict[str, Step] = {
    "none": lambda im, lib: im,
    "copy": lambda im, lib: im.copy(),
    "crop": lambda im, lib: im.crop((1, 0, 7, 8)),
    "transpose": lambda im, lib: im.transpose(PILImage.Transpose.TRANSPOSE),
    "rotate-90": lambda im, lib: im.rotate(90),
    "rotate-30": lambda im, lib: im.rotate(30),
    "affine-bilinear": lambda im, lib: im.transform(
        (8, 8), PILImage.Transform.AFFINE, (1, 0.1, 0, 0, 1, 0), BILINEAR
    ),
    "resize-nearest": lambda im, lib: im.resize((4, 4), NEAREST),
    "resize-bilinear": lambda im, lib: im.resize((4, 4), BILINEAR),
    "resize-same-size": lambda im, lib: im.resize((8, 8), BICUBIC),
    "reduce": lambda im, lib: im.reduce(2),
    "thumbnail": lambda im, lib: _thumbnail(im),
    "expand": lambda im, lib: lib[3].expand(im, 1),
    "convert-L": lambda im, lib: im.convert("L"),
    "convert-1-L": lambda im, lib: im.convert("1").convert("L"),
    "point": lambda im, lib: im.point(lambda v: v // 2),
    "box-blur": lambda im, lib: im.filter(lib[2].BLUR),
    "gaussian": lambda im, lib: im.filter(lib[2].GaussianBlur(1)),
    "unsharp": lambda im, lib: im.filter(lib[2].UnsharpMask()),
    "median": lambda im, lib: im.filter(lib[2].MedianFilter(3)),
    "min": lambda im, lib: im.filter(lib[2].MinFilter(3)),
    "mode": lambda im, lib: im.filter(lib[2].ModeFilter(3)),
    "ops-invert": lambda im, lib: lib[3].invert(im),
    "chops-invert": lambda im, lib: lib[1].invert(im),
    "chops-add": lambda im, lib: lib[1].add(im, im),
    "autocontrast": lambda im, lib: lib[3].autocontrast(im),
    "equalize": lambda im, lib: lib[3].equalize(im),
    "posterize": lambda im, lib: lib[3].posterize(im, 3),
    "solarize": lambda im, lib: lib[3].solarize(im),
    "mirror": lambda im, lib: lib[3].mirror(im),
    "exif-transpose": lambda im, lib: lib[3].exif_transpose(im),
    "fit": lambda im, lib: lib[3].fit(im, (4, 4)),
    "pad": lambda im, lib: lib[3].pad(im, (10, 4)),
    "getchannel": lambda im, lib: im.getchannel(0),
    "merge": lambda im, lib: lib[0].merge("L", [im]),
    "paste-onto": lambda im, lib: _pasted(im),
    "putpixel": lambda im, lib: _putpixel(im),
    "composite": lambda im, lib: lib[0].composite(im, im, im),
    # Where Pillow copies the image on the way (and so keeps the palette), and where not.
    "resize-whole-box": lambda im, lib: im.resize((4, 3), BICUBIC, box=(1, 2, 5, 5)),
    "resize-part-box": lambda im, lib: im.resize((4, 3), BICUBIC, box=(1, 2, 5, 5.5)),
    "point-linear": lambda im, lib: im.point(lambda v: v * 2 + 1),
    "point-to-1-and-L": lambda im, lib: im.point(_TABLE, "1").point(_TABLE, "L"),
    "point-to-I": lambda im, lib: im.point(_TABLE, "I"),
    "point-to-I-and-linear": lambda im, lib: im.point(_TABLE, "I").point(lambda v: v + 1),
    "gaussian-0": lambda im, lib: im.filter(lib[2].GaussianBlur(0)),
    "gaussian-0-across": lambda im, lib: im.filter(lib[2].GaussianBlur((0, 1))),
    "gaussian-0-down": lambda im, lib: im.filter(lib[2].GaussianBlur((1, 0))),
    "box-blur-0": lambda im, lib: im.filter(lib[2].BoxBlur(0)),
    "box-blur-0-across": lambda im, lib: im.filter(lib[2].BoxBlur((0, 2))),
    "unsharp-0": lambda im, lib: im.filter(lib[2].UnsharpMask(0, 50)),
    "blur-larger-than-image": lambda im, lib: im.crop((0, 0, 4, 8)).filter(lib[2].BLUR),
    "smooth-class-larger": lambda im, lib: im.crop((0, 0, 8, 2)).filter(lib[2].SMOOTH),
    "kernel-larger-empty": lambda im, lib: im.crop((0, 0, 0, 3)).filter(lib[2].SMOOTH),
    "gaussian-0-across-empty": lambda im, lib: im.crop((0, 0, 0, 3)).filter(
        lib[2].GaussianBlur((0, 1))
    ),
    "median-class": lambda im, lib: im.filter(lib[2].MedianFilter),
}
ENDINGS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "blend": lambda im, other, lib: lib.blend(im, other, 0.5),
    "blend-second": lambda im, other, lib: lib.blend(other, im, 0.5),
    "Brightness": lambda im, other, enhance: enhance.Brightness(im).enhance(0.5),
    "Contrast": lambda im, other, enhance: enhance.Contrast(im).enhance(0.5),
    "Color": lambda im, other, enhance: enhance.Color(im).enhance(0.5),
    "Sharpness": lambda im, other, enhance: enhance.Sharpness(im).enhance(0.5),
}
PILLOW = (PILImage, PILImageChops, PILImageFilter, PILImageOps)
OURS = (Image, ImageChops, ImageFilter, ImageOps)


def _palette_image() -> PILImage.Image:
    image = PILImage.new("P", (8, 8))
    image.putpalette(list(range(256)) * 3)
    image.putdata([index % 7 for index in range(64)])
    return image


#: How the pointed image enters our graph.
ENTRIES = ("recorded", "from_pil")
#: P sources: a palette known when recording, and one an ImageChops makes (known once run).
SOURCES: dict[str, Callable[[Any, tuple[Any, ...]], Any]] = {
    "putpalette": lambda im, lib: im,
    "chops-lighter": lambda im, lib: lib[1].lighter(
        im, im.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)
    ),
}


def _pointed(lib: tuple[Any, ...], entry: str, source: str, mode: str) -> Any:
    """``point`` to ``mode`` of the P image ``source`` makes: Pillow's; ours recorded on a
    lazy P image; or ours a ``from_pil`` leaf of Pillow's result."""
    table = list(range(256))
    if lib is PILLOW or entry == "from_pil":
        pointed = SOURCES[source](_palette_image(), PILLOW).point(table, mode)
        return pointed if lib is PILLOW else Image.from_pil(pointed)
    return SOURCES[source](Image.from_pil(_palette_image()), OURS).point(table, mode)


def _outcome(ours: bool, chain: str, ending: str, entry: str = "recorded") -> str:
    lib = OURS if ours else PILLOW
    image = CHAINS[chain](_pointed(lib, entry, "putpalette", "L"), lib)
    other_pil = PILImage.new("L", image.size, 3)  # empty too
    other = Image.from_pil(other_pil) if ours else other_pil
    last = lib[0] if ending.startswith("blend") else (ImageEnhance if ours else PILImageEnhance)
    try:
        ENDINGS[ending](image, other, last)
    except ValueError as error:
        return f"raises {error}"
    return "recorded" if ours else "runs"


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("chain", list(CHAINS))
@pytest.mark.parametrize("entry", ENTRIES)
def test_raises_where_pillow_raises(entry: str, chain: str, ending: str) -> None:
    expected = _outcome(False, chain, ending)
    assert _outcome(True, chain, ending, entry) == expected.replace("runs", "recorded")


def test_the_cases_hold_both_outcomes() -> None:
    """The table is not all one way: the palette is kept after some steps, lost after others."""
    outcomes = {_outcome(False, chain, "blend") for chain in CHAINS}
    assert outcomes == {"runs", "raises image has wrong mode"}


@pytest.mark.parametrize("rawmode", ["RGB", "RGBA", None])
@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("chain", list(CHAINS))
@pytest.mark.parametrize("mode", ["L", "1", "I", "F"])
@pytest.mark.parametrize("entry", ENTRIES)
def test_getpalette_answers_as_pillow(
    entry: str, mode: str, chain: str, source: str, rawmode: str | None
) -> None:
    """Pillow's ``getpalette()`` of the image ``point`` made answers with the palette kept
    inside it, or None where a step dropped it (or an error of that step)."""
    answers = []
    for lib in (PILLOW, OURS):
        try:
            image = CHAINS[chain](_pointed(lib, entry, source, mode), lib)
        except Exception as error:  # a step Pillow refuses for the mode: the same refusal
            answers.append(f"raises {type(error).__name__}")
            continue
        answers.append(image.getpalette(rawmode))
    assert answers[1] == answers[0]


@pytest.mark.parametrize("mode", ["L", "1", "I", "F"])
def test_getpalette_cases_hold_both_answers(mode: str) -> None:
    answers = set()
    for step in CHAINS.values():
        with contextlib.suppress(Exception):  # a step Pillow refuses for the mode
            image = step(_palette_image().point(list(range(256)), mode), PILLOW)
            answers.add(image.getpalette() is None)
    assert answers == {True, False}


#: Steps the GPU runs for every pointed mode: the first three keep the palette, the last not.
GPU_STEPS = ("rotate-90", "crop", "resize-nearest", "expand")
#: (entry, mode) the GPU runs: a recorded ``point`` of a P image to I or F has no GPU route.
GPU_CASES = [("recorded", "L"), ("recorded", "1")] + [("from_pil", mode) for mode in "L1IF"]


@pytest.mark.parametrize(("entry", "mode"), GPU_CASES, ids=["-".join(c) for c in GPU_CASES])
def test_gpu_results_keep_the_palette_inside_as_pillow(entry: str, mode: str) -> None:
    """The executor's results (built from GPU bytes) keep the palette inside where Pillow's
    keep it: ``getpalette()`` and ``blend`` answer as of Pillow's image."""
    jobs = [
        (name, CHAINS[name](_pointed(OURS, entry, "putpalette", mode), OURS)) for name in GPU_STEPS
    ]
    with GpuBatchExecutor() as executor:
        with executor.run(jobs) as results:
            found = {(result.input_key, "cpu"): result.image for result in results}
        with executor.run(jobs, output="gpu") as results:  # resident, then downloaded
            found.update({(r.input_key, "gpu"): r.image.download() for r in results})
    kept = set()
    for (name, _output), image in sorted(found.items()):
        expected = CHAINS[name](_pointed(PILLOW, entry, "putpalette", mode), PILLOW)
        assert (image.mode, image.size, image.info) == (expected.mode, expected.size, expected.info)
        assert image.tobytes() == expected.tobytes(), name
        # The stored values too (a 1 image pointed from P stores the table's values).
        assert list(image.get_flattened_data()) == list(expected.get_flattened_data()), name
        assert image.getpalette() == expected.getpalette(), name
        outcomes = []
        for got in (image, expected):
            try:
                PILImage.blend(got, got, 0.5)
                outcomes.append("runs")
            except ValueError as error:
                outcomes.append(str(error))
        assert outcomes[0] == outcomes[1], name
        kept.add(expected.getpalette() is not None)
    assert kept == {True, False}
