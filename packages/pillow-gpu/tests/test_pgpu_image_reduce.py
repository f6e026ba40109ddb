"""Image.reduce and resize(reducing_gap) record like Pillow: errors, sizes, CPU results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image


def _ours(mode: str = "RGB") -> Image.Image:
    return Image.from_pil(make_image(mode, (10, 8)))


def _pil(mode: str = "RGB") -> PILImage.Image:
    return make_image(mode, (10, 8))


CALLS: dict[str, Callable[[Any], Any]] = {
    "zero-factor": lambda im: im.reduce(0),
    "zero-y-factor": lambda im: im.reduce((2, 0)),
    "float-factor": lambda im: im.reduce(2.5),
    "three-factors": lambda im: im.reduce((2, 2, 2)),
    "box-outside": lambda im: im.reduce(2, (0, 0, 11, 8)),
    "box-negative": lambda im: im.reduce(2, (-1, 0, 5, 5)),
    "box-empty": lambda im: im.reduce(2, (3, 3, 3, 5)),
    "box-three-values": lambda im: im.reduce(2, (0, 0, 5)),
    "box-float": lambda im: im.reduce(2, (0.5, 0, 5, 5)),
    "reducing-gap-below-1": lambda im: im.resize((3, 3), PILImage.Resampling.BICUBIC, None, 0.5),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_reduce_argument_errors_match_pillow(name: str) -> None:
    with pytest.raises(Exception) as expected:  # noqa: PT011 - the type is what is compared
        CALLS[name](_pil())
    with pytest.raises(type(expected.value), match=str(expected.value)):
        CALLS[name](_ours())


@pytest.mark.parametrize("box", [None, (0, 0, 10, 8), (3, 1, 10, 8)], ids=["none", "whole", "part"])
@pytest.mark.parametrize("mode", ["P", "1", "I;16", "I;16B"])
def test_reduce_of_a_mode_pillow_cannot_reduce_raises_its_mode_error(
    mode: str, box: tuple[int, int, int, int] | None
) -> None:
    """With a box too (one larger than the recording's probe image once passed the check)."""
    with pytest.raises(ValueError, match="wrong mode"):
        PILImage.new(mode, (10, 8)).reduce(2, box)
    with pytest.raises(ValueError, match="wrong mode"):
        Image.new(mode, (10, 8)).reduce(2, box)


REDUCES: dict[str, tuple[str, Any, Any]] = {
    "int-factor": ("RGB", 3, None),
    "tuple-factor-box": ("RGBA", (2, 3), (1, 1, 9, 8)),
    "tuple-1x1-is-crop": ("RGBA", (1, 1), (2, 1, 7, 6)),
    "list-1x1-premultiplies": ("RGBA", [1, 1], None),
    "mode-I": ("I", 2, None),
}


@pytest.mark.parametrize("case", list(REDUCES.values()), ids=list(REDUCES))
def test_reduce_records_pillows_size_and_evaluates_like_pillow(case: tuple[str, Any, Any]) -> None:
    mode, factor, box = case
    source = PILImage.new(mode, (10, 8)) if mode == "I" else make_image(mode, (10, 8))
    expected = source.reduce(factor, box)
    lazy = Image.from_pil(source).reduce(factor, box)
    assert lazy.size == expected.size  # recorded without evaluating
    assert not lazy.is_evaluated
    assert_image_equal(lazy.to_pil(), expected)


def test_resize_replays_reducing_gap_on_the_cpu() -> None:
    source = make_image("RGBA", (64, 40))
    expected = source.resize((7, 5), PILImage.Resampling.LANCZOS, None, 2.0)
    assert_image_equal(
        Image.from_pil(source).resize((7, 5), PILImage.Resampling.LANCZOS, None, 2.0).to_pil(),
        expected,
    )
    assert expected.tobytes() != source.resize((7, 5), PILImage.Resampling.LANCZOS).tobytes()
