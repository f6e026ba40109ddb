"""Filter probes: Pillow's own checks, remembered only for passes of Pillow's own filters."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, _probes
from pillow_gpu._testing import call_outcome


class _UserBlur(PILImageFilter.BoxBlur):
    calls = 0

    def filter(self, image: Any) -> Any:
        type(self).calls += 1
        return super().filter(image)


FILTERS: dict[str, Any] = {
    "median3": PILImageFilter.MedianFilter(3),
    "rank5": PILImageFilter.RankFilter(5, 24),
    "gaussian2": PILImageFilter.GaussianBlur(2),
    "gaussian-xy": PILImageFilter.GaussianBlur((1, 2.5)),
    "box1.5": PILImageFilter.BoxBlur(1.5),
    "unsharp": PILImageFilter.UnsharpMask(2, 150, 3),
    "kernel": PILImageFilter.Kernel((3, 3), [1] * 9),
    "find-edges": PILImageFilter.FIND_EDGES,
}
MODES = ["L", "RGB", "RGBA", "P", "I", "F", "1"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(FILTERS))
def test_filter_probe_matches_pillow_twice(name: str, mode: str) -> None:
    instance = FILTERS[name]
    live = call_outcome(lambda: PILImage.new(mode, (8, 8)).filter(instance))
    for _ in range(2):  # the second call may be answered from the remembered probe
        lazy = call_outcome(lambda: Image.new(mode, (8, 8)).filter(instance))
        assert lazy[0] == live[0]
        if live[0] != "ok":
            assert lazy == live


def test_a_rejection_is_never_remembered() -> None:
    _probes._filter_probes.clear()
    for _ in range(2):
        with pytest.raises(ValueError, match="palette"):
            Image.new("P", (8, 8)).filter(PILImageFilter.MedianFilter(3))
    assert not _probes._filter_probes


def test_a_pass_is_remembered_by_type_and_value() -> None:
    _probes._filter_probes.clear()
    Image.new("L", (8, 8)).filter(PILImageFilter.GaussianBlur(2))
    Image.new("L", (8, 8)).filter(PILImageFilter.GaussianBlur(2))
    Image.new("L", (8, 8)).filter(PILImageFilter.GaussianBlur(2.0))
    assert len(_probes._filter_probes) == 2  # 2 and 2.0 are keyed apart
    Image.new("L", (8, 8)).filter(PILImageFilter.BoxBlur(0.0))
    Image.new("L", (8, 8)).filter(PILImageFilter.BoxBlur(-0.0))
    assert len(_probes._filter_probes) == 4  # so are 0.0 and -0.0


def test_user_filters_and_nan_are_probed_every_time() -> None:
    _probes._filter_probes.clear()
    _UserBlur.calls = 0
    for _ in range(3):
        Image.new("L", (8, 8)).filter(_UserBlur(1))
        call_outcome(
            lambda: Image.new("L", (8, 8)).filter(PILImageFilter.GaussianBlur(float("nan")))
        )
    assert _UserBlur.calls == 3
    assert not _probes._filter_probes


def test_the_remembered_probes_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_probes, "_FILTER_PROBES_MAX", 4)
    _probes._filter_probes.clear()
    for radius in range(10):
        Image.new("L", (8, 8)).filter(PILImageFilter.BoxBlur(radius))
    assert 1 <= len(_probes._filter_probes) <= 4
