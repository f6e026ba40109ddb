"""Shader-work estimates per kernel family and the planner's per-submission work bound."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image, ImageChops, ImageEnhance, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu._work import INVOCATION_OVERHEAD, MAX_SUBMISSION_WORK

W, H = 40, 30  # an RGBA source: no pack_l step, so one graph = one upload + the kernels
PIXELS = W * H


def _rgba() -> Image.Image:
    return Image.from_pil(PILImage.new("RGBA", (W, H)))


def _rgb() -> Image.Image:
    return Image.from_pil(PILImage.new("RGB", (W, H)))


def _l() -> Image.Image:
    return Image.from_pil(PILImage.new("L", (W, H)))


def _pasted() -> Image.Image:
    image = _rgba()
    image.paste(_rgba().crop((0, 0, 8, 8)), (3, 4))  # in place, as in Pillow
    return image


def _with_alpha(alpha: int) -> Image.Image:
    image = _rgb()
    image.putalpha(alpha)  # in place, as in Pillow
    return image


#: Invocations of a lookup or a conversion over one-word pixels: one vec4 word (four pixels)
#: each; a conversion's inner loop is four output bytes of four pixels.
LUT = -(-PIXELS // 4)
CONVERT = (LUT, 16)
#: The widening of a packed L, P or LA upload: four pixels per invocation.
UNPACK = (LUT, 4)
#: A composition of two images of the output's size: four words (their per-byte loops) each.
CHOP = (LUT, 16)

# graph builder, then (invocations, inner-loop units) of every dispatch it records, in order
CASES: dict[str, tuple[Callable[[], Image.Image], list[tuple[int, int]]]] = {
    "fill-Image.new": (lambda: Image.new("RGBA", (W, H)), [(PIXELS, 1)]),
    # a table-free inversion: four vec4 words (sixteen words) per invocation
    "lut-invert": (lambda: ImageChops.invert(_rgba()), [(-(-PIXELS // 16), 16)]),
    "remap-rotate90": (lambda: _rgba().transpose(PILImage.Transpose.ROTATE_90), [(PIXELS, 1)]),
    "remap-expand": (lambda: ImageOps.expand(_rgba(), border=2), [((W + 4) * (H + 4), 1)]),
    "remap-crop-then-paste": (_pasted, [(64, 1), (PIXELS, 1)]),
    "resize-nearest": (
        lambda: _rgba().resize((20, 10), PILImage.Resampling.NEAREST),
        [(200, 1)],
    ),
    # premultiply, the two passes, unpremultiply. A pass runs one 256-invocation workgroup per
    # block of four outputs along its axis (and per 256 lines across it): span + span // 4
    # units per invocation, span being the block's window (a word and a quarter-cost uniform
    # weight vector per input; span = taps + 3 x scale, taps = 2 x support x scale).
    # 40x30 -> 20x10 runs horizontal first over all 30 rows: 5 blocks with span 8 + 3 x 2,
    # then 3 vertical blocks with span 12 + 3 x 3.
    "resample-bicubic-horizontal-first": (
        lambda: _rgba().resize((20, 10), PILImage.Resampling.BICUBIC),
        [(PIXELS, 3), (256 * 5, 14 + 14 // 4), (256 * 3, 21 + 21 // 4), (200, 3)],
    ),
    # x upscale, y downscale: Pillow 13's vertical first (3 blocks, span 6 + 3 x 3), then 15
    # horizontal blocks of the 2/3 upscale (span 2 + 2).
    "resample-bilinear-vertical-first": (
        lambda: _rgba().resize((60, 10), PILImage.Resampling.BILINEAR),
        [(PIXELS, 3), (256 * 3, 15 + 15 // 4), (256 * 15, 4 + 4 // 4), (600, 3)],
    ),
    "chops-multiply": (lambda: ImageChops.multiply(_rgba(), _rgba()), [CHOP]),
    "getchannel-packed": (  # one byte of each word straight into packed L (pack_l)
        lambda: _rgba().getchannel(0),
        [(-(-PIXELS // 4), 4)],
    ),
    "convert-chain-color": (
        lambda: ImageEnhance.Color(_rgba()).enhance(0.5),
        [CONVERT, CONVERT, CHOP],  # RGBA->LA, LA->RGBA, blend
    ),
    # box blur: one invocation per line segment (a whole 40-pixel row or 30-pixel column
    # here); the first window (min(2r + 1, line) reads, two clamped ends, the left edge), then
    # 5 units per output (two reads, the rounding and the store)
    "boxblur-r1": (
        lambda: _rgba().filter(ImageFilter.BoxBlur(1)),
        [(H, 3 + 3 + 5 * W), (W, 3 + 3 + 5 * H)],
    ),
    "boxblur-r16": (
        lambda: _rgba().filter(ImageFilter.BoxBlur(16)),
        [(H, 33 + 3 + 5 * W), (W, H + 3 + 5 * H)],
    ),
    "gaussian-r2-six-passes": (  # Pillow's box radius for sigma 2 is 1.375: r = 1
        lambda: _rgba().filter(ImageFilter.GaussianBlur(2)),
        [(H, 3 + 3 + 5 * W)] * 3 + [(W, 3 + 3 + 5 * H)] * 3,
    ),
    # rank: 1 word load per sample (RGBA: one pixel per lane word; L 4, LA 2), then the method's
    # four-lane steps: the 3x3 median counts two rows of a pixel as 12 samples, 3 columns of a
    # shared pair and two merges, 2 + 2 x 4 steps, and two medians of 12 steps; an RGBA
    # invocation runs two pixels of four rows, four of those; a max line pass's 1 per sample
    # (two passes)
    "rank-3": (
        lambda: _rgba().filter(ImageFilter.MedianFilter(3)),
        [(-(-W // 2) * -(-H // 4), 4 * (12 * 1 + 3 * (2 + 2 * 4) + 2 * 12))],
    ),
    "rank-7": (lambda: _rgba().filter(ImageFilter.MaxFilter(7)), [(PIXELS, 7 * (1 + 1))] * 2),
    "convolve-3x3-rgba": (lambda: _rgba().filter(ImageFilter.SMOOTH), [(PIXELS, 2 * 9 * 4)]),
    "convolve-5x5-rgba": (
        lambda: _rgba().filter(ImageFilter.SMOOTH_MORE),
        [(PIXELS, 2 * 25 * 4)],
    ),
    "convolve-3x3-rgb": (lambda: _rgb().filter(ImageFilter.SMOOTH), [(PIXELS, 2 * 9 * 3)]),
    "modefilter-3": (lambda: _rgba().filter(ImageFilter.ModeFilter(3)), [(PIXELS, 9 + 81)]),
    "modefilter-7": (lambda: _rgba().filter(ImageFilter.ModeFilter(7)), [(PIXELS, 49 + 2401)]),
    "modefilter-size-1-one-sample": (
        lambda: _rgba().filter(ImageFilter.ModeFilter(1)),
        [(PIXELS, 1 + 1)],
    ),
    "unsharp-r2-six-blur-passes-then-combine": (  # box radius 1.375: r = 1 per pass
        lambda: _rgba().filter(ImageFilter.UnsharpMask(2, 150, 3)),
        [(H, 3 + 3 + 5 * W)] * 3 + [(W, 3 + 3 + 5 * H)] * 3 + [(PIXELS, 4)],
    ),
    "unsharp-r0-combine-only": (
        lambda: _rgba().filter(ImageFilter.UnsharpMask(0, 150, 3)),
        [(PIXELS, 4)],
    ),
    "bands-merge-rgba": (
        lambda: Image.merge("RGBA", [Image.from_pil(PILImage.new("L", (W, H)))] * 4),
        [UNPACK, (PIXELS, 4 + 4)],  # L unpack; four source reads, the per-byte loop
    ),
    "bands-putalpha-int": (lambda: _with_alpha(128), [(PIXELS, 4 + 4)]),
    "sharpness-rgba": (  # SMOOTH, getchannel A, putalpha, blend
        lambda: ImageEnhance.Sharpness(_rgba()).enhance(2.0),
        [(PIXELS, 2 * 9 * 4), CONVERT, (PIXELS, 4 + 4), CHOP],
    ),
    "contrast-rgba": (  # convert to L, the atomic sum (a sample + an atomic), the blend
        # (the mean's 8 division steps and the per-byte loop)
        lambda: ImageEnhance.Contrast(_rgba()).enhance(1.5),
        [CONVERT, (PIXELS, 2), (PIXELS, 8 + 4)],
    ),
    # histogram (clear, local atomic and flush per band), the table build (4 invocations
    # scanning 256 bins twice), the lut reading it
    "equalize-rgb": (
        lambda: ImageOps.equalize(_rgb()),
        [(PIXELS, 1 + 3 * 3), (4, 2 * 256), (LUT, 4)],
    ),
    "equalize-l-masked-then-pack-l": (
        lambda: ImageOps.equalize(_l(), _l()),
        [UNPACK, UNPACK, (PIXELS, 1 + 3 * 1), (4, 2 * 256), (LUT, 4), (-(-PIXELS // 4), 4)],
    ),
    # histogram, the table choice (4 invocations: load, two trims, two scans, the row copy,
    # 256 steps each), the lut reading it; preserve_tone histograms convert("L")
    "autocontrast-rgb": (
        lambda: ImageOps.autocontrast(_rgb(), 2),
        [(PIXELS, 1 + 3 * 3), (4, 6 * 256), (LUT, 4)],
    ),
    "autocontrast-rgb-preserve-tone-masked": (
        lambda: ImageOps.autocontrast(_rgb(), (1, 10), 0, _l(), preserve_tone=True),
        [UNPACK, CONVERT, (PIXELS, 1 + 3 * 1), (4, 6 * 256), (LUT, 4)],
    ),
    "colorize-convert-then-lut": (
        lambda: ImageOps.colorize(Image.from_pil(PILImage.new("L", (W, H))), "red", "blue"),
        [UNPACK, (LUT, 4)],  # the L bytes widened to RGB in one unpack, the lut
    ),
}


@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_dispatch_work_is_invocations_times_overhead_plus_inner_loop(name: str) -> None:
    build, dispatches = CASES[name]
    plan = plan_graph(build())
    expected = [n * (INVOCATION_OVERHEAD + inner) for n, inner in dispatches]
    assert [d.work for d in plan.program.dispatches] == expected
    assert plan.shader_work == sum(expected)


def test_l_transpose_counts_one_packed_word_per_invocation() -> None:
    flipped = Image.from_pil(PILImage.new("L", (W, H))).transpose(
        PILImage.Transpose.FLIP_LEFT_RIGHT
    )
    plan = plan_graph(flipped)
    words = -(-PIXELS // 4)  # four bytes gathered per output word: no unpack, no packing
    assert [d.pipeline for d in plan.program.dispatches] == ["remap?PACKED=1"]
    assert plan.shader_work == words * (INVOCATION_OVERHEAD + 4)


def test_l_lookups_stay_packed_one_vector_per_invocation() -> None:
    plan = plan_graph(ImageOps.posterize(Image.from_pil(PILImage.new("L", (W, H))), 3))
    words = -(-PIXELS // 4)  # one lookup over Pillow's packed bytes: no unpack, no packing
    assert [d.shader for d in plan.program.dispatches] == ["lut"]
    assert plan.shader_work == -(-words // 4) * (INVOCATION_OVERHEAD + 4)  # a vec4 each


@pytest.mark.parametrize(
    ("work", "error"),
    [(0, ValueError), (-3, ValueError), (1.5, TypeError), (True, TypeError)],
    ids=["zero", "negative", "float", "bool"],
)
def test_dispatch_rejects_an_invalid_work_estimate(work: Any, error: type) -> None:
    program = Program()
    dst = program.image((4, 4))
    with pytest.raises(error, match="invocation_work"):
        program.dispatch(
            "fill", words=(4, 4, 0), bindings=(dst,), grid=(4, 4), invocation_work=work
        )
    assert program.dispatches == []


def test_a_kernel_cannot_record_a_dispatch_without_a_work_estimate() -> None:
    program = Program()
    dst = program.image((4, 4))
    record: Any = program.dispatch
    with pytest.raises(TypeError, match="invocation_work"):
        record("fill", words=(4, 4, 0), bindings=(dst,), grid=(4, 4))
    assert program.dispatches == []


def test_a_graph_above_the_work_bound_is_unsupported_before_decode(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    PILImage.new("L", (4096, 4096)).save(path)
    opened = Image.open(path)
    # radix select on Pillow's packed L bytes: four pixels per invocation, two word loads per
    # sample, no widening of the upload and no packing of the result
    lazy = opened.filter(ImageFilter.MedianFilter(5))
    with pytest.raises(Unsupported) as info:
        plan_graph(lazy)
    error = info.value
    assert (error.kind, error.stage) == ("Unsupported", "admission")
    work = 4096 * 4096 // 4 * (INVOCATION_OVERHEAD + 25 * (2 + 2 + 16))
    assert f"{work} shader-work units" in error.observed
    assert f"bound {MAX_SUBMISSION_WORK}" in error.observed
    assert "smaller image" in error.fix
    assert opened.node.cache.get() is None  # never decoded


def test_the_bound_admits_the_heaviest_common_4096_squared_graph() -> None:
    lazy = ImageChops.invert(Image.new("RGBA", (4096, 4096))).filter(ImageFilter.MedianFilter(3))
    plan = plan_graph(lazy)
    # the median reads the fill and inverts its result (the inversion is folded in)
    assert [d.pipeline for d in plan.program.dispatches] == ["fill", "rank?INVERT=1&PACKING=0"]
    fill = 4096 * 4096 * (INVOCATION_OVERHEAD + 1)
    # two pixels of four rows per invocation, each counted as four two-row invocations
    median = 2048 * 1024 * (INVOCATION_OVERHEAD + 4 * (12 + 3 * (2 + 2 * 4) + 2 * 12))
    assert plan.shader_work == fill + median
    assert plan.shader_work <= MAX_SUBMISSION_WORK


def _shared_inversion() -> Image.Image:
    inverted = ImageChops.invert(_rgb())
    return ImageChops.add(inverted.filter(ImageFilter.MedianFilter(3)), inverted)


# graph -> whether the inversion before its rank filter is folded in (its dispatch pruned)
FOLDS: dict[str, tuple[Callable[[], Image.Image], bool]] = {
    "median3-after-chops-invert": (
        lambda: ImageChops.invert(_rgb()).filter(ImageFilter.MedianFilter(3)),
        True,
    ),
    "median3-after-imageops-invert": (
        lambda: ImageOps.invert(_rgb()).filter(ImageFilter.MedianFilter(3)),
        True,
    ),
    "inversion-also-read-by-add": (_shared_inversion, False),
}


@pytest.mark.parametrize("name", list(FOLDS))
def test_an_inversion_before_a_rank_filter_is_folded_in(name: str) -> None:
    build, folded = FOLDS[name]
    shaders = [d.shader for d in plan_graph(build()).program.dispatches]
    assert ("invert" not in shaders) is folded
    assert shaders.count("rank") == 1
    assert_image_equal(evaluate(build()), build().to_pil())


# graph -> the byte mask of its table-free inversion (ImageOps.invert writes RGB padding 0)
INVERSIONS: dict[str, tuple[Callable[[], Image.Image], int]] = {
    "imageops-invert-rgb": (lambda: ImageOps.invert(_rgb()), 0x00FFFFFF),
    "chops-invert-rgba": (lambda: ImageChops.invert(_rgba()), 0xFFFFFFFF),
    "imageops-invert-l-packed": (lambda: ImageOps.invert(_l()), 0xFFFFFFFF),
}


@pytest.mark.parametrize("name", list(INVERSIONS))
def test_inverting_tables_run_without_table_reads(name: str) -> None:
    build, mask = INVERSIONS[name]
    (dispatch,) = plan_graph(build()).program.dispatches
    assert dispatch.shader == "invert"
    params = plan_graph(build()).program.buffers[dispatch.params].data
    assert params is not None
    assert int.from_bytes(params[4:8], "little") == mask  # after the word count


def _added_to_its_inverse(image: Image.Image) -> Image.Image:
    return ImageChops.add(ImageChops.invert(image), image)


# graph -> its dispatches once consecutive lookups are composed into one
COMPOSED: dict[str, tuple[Callable[[], Image.Image], list[str]]] = {
    "posterize-solarize-rgb": (
        lambda: ImageOps.solarize(ImageOps.posterize(_rgb(), 3), 99),
        ["lut"],
    ),
    "brightness-point-invert-rgba": (
        lambda: ImageChops.invert(
            ImageEnhance.Brightness(_rgba()).enhance(1.3).point(lambda v: v // 2)
        ),
        ["lut"],
    ),
    "invert-invert-l-packed": (lambda: ImageOps.invert(ImageOps.invert(_l())), ["lut"]),
    "shared-lookup-kept": (
        lambda: _added_to_its_inverse(ImageOps.posterize(_rgb(), 2)),
        ["lut", "lut", "chops"],
    ),
}


@pytest.mark.parametrize("name", list(COMPOSED))
def test_consecutive_lookups_are_one_dispatch(name: str) -> None:
    build, shaders = COMPOSED[name]
    assert [d.shader for d in plan_graph(build()).program.dispatches] == shaders
    assert_image_equal(evaluate(build()), build().to_pil())
