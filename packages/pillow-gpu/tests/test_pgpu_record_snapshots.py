"""Recorded arguments are the values of the call: Pillow applies ``filter(f)`` and
``point(table, mode)`` when called, so changing ``f`` or ``table`` afterwards must not change a
graph recorded before (on the GPU route, on the CPU route and through the executor)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import Image, _probes
from pillow_gpu._testing import assert_image_equal, call_outcome, make_image
from pillow_gpu.executor import GpuBatchExecutor
from pillow_gpu.gpu._plan_cache import PlanCache

#: (filter factory, the change made after recording)
FILTER_CHANGES: dict[str, tuple[Callable[[], Any], Callable[[Any], None]]] = {
    "median-size": (lambda: PILImageFilter.MedianFilter(3), lambda f: setattr(f, "size", 5)),
    "rank-rank": (lambda: PILImageFilter.RankFilter(3, 0), lambda f: setattr(f, "rank", 8)),
    "mode-size": (lambda: PILImageFilter.ModeFilter(3), lambda f: setattr(f, "size", 5)),
    "gaussian-radius": (lambda: PILImageFilter.GaussianBlur(1), lambda f: setattr(f, "radius", 4)),
    "box-radius": (lambda: PILImageFilter.BoxBlur(1), lambda f: setattr(f, "radius", 3)),
    "unsharp-percent": (
        lambda: PILImageFilter.UnsharpMask(2, 150, 3),
        lambda f: setattr(f, "percent", 20),
    ),
    "kernel-list": (
        lambda: PILImageFilter.Kernel((3, 3), [1, 2, 1, 2, 4, 2, 1, 2, 1]),
        lambda f: f.filterargs[3].__setitem__(4, 40),  # the caller's own list, in place
    ),
}
MODES = ["L", "RGB"]


def _kernel_list_is_shared() -> None:
    # The "kernel-list" change only tests something if Pillow keeps the caller's list.
    kernel = [1] * 9
    assert PILImageFilter.Kernel((3, 3), kernel).filterargs[3] is kernel


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(FILTER_CHANGES))
def test_a_filter_changed_after_recording_leaves_the_graph(name: str, mode: str) -> None:
    make, change = FILTER_CHANGES[name]
    if name == "kernel-list":
        _kernel_list_is_shared()
    source = make_image(mode, (13, 11))
    instance = make()
    lazy = Image.from_pil(source).filter(instance)
    expected = source.filter(instance)
    change(instance)
    changed = source.filter(instance)
    assert changed.tobytes() != expected.tobytes(), "the change must matter to Pillow"
    assert_image_equal(lazy.to_pil(), expected)


def test_executor_results_use_the_filter_of_the_call() -> None:
    source = make_image("L", (16, 16))
    instance = PILImageFilter.MedianFilter(3)
    graphs, expected = [], []
    for size in (3, 5, 7):  # one filter object, changed between recordings
        instance.size = size
        graphs.append(Image.from_pil(source).filter(instance))
        expected.append(source.filter(instance))
    with GpuBatchExecutor() as executor:
        results = list(executor.run(enumerate(graphs)))
    assert [result.input_key for result in results] == [0, 1, 2]
    for result, reference in zip(results, expected, strict=True):
        assert_image_equal(result.image, reference)


def test_plain_filters_share_one_private_copy_and_key_it_by_lookup() -> None:
    source = Image.from_pil(make_image("L", (8, 8)))
    first, second = PILImageFilter.GaussianBlur(2), PILImageFilter.GaussianBlur(2)
    recorded = [source.filter(f).node.params["filter"] for f in (first, second)]
    assert recorded[0] is recorded[1]
    assert recorded[0] is not first
    assert _probes.recorded_filter_key(recorded[0]) == _probes.plain_filter_key(first)
    assert _probes.recorded_filter_key(first) is None  # the caller's object is not a copy
    other = source.filter(PILImageFilter.GaussianBlur(2.0)).node.params["filter"]
    assert other is not recorded[0]  # 2 and 2.0 are keyed apart
    cache = PlanCache()
    cache.plan(source.filter(first))
    cache.plan(source.filter(second))
    cache.plan(source.filter(PILImageFilter.GaussianBlur(2.0)))
    assert (cache.hits, cache.misses) == (1, 2)


def test_shared_copies_stay_bounded_and_survive_emptying(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_probes, "_FILTER_PROBES_MAX", 4)
    _probes._shared_filters.clear()
    _probes._shared_filter_keys.clear()
    source = make_image("L", (9, 9))
    graphs = [
        (Image.from_pil(source).filter(PILImageFilter.BoxBlur(radius)), radius)
        for radius in range(10)
    ]
    assert 1 <= len(_probes._shared_filters) <= 4
    assert len(_probes._shared_filter_keys) == len(_probes._shared_filters)
    for lazy, radius in graphs:  # copies dropped from the table still work and key right
        assert_image_equal(lazy.to_pil(), source.filter(PILImageFilter.BoxBlur(radius)))


class _Unpicklable(PILImageFilter.BoxBlur):
    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        msg = "this filter cannot be copied"
        raise TypeError(msg)


def test_a_filter_that_cannot_be_copied_is_recorded_as_given() -> None:
    source = make_image("L", (9, 9))
    instance = _Unpicklable(1)
    lazy = Image.from_pil(source).filter(instance)
    assert lazy.node.params["filter"] is instance
    assert_image_equal(lazy.to_pil(), source.filter(PILImageFilter.BoxBlur(1)))


def _table(mode: str) -> list[int]:
    return [255 - value for value in range(256)] * len(PILImage.new(mode, (1, 1)).getbands())


@pytest.mark.parametrize(
    ("mode", "target"), [("L", "1"), ("L", "L"), ("L", "I"), ("L", "F"), ("P", "L")], ids=str
)
def test_a_point_table_changed_after_recording_leaves_the_graph(mode: str, target: str) -> None:
    source = make_image(mode, (10, 7))
    table = _table(mode)
    lazy = Image.from_pil(source).point(table, target)
    expected = source.point(table, target)
    table[:] = [0] * len(table)
    assert_image_equal(lazy.to_pil(), expected)


def test_a_point_table_iterator_is_read_once_at_recording() -> None:
    source = make_image("L", (10, 7))
    lazy = Image.from_pil(source).point(iter(_table("L")), "L")
    assert_image_equal(lazy.to_pil(), source.point(_table("L"), "L"))


def test_a_point_callable_with_a_mode_is_tabled_at_recording() -> None:
    source = make_image("L", (10, 7))
    offset = [0]

    def shift(value: int) -> int:
        return min(255, value + offset[0])

    offset[0] = 40
    lazy = Image.from_pil(source).point(shift, "L")
    expected = source.point(shift, "L")
    offset[0] = 0
    assert_image_equal(lazy.to_pil(), expected)


@pytest.mark.parametrize("lut", [5, None, 2.5], ids=repr)
def test_a_point_table_that_is_not_iterable_raises_pillows_error(lut: Any) -> None:
    source = make_image("L", (4, 4))
    live = call_outcome(lambda: source.point(lut, "L"))
    lazy = call_outcome(lambda: Image.from_pil(source).point(lut, "L"))
    assert live[0] != "ok"
    assert lazy == live
