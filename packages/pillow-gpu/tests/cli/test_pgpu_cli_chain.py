"""The chain syntax of ``pillow-gpu apply``: parsing, errors, Pillow calls and admission."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageEnhance as PILImageEnhance
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image, rebuilt
from pillow_gpu.cli._chain import ChainError, admitted_modes, parse_chain
from pillow_gpu.cli._steps import STEPS, describe_steps
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu._layout import NATIVE_MODES

VALID = {
    "single": ("invert", "invert", ()),
    "default-argument": ("gaussian_blur", "gaussian_blur:2", (2.0,)),
    "explicit-argument": ("gaussian_blur:1.5", "gaussian_blur:1.5", (1.5,)),
    "spaces-and-case": (" Median : 5 ", "median:5", (5,)),
    "size-argument": ("resize:32x16", "resize:32x16:bicubic", ((32, 16), "bicubic")),
    "filter-argument": ("resize:32x16:Lanczos", "resize:32x16:lanczos", ((32, 16), "lanczos")),
    "mode-argument": ("convert:rgba", "convert:RGBA", ("RGBA", "floydsteinberg")),
    "default-dither-not-printed": (
        "convert:P:Floyd-Steinberg",
        "convert:P",
        ("P", "floydsteinberg"),
    ),
    "dither-argument": ("convert:1:None", "convert:1:none", ("1", "none")),
}


@pytest.mark.parametrize("name", list(VALID))
def test_parse_single_step(name: str) -> None:
    text, canonical, args = VALID[name]
    chain = parse_chain(text)
    assert str(chain) == canonical
    assert chain.steps[0].args == args


def test_parse_chain_keeps_order() -> None:
    chain = parse_chain("invert,gaussian_blur:2,grayscale")
    assert [step.spec.name for step in chain.steps] == ["invert", "gaussian_blur", "grayscale"]
    assert str(chain) == "invert,gaussian_blur:2,grayscale"


INVALID = {
    "empty": ("", "the chain is empty"),
    "blank-step": ("invert,,grayscale", "step 2 is empty"),
    "unknown-with-suggestion": ("inverr", "did you mean 'invert'"),
    "unknown-without-suggestion": ("zzzz", "unknown operation"),
    "too-many-arguments": ("invert:3", r"takes 0 argument\(s\)"),
    "missing-argument": ("rotate", r"takes 1\.\.2 argument\(s\).*rotate:DEGREES:\[FILTER\]"),
    "unknown-rotation-filter": ("rotate:10:lanczos", "invalid FILTER.*nearest, bilinear, bicubic"),
    "not-a-number": ("gaussian_blur:wide", "invalid RADIUS"),
    "not-an-integer": ("median:3.5", "invalid SIZE"),
    "bad-size": ("resize:32", "invalid WIDTHxHEIGHT"),
    "unknown-filter": ("resize:8x8:cubic", "invalid FILTER.*choose one of nearest, box"),
    "unknown-dither": ("convert:P:ordered", "invalid DITHER.*choose one of floydsteinberg, none"),
    "tuple-of-arguments": (
        "invert,crop:0,0,10,10",
        r"step 3 is a number, not an operation: commas separate steps.*'0' after step 2 \(crop\)"
        r".*fix: write step 2 as crop:BORDER",
    ),
    "comma-in-a-size": ("resize:8,8", r"step 2 is a number.*write step 1 as resize:WIDTHxHEIGHT"),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_parse_invalid_chain_says_why(name: str) -> None:
    text, message = INVALID[name]
    with pytest.raises(ChainError, match=message) as caught:
        parse_chain(text)
    assert str(caught.value).startswith("why: ")
    assert "; observed: " in str(caught.value)
    assert "; fix: " in str(caught.value)


# Each step against the Pillow call it documents (evaluated through Pillow's own routing).
def _thumbnail(image: PILImage.Image, size: tuple[int, int], method: int) -> PILImage.Image:
    copy = image.copy()
    copy.thumbnail(size, PILImage.Resampling(method))
    return copy


_PIL_CALLS: dict[str, tuple[str, Callable[[PILImage.Image], PILImage.Image]]] = {
    "invert": ("invert", PILImageOps.invert),
    "chops_invert": ("chops_invert", PILImageChops.invert),
    "grayscale": ("grayscale", PILImageOps.grayscale),
    "convert": ("convert:P:none", lambda im: im.convert("P", dither=PILImage.Dither.NONE)),
    "threshold": (
        "threshold:100",
        lambda im: im.convert("L").point(lambda v: 255 * (v >= 100), "1"),
    ),
    "gaussian_blur": ("gaussian_blur:1.5", lambda im: im.filter(PILImageFilter.GaussianBlur(1.5))),
    "box_blur": ("box_blur:2", lambda im: im.filter(PILImageFilter.BoxBlur(2))),
    "median": ("median:5", lambda im: im.filter(PILImageFilter.MedianFilter(5))),
    "min": ("min", lambda im: im.filter(PILImageFilter.MinFilter(3))),
    "max": ("max:3", lambda im: im.filter(PILImageFilter.MaxFilter(3))),
    "sharpen": ("sharpen", lambda im: im.filter(PILImageFilter.SHARPEN)),
    "smooth": ("smooth", lambda im: im.filter(PILImageFilter.SMOOTH)),
    "blur": ("blur", lambda im: im.filter(PILImageFilter.BLUR)),
    "find_edges": ("find_edges", lambda im: im.filter(PILImageFilter.FIND_EDGES)),
    "emboss": ("emboss", lambda im: im.filter(PILImageFilter.EMBOSS)),
    "flip": ("flip", PILImageOps.flip),
    "mirror": ("mirror", PILImageOps.mirror),
    "rotate": ("rotate:270", lambda im: im.transpose(PILImage.Transpose.ROTATE_270)),
    "transpose": ("transpose", lambda im: im.transpose(PILImage.Transpose.TRANSPOSE)),
    "exif_transpose": ("exif_transpose", PILImageOps.exif_transpose),
    "solarize": ("solarize:100", lambda im: PILImageOps.solarize(im, 100)),
    "posterize": ("posterize:3", lambda im: PILImageOps.posterize(im, 3)),
    "brightness": ("brightness:1.3", lambda im: PILImageEnhance.Brightness(im).enhance(1.3)),
    "color": ("color:0.4", lambda im: PILImageEnhance.Color(im).enhance(0.4)),
    "contrast": ("contrast:1.7", lambda im: PILImageEnhance.Contrast(im).enhance(1.7)),
    "equalize": ("equalize", PILImageOps.equalize),
    "autocontrast": ("autocontrast:2.5", lambda im: PILImageOps.autocontrast(im, 2.5)),
    "resize": ("resize:13x7:bicubic", lambda im: im.resize((13, 7), PILImage.Resampling.BICUBIC)),
    "contain": ("contain:13x7", lambda im: PILImageOps.contain(im, (13, 7))),
    "fit": (
        "fit:13x7:lanczos",
        lambda im: PILImageOps.fit(im, (13, 7), PILImage.Resampling.LANCZOS),
    ),
    "pad": ("pad:13x7:box", lambda im: PILImageOps.pad(im, (13, 7), PILImage.Resampling.BOX)),
    "thumbnail": (
        "thumbnail:9x9:hamming",
        lambda im: _thumbnail(im, (9, 9), PILImage.Resampling.HAMMING),
    ),
    "reduce": ("reduce:3", lambda im: im.reduce(3)),
    "unsharp": ("unsharp:1.5:80:2", lambda im: im.filter(PILImageFilter.UnsharpMask(1.5, 80, 2))),
    "mode_filter": ("mode_filter:5", lambda im: im.filter(PILImageFilter.ModeFilter(5))),
    "sharpness": ("sharpness:1.7", lambda im: PILImageEnhance.Sharpness(im).enhance(1.7)),
    "expand": ("expand:3", lambda im: PILImageOps.expand(im, 3)),
    "flatten": ("flatten", lambda im: im.convert("RGB")),
    "crop": ("crop:2", lambda im: PILImageOps.crop(im, 2)),
}


def test_every_step_has_a_pillow_check() -> None:
    assert set(_PIL_CALLS) == set(STEPS)


@pytest.mark.parametrize("name", list(_PIL_CALLS))
def test_step_records_the_documented_pillow_call(name: str) -> None:
    text, call = _PIL_CALLS[name]
    source = make_image("RGB", (19, 17), seed=3)
    result = parse_chain(text).apply(Image.from_pil(source)).to_pil()
    assert_image_equal(result, call(source))


ROTATIONS = {"rotate:90": "90", "rotate:180.0": "180", "rotate:-33": "-33", "rotate:12.5": "12.5"}


@pytest.mark.parametrize("text", list(ROTATIONS))
def test_rotate_step_is_pillows_expanded_nearest_rotate(text: str) -> None:
    source = make_image("LA", (19, 17), seed=4)
    chain = parse_chain(text)
    assert str(chain) == f"rotate:{ROTATIONS[text]}"  # 90/180/270 keep their integer form
    expected = source.rotate(float(ROTATIONS[text]), PILImage.Resampling.NEAREST, expand=True)
    assert_image_equal(chain.apply(Image.from_pil(source)).to_pil(), expected)
    assert admitted_modes(chain).admitted == NATIVE_MODES


SMOOTH_ROTATIONS = {
    "rotate:12.5:bicubic": (12.5, "BICUBIC"),
    "rotate:-33:bilinear": (-33, "BILINEAR"),
}


@pytest.mark.parametrize("text", list(SMOOTH_ROTATIONS))
def test_rotate_step_takes_pillows_smoothing_filters(text: str) -> None:
    source = make_image("RGBA", (19, 17), seed=4)
    degrees, name = SMOOTH_ROTATIONS[text]
    chain = parse_chain(text)
    assert str(chain) == text
    expected = source.rotate(degrees, PILImage.Resampling[name], expand=True)
    assert_image_equal(evaluate(chain.apply(Image.from_pil(source))), expected)
    assert admitted_modes(chain).admitted == NATIVE_MODES


RESIZE_FILTERS = ["nearest", "box", "bilinear", "hamming", "bicubic", "lanczos"]


@pytest.mark.parametrize("name", RESIZE_FILTERS)
def test_resize_step_uses_the_named_filter(name: str) -> None:
    source = make_image("RGBA", (19, 17), seed=5)
    result = parse_chain(f"resize:11x23:{name}").apply(Image.from_pil(source)).to_pil()
    expected = source.resize((11, 23), PILImage.Resampling[name.upper()])
    assert_image_equal(result, expected)


def _flattened(image: PILImage.Image, color: str) -> PILImage.Image:
    background = PILImage.new("RGB", image.size, color)
    rgba = image.convert("RGBA")
    background.paste(rgba, (0, 0), rgba)
    return background


#: flatten's sources: (mode, whether Pillow's way is the paste over the colour).
FLATTEN_SOURCES = {
    "RGBA": True,
    "LA": True,
    "RGBa": True,
    "P-transparency": True,
    "P": False,
    "L": False,
    "RGB": False,
    "CMYK": False,
}


@pytest.mark.parametrize("color", ["white", "#ff8000"])
@pytest.mark.parametrize("source_name", list(FLATTEN_SOURCES))
def test_flatten_step_pastes_transparency_over_the_colour(source_name: str, color: str) -> None:
    mode = source_name.split("-", maxsplit=1)[0]
    if mode == "P":
        source = make_image("RGB", (19, 17), seed=6).quantize(32)
        if source_name == "P-transparency":
            source.info["transparency"] = 3
    elif mode == "RGBa":
        source = make_image("RGBA", (19, 17), seed=6).convert(mode)
    else:
        source = make_image(mode, (19, 17), seed=6)
    expected = _flattened(source, color) if FLATTEN_SOURCES[source_name] else source.convert("RGB")
    chain = parse_chain(f"flatten:{color}")
    lazy = chain.apply(Image.from_pil(source))
    assert_image_equal(evaluate(rebuilt(lazy)), expected)  # on the GPU
    assert_image_equal(lazy.to_pil(), expected)
    assert_image_equal(chain.apply_pil(source), expected)  # the CPU fallback's live Pillow
    assert admitted_modes(chain).admitted == NATIVE_MODES


def test_flatten_step_refuses_a_colour_pillow_does_not_know() -> None:
    with pytest.raises(ChainError, match="invalid COLOR"):
        parse_chain("flatten:notacolour")


def test_describe_steps_lists_every_step_with_its_call() -> None:
    text = describe_steps()
    for spec in STEPS.values():
        assert spec.usage in text
        assert spec.call in text


ADMISSION = {
    "invert-L-RGB-only": ("invert,gaussian_blur:2", ("L", "RGB")),
    "grayscale-every-mode": ("grayscale,invert", NATIVE_MODES),
    "color-not-CMYK-RGBX": ("color:0.5", ("L", "LA", "RGB", "RGBA")),
    "contrast-every-mode": ("contrast:0.5,contrast:-1", NATIVE_MODES),
    "equalize-L-RGB-only": ("equalize,equalize", ("L", "RGB")),
    "median-9-none": ("median:9", ()),
    "resize-over-pixel-bound": ("resize:9000x9000", ()),
    "crop-wider-than-the-small-probe": ("crop:40", NATIVE_MODES),
    "expand-past-the-bound-of-the-large-probe": ("expand:2000", NATIVE_MODES),
}


@pytest.mark.parametrize("name", list(ADMISSION))
def test_admitted_modes_follow_the_planner(name: str) -> None:
    text, modes = ADMISSION[name]
    chain = parse_chain(text)
    admission = admitted_modes(chain)
    assert admission.admitted == modes
    assert set(admission.refused) == set(NATIVE_MODES) - set(modes)
    if modes:
        admission.require_any(chain)
    else:
        with pytest.raises(ChainError, match=r"admits chain .* for no native mode"):
            admission.require_any(chain)


def test_refusal_names_the_planner_reason() -> None:
    admission = admitted_modes(parse_chain("median:9"))
    assert admission.refused["RGB"] == "Unsupported: rank filter size 9 exceeds 7"
    admission = admitted_modes(parse_chain("resize:9000x9000"))
    assert admission.refused["L"].startswith("Limit: ")


def _step_text(name: str, draw_args: list[str]) -> str:
    return ":".join([name, *draw_args])


_ARGUMENTS = {
    "MODE": st.sampled_from(["L", "RGB", "RGBA", "la"]),
    "FILTER": st.sampled_from(["nearest", "BOX", "Bilinear", "hamming", "bicubic", "lanczos"]),
    "RADIUS": st.floats(0, 50, allow_nan=False).map(repr),
    "FACTOR": st.floats(-2, 4, allow_nan=False).map(repr),
    "CUTOFF": st.floats(0, 60, allow_nan=False).map(repr),
    "DITHER": st.sampled_from(["none", "None", "floydsteinberg", "Floyd-Steinberg"]),
    "COLOR": st.sampled_from(["white", "Black", "#ff8000", "#0a0B0c"]),
    "WIDTHxHEIGHT": st.tuples(st.integers(1, 99), st.integers(1, 99)).map(
        lambda wh: f"{wh[0]}x{wh[1]}"
    ),
}
#: Arguments whose values depend on the step (rotate takes three of resize's filters).
_STEP_ARGUMENTS = {("rotate", "FILTER"): st.sampled_from(["nearest", "Bilinear", "BICUBIC"])}


@st.composite
def _chains(draw: st.DrawFn) -> str:
    steps = []
    for _ in range(draw(st.integers(1, 5))):
        spec = draw(st.sampled_from(list(STEPS.values())))
        required = len(spec.parsers) - len(spec.defaults)
        count = draw(st.integers(required, len(spec.parsers)))
        args = [
            draw(
                _STEP_ARGUMENTS.get(
                    (spec.name, arg_name), _ARGUMENTS.get(arg_name, st.integers(0, 9).map(str))
                )
            )
            for arg_name, _ in spec.parsers[:count]
        ]
        steps.append(_step_text(spec.name, args))
    return ",".join(steps)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_chains())
def test_printed_chain_parses_to_the_same_steps(text: str) -> None:
    chain = parse_chain(text)
    again = parse_chain(str(chain))
    assert again == chain
    assert len(chain.steps) == text.count(",") + 1


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "CMYK"])
def test_threshold_step_runs_on_the_gpu_as_pillow_thresholds(mode: str) -> None:
    chain = parse_chain("threshold:100")
    assert admitted_modes(chain).admitted == NATIVE_MODES
    source = make_image(mode, (19, 17), seed=5)
    expected = source.convert("L").point(lambda v: 255 if v >= 100 else 0, "1")
    assert_image_equal(evaluate(chain.apply(Image.from_pil(source))), expected)
