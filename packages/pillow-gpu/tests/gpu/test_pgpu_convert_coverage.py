"""Every conversion Pillow accepts among the 8-bit modes is admitted-and-exact or Unsupported.

No third outcome: an admitted pair must equal live Pillow byte for byte (YCbCr's stored
padding byte included), a refused one must raise :class:`~pillow_gpu.errors.Unsupported` at
admission (never another error, never a wrong byte). The admitted share is printed
(``pytest -s``); every pair among the native, YCbCr, La and RGBa layouts is admitted, and
every pair with HSV or LAB on either side is refused.
"""

from __future__ import annotations

import warnings

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._layout import LIMITED_MODES, NATIVE_MODES, to_words

pytestmark = pytest.mark.usefixtures("device")

MODES = ("L", "LA", "RGB", "RGBA", "RGBX", "CMYK", "YCbCr", "HSV", "LAB", "La", "RGBa")


def _accepted(source: str, target: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            PILImage.new(source, (2, 2)).convert(target)
    except (ValueError, OSError):
        return False
    return True


PAIRS = [(a, b) for a in MODES for b in MODES if _accepted(a, b)]


_WORD_RAW = {"YCbCr": "YCbCrX"}  # every stored byte, the padding byte included


def _source(mode: str) -> PILImage.Image:
    if mode in NATIVE_MODES:
        return make_image(mode, (37, 19))
    if mode in LIMITED_MODES:  # random stored bytes, YCbCr's padding byte included
        words = make_image("RGBA", (37, 19)).tobytes()
        if mode == "La":
            words = bytes(b for i, b in enumerate(words) if i % 4 in (0, 3))
        return PILImage.frombytes(mode, (37, 19), words, "raw", _WORD_RAW.get(mode, mode))
    try:  # a non-native mode holding real colours where Pillow can make one
        return make_image("RGB", (37, 19)).convert(mode)
    except ValueError:
        return PILImage.new(mode, (37, 19))


def _outcome(source_mode: str, target: str) -> str:
    source = _source(source_mode)
    lazy = Image.from_pil(source).convert(target)
    reason = ""
    try:
        plan_graph(lazy)
    except Unsupported as error:
        reason = str(error)
    if reason:
        assert "mode" in reason or "conversion" in reason, reason  # it says why
        return "refused"
    actual, expected = evaluate(lazy), source.convert(target)
    assert_image_equal(actual, expected)
    assert (to_words(actual) == to_words(expected)).all(), "stored padding differs"
    return "admitted"


def test_every_accepted_pair_is_admitted_exact_or_refused() -> None:
    outcomes = {pair: _outcome(*pair) for pair in PAIRS}
    admitted = sorted(pair for pair, outcome in outcomes.items() if outcome == "admitted")
    native = [(a, b) for a, b in PAIRS if a in NATIVE_MODES and b in NATIVE_MODES]
    layouts = {*NATIVE_MODES, *LIMITED_MODES}
    proven = [(a, b) for a, b in PAIRS if {a, b} <= layouts]
    print(f"\nconvert(): {len(admitted)} of {len(PAIRS)} pairs Pillow accepts are admitted")
    assert len(native) == len(NATIVE_MODES) ** 2  # Pillow converts every native pair
    assert set(admitted) == set(proven)  # the rest has HSV or LAB on a side
    assert (len(PAIRS), len(admitted)) == (102, 71)


@pytest.mark.parametrize(
    ("source", "target"),
    [("RGB", "HSV"), ("RGB", "LAB"), ("YCbCr", "HSV"), ("RGBa", "LAB"), ("L", "HSV")],
)
def test_hsv_and_lab_targets_are_refused_naming_the_mode(source: str, target: str) -> None:
    lazy = Image.from_pil(make_image(source, (5, 3))).convert(target)
    with pytest.raises(Unsupported, match=target):
        plan_graph(lazy)
