"""Runs the benchmark matrix: parity first, then interleaved timed windows per case."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import math
import os
import platform
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Protocol

from PIL import Image as PILImage

from pillow_gpu.bench._baselines import CorePool, sequential_window
from pillow_gpu.bench._ceiling import CeilingLane
from pillow_gpu.bench._executor_lanes import ExecutorLane, ExecutorSettings
from pillow_gpu.bench._host_cost import measure_host_cost
from pillow_gpu.bench._pillow_rs import PillowRsUnavailable, ensure_venv, venv_python
from pillow_gpu.bench._timing import interleaved_windows, summarize
from pillow_gpu.bench._workloads import WORKLOADS, Workload, job_sources, make_sources
from pillow_gpu.bench._workloads import source_count as _source_count
from pillow_gpu.bench._world import (
    WORLD_LANES,
    PillowRsSetup,
    add_world_ratios,
    lane_details,
    prepare_world_lane,
)

__all__ = ["ALL_LANES", "BenchConfig", "default_config", "run_benchmark"]

#: Every lane, in report order.
ALL_LANES = (
    "sequential",
    "multiprocess",
    *WORLD_LANES,
    "ceiling",
    "eager",
    "queued",
    "resident",
)
#: Lanes whose throughput is reported as a share of the ceiling.
_EXECUTOR_LANES = ("eager", "queued", "resident")
SCHEMA = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchConfig:
    """What to run. ``window_pixels`` skips cases whose batch x pixels exceed it (0: none).

    ``cases`` lists explicit (workload, mode, size, batch) cases and replaces the product of
    workloads x modes x sizes x batches. ``pillow_rs_venv`` is the pillow-rs lane's venv (made
    first when ``create_pillow_rs_venv``); ``host_cost`` runs the untimed host-cost batch.
    """

    workloads: tuple[str, ...] = tuple(WORKLOADS)
    modes: tuple[str, ...] = ("L", "RGB", "RGBA")
    sizes: tuple[int, ...] = (256, 1024, 4096)
    batches: tuple[int, ...] = (1, 64)
    repeats: int = 5
    min_seconds: float = 0.0
    lanes: tuple[str, ...] = ALL_LANES
    max_jobs: int = 64
    max_in_flight: int = 2
    sweep_max_jobs: tuple[int, ...] = (8, 64)
    sweep_max_in_flight: tuple[int, ...] = (1, 2, 4)
    gpu_bytes: int = 1 << 30
    host_bytes: int = 1 << 30
    window_pixels: int = 0
    processes: int = 0
    seed: int = 0
    pillow_rs_venv: str = ""
    cases: tuple[tuple[str, str, int, int], ...] = ()
    create_pillow_rs_venv: bool = False
    host_cost: bool = True

    def __post_init__(self) -> None:
        named = [*self.workloads, *(case[0] for case in self.cases)]
        unknown = [name for name in named if name not in WORKLOADS]
        bad_lanes = [name for name in self.lanes if name not in ALL_LANES]
        if unknown or bad_lanes:
            msg = (
                f"unknown workloads {unknown} or lanes {bad_lanes}; known workloads: "
                f"{', '.join(WORKLOADS)}; known lanes: {', '.join(ALL_LANES)}"
            )
            raise ValueError(msg)
        sizes = [*self.sizes, *(case[2] for case in self.cases)]
        batches = [*self.batches, *(case[3] for case in self.cases)]
        if self.repeats < 1 or min(sizes, default=0) < 1 or min(batches, default=0) < 1:
            msg = f"repeats, sizes and batches must be >= 1; observed {self.repeats}, "
            msg += f"{self.sizes}, {self.batches}"
            raise ValueError(msg)
        if not self.min_seconds >= 0:
            msg = f"min_seconds must be >= 0 seconds; observed {self.min_seconds}"
            raise ValueError(msg)


def default_config(*, adapter_type: str, quick: bool = False) -> BenchConfig:
    """The default matrix: full on real GPUs, reduced on CPU adapters, tiny with ``quick``.

    On a CPU (software) adapter the default keeps 256^2 and 1024^2, batches 1/16/64, three
    repeats and a window budget of 1024^2 x 16 pixels (so 1024^2 runs at batch 1 and 16).
    Elsewhere the full matrix runs with 8 GiB GPU and 4 GiB host budgets. Both keep timing a
    case's rounds until they took 2 s (``min_seconds``); ``quick`` does not.
    """
    if quick:
        return BenchConfig(
            workloads=("invert_median3",),
            modes=("L", "RGB"),
            sizes=(256,),
            batches=(1, 16),
            repeats=3,
            sweep_max_jobs=(16,),
            sweep_max_in_flight=(1, 2),
        )
    if adapter_type.upper() == "CPU":
        return BenchConfig(
            sizes=(256, 1024),
            batches=(1, 16, 64),
            repeats=3,
            min_seconds=2.0,
            window_pixels=1024 * 1024 * 16,
            sweep_max_jobs=(16, 64),
            sweep_max_in_flight=(1, 2),
        )
    return BenchConfig(gpu_bytes=8 << 30, host_bytes=4 << 30, min_seconds=2.0)


class _Lane(Protocol):
    def close(self) -> None: ...


def _versions() -> dict[str, str]:
    found = {}
    for name in ("pillow", "numpy", "wgpu", "pillow-gpu"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def _cpu_model() -> str:
    """The CPU's model name (Linux ``/proc/cpuinfo``), else what ``platform`` reports."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict[str, Any]:
    """The host: platform, CPU model and count, load, Python and library versions."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": [round(value, 2) for value in load],
        "python": sys.version.split()[0],
        "versions": _versions(),
    }


def _reference(
    workload: Workload, mode: str, sources: Sequence[PILImage.Image], batch: int
) -> list[PILImage.Image]:
    cache: dict[tuple[int, ...], PILImage.Image] = {}
    out = []
    for index in range(batch):
        inputs = job_sources(workload, sources, index)
        key = tuple(id(image) for image in inputs)
        if key not in cache:
            cache[key] = workload.pillow(mode, inputs)
        out.append(cache[key])
    return out


def _compare(actual: Sequence[PILImage.Image | None], expected: Sequence[PILImage.Image]) -> str:
    bad = [
        index
        for index, (got, want) in enumerate(zip(actual, expected, strict=True))
        if got is None
        or got.mode != want.mode
        or got.size != want.size
        or got.tobytes() != want.tobytes()
    ]
    if not bad:
        return "ok"
    return f"failed: {len(bad)} of {len(expected)} outputs differ from Pillow (first job {bad[0]})"


def _error(error: BaseException) -> str:
    return f"error: {type(error).__name__}: {error}"


class _Log(Protocol):
    def __call__(self, message: str) -> None: ...


_NO_PILLOW_RS = PillowRsSetup(None, "the case was built without a pillow-rs setup")


@dataclass(slots=True, kw_only=True)
class _Case:
    workload: Workload
    mode: str
    edge: int
    batch: int
    sources: list[PILImage.Image]
    reference: list[PILImage.Image]
    pillow_rs: PillowRsSetup = _NO_PILLOW_RS

    @property
    def source_bytes(self) -> int:
        return sum(len(image.tobytes()) for image in job_sources(self.workload, self.sources, 0))


def _prepare_lane(
    name: str, case: _Case, config: BenchConfig, pool: CorePool | None
) -> tuple[str, Callable[[], int] | None, Any]:
    """Build a lane, check its parity against Pillow, return (status, window, lane object)."""
    workload, mode, batch = case.workload, case.mode, case.batch
    if name == "sequential":
        return "ok", sequential_window(workload, mode, case.sources, batch), None
    if name == "multiprocess":
        assert pool is not None
        spec = (case.edge, len(case.sources), config.seed)
        digests = pool.run(workload, mode, spec, batch, digest=True)
        want = [hashlib.sha256(image.tobytes()).hexdigest() for image in case.reference]
        status = "ok" if digests == want else "failed: a worker's output differs from Pillow"
        return status, pool.window(workload, mode, spec, batch), None
    if name in WORLD_LANES:
        executor = {
            "max_jobs": config.max_jobs,
            "max_in_flight": config.max_in_flight,
            "gpu_bytes": config.gpu_bytes,
            "host_bytes": config.host_bytes,
        }
        return prepare_world_lane(
            name,
            workload=workload,
            mode=mode,
            sources=case.sources,
            reference=case.reference,
            batch=batch,
            executor=executor,
            pillow_rs=case.pillow_rs,
        )
    if name == "ceiling":
        lane = CeilingLane(workload, mode, case.sources, batch=batch, byte_budget=config.gpu_bytes)
        try:
            images = lane.images()
        except BaseException:
            lane.close()
            raise
        return _compare(images, case.reference), lane.window(), lane
    settings = ExecutorSettings(
        queue=name != "eager",
        max_jobs=config.max_jobs,
        max_in_flight=config.max_in_flight,
        gpu_bytes=config.gpu_bytes,
        host_bytes=config.host_bytes,
    )
    return _executor_lane(case, settings, "gpu" if name == "resident" else "cpu")


def _executor_lane(
    case: _Case, settings: ExecutorSettings, output: str
) -> tuple[str, Callable[[], int] | None, Any]:
    lane = ExecutorLane(
        case.workload, case.mode, case.sources, batch=case.batch, settings=settings, output=output
    )
    try:
        found = lane.images()
    except BaseException:
        lane.close()
        raise
    status = _compare([found.get(i) for i in range(case.batch)], case.reference)
    return status, lane.window(), lane


def _ratios(lanes: dict[str, dict[str, Any]]) -> None:
    def rate(name: str) -> float | None:
        found = lanes.get(name, {})
        value = found.get("images_per_s")
        return value if isinstance(value, float) and value > 0 else None

    sequential, cores, ceiling = rate("sequential"), rate("multiprocess"), rate("ceiling")
    for name, lane in lanes.items():
        value = rate(name)
        if value is None:
            continue
        lane["vs_sequential"] = value / sequential if sequential else None
        lane["vs_multiprocess"] = value / cores if cores else None
        if name in _EXECUTOR_LANES:
            lane["share_of_ceiling"] = value / ceiling if ceiling else None


def _run_case(case: _Case, config: BenchConfig, pool: CorePool | None, log: _Log) -> dict[str, Any]:
    lanes: dict[str, dict[str, Any]] = {}
    windows: dict[str, Callable[[], int]] = {}
    objects: dict[str, _Lane] = {}
    try:
        for name in config.lanes:
            try:
                status, window, lane = _prepare_lane(name, case, config, pool)
            except Exception as error:
                status, window, lane = _error(error), None, None
            if lane is not None:
                objects[name] = lane
            lanes[name] = {"parity": status}
            if window is not None and (status == "ok" or name in WORLD_LANES):
                windows[name] = window
            else:
                log(f"    {name}: {status}")
        seconds, errors = interleaved_windows(
            windows, repeats=config.repeats, expected=case.batch, min_seconds=config.min_seconds
        )
        for name, message in errors.items():
            lanes[name]["error"] = message
            log(f"    {name}: {message}")
        for name, values in seconds.items():
            lanes[name].update(summarize(values, images=case.batch, source_bytes=case.source_bytes))
        for name, lane in objects.items():
            if isinstance(lane, ExecutorLane):
                lanes[name]["executor_stats"] = lane.stats()
                if config.host_cost and name in seconds:
                    lanes[name]["host_cost"] = measure_host_cost(lane)
            elif name in WORLD_LANES:
                lanes[name].update(lane_details(lane))
    finally:
        for lane in objects.values():
            lane.close()
    _ratios(lanes)
    add_world_ratios(lanes)
    return lanes


def _sweep(
    case: _Case, config: BenchConfig, ceiling: float | None, log: _Log
) -> list[dict[str, Any]]:
    rows = []
    for max_jobs in config.sweep_max_jobs:
        for max_in_flight in config.sweep_max_in_flight:
            row: dict[str, Any] = {"max_jobs": max_jobs, "max_in_flight": max_in_flight}
            settings = ExecutorSettings(
                max_jobs=max_jobs,
                max_in_flight=max_in_flight,
                gpu_bytes=config.gpu_bytes,
                host_bytes=config.host_bytes,
            )
            lane = None
            try:
                status, window, lane = _executor_lane(case, settings, "cpu")
                row["parity"] = status
                if status == "ok" and window is not None:
                    seconds, errors = interleaved_windows(
                        {"queued": window}, repeats=config.repeats, expected=case.batch
                    )
                    if errors:
                        row["error"] = errors["queued"]
                    else:
                        row.update(
                            summarize(
                                seconds["queued"],
                                images=case.batch,
                                source_bytes=case.source_bytes,
                            )
                        )
                        share = row["images_per_s"] / ceiling if ceiling else None
                        row["share_of_ceiling"] = share
                    row["executor_stats"] = lane.stats()
            except Exception as error:
                row["parity"] = row.get("parity", _error(error))
                row["error"] = _error(error)
            finally:
                if lane is not None:
                    lane.close()
            log(
                f"    sweep max_jobs={max_jobs} max_in_flight={max_in_flight}: "
                f"{row.get('images_per_s', float('nan')):.1f} img/s ({row['parity']})"
            )
            rows.append(row)
    return rows


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_benchmark(
    config: BenchConfig, *, log: _Log = _stderr, adapter: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run ``config`` and return the result document (see docs/validation.md for its fields)."""
    from pillow_gpu.cli._info import adapter_summary

    started = datetime.datetime.now(datetime.UTC)
    result: dict[str, Any] = {
        "schema": SCHEMA,
        "created": started.isoformat(timespec="seconds"),
        "machine": machine_info(),
        "adapter": adapter if adapter is not None else adapter_summary(),
        "config": json.loads(json.dumps(dataclasses.asdict(config))),
        "workloads": {
            name: WORKLOADS[name].description
            for name in dict.fromkeys(case[0] for case in _matrix(config))
        },
        "cases": [],
        "skipped": [],
        "sweep": [],
    }
    pillow_rs = _pillow_rs_setup(config, log)
    result["pillow_rs"] = {"python": str(pillow_rs.python or ""), "why": pillow_rs.why}
    pool = CorePool(config.processes or None) if "multiprocess" in config.lanes else None
    result["machine"]["pool_processes"] = pool.processes if pool else 0
    try:
        for name, mode, edge, batch in _matrix(config):
            workload = WORKLOADS[name]
            where = {"workload": name, "mode": mode, "size": edge, "batch": batch}
            if config.window_pixels and batch * edge * edge > config.window_pixels:
                result["skipped"].append({**where, "why": "batch x pixels above window_pixels"})
                continue
            log(f"{name} {mode} {edge}^2 batch {batch}")
            sources = make_sources(mode, edge, _source_count(workload, batch), config.seed)
            case = _Case(
                workload=workload,
                mode=mode,
                edge=edge,
                batch=batch,
                sources=sources,
                reference=_reference(workload, mode, sources, batch),
                pillow_rs=pillow_rs,
            )
            lanes = _run_case(case, config, pool, log)
            for lane_name, lane in lanes.items():
                if "images_per_s" in lane:
                    log(f"    {lane_name}: {lane['images_per_s']:.1f} img/s")
            result["cases"].append(
                {**where, "source_bytes_per_image": case.source_bytes, "lanes": lanes}
            )
        result["sweep"] = _run_sweeps(config, result["cases"], log)
    finally:
        if pool is not None:
            pool.close()
    result["finished"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return result


def _matrix(config: BenchConfig) -> list[tuple[str, str, int, int]]:
    """The (workload, mode, size, batch) cases: ``config.cases``, else the full product."""
    if config.cases:
        return list(config.cases)
    return [
        (name, mode, edge, batch)
        for name in config.workloads
        for mode in config.modes
        for edge in config.sizes
        for batch in config.batches
    ]


def _pillow_rs_setup(config: BenchConfig, log: _Log) -> PillowRsSetup:
    """The pillow-rs venv's interpreter (made first with ``create_pillow_rs_venv``), or why not."""
    if "pillow_rs" not in config.lanes:
        return PillowRsSetup(None, "lane not selected")
    if not config.pillow_rs_venv:
        return PillowRsSetup(None, "no venv given (pass --pillow-rs-venv PATH)")
    venv = Path(config.pillow_rs_venv)
    if config.create_pillow_rs_venv:
        try:
            return PillowRsSetup(ensure_venv(venv, log=log))
        except PillowRsUnavailable as error:
            return PillowRsSetup(None, str(error))
    python = venv_python(venv)
    if not python.exists():
        return PillowRsSetup(None, f"no interpreter at {python} (the venv is not made here)")
    return PillowRsSetup(python)


def _run_sweeps(
    config: BenchConfig, cases: list[dict[str, Any]], log: _Log
) -> list[dict[str, Any]]:
    """Sweep max_jobs x max_in_flight on the first workload and mode at the largest batch
    of each size (sizes whose largest batch is 1 are skipped)."""
    if not (config.sweep_max_jobs and config.sweep_max_in_flight) or "queued" not in config.lanes:
        return []
    name, mode = config.workloads[0], config.modes[0]
    rows = []
    for found in cases:
        largest = max(case["batch"] for case in cases if case["size"] == found["size"])
        if (found["workload"], found["mode"]) != (name, mode) or found["batch"] != largest:
            continue
        if found["batch"] == 1:
            continue  # one job per window: nothing to group or pipeline
        workload = WORKLOADS[name]
        edge, batch = found["size"], found["batch"]
        log(f"sweep {name} {mode} {edge}^2 batch {batch}")
        sources = make_sources(mode, edge, _source_count(workload, batch), config.seed)
        case = _Case(
            workload=workload,
            mode=mode,
            edge=edge,
            batch=batch,
            sources=sources,
            reference=_reference(workload, mode, sources, batch),
        )
        ceiling = found["lanes"].get("ceiling", {}).get("images_per_s")
        where = {"workload": name, "mode": mode, "size": edge, "batch": batch}
        rows += [{**where, **row} for row in _sweep(case, config, ceiling, log)]
    return rows
