"""Timed windows and their summary: median and spread of images/s and MB/s."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["MAX_ROUNDS", "interleaved_windows", "summarize"]


def summarize(seconds: list[float], *, images: int, source_bytes: int) -> dict[str, Any]:
    """Median and spread of a lane's windows.

    ``images`` is the batch size of one window and ``source_bytes`` the source pixel bytes
    (Pillow ``tobytes()`` length of every input) of one image; MB/s is 10^6 bytes per second.
    """
    median = statistics.median(seconds)
    rates = sorted(images / value for value in seconds)
    images_per_s = images / median
    return {
        "windows_s": [round(value, 6) for value in seconds],
        "median_s": median,
        "images_per_s": images_per_s,
        "images_per_s_min": rates[0],
        "images_per_s_max": rates[-1],
        "spread_pct": 100.0 * (max(seconds) - min(seconds)) / median if median else 0.0,
        "mb_per_s": images_per_s * source_bytes / 1e6,
    }


#: Most rounds a case runs to reach ``min_seconds`` (fast cases stop here).
MAX_ROUNDS = 64


def interleaved_windows(
    windows: Mapping[str, Callable[[], int]],
    *,
    repeats: int,
    expected: int,
    min_seconds: float = 0.0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Time each lane's window in turn (A, B, C, A, B, C, ...) so drift hits all alike.

    Runs ``repeats`` rounds, then more until the rounds took ``min_seconds`` in all (at most
    :data:`MAX_ROUNDS`): a case whose windows last milliseconds gets enough rounds for its
    medians and paired ratios to settle, a slow case stays at ``repeats``.

    A window returns how many images it delivered; anything but ``expected`` is an error (a
    lane that silently drops work must not look fast). A lane that raises or miscounts is
    dropped from later rounds; returns (seconds per lane, error per dropped lane).
    """
    seconds: dict[str, list[float]] = {name: [] for name in windows}
    errors: dict[str, str] = {}
    rounds = 0
    began = clock()
    while rounds < repeats or (clock() - began < min_seconds and rounds < MAX_ROUNDS):
        rounds += 1
        live = [name for name in windows if name not in errors]
        if not live:
            break
        for name in live:
            started = clock()
            try:
                delivered = windows[name]()
            except Exception as error:  # a failing lane is reported, the others go on
                errors[name] = f"error: {type(error).__name__}: {error}"
                continue
            seconds[name].append(clock() - started)
            if delivered != expected:
                errors[name] = (
                    f"error: a timed window delivered {delivered} images instead of {expected}"
                )
    return {name: values for name, values in seconds.items() if name not in errors}, errors
