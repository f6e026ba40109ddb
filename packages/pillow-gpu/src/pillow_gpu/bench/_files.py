"""The files benchmark: photos decoded and processed, as users run their folders.

Every lane takes the same encoded files through the same ``apply`` chain and returns each
result's bytes; each lane's results must equal sequential Pillow's byte for byte (checked on
an untimed first run), then the lanes' windows are timed interleaved:

* ``pillow``: sequential Pillow, one file after another;
* ``pillow_all_cores``: Pillow in a process per CPU (what a CPU user would run);
* ``ours_cpu``: the chain recorded on ``pillow_gpu.Image.open`` handles and completed through
  Pillow (``tobytes()``), one file after another: the CPU route, what the lazy handles cost
  over Pillow's own calls where no GPU is used;
* ``ours_serial``: ``GpuBatchExecutor(decode_threads=0)``: every file decodes at its submission
  in the calling thread (the executor before worker decoding);
* ``ours``: ``GpuBatchExecutor`` with the default ``decode_threads`` of a hardware adapter
  (one fewer than the CPUs, at most 8), on any adapter.

A decode-bound batch shows the worker threads' gain as ``ours`` against ``ours_serial``; a
kernel-bound one, the GPU's against Pillow's.
"""

from __future__ import annotations

import datetime
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import GpuBatchExecutor
from pillow_gpu import Image as LazyImage
from pillow_gpu.bench._runner import machine_info
from pillow_gpu.bench._timing import interleaved_windows, summarize
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.executor._prefetch import decode_threads

__all__ = ["FILES_LANES", "FilesBenchConfig", "render_files_table", "run_files_benchmark"]

#: The lanes, in report order.
FILES_LANES = ("pillow", "pillow_all_cores", "ours_cpu", "ours_serial", "ours")


@dataclass(frozen=True, slots=True, kw_only=True)
class FilesBenchConfig:
    """What to run: ``inputs`` (a folder), else ``files`` generated photo-like JPEGs of
    ``size`` (every fourth EXIF-rotated, as phones write them)."""

    chain: str = "exif_transpose,convert:RGB,thumbnail:512x512,gaussian_blur:2"
    inputs: str = ""
    files: int = 48
    size: tuple[int, int] = (2048, 1536)
    repeats: int = 3
    seed: int = 0

    def __post_init__(self) -> None:
        parse_chain(self.chain)  # ChainError (a ValueError) says what is wrong
        if min(self.files, self.repeats, *self.size) < 1:
            msg = (
                "why: files, repeats and the size must be at least 1; observed: files="
                f"{self.files}, repeats={self.repeats}, size={self.size}; fix: pass positive "
                "values, e.g. --files 48 --size 2048x1536"
            )
            raise ValueError(msg)


#: A result as the lanes compare it: mode, size and bytes.
_Result = tuple[str, tuple[int, int], bytes]


def _result(image: PILImage.Image | LazyImage.Image) -> _Result:
    return image.mode, image.size, image.tobytes()


def _pillow_one(task: tuple[str, str]) -> _Result:
    """One file through the chain with Pillow (a process pool's task)."""
    chain_text, path = task
    with PILImage.open(path) as opened:
        return _result(parse_chain(chain_text).apply_pil(opened))


def _windows(
    config: FilesBenchConfig,
    paths: list[Path],
    executors: dict[str, GpuBatchExecutor],
    pool: ProcessPoolExecutor,
) -> tuple[dict[str, Callable[[], int]], dict[str, dict[str, _Result]]]:
    """Each lane's window, and the results each lane's last window delivered."""
    chain = parse_chain(config.chain)
    tasks = [(config.chain, str(path)) for path in paths]
    found: dict[str, dict[str, _Result]] = {name: {} for name in FILES_LANES}

    def pillow() -> int:
        found["pillow"] = {task[1]: _pillow_one(task) for task in tasks}
        return len(tasks)

    def all_cores() -> int:
        found["pillow_all_cores"] = dict(
            zip([task[1] for task in tasks], pool.map(_pillow_one, tasks, chunksize=1), strict=True)
        )
        return len(tasks)

    def ours_cpu() -> int:
        results = {}
        for path in paths:
            results[str(path)] = _result(chain.apply(LazyImage.open(path)))
        found["ours_cpu"] = results
        return len(results)

    def ours(name: str) -> Callable[[], int]:
        def window() -> int:
            jobs = ((str(path), chain.apply(LazyImage.open(path))) for path in paths)
            results = {}
            for result in executors[name].run(jobs):
                image = result.image
                assert isinstance(image, PILImage.Image)  # CPU outputs
                results[str(result.input_key)] = _result(image)
            found[name] = results
            return len(results)

        return window

    windows = {
        "pillow": pillow,
        "pillow_all_cores": all_cores,
        "ours_cpu": ours_cpu,
        "ours_serial": ours("ours_serial"),
        "ours": ours("ours"),
    }
    return windows, found


def _parity(found: Mapping[str, Mapping[str, _Result]]) -> dict[str, str]:
    expected = found["pillow"]
    status = {}
    for name in FILES_LANES:
        differing = [path for path in expected if found[name].get(path) != expected[path]]
        status[name] = "exact" if not differing else f"MISMATCH in {len(differing)} files"
    return status


def run_files_benchmark(
    config: FilesBenchConfig, *, log: Callable[[str], None] = lambda message: None
) -> dict[str, Any]:
    """Run every lane on the same files; return the result document."""
    from pillow_gpu.bench._ray import photo_folder  # the Ray lane's photo-like files

    with tempfile.TemporaryDirectory(prefix="pillow-gpu-files-") as scratch:
        if config.inputs:
            folder = Path(config.inputs)
            paths = sorted(path for path in folder.iterdir() if path.is_file())
        else:
            log(f"writing {config.files} photo-like JPEGs of {config.size[0]}x{config.size[1]}")
            paths = photo_folder(
                Path(scratch), files=config.files, sizes=(config.size,), seed=config.seed
            )
        inputs = {"files": len(paths), "bytes": sum(path.stat().st_size for path in paths)}
        threads = decode_threads(None)  # the default of a hardware adapter, here on any
        executors = {
            "ours_serial": GpuBatchExecutor(decode_threads=0),
            "ours": GpuBatchExecutor(decode_threads=threads),
        }
        # Spawned workers: a fork would copy this process's wgpu and decode threads' state.
        spawn = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max(1, os.cpu_count() or 1), mp_context=spawn)
        windows, found = _windows(config, paths, executors, pool)
        try:
            log("first run of every lane (untimed; results checked against Pillow's)")
            for window in windows.values():
                window()
            parity = _parity(found)
            timed = {name: windows[name] for name in FILES_LANES if parity[name] == "exact"}
            seconds, errors = interleaved_windows(
                timed, repeats=config.repeats, expected=len(paths)
            )
        finally:
            pool.shutdown()
            for executor in executors.values():
                executor.close()
    lanes = []
    for name in FILES_LANES:
        record: dict[str, Any] = {"lane": name, "parity": parity[name]}
        if name in errors:
            record["error"] = errors[name]
        if seconds.get(name):
            summary = summarize(seconds[name], images=len(paths), source_bytes=0)
            record.update(
                files_per_s=summary["images_per_s"],
                median_s=summary["median_s"],
                windows_s=summary["windows_s"],
            )
        lanes.append(record)
    serial = next((lane for lane in lanes if lane["lane"] == "ours_serial"), {})
    for lane in lanes:
        if "files_per_s" in lane and "files_per_s" in serial:
            lane["vs_ours_serial"] = lane["files_per_s"] / serial["files_per_s"]
    return {
        "schema": 1,
        "benchmark": "files",
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "config": asdict(config),
        "inputs": inputs,
        "decode_threads": threads,
        "cpus": os.cpu_count(),
        "lanes": lanes,
    }


def render_files_table(result: Mapping[str, Any]) -> str:
    """The lanes as a Markdown table."""
    lines = [
        f"files benchmark: {result['inputs']['files']} files, chain "
        f"`{result['config']['chain']}`, {result['cpus']} CPUs, decode_threads "
        f"{result['decode_threads']}",
        "",
        "| lane | files/s | median s | x ours_serial | parity |",
        "|---|---:|---:|---:|---|",
    ]
    for lane in result["lanes"]:
        rate = f"{lane['files_per_s']:.1f}" if "files_per_s" in lane else "-"
        median = f"{lane['median_s']:.3f}" if "median_s" in lane else "-"
        ratio = f"{lane['vs_ours_serial']:.2f}x" if "vs_ours_serial" in lane else "-"
        lines.append(f"| {lane['lane']} | {rate} | {median} | {ratio} | {lane['parity']} |")
    return "\n".join(lines) + "\n"
