"""``pillow-gpu apply``: stream image files through a chain with ``GpuBatchExecutor.run``.

The chain is admitted against the GPU planner on probe images before any file is read (see
:func:`pillow_gpu.cli._chain.admitted_modes`). Inputs are then opened lazily one at a time
(only the header is read until the executor decodes the file), outputs are written as results
arrive, and every failed input is reported by its path with the structured error (``kind``,
``stage`` and the "why; observed; fix" message). ``--stop-on-error`` stops at the first
failure; by default the remaining inputs are still processed. Exit status: 0 when every input
was written, 1 when any failed, 2 for an invalid or refused chain.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.cli._chain import Admission, Chain, ChainError, admitted_modes
from pillow_gpu.errors import GpuError

__all__ = ["Failure", "run_apply"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """One input that produced no output: its path, the error kind, the stage, the message."""

    path: str
    kind: str
    stage: str
    message: str

    @classmethod
    def from_error(cls, path: str, error: BaseException, stage: str) -> Failure:
        """Describe ``error`` (structured for GpuError, by exception type otherwise)."""
        if isinstance(error, GpuError):
            return cls(path=path, kind=error.kind, stage=error.stage, message=str(error))
        return cls(path=path, kind=type(error).__name__, stage=stage, message=str(error))

    def __str__(self) -> str:
        return f"{self.path}: {self.kind} at {self.stage}: {self.message}"


_Report = Callable[[Failure], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Input:
    path: Path
    output: Path


def _image_extensions() -> frozenset[str]:
    return frozenset(ext.lower() for ext in PILImage.registered_extensions())


def _output_path(source: Path, relative: Path, args: argparse.Namespace) -> Path:
    suffix = f".{args.format.lstrip('.')}" if args.format else source.suffix
    if args.output_dir:
        return Path(args.output_dir) / relative.with_suffix(suffix)
    return source.with_name(f"{source.stem}{args.suffix}{suffix}")


def _discover(
    paths: Sequence[str], args: argparse.Namespace, failures: list[Failure]
) -> list[_Input]:
    """Expand folders into their image files (names only; no file is opened here)."""
    extensions = _image_extensions()
    found: list[_Input] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            walker = path.rglob("*") if args.recursive else path.glob("*")
            for child in sorted(walker):
                if not child.is_file() or child.suffix.lower() not in extensions:
                    continue
                if not args.output_dir and child.stem.endswith(args.suffix):
                    continue  # an earlier output written beside its input
                relative = child.relative_to(path)
                found.append(_Input(path=child, output=_output_path(child, relative, args)))
        elif path.exists():
            found.append(_Input(path=path, output=_output_path(path, Path(path.name), args)))
        else:
            failures.append(
                Failure(
                    path=text,
                    kind="FileNotFoundError",
                    stage="input",
                    message="why: the input does not exist; observed: no file or folder at "
                    "this path; fix: check the path",
                )
            )
    return found


@dataclass(slots=True, kw_only=True)
class _Run:
    """Shared state of one ``apply`` run: pending outputs, failures, counters."""

    chain: Chain
    admission: Admission
    stop_on_error: bool
    overwrite: bool
    outputs: dict[str, Path] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    written: int = 0
    output_bytes: int = 0
    exhausted: bool = False
    stopped: bool = False

    def fail(self, failure: Failure, report: _Report) -> None:
        self.failures.append(failure)
        report(failure)
        if self.stop_on_error:
            self.stopped = True

    def jobs(self, inputs: Sequence[_Input], report: _Report) -> Iterator[tuple[str, Image.Image]]:
        """Yield ``(path, lazy graph)``; inputs that cannot be admitted are reported here."""
        for item in inputs:
            if self.stopped:
                break
            key = str(item.path)
            if item.output.exists() and not self.overwrite:
                self.fail(
                    Failure(
                        path=key,
                        kind="FileExistsError",
                        stage="output",
                        message=f"why: the output already exists; observed: {item.output}; "
                        "fix: pass --overwrite, another --suffix or --output-dir",
                    ),
                    report,
                )
                continue
            try:
                source = Image.open(item.path)  # the header only; decoding happens on upload
            except OSError as error:
                self.fail(Failure.from_error(key, error, "open"), report)
                continue
            if source.mode not in self.admission.admitted:
                why = self.admission.refused.get(source.mode, "not a native GPU layout")
                self.fail(
                    Failure(
                        path=key,
                        kind="Unsupported",
                        stage="admission",
                        message=f"why: chain {str(self.chain)!r} is not admitted for mode "
                        f"{source.mode}; observed: {why}; fix: convert the file to one of "
                        f"{', '.join(self.admission.admitted)} or change the chain",
                    ),
                    report,
                )
                continue
            try:
                graph = self.chain.apply(source)
            except (ValueError, OSError, TypeError) as error:
                self.fail(Failure.from_error(key, error, "record"), report)
                continue
            self.outputs[key] = item.output
            yield key, graph
        self.exhausted = True


def _executor(args: argparse.Namespace) -> Any:
    from pillow_gpu import GpuBatchExecutor

    return GpuBatchExecutor(
        max_jobs=args.max_jobs,
        max_in_flight=args.max_in_flight,
        gpu_bytes=args.gpu_mib << 20,
        host_bytes=args.host_mib << 20,
    )


def _save(run: _Run, key: str, image: PILImage.Image, report: _Report) -> bool:
    target = run.outputs.pop(key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        image.save(target)
    except (OSError, ValueError, KeyError) as error:
        run.fail(Failure.from_error(key, error, "save"), report)
        return False
    run.written += 1
    run.output_bytes += len(image.tobytes())
    return True


def _drive(run: _Run, inputs: Sequence[_Input], args: argparse.Namespace, bar: Any) -> None:
    """Stream every input through the executor, restarting a stream an error stopped."""
    started = time.perf_counter()

    def report(failure: Failure) -> None:
        bar.write(f"pillow-gpu: failed: {failure}", file=sys.stderr)
        bar.update(1)

    feed = run.jobs(inputs, report)
    with _executor(args) as executor:  # settings were checked by run_apply
        while not run.exhausted and not run.stopped:
            # A job-scoped error surfaces from next(); the stream keeps going, except after
            # an admission error, which stops it reading inputs: then a new stream resumes
            # from the same feed.
            with executor.run(feed, output="cpu") as results:
                while True:
                    try:
                        result = next(results)
                    except StopIteration:
                        break
                    except GpuError as error:
                        key = error.input_key
                        path = str(key) if key is not None else "(no single input: the run)"
                        run.outputs.pop(path, None)
                        run.fail(Failure.from_error(path, error, error.stage), report)
                        if run.stopped or key is None or executor.closed:
                            # Not job-scoped (e.g. the device failed): nothing can go on.
                            run.stopped = True
                            return
                        continue
                    if _save(run, str(result.input_key), result.image, report):
                        bar.update(1)
                    elapsed = max(time.perf_counter() - started, 1e-9)
                    bar.set_postfix_str(f"{run.output_bytes / elapsed / 1e6:.1f} MB/s")
                    if run.stopped:
                        return


def run_apply(args: argparse.Namespace) -> int:
    """Run ``pillow-gpu apply`` with parsed arguments (``args.chain`` is a parsed Chain)."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    chain: Chain = args.chain
    admission = admitted_modes(chain)
    try:
        admission.require_any(chain)
    except ChainError as error:
        print(f"pillow-gpu: error: chain refused before reading any file: {error}", file=sys.stderr)
        return 2
    run = _Run(
        chain=chain,
        admission=admission,
        stop_on_error=args.stop_on_error,
        overwrite=args.overwrite,
    )
    try:
        _executor(args).close()  # check the executor settings before reading any file
    except (TypeError, ValueError) as error:
        print(f"pillow-gpu: error: invalid executor setting: {error}", file=sys.stderr)
        return 2
    inputs = _discover(args.paths, args, run.failures)
    for failure in run.failures:
        print(f"pillow-gpu: failed: {failure}", file=sys.stderr)
    if run.failures and run.stop_on_error:
        return 1
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    started = time.perf_counter()
    with tqdm(
        total=len(inputs), unit="img", disable=not progress, file=sys.stderr, dynamic_ncols=True
    ) as bar:
        _drive(run, inputs, args, bar)
    elapsed = max(time.perf_counter() - started, 1e-9)
    print(
        f"pillow-gpu apply: {run.written} written, {len(run.failures)} failed in "
        f"{elapsed:.2f} s ({run.written / elapsed:.1f} img/s, "
        f"{run.output_bytes / elapsed / 1e6:.2f} MB/s); chain {chain} is admitted for "
        f"{', '.join(admission.admitted)}"
    )
    return 1 if run.failures else 0
