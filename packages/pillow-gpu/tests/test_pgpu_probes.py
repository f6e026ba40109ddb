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


def _misnamed_im(path: Any) -> Any:
    """An IM file whose ``Image type`` names no mode Pillow knows (a damaged header): Pillow
    opens it with that name as its mode, and cannot load it."""
    PILImage.new("RGB", (6, 4), (10, 20, 30)).save(path, "IM")
    data = path.read_bytes()
    assert b"RGB image" in data
    path.write_bytes(data.replace(b"RGB image", b"RGB iXage", 1))
    return path


@pytest.mark.filterwarnings("ignore:IM image format is deprecated:DeprecationWarning")
@pytest.mark.parametrize(
    "operation",
    ["solarize", "invert", "color", "convert", "rotate", "filter", "reduce"],
)
def test_an_opened_mode_pillow_cannot_hold_raises_pillow_s_errors(
    operation: str, tmp_path: Any
) -> None:
    """Operations that check the mode first raise their own errors (solarize's OSError,
    ImageEnhance's KeyError), the others the load's ValueError, as Pillow's do."""
    from PIL import ImageEnhance as PILImageEnhance
    from PIL import ImageOps as PILImageOps
    from pillow_gpu import ImageEnhance, ImageOps

    path = _misnamed_im(tmp_path / "misnamed.im")
    calls = {
        "solarize": lambda ops, _enhance, image: ops.solarize(image, 100),
        "invert": lambda ops, _enhance, image: ops.invert(image),
        "color": lambda _ops, enhance, image: enhance.Color(image).enhance(0.5),
        "convert": lambda _ops, _enhance, image: image.convert("L"),
        "rotate": lambda _ops, _enhance, image: image.rotate(90),
        "filter": lambda _ops, _enhance, image: image.filter(PILImageFilter.SMOOTH),
        "reduce": lambda _ops, _enhance, image: image.reduce(2),
    }
    call = calls[operation]
    with PILImage.open(path) as opened:
        assert opened.mode == "RGB iXage"
        expected = call_outcome(lambda: call(PILImageOps, PILImageEnhance, opened))
    assert expected[0] is not str  # Pillow raises
    lazy = Image.open(path)
    assert lazy.mode == "RGB iXage"

    def recorded_and_evaluated() -> Any:
        return call(ImageOps, ImageEnhance, lazy).to_pil()

    assert call_outcome(recorded_and_evaluated)[0] == expected[0]
