"""Every conversion Pillow accepts among all its modes is admitted-and-exact or Unsupported.

Modes: 1, P, PA, L, LA, La, RGB, RGBA, RGBa, RGBX, CMYK, YCbCr, HSV, LAB, I, F, I;16, I;16B,
I;16L. No third outcome: an admitted pair must equal live Pillow byte for byte (YCbCr's stored
padding byte included, P/PA palettes too), a refused one must raise
:class:`~pillow_gpu.errors.Unsupported` at admission naming why (never another error, never a
wrong byte). With the default dither (Floyd-Steinberg) Pillow accepts 309 (source, target)
pairs; 300 are admitted. The 9 refused: RGBA -> P/PA (quantize, 2) and RGB, RGBA, RGBX, RGBa,
CMYK, YCbCr, HSV -> F (rgb2f's float32 division by 1000, 7). The (source, P/1 target, dither)
matrix counts 68 cases, 66 admitted (RGBA -> P refused with either dither). The shares are
printed (``pytest -s``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image, pillow_converts
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._layout import (
    LIMITED_MODES,
    NATIVE_MODES,
    WIDE_MODES,
    image_of_words,
    to_words,
)

from .test_pgpu_parity_pa import pa_image
from .test_pgpu_parity_wide import wide_image

pytestmark = pytest.mark.usefixtures("device")

MODES = (
    "1", "P", "PA", "L", "LA", "La", "RGB", "RGBA", "RGBa", "RGBX", "CMYK", "YCbCr", "HSV",
    "LAB", "I", "F", "I;16", "I;16B", "I;16L",
)  # fmt: skip


PAIRS = [(a, b) for a in MODES for b in MODES if pillow_converts(a, b)]


_WORD_RAW = {"YCbCr": "YCbCrX"}  # every stored byte, the padding byte included


def _source(mode: str) -> PILImage.Image:
    if mode in ("P", "1"):
        return _indexed_source(mode)
    if mode == "PA":
        return pa_image((37, 19), "rgba256")
    if mode in WIDE_MODES:
        return wide_image(mode, (37, 19))
    if mode in NATIVE_MODES:
        return make_image(mode, (37, 19))
    if mode in ("HSV", "LAB"):  # random stored words, the padding byte included
        words = np.frombuffer(make_image("RGBA", (37, 19)).tobytes(), dtype="<u4")
        return image_of_words(mode, (37, 19), words)
    if mode in LIMITED_MODES:  # random stored bytes, YCbCr's padding byte included
        words = make_image("RGBA", (37, 19)).tobytes()
        if mode == "La":
            words = bytes(b for i, b in enumerate(words) if i % 4 in (0, 3))
        return PILImage.frombytes(mode, (37, 19), words, "raw", _WORD_RAW.get(mode, mode))
    try:  # a non-native mode holding real colours where Pillow can make one
        return make_image("RGB", (37, 19)).convert(mode)
    except ValueError:
        return PILImage.new(mode, (37, 19))


def _refusal(lazy: Image.Image) -> str:
    """The planner's refusal of ``lazy`` (its message), or "" when it is admitted."""
    try:
        plan_graph(lazy)
    except Unsupported as error:
        return str(error)
    return ""


def _outcome(source_mode: str, target: str) -> str:
    source = _source(source_mode)
    lazy = Image.from_pil(source).convert(target)
    reason = _refusal(lazy)
    if reason:
        assert "mode" in reason or "conversion" in reason, reason  # it says why
        return "refused"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = source.convert(target)
    actual = evaluate(lazy)
    assert_image_equal(actual, expected)
    assert (to_words(actual) == to_words(expected)).all(), "stored padding differs"
    if target in ("P", "PA"):
        assert actual.getpalette() == expected.getpalette()
    return "admitted"


def test_every_accepted_pair_is_admitted_exact_or_refused() -> None:
    outcomes = {pair: _outcome(*pair) for pair in PAIRS}
    admitted = sorted(pair for pair, outcome in outcomes.items() if outcome == "admitted")
    native = [(a, b) for a, b in PAIRS if a in NATIVE_MODES and b in NATIVE_MODES]
    layouts = {*NATIVE_MODES, *LIMITED_MODES}
    proven = [(a, b) for a, b in PAIRS if {a, b} <= layouts]
    refused = sorted(set(PAIRS) - set(admitted))
    print(f"\nconvert(): {len(admitted)} of {len(PAIRS)} pairs Pillow accepts are admitted")
    print("refused:", ", ".join(f"{a}->{b}" for a, b in refused))
    assert len(native) == len(NATIVE_MODES) ** 2  # Pillow converts every native pair
    assert set(proven) <= set(admitted)  # every 8-bit layout pair (102), HSV and LAB included
    assert all(("PA", target) in admitted for target in MODES if ("PA", target) in PAIRS)
    quantized = [("RGBA", "P"), ("RGBA", "PA")]
    to_float = [(a, b) for a, b in refused if b == "F"]
    assert set(refused) == {*quantized, *to_float}
    assert len(to_float) == 7
    # 300 since Floyd-Steinberg (26 pairs), 274 since P -> P copies
    assert (len(PAIRS), len(admitted)) == (309, 300)


#: Sources of the P/1-target matrix: every mode Pillow converts.
INDEXED_SOURCES = MODES
DITHERS = {"dither-NONE": PILImage.Dither.NONE, "dither-default": None}


def _indexed_source(mode: str) -> PILImage.Image:
    if mode == "P":
        image = make_image("L", (37, 19)).convert("P")  # Pillow's gray palette
        image.putpalette(make_image("RGB", (256, 1), seed=4).tobytes())
        return image
    if mode == "1":
        return make_image("L", (37, 19)).convert("1", dither=PILImage.Dither.NONE)
    return _source(mode)


INDEXED_CASES = [
    (source, target, name)
    for source in INDEXED_SOURCES
    for target in ("P", "1")
    for name, dither in DITHERS.items()
    if pillow_converts(_indexed_source(source), target, dither=dither)
]


def _indexed_outcome(source_mode: str, target: str, dither: PILImage.Dither | None) -> str:
    source = _indexed_source(source_mode)
    lazy = Image.from_pil(source).convert(target, dither=dither)
    reason = _refusal(lazy)
    if reason:
        assert "why:" in reason, reason
        assert "fix:" in reason, reason
        return "refused"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = source.convert(target, dither=dither)
    actual = evaluate(lazy)
    assert_image_equal(actual, expected)
    assert actual.info == expected.info
    if target == "P":
        assert actual.getpalette() == expected.getpalette()
    return "admitted"


def test_every_accepted_p_and_1_target_is_admitted_exact_or_refused() -> None:
    outcomes = {
        (source, target, name): _indexed_outcome(source, target, DITHERS[name])
        for source, target, name in INDEXED_CASES
    }
    admitted = {case for case, outcome in outcomes.items() if outcome == "admitted"}
    print(
        f"\nconvert() to P/1: {len(admitted)} of {len(INDEXED_CASES)} (source, target, dither) "
        "cases Pillow accepts are admitted"
    )
    refused = set(outcomes) - admitted
    assert refused == {("RGBA", "P", name) for name in DITHERS}  # Pillow's quantize
    # 66 since Floyd-Steinberg, 46 since P results of copies (P -> P), 44 and 23 before that
    # and before PA and wide
    assert (len(INDEXED_CASES), len(admitted)) == (68, 66)
