"""Window timing and its summary (counts and statistics only; no speed is asserted)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pillow_gpu.bench._timing import MAX_ROUNDS, interleaved_windows, summarize


def test_lanes_are_interleaved_and_failing_lanes_dropped() -> None:
    calls: list[str] = []

    def lane(name: str, delivered: int) -> Callable[[], int]:
        def window() -> int:
            calls.append(name)
            if name == "raises":
                raise RuntimeError("device lost")
            return delivered

        return window

    windows = {
        "a": lane("a", 4),
        "short": lane("short", 3),
        "raises": lane("raises", 4),
        "b": lane("b", 4),
    }
    seconds, errors = interleaved_windows(windows, repeats=3, expected=4)
    assert calls == ["a", "short", "raises", "b", "a", "b", "a", "b"]
    assert set(seconds) == {"a", "b"}
    assert all(len(values) == 3 for values in seconds.values())
    assert errors == {
        "short": "error: a timed window delivered 3 images instead of 4",
        "raises": "error: RuntimeError: device lost",
    }


class _Clock:
    """A clock that advances only when a window runs (``step`` seconds per window)."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        return self.now

    def window(self) -> int:
        self.now += self.step
        return 2


@pytest.mark.parametrize(
    ("step", "min_seconds", "rounds"),
    [(0.5, 0.0, 3), (0.5, 1.0, 3), (1 / 64, 10 / 32, 10), (0.001, 10.0, MAX_ROUNDS)],
    ids=["no-minimum", "repeats-suffice", "until-minimum", "capped"],
)
def test_fast_cases_run_rounds_until_the_minimum_time(
    step: float, min_seconds: float, rounds: int
) -> None:
    clock = _Clock(step)
    windows = {"a": clock.window, "b": clock.window}
    seconds, errors = interleaved_windows(
        windows, repeats=3, expected=2, min_seconds=min_seconds, clock=clock
    )
    assert errors == {}
    assert [len(values) for values in seconds.values()] == [rounds, rounds]
    assert all(value == pytest.approx(step) for values in seconds.values() for value in values)


def test_rounds_stop_once_every_lane_failed() -> None:
    def broken() -> int:
        raise RuntimeError("device lost")

    seconds, errors = interleaved_windows({"a": broken}, repeats=1, expected=1, min_seconds=60.0)
    assert seconds == {}
    assert errors == {"a": "error: RuntimeError: device lost"}


def test_summary_median_spread_and_bytes() -> None:
    summary = summarize([2.0, 1.0, 4.0], images=8, source_bytes=1_000_000)
    assert summary["median_s"] == 2.0
    assert summary["images_per_s"] == 4.0
    assert (summary["images_per_s_min"], summary["images_per_s_max"]) == (2.0, 8.0)
    assert summary["spread_pct"] == pytest.approx(150.0)
    assert summary["mb_per_s"] == pytest.approx(4.0)
