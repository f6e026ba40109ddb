"""``pillow-gpu apply ... --ray [ADDRESS]``: the same chain on a Ray Data cluster.

The driver (this process) checks the chain and the options, discovers the inputs and claims
their output names exactly as the single-process command does (:mod:`pillow_gpu.cli._outputs`).
The rows (index, path, output format) then go through ``map_batches`` with
:class:`pillow_gpu.ray.PillowGpuMapper` on an actor pool: each actor opens the files by path
(a local cluster, or a cluster whose workers see the same paths), runs them through its own
``GpuBatchExecutor`` and returns the encoded bytes, or an error row. The driver writes every
returned output with the same safe writer (temporary file, then rename; no overwrite without
``--overwrite``), so a killed or retried actor can never leave a partial or a doubled file.
A refused file is run with live Pillow by the driver under ``--cpu-fallback``, as without Ray.
Under ``--all-frames`` an actor runs every frame of a file of several frames and returns the
encoded animation; a refused one goes to the driver's fallback frame by frame.
The summary and the exit statuses are the single-process command's.

Without ADDRESS a local cluster is started for the run and stopped after it; if this process
already has Ray initialized (a notebook, a test), that cluster is used and left running.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from PIL import Image as PILImage
from PIL import ImageMode

from pillow_gpu.cli._apply import (
    _Run,
    _summary,
    checked_admission,
    discover_inputs,
    exit_code,
    new_run,
)
from pillow_gpu.cli._chain import Chain, parse_chain
from pillow_gpu.cli._exit import EXIT_FAILED, EXIT_USAGE, Interrupt
from pillow_gpu.cli._frames import ExtraFrames, refuse_extra_frames
from pillow_gpu.cli._metadata import LEFT_OUT_SEPARATOR
from pillow_gpu.cli._options import check_options
from pillow_gpu.cli._outputs import (
    Discovery,
    OutputError,
    output_failure,
)
from pillow_gpu.cli._report import Failure, is_refusal
from pillow_gpu.errors import GpuError, Limit, Unsupported

__all__ = ["DEFAULT_BATCH_SIZE", "run_apply_ray"]

#: Rows per ``map_batches`` call unless ``--batch-size`` says otherwise.
DEFAULT_BATCH_SIZE = 16

_MESSAGE = re.compile(r"why: (?P<why>.*?); observed: (?P<observed>.*?); fix: (?P<fix>.*)", re.S)


def _settings_problem(args: argparse.Namespace) -> str | None:
    """The usage error of the executor and Ray settings, or None (checked without a GPU)."""
    for name in (
        "max_jobs",
        "max_in_flight",
        "gpu_mib",
        "host_mib",
        "max_submission_work",
        "ray_actors",
        "batch_size",
    ):
        value = getattr(args, name)
        if value is not None and value < 1:
            option = "--" + name.replace("_", "-")
            return (
                f"invalid {option}: why: it must be at least 1; observed: {value}; "
                "fix: pass a positive integer"
            )
    if args.ray_gpus is not None and not args.ray_gpus >= 0:
        return (
            f"invalid --ray-gpus: why: GPUs per actor cannot be negative; observed: "
            f"{args.ray_gpus}; fix: pass 1 (one actor per GPU), 0.5 (two per GPU) or 0"
        )
    return None


@dataclass(frozen=True, slots=True)
class _Encoded:
    """An output the actor already encoded, shaped for ``Writer.write`` (which saves it)."""

    data: bytes
    format: str
    mode: str
    width: int
    height: int

    def getbands(self) -> tuple[str, ...]:
        return ImageMode.getmode(self.mode).bands

    def save(self, stream: IO[bytes], format: str, **options: Any) -> None:
        if format != self.format:  # pragma: no cover - the driver asked for this format
            msg = f"encoded as {self.format}, asked to write {format}"
            raise ValueError(msg)
        stream.write(self.data)


def _refusal(kind: str, stage: str, message: str) -> GpuError | None:
    """The GPU refusal an error row describes, rebuilt for the tally, or None."""
    classes = {"Unsupported": Unsupported, "Limit": Limit}
    if kind not in classes:
        return None
    match = _MESSAGE.fullmatch(message)
    why, observed, fix = match.group("why", "observed", "fix") if match else (message, "", "")
    error = classes[kind](why, observed=observed, fix=fix, stage=stage)
    return error if is_refusal(error) else None


def _several_frames(path: Path) -> bool:
    """True for a file whose frames ``--all-frames`` runs one by one (header read only)."""
    try:
        with PILImage.open(path) as opened:
            refuse_extra_frames(opened)
    except ExtraFrames as error:
        return error.counted
    except Exception:  # the fallback reports what it cannot open
        return False
    return False


def _settle(run: _Run, row: Mapping[str, Any]) -> None:
    """Write one returned row, or count and report its failure."""
    index = int(row["key"])
    run.settled += 1
    kind = str(row["error_kind"])
    if not kind:
        encoded = _Encoded(
            data=bytes(row["bytes"]),
            format=str(row["format"]),
            mode=str(row["mode"]),
            width=int(row["width"]),
            height=int(row["height"]),
        )
        left_out = str(row.get("metadata_left_out") or "")
        noted = tuple(left_out.split(LEFT_OUT_SEPARATOR)) if left_out else ()
        run.save(index, encoded, route="gpu", left_out=noted)  # type: ignore[arg-type]
        return
    stage, message = str(row["error_stage"]), str(row["error_message"])
    refusal = _refusal(kind, stage, message)
    if refusal is not None:
        if run.all_frames and _several_frames(run.inputs[index].path):
            run.animations.append(index)  # the CPU fallback then runs every frame
        run.refuse(index, refusal)
        return
    path = str(run.inputs[index].path)
    run.fail(Failure(path=path, kind=kind, stage=stage, message=message))


@contextlib.contextmanager
def _cluster(args: argparse.Namespace, progress: bool) -> Iterator[Any]:
    """Connect to ``--ray ADDRESS`` or start a local cluster; reuse one already initialized."""
    import ray
    import ray.data

    started = False
    if not ray.is_initialized():
        ray.init(
            address=args.ray or None,
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=bool(getattr(args, "verbose", 0)),
        )
        started = True
    context = ray.data.DataContext.get_current()
    previous = context.enable_progress_bars
    context.enable_progress_bars = progress
    data_logger = logging.getLogger("ray.data")
    level = data_logger.level
    if not getattr(args, "verbose", 0):
        data_logger.setLevel(logging.WARNING)
    try:
        yield ray
    finally:
        context.enable_progress_bars = previous
        data_logger.setLevel(level)
        if started:
            ray.shutdown()


def _drive(run: _Run, rows: list[dict[str, Any]], args: argparse.Namespace, mapper: Any) -> str:
    """Run ``rows`` through ``mapper`` on an actor pool and settle each returned row."""
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    with _cluster(args, progress) as ray:
        gpus = args.ray_gpus
        if gpus is None:
            gpus = 1.0 if ray.cluster_resources().get("GPU", 0) > 0 else 0.0
        actors = args.ray_actors or 1
        batch_size = args.batch_size or DEFAULT_BATCH_SIZE
        chain: Chain = run.chain
        text = str(chain)
        results = ray.data.from_items(rows).map_batches(
            mapper,
            fn_constructor_kwargs={
                "chain": text if parse_chain(text) == chain else chain,
                "format": None,  # each row names its output's format
                "quality": args.quality,
                "key": "key",
                "max_jobs": args.max_jobs,
                "max_in_flight": args.max_in_flight,
                "gpu_bytes": args.gpu_mib << 20,
                "host_bytes": args.host_mib << 20,
                "max_submission_work": args.max_submission_work,
                "decode_threads": args.decode_threads,
                "metadata": "strip" if args.strip_metadata else "keep",
                "first_frame": args.first_frame,
                "all_frames": args.all_frames,
                "plugins": True,  # the actors read what this process found (.heic)
            },
            batch_size=batch_size,
            compute=ray.data.ActorPoolStrategy(size=actors),
            num_gpus=gpus,
        )
        for row in results.iter_rows():
            _settle(run, row)
            if run.halted:
                break
        return f"{actors} actor(s) with {gpus:g} GPU(s) each, batch_size {batch_size}"


def run_apply_ray(args: argparse.Namespace) -> int:
    """Run ``pillow-gpu apply --ray`` with parsed arguments (``args.chain`` is a Chain)."""
    problem = check_options(args) or _settings_problem(args)
    if problem is not None:
        print(f"pillow-gpu: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if not args.ray:
        # Under `uv run`, Ray would rebuild the project's environment for every worker
        # (downloading an interpreter); a local cluster runs this interpreter as it is. Ray
        # reads this once, when it is first imported.
        os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray  # noqa: F401
    except ImportError as error:
        print(
            f"pillow-gpu: error: --ray needs Ray: why: Ray Data is not installed; observed: "
            f"{error}; fix: pip install 'pillow-gpu[ray]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from pillow_gpu import ray as pillow_gpu_ray

    mapper = pillow_gpu_ray.PillowGpuMapper  # looked up per run (a test may replace it)
    admission = checked_admission(args.chain)
    if admission is None:
        return EXIT_USAGE
    cluster = ""
    with Interrupt() as interrupt:
        run = new_run(args, admission, interrupt)
        writer = run.writer
        found = Discovery()
        try:
            found = discover_inputs(run, args)
            if found.failures and run.stop_on_error:
                return EXIT_FAILED
            rows = []
            for index, item in enumerate(run.inputs):
                if run.halted:
                    break
                try:
                    writer.check(item)
                except OutputError as error:
                    run.settled += 1
                    run.fail(output_failure(item.path, error))
                    continue
                except OSError as error:
                    run.settled += 1
                    run.fail(Failure.from_error(str(item.path), error, "output"))
                    continue
                rows.append({"key": index, "path": str(item.path), "format": item.format})
            if rows and not run.halted:
                with run.writing():
                    cluster = _drive(run, rows, args, mapper)
        except KeyboardInterrupt:  # a second SIGINT: the file being saved was discarded
            interrupt.requested = True
        _summary(run, time.perf_counter() - run.started, found)
        if cluster:
            print(f"  ran on Ray: {cluster}; outputs written by this process")
    return exit_code(run)
