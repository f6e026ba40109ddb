"""Where an executor lane's time goes on this machine: back-to-back windows, windows after an
idle gap, and a profile of the driving thread.

Usage (from the repository root, with the workspace installed or PYTHONPATH set):

    python tools/executor_profile.py --output out/executor-profile
    python tools/executor_profile.py --cases invert_median3:L:256:64 --seconds 5

It first times a fixed piece of plain Python and 64 KiB copies from memory no cache holds
(``calibration``), so that two machines' host speeds can be compared beside their figures.
For each case (``WORKLOAD:MODE:SIZE:BATCH``, as ``pillow-gpu bench --cases`` takes them) one
``queued`` executor lane (the benchmark's, CPU output, fresh graphs every window) runs:

* ``back_to_back``: windows one after another for ``--seconds``; the median wall time and the
  driving thread's CPU time (``time.thread_time``) per job;
* ``after_idle``: windows each started after ``--idle`` seconds without GPU work, as a window
  of the interleaved benchmark starts (the other lanes run meanwhile), so a difference from
  ``back_to_back`` is what a batch started on an idle device costs. On the 2-core lavapipe VM
  (2026-12-06, invert_median3 L 256^2 x64) it was the driving thread's own user CPU time:
  about 30 % more per job, spread over pure-Python functions alike, after a gap of 10 ms or
  more without GPU work whether the CPU slept, spun or ran Pillow meanwhile, and none when
  another executor lane kept the GPU busy in the gap (the H200 showed 103 against 144 us);
* ``after_busy``: the same, with the gap spent summing 64 MiB over and over (no cache holds
  it) instead of sleeping, as the benchmark's Pillow lanes keep the CPU busy meanwhile. On
  the 2-core Intel Xeon VM (2026-12-06) a 0.1 s gap cost the executor's driving thread about
  as much either way (93.5 and 97.3 against 64.6 us a job), and a 5 ms sleep little (71.1);
* ``settings``: back-to-back windows of executors with other ``max_jobs`` x
  ``max_in_flight`` (``--settings``; the benchmark's default is 64x2): what submission size
  and depth are worth on this device; a ``:spin`` variant runs while wgpu's poll thread polls
  without blocking, since its blocking poll holds the lock ``queue.submit`` needs until the
  GPU is done (what that costs here);
* ``profile``: back-to-back windows again under ``cProfile`` (no ptrace, no extra package):
  microseconds per job by function, own time and with callees, the top ``--top`` of each.
  cProfile slows Python calls (roughly in proportion to their number) but times C calls,
  the wgpu-native ones included, exactly: compare its rows with each other, and take the
  throughput from the two measurements above. From Python 3.12 cProfile sees every thread:
  wgpu's poll thread shows as ``poll_func``, its blocking waits inside ``proxy_func``.

It prints one table per case and writes PREFIX.json (with ``--output``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DEFAULT_CASES = "invert_median3:L:256:64,chops_invert:L:256:64,invert_median3:RGB:1024:64"


def _calibration() -> dict[str, float]:
    """This host's speed at what the executor's host work is made of, to compare machines:
    a fixed piece of plain Python (tuples, dicts, attribute reads, calls) and copies of 64 KiB
    between buffers larger than the caches (median microseconds)."""

    class _Item:
        __slots__ = ("mode", "size")

        def __init__(self, mode: str, size: tuple[int, int]) -> None:
            self.mode, self.size = mode, size

    def python_work() -> None:
        table: dict[tuple[str, tuple[int, int]], int] = {}
        for index in range(1000):
            item = _Item("L", (index, index + 1))
            table[(item.mode, item.size)] = len(table)

    def timed(function: Any, repeats: int) -> float:
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            function()
            times.append((time.perf_counter() - started) * 1e6)
        return statistics.median(times)

    chunk = 64 << 10
    source = bytearray(256 << 20)  # 256 MiB: each copy reads memory no cache holds
    target = bytearray(chunk)
    position = [0]

    def copy() -> None:
        start = position[0]
        target[:] = source[start : start + chunk]
        position[0] = (start + 7 * chunk) % (len(source) - chunk)

    return {
        "python_1000_items_us": timed(python_work, 200),
        "copy_64kib_cold_us": timed(copy, 2000),
    }


def _lane(case: str, max_jobs: int = 64, max_in_flight: int = 2) -> Any:
    from pillow_gpu.bench._executor_lanes import ExecutorLane, ExecutorSettings
    from pillow_gpu.bench._workloads import WORKLOADS, make_sources, source_count

    name, mode, edge, batch = case.split(":")
    workload = WORKLOADS[name]
    sources = make_sources(mode, int(edge), source_count(workload, int(batch)))
    settings = ExecutorSettings(max_jobs=max_jobs, max_in_flight=max_in_flight)
    return ExecutorLane(workload, mode, sources, batch=int(batch), settings=settings)


@contextlib.contextmanager
def _non_blocking_poll(interval: float = 50e-6) -> Iterator[None]:
    """wgpu's poll thread polls without blocking (a short sleep between polls) meanwhile.

    Its blocking poll (``wgpuDevicePoll(wait=True)``, while a map is pending) holds
    wgpu-core's fence lock until the GPU is done, and ``queue.submit`` takes that lock for
    writing: a submission made while the previous one runs then waits for it. This variant
    measures what that costs on this device (private wgpu-py attributes, tool use only).
    """
    import wgpu.backends.wgpu_native._api as native  # type: ignore[import-untyped]
    from pillow_gpu.gpu._device import get_device

    device = get_device().device
    poller, internal = device._poller, device._internal
    original = poller._poll_func

    def poll(block: bool) -> None:
        native.libf.wgpuDevicePoll(internal, False, native.ffi.NULL)
        if block:
            time.sleep(interval)

    poller._poll_func = poll
    try:
        yield
    finally:
        poller._poll_func = original


def _settings_sweep(case: str, variants: str, seconds: float) -> dict[str, Any]:
    """Back-to-back windows of ``case`` for each ``MAX_JOBSxMAX_IN_FLIGHT`` of ``variants``."""
    found: dict[str, Any] = {}
    for variant in filter(None, variants.split(",")):
        shape, _, poll = variant.partition(":")
        jobs, flight = (int(part) for part in shape.split("x"))
        lane = _lane(case, jobs, flight)
        polling = _non_blocking_poll() if poll == "spin" else contextlib.nullcontext()
        try:
            with polling:
                window = lane.window()
                window()
                found[variant] = _windows(window, lane.batch, seconds, 0.0)
            found[variant]["largest_submission"] = lane.stats().get("largest_submission")
        finally:
            lane.close()
    return found


def _busy(seconds: float) -> None:
    """Keep this thread busy for ``seconds`` without GPU work: sums over 64 MiB, which no
    cache holds (what the benchmark's Pillow lanes do between an executor lane's windows)."""
    import numpy as np

    block = np.ones(64 << 20, dtype=np.uint8)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        block.sum()


def _windows(
    window: Any, batch: int, seconds: float, idle: float, *, busy: bool = False
) -> dict[str, float]:
    walls: list[float] = []
    cpus: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(walls) < 3:
        if idle and busy:
            _busy(idle)
        elif idle:
            time.sleep(idle)
        wall, cpu = time.perf_counter(), time.thread_time()
        window()
        walls.append((time.perf_counter() - wall) * 1e6 / batch)
        cpus.append((time.thread_time() - cpu) * 1e6 / batch)
    wall_us = statistics.median(walls)
    return {
        "windows": len(walls),
        "wall_us_per_job": wall_us,
        "thread_cpu_us_per_job": statistics.median(cpus),
        "img_per_s": 1e6 / wall_us,
    }


def _where(key: tuple[str, int, str]) -> str:
    """``function (path:line)``, the path relative to the package or repository root."""
    path, line, name = key
    for marker in ("site-packages/", "/src/", "/lib/python", f"{Path.cwd()}/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{name} ({path}:{line})" if line else name


def _profile(window: Any, batch: int, seconds: float, top: int) -> dict[str, Any]:
    """cProfile of the driving thread while windows run for ``seconds``: microseconds per job
    by function, own time (``tottime``) and with callees (``cumtime``)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    jobs = 0
    deadline = time.perf_counter() + seconds
    profiler.enable()
    try:
        while time.perf_counter() < deadline:
            jobs += window()
    finally:
        profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    per_job = 1e6 / max(1, jobs)

    def ranked(column: int) -> list[list[Any]]:
        rows = sorted(stats.items(), key=lambda item: item[1][column], reverse=True)[:top]
        return [[_where(key), round(row[column] * per_job, 2), row[1]] for key, row in rows]

    return {"jobs": jobs, "own_us_per_job": ranked(2), "cumulative_us_per_job": ranked(3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=DEFAULT_CASES, help="WORKLOAD:MODE:SIZE:BATCH,...")
    parser.add_argument("--seconds", type=float, default=4.0, help="per measurement")
    parser.add_argument(
        "--idle", type=float, default=0.5, help="gap before after_idle and after_busy windows"
    )
    parser.add_argument("--top", type=int, default=40, help="functions kept in the profile")
    parser.add_argument(
        "--settings",
        default="64x1,128x2,64x2:spin",
        help="MAX_JOBSxMAX_IN_FLIGHT variants timed back to back besides the default 64x2; "
        "':spin' makes wgpu's poll thread poll without blocking meanwhile",
    )
    parser.add_argument("--output", default="", help="write PREFIX.json")
    args = parser.parse_args(argv)

    import wgpu  # type: ignore[import-untyped]
    from pillow_gpu._copy import split_ways
    from pillow_gpu.gpu._device import get_device

    adapter = get_device().adapter_info
    report: dict[str, Any] = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": f"{platform.platform()}, {platform.processor() or platform.machine()}",
        "python": platform.python_version(),
        "wgpu": wgpu.__version__,
        "adapter": {key: str(value) for key, value in adapter.items()},
        "calibration": _calibration(),
        "cases": {},
    }
    print(
        "host calibration: plain Python (1000 items) "
        f"{report['calibration']['python_1000_items_us']:.0f} us, 64 KiB copy from cold memory "
        f"{report['calibration']['copy_64kib_cold_us']:.1f} us"
    )
    for case in args.cases.split(","):
        lane = _lane(case)
        batch = lane.batch
        window = lane.window()
        try:
            for _ in range(3):
                window()
            result = {
                "back_to_back": _windows(window, batch, args.seconds, 0.0),
                "after_idle": _windows(window, batch, args.seconds, args.idle),
                "after_busy": _windows(window, batch, args.seconds, args.idle, busy=True),
                "profile": _profile(window, batch, args.seconds, args.top),
                "stats": lane.stats(),
            }
        finally:
            lane.close()
        result["settings"] = _settings_sweep(case, args.settings, args.seconds / 2)
        result["copy_split_ways"] = split_ways()  # what the large-copy trials chose
        report["cases"][case] = result
        print(f"\n## {case} (large copies split {result['copy_split_ways']} ways)")
        for name in ("back_to_back", "after_idle", "after_busy"):
            row = result[name]
            print(
                f"{name:13s} {row['img_per_s']:9,.0f} img/s  wall {row['wall_us_per_job']:7.1f} "
                f"us/job  thread CPU {row['thread_cpu_us_per_job']:7.1f} us/job "
                f"({row['windows']} windows)"
            )
        for variant, row in result["settings"].items():
            print(
                f"{'settings ' + variant:18s} {row['img_per_s']:9,.0f} img/s  wall "
                f"{row['wall_us_per_job']:7.1f} us/job  thread CPU "
                f"{row['thread_cpu_us_per_job']:7.1f} us/job  (largest submission "
                f"{row['largest_submission']})"
            )
        profile = result["profile"]
        print(f"profile (cProfile, {profile['jobs']} jobs; us per job, calls in all)")
        for title, rows in (
            ("own time", profile["own_us_per_job"]),
            ("with callees", profile["cumulative_us_per_job"]),
        ):
            print(f"  {title}:")
            for name, micros, calls in rows:
                print(f"    {micros:8.2f}  {calls:8d}  {name}")
    if args.output:
        path = Path(args.output + ".json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1) + "\n")
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
