"""The Ray benchmark lane: Ray Data with N actors against the single-process executor.

The same encoded files and the same ``apply`` chain go through three kinds of lane:

- ``pillow``: sequential live Pillow (open, the chain's Pillow calls, save). It is the oracle
  that every other lane's outputs must equal byte for byte, and the baseline.
- ``single``: one process, one :class:`~pillow_gpu.GpuBatchExecutor` (through
  :class:`~pillow_gpu.ray.PillowGpuMapper`, called in this process on every file at once,
  the way ``pillow-gpu apply`` streams a folder).
- ``ray``: ``ray.data.read_binary_files`` then ``map_batches(PillowGpuMapper,
  compute=ActorPoolStrategy(size=N))`` on one local cluster (or ``--address``), one lane
  per N.

Each lane runs once untimed (the warm-up: a Ray lane's first run starts its actor processes
cold), then its timed windows run interleaved with the other lanes'. Every run's outputs are
compared with Pillow's; a mismatch fails the lane and the command (exit status 1). Cluster
start is timed on its own. A Ray run's startup is the time from building the dataset to the
first batch starting in an actor (actor processes, imports, executor creation); the rest is
its steady state. Overhead per file is a lane's median wall time minus the single-process
lane's, over the number of files.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import logging
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image as PILImage

from pillow_gpu.bench._runner import machine_info
from pillow_gpu.bench._timing import interleaved_windows, summarize
from pillow_gpu.cli._chain import Chain, parse_chain
from pillow_gpu.ray import PillowGpuMapper

__all__ = ["DEFAULT_CHAIN", "RayBenchConfig", "photo_folder", "run_ray_benchmark"]

#: An everyday chain: upright, RGB, a 256 px thumbnail, a light blur.
DEFAULT_CHAIN = "exif_transpose,convert:RGB,thumbnail:256x256,gaussian_blur:2"
#: Error kinds that are a GPU refusal (a file Pillow runs and the GPU declines).
_REFUSALS = ("Unsupported", "Limit")


@dataclass(frozen=True, slots=True, kw_only=True)
class RayBenchConfig:
    """What to run. ``inputs`` is a folder of files; empty: generate ``files`` photo-like
    images (``sizes`` cycled, written as ``input_format``) into a temporary folder.

    ``actors`` lists the Ray lanes' pool sizes; ``num_cpus`` is the local cluster's CPU count
    (0: the machine's, at least one more than the largest pool); ``address`` connects to an
    existing cluster instead. ``gpus_per_actor`` below 0 means 1 when the cluster has GPUs,
    else 0. The executor credits are per actor (and for the single-process lane).
    ``warmup=False`` skips each lane's untimed first run (a quick check, not a measurement).
    """

    chain: str = DEFAULT_CHAIN
    inputs: str = ""
    files: int = 64
    sizes: tuple[tuple[int, int], ...] = ((512, 384),)
    input_format: str = "JPEG"
    output_format: str = "PNG"
    actors: tuple[int, ...] = (1, 2)
    batch_size: int = 16
    repeats: int = 3
    num_cpus: int = 0
    address: str = ""
    gpus_per_actor: float = -1.0
    max_jobs: int = 64
    max_in_flight: int = 2
    gpu_bytes: int = 1 << 30
    host_bytes: int = 1 << 30
    seed: int = 0
    warmup: bool = True

    def __post_init__(self) -> None:
        parse_chain(self.chain)  # ChainError (a ValueError) says what is wrong
        counts = (self.files, self.batch_size, self.repeats, min(self.actors, default=0))
        if min(counts) < 1 or not self.sizes or min(min(size) for size in self.sizes) < 1:
            msg = (
                "why: files, batch size, repeats, actors and sizes must be at least 1; "
                f"observed: files={self.files}, batch_size={self.batch_size}, repeats="
                f"{self.repeats}, actors={list(self.actors)}, sizes={list(self.sizes)}; "
                "fix: pass positive values, e.g. --files 64 --actors 1,2 --sizes 512x384"
            )
            raise ValueError(msg)


# -- inputs -----------------------------------------------------------------------------------


def _photo(size: tuple[int, int], seed: int) -> PILImage.Image:
    """A photo-like RGB image: smooth colour fields, a few soft blobs and sensor noise."""
    rng = np.random.default_rng(seed)
    width, height = size
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    x, y = x / width, y / height
    planes = []
    for _ in range(3):
        fx, fy, phase = rng.uniform(0.3, 2.0), rng.uniform(0.3, 2.0), rng.uniform(0, 6.28)
        plane = 110 + 70 * np.sin(6.28 * fx * x + phase) * np.cos(6.28 * fy * y)
        plane += rng.uniform(-40, 40) * (y - 0.5)
        planes.append(plane)
    pixels = np.stack(planes, axis=-1)
    for _ in range(4):
        cx, cy, radius = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.25)
        blob = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * radius**2))
        pixels += blob[..., None] * rng.uniform(-80, 80, 3)
    pixels += rng.normal(0, 4, pixels.shape)
    return PILImage.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")


#: When the first photo of :func:`photo_folder` was taken; each next one a second later.
_FIRST_SHOT = datetime.datetime(2026, 12, 7, 9, 0, 0)


def photo_folder(
    folder: Path,
    *,
    files: int,
    sizes: tuple[tuple[int, int], ...],
    input_format: str = "JPEG",
    seed: int = 0,
) -> list[Path]:
    """Write ``files`` photo-like images into ``folder`` (sizes cycled); return their paths.

    JPEGs are saved at quality 90 with EXIF as a camera writes it, each photo's own (make,
    model and its capture time, so no two files carry the same metadata), and every fourth
    one carries orientation 6 (rotated, as a phone writes it), so ``exif_transpose`` has work
    to do.
    """
    folder.mkdir(parents=True, exist_ok=True)
    extension = {"JPEG": "jpg", "PNG": "png"}.get(input_format.upper(), input_format.lower())
    paths = []
    for index in range(files):
        image = _photo(sizes[index % len(sizes)], seed + index)
        path = folder / f"photo-{index:04d}.{extension}"
        if input_format.upper() == "JPEG":
            exif = PILImage.Exif()
            exif[0x010F] = "pillow-gpu"  # Make
            exif[0x0110] = "photo_folder"  # Model
            taken = _FIRST_SHOT + datetime.timedelta(seconds=seed + index)
            exif[0x0132] = taken.strftime("%Y:%m:%d %H:%M:%S")  # DateTime
            if index % 4 == 3:
                exif[0x0112] = 6
            image.save(path, format="JPEG", quality=90, exif=exif.tobytes())
        else:
            image.save(path, format=input_format)
        paths.append(path)
    return paths


def _listed(folder: Path) -> list[Path]:
    """The files under ``folder`` whose extension Pillow knows, sorted."""
    PILImage.init()
    known = PILImage.registered_extensions()
    found = sorted(
        path for path in folder.rglob("*") if path.is_file() and path.suffix.lower() in known
    )
    if not found:
        msg = (
            f"why: --inputs holds no image files Pillow knows by extension; observed: {folder} "
            f"({sum(1 for _ in folder.rglob('*'))} entries); fix: point --inputs at a folder "
            "of images, or leave it out to generate photo-like files"
        )
        raise ValueError(msg)
    return found


# -- lanes ------------------------------------------------------------------------------------


class _Mismatch(AssertionError):
    """A lane output that is not Pillow's, byte for byte."""


def _encode(image: PILImage.Image, format: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=format)
    return buffer.getvalue()


def _pillow_outputs(chain: Chain, paths: list[Path], format: str) -> dict[str, bytes | None]:
    """Pillow's encoded result per path (None where Pillow itself fails the file)."""
    outputs: dict[str, bytes | None] = {}
    for path in paths:
        try:
            with PILImage.open(path) as opened:
                outputs[str(path)] = _encode(chain.apply_pil(opened), format)
        except Exception:  # the GPU lanes must then fail the file too
            outputs[str(path)] = None
    return outputs


def _check(rows: Mapping[str, Mapping[str, Any]], oracle: Mapping[str, bytes | None]) -> int:
    """Raise :class:`_Mismatch` unless ``rows`` are Pillow's outputs; return refusals."""
    if sorted(rows) != sorted(oracle):
        missing, extra = sorted(set(oracle) - set(rows)), sorted(set(rows) - set(oracle))
        msg = f"rows for other files: missing {missing[:3]}, unexpected {extra[:3]}"
        raise _Mismatch(msg)
    refused, bad = 0, []
    for key, expected in oracle.items():
        row = rows[key]
        kind = str(row["error_kind"])
        if kind in _REFUSALS:
            refused += 1
        elif kind or expected is None or bytes(row["bytes"]) != expected:
            bad.append(f"{Path(key).name} ({kind or 'bytes differ'})")
    if bad:
        msg = f"{len(bad)} of {len(oracle)} outputs are not Pillow's: {', '.join(bad[:3])}"
        raise _Mismatch(msg)
    return refused


class _TimedMapper(PillowGpuMapper):
    """``PillowGpuMapper`` that stamps each row with its actor and the batch's wall times."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        started = time.time()
        super().__init__(*args, **kwargs)
        self._init_s = time.time() - started

    def __call__(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        started = time.time()
        out = super().__call__(batch)
        count = len(out[self.key])
        out["actor_pid"] = np.full(count, os.getpid(), dtype=np.int64)
        out["actor_init_s"] = np.full(count, self._init_s)
        out["batch_start"] = np.full(count, started)
        out["batch_end"] = np.full(count, time.time())
        return out


def _mapper_kwargs(config: RayBenchConfig) -> dict[str, Any]:
    return {
        "chain": config.chain,
        "format": config.output_format,
        "key": "path",
        "max_jobs": config.max_jobs,
        "max_in_flight": config.max_in_flight,
        "gpu_bytes": config.gpu_bytes,
        "host_bytes": config.host_bytes,
    }


@dataclass(slots=True)
class _Lane:
    """One lane: its window (returns the outputs it delivered) and what each run recorded."""

    name: str
    actors: int | None
    window: Callable[[], int]
    runs: list[dict[str, Any]]


def _pillow_lane(
    chain: Chain, paths: list[Path], config: RayBenchConfig, oracle: Mapping[str, bytes | None]
) -> _Lane:
    runs: list[dict[str, Any]] = []

    def window() -> int:
        found = _pillow_outputs(chain, paths, config.output_format)
        if found != oracle:
            raise _Mismatch("sequential Pillow gave different outputs on a second run")
        runs.append({"refused": 0})
        return len(found)

    return _Lane("pillow", None, window, runs)


def _single_lane(
    paths: list[Path], config: RayBenchConfig, oracle: Mapping[str, bytes | None]
) -> _Lane:
    runs: list[dict[str, Any]] = []

    def window() -> int:
        started = time.perf_counter()
        mapper = PillowGpuMapper(**_mapper_kwargs(config))
        ready = time.perf_counter()
        try:
            batch = {
                "path": np.array([str(path) for path in paths], dtype=object),
                "bytes": np.array([path.read_bytes() for path in paths], dtype=object),
            }
            out = mapper(batch)
        finally:
            mapper.close()
        columns = [name for name in out if name != "path"]
        rows = {
            str(key): {name: out[name][index] for name in columns}
            for index, key in enumerate(out["path"])
        }
        runs.append({"refused": _check(rows, oracle), "startup_s": ready - started})
        return len(rows)

    return _Lane("single", None, window, runs)


def _ray_lane(
    ray: Any,
    paths: list[Path],
    config: RayBenchConfig,
    oracle: Mapping[str, bytes | None],
    *,
    actors: int,
    gpus: float,
) -> _Lane:
    runs: list[dict[str, Any]] = []

    def window() -> int:
        wall_start, started = time.time(), time.perf_counter()
        dataset = ray.data.read_binary_files([str(path) for path in paths], include_paths=True)
        rows = dataset.map_batches(
            _TimedMapper,
            fn_constructor_kwargs=_mapper_kwargs(config),
            batch_size=config.batch_size,
            compute=ray.data.ActorPoolStrategy(size=actors),
            num_gpus=gpus,
        ).take_all()
        elapsed = time.perf_counter() - started
        by_path = {_local(str(row["path"]), oracle): row for row in rows}
        if len(by_path) != len(rows):
            raise _Mismatch(f"{len(rows)} rows for {len(by_path)} files: some came twice")
        refused = _check(by_path, oracle)
        first = min(float(row["batch_start"]) for row in rows) if rows else wall_start
        inits = {int(row["actor_pid"]): float(row["actor_init_s"]) for row in rows}
        runs.append(
            {
                "refused": refused,
                "startup_s": max(0.0, first - wall_start),
                "steady_s": max(0.0, elapsed - (first - wall_start)),
                "actor_processes": len(inits),
                "actor_init_s": max(inits.values(), default=0.0),
            }
        )
        return len(rows)

    return _Lane(f"ray-{actors}", actors, window, runs)


def _local(path: str, oracle: Mapping[str, Any]) -> str:
    """Ray's spelling of a local path (it may drop the leading slash) mapped to ours."""
    if path in oracle:
        return path
    return "/" + path.lstrip("/") if "/" + path.lstrip("/") in oracle else path


# -- the run ----------------------------------------------------------------------------------


def _ray_version() -> str:
    import ray

    return str(ray.__version__)


@dataclass(slots=True)
class _Cluster:
    ray: Any
    record: dict[str, Any]


@contextlib.contextmanager
def _cluster(config: RayBenchConfig) -> Iterator[_Cluster]:
    """Start (and time) the local cluster, connect to ``address``, or reuse one running."""
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")  # see docs/ray.md
    import ray
    import ray.data

    started = not ray.is_initialized()
    cpus = config.num_cpus or max(os.cpu_count() or 1, max(config.actors) + 1)
    record: dict[str, Any] = {"ray": _ray_version(), "reused": not started}
    if started:
        begin = time.perf_counter()
        options: dict[str, Any] = {"address": config.address} if config.address else {}
        if not config.address:
            options["num_cpus"] = cpus
        ray.init(
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=False,
            **options,
        )
        record["start_s"] = time.perf_counter() - begin
    record["address"] = config.address or "local"
    record["resources"] = {key: float(value) for key, value in ray.cluster_resources().items()}
    context = ray.data.DataContext.get_current()
    progress, context.enable_progress_bars = context.enable_progress_bars, False
    data_logger = logging.getLogger("ray.data")
    level = data_logger.level
    data_logger.setLevel(logging.WARNING)
    try:
        yield _Cluster(ray, record)
    finally:
        context.enable_progress_bars = progress
        data_logger.setLevel(level)
        if started:
            ray.shutdown()


def _lane_record(
    lane: _Lane, seconds: list[float], files: int, error: str, first: dict[str, Any] | None
) -> dict[str, Any]:
    record: dict[str, Any] = {"lane": lane.name, "actors": lane.actors, "files": files}
    record["parity"] = "exact" if not error else "FAILED"
    if error:
        record["error"] = error
    if first is not None:
        record["first_run"] = first
    runs = lane.runs + ([first] if first else [])
    record["refused"] = max((run["refused"] for run in runs), default=0)
    if seconds:
        summary = summarize(seconds, images=files, source_bytes=0)
        record["windows_s"] = summary["windows_s"]
        record["wall_s"] = summary["median_s"]
        record["files_per_s"] = summary["images_per_s"]
        record["spread_pct"] = summary["spread_pct"]
        record["ms_per_file"] = 1000 * summary["median_s"] / files
        for key in ("startup_s", "steady_s", "actor_init_s"):
            values = [run[key] for run in lane.runs if key in run]
            if values:
                record[key] = statistics.median(values)
        processes = [run["actor_processes"] for run in runs if "actor_processes" in run]
        if processes:
            record["actor_processes"] = max(processes)
    return record


def _add_overheads(lanes: list[dict[str, Any]]) -> None:
    single = next((lane for lane in lanes if lane["lane"] == "single" and "wall_s" in lane), None)
    for lane in lanes:
        if single is None or "wall_s" not in lane:
            continue
        files = lane["files"]
        lane["overhead_ms_per_file"] = 1000 * (lane["wall_s"] - single["wall_s"]) / files
        lane["vs_single"] = single["wall_s"] / lane["wall_s"]
        if "steady_s" in lane:
            lane["steady_ms_per_file"] = 1000 * lane["steady_s"] / files
            lane["steady_overhead_ms_per_file"] = (
                1000 * (lane["steady_s"] - single["wall_s"]) / files
            )


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def run_ray_benchmark(
    config: RayBenchConfig,
    *,
    adapter: Mapping[str, Any] | None = None,
    log: Callable[[str], None] = lambda message: None,
) -> dict[str, Any]:
    """Run every lane on the same files and return the result document (see the module)."""
    chain = parse_chain(config.chain)
    result: dict[str, Any] = {
        "schema": 1,
        "benchmark": "ray",
        "created": _now(),
        "machine": machine_info(),
        "adapter": dict(adapter or {}),
        "config": asdict(config),
    }
    with tempfile.TemporaryDirectory(prefix="pillow-gpu-ray-bench-") as scratch:
        if config.inputs:
            paths = _listed(Path(config.inputs))
        else:
            log(f"writing {config.files} {config.input_format} files")
            paths = photo_folder(
                Path(scratch) / "in",
                files=config.files,
                sizes=config.sizes,
                input_format=config.input_format,
                seed=config.seed,
            )
        paths = [path.resolve() for path in paths]
        result["inputs"] = {
            "folder": config.inputs or "(generated)",
            "files": len(paths),
            "bytes": sum(path.stat().st_size for path in paths),
        }
        oracle = _pillow_outputs(chain, paths, config.output_format)
        result["inputs"]["pillow_failures"] = sum(value is None for value in oracle.values())
        with _cluster(config) as cluster:
            result["cluster"] = cluster.record
            gpus = config.gpus_per_actor
            if gpus < 0:
                gpus = 1.0 if cluster.record["resources"].get("GPU", 0) > 0 else 0.0
            result["cluster"]["gpus_per_actor"] = gpus
            lanes = [
                _pillow_lane(chain, paths, config, oracle),
                _single_lane(paths, config, oracle),
            ]
            lanes += [
                _ray_lane(cluster.ray, paths, config, oracle, actors=actors, gpus=gpus)
                for actors in config.actors
            ]
            result["lanes"] = _measure(lanes, config, len(paths), log)
    result["finished"] = _now()
    return result


def _measure(
    lanes: list[_Lane], config: RayBenchConfig, files: int, log: Callable[[str], None]
) -> list[dict[str, Any]]:
    """The first run of every lane (recorded apart), then the interleaved timed windows."""
    first_errors: dict[str, str] = {}
    first_runs: dict[str, dict[str, Any]] = {}
    for lane in lanes if config.warmup else []:
        log(f"first run of {lane.name}")
        seconds, errors = interleaved_windows({lane.name: lane.window}, repeats=1, expected=files)
        if lane.runs:
            first_runs[lane.name] = lane.runs.pop()
            first_runs[lane.name]["wall_s"] = seconds.get(lane.name, [math.nan])[0]
        first_errors.update(errors)
    timed = {lane.name: lane.window for lane in lanes if lane.name not in first_errors}
    log(f"{config.repeats} timed window(s) per lane, interleaved")
    seconds, errors = interleaved_windows(timed, repeats=config.repeats, expected=files)
    errors.update(first_errors)
    records = [
        _lane_record(
            lane,
            seconds.get(lane.name, []),
            files,
            errors.get(lane.name, ""),
            first_runs.get(lane.name),
        )
        for lane in lanes
    ]
    _add_overheads(records)
    return records
