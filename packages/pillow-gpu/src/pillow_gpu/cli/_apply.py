"""``pillow-gpu apply``: stream image files through a chain with ``GpuBatchExecutor.run``.

The chain is admitted against the GPU planner on probe images before any file is read (see
:func:`pillow_gpu.cli._chain.admitted_modes`). Inputs are then opened lazily one at a time
(only the header is read until the executor decodes the file), outputs are written as results
arrive, and every failed input is reported by its path with the structured error (``kind``,
``stage`` and the "why; observed; fix" message). ``--stop-on-error`` stops at the first
failure; by default the remaining inputs are still processed.

What a run guarantees (the README's "apply" section says the same for users):

- Inputs are de-duplicated by their resolved path (the first mention wins), and every output
  name is claimed once: a later input whose output is already claimed by an earlier input of
  the run (or is an input of the run) is reported as an ``OutputCollision`` failure and
  nothing is written for it.
- Each output is written to a hidden temporary file in its target folder and renamed into
  place, so a final name never holds a partial file, and a failed save leaves the previous
  file intact. A symlink at an output name is never followed (``--overwrite`` replaces the
  link itself), and no output is written through a symlink that leads out of
  ``--output-dir``. The output folder is never read as input.
- Every per-file problem (``MemoryError`` and Pillow's ``DecompressionBombError`` included)
  is a reported failure, and the run goes on.
- The first SIGINT finishes the file being saved, discards the rest and prints the summary
  so far (exit status 130); a second SIGINT stops at once, still without a partial output.

Exit status: :data:`EXIT_OK`, :data:`EXIT_FAILED`, :data:`EXIT_USAGE`, :data:`EXIT_INTERRUPTED`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.cli._chain import Admission, Chain, ChainError, admitted_modes
from pillow_gpu.errors import GpuError

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STATUSES",
    "EXIT_USAGE",
    "QUALITY_FORMATS",
    "TEMP_SUFFIX",
    "Failure",
    "run_apply",
]

#: Every input was written.
EXIT_OK = 0
#: At least one input failed (each is reported on stderr), or a folder held no image file.
EXIT_FAILED = 1
#: A usage error: an invalid or refused chain, option or executor setting; nothing was read.
EXIT_USAGE = 2
#: Interrupted by SIGINT (Ctrl-C); the outputs written so far are complete.
EXIT_INTERRUPTED = 130

#: The exit statuses as ``--help`` and the README list them.
EXIT_STATUSES = (
    (EXIT_OK, "every input was written"),
    (
        EXIT_FAILED,
        "one or more inputs failed (each is reported on stderr) or a folder held no image",
    ),
    (
        EXIT_USAGE,
        "invalid chain, option or executor setting, or a chain the GPU refuses (nothing read)",
    ),
    (EXIT_INTERRUPTED, "interrupted by SIGINT/Ctrl-C; the outputs written so far are complete"),
)

#: The name ending of the temporary file an output is written to before it is renamed into
#: place (a hidden ``.NAME.XXXXXXXX.pillow-gpu.tmp`` beside the output). Only a killed process
#: (SIGKILL, power loss) can leave one behind; it is never read as an input or an output.
TEMP_SUFFIX = ".pillow-gpu.tmp"

#: Pillow formats whose save takes ``--quality`` (as ``quality=``); others are saved without it.
QUALITY_FORMATS = frozenset({"JPEG", "WEBP"})

_RUN = "(no single input: the run)"
_FORMAT_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]*")


def _shown(path: str) -> str:
    """``path`` as printed: quoted and escaped when it holds control or undecodable characters."""
    return path if path.isprintable() else ascii(path)


def _printable(text: str) -> str:
    """``text`` on one line: control and undecodable characters escaped (a message may quote
    a hostile file name)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


# -- failures --------------------------------------------------------------------------------

#: (why, fix) of an unstructured exception by the stage it was raised in.
_STAGE_TEXT = {
    "open": (
        "Pillow could not read the file's header",
        "check that the file is a complete image in a format Pillow reads, or leave it out",
    ),
    "record": (
        "the chain cannot be applied to this file",
        "change the chain's arguments for files of this size and mode, or leave the file out",
    ),
    "save": (
        "Pillow could not write the output",
        "choose a --format that can hold the result's mode, or check the output folder",
    ),
    "input": (
        "an input folder could not be listed",
        "check the folder's permissions, or leave it out",
    ),
    "output": (
        "the output's folder could not be checked",
        "check the output folder's permissions, or choose another --output-dir",
    ),
    "run": (
        "the executor failed outside any single input, so the run cannot go on",
        "run the command again; if it recurs, lower --max-jobs or --gpu-mib and report it",
    ),
}


def _explain(error: BaseException, stage: str) -> str:
    observed = f"{error}" or type(error).__name__
    if isinstance(error, PILImage.DecompressionBombError):
        why = "the file declares more pixels than Pillow's decompression-bomb bound allows"
        fix = (
            "leave the file out; if it is trusted, shrink it first (the GPU path admits at "
            "most 4096x4096 pixels anyway)"
        )
    elif isinstance(error, MemoryError):
        why = "the host ran out of memory for this file"
        fix = "free memory, lower --host-mib or --max-jobs, or leave the file out"
    else:
        why, fix = _STAGE_TEXT.get(stage, ("the file could not be processed", "see the error"))
    return f"why: {why}; observed: {observed}; fix: {fix}"


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
        return cls(
            path=path, kind=type(error).__name__, stage=stage, message=_explain(error, stage)
        )

    def __str__(self) -> str:
        return f"{_shown(self.path)}: {self.kind} at {self.stage}: {_printable(self.message)}"


_Report = Callable[[Failure], None]


class _OutputError(Exception):
    """An output that must not be written; ``kind`` names the failure."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _output_failure(path: Path | str, error: _OutputError) -> Failure:
    return Failure(path=str(path), kind=error.kind, stage="output", message=str(error))


# -- options ---------------------------------------------------------------------------------


def _writable_format(extension: str) -> str | None:
    """The Pillow format that writes files ending in ``extension`` (``.png``), or None."""
    name = PILImage.registered_extensions().get(extension.lower())
    return name if name is not None and name.upper() in PILImage.SAVE else None


def _writable_extensions() -> str:
    extensions = sorted(
        ext for ext, name in PILImage.registered_extensions().items() if name in PILImage.SAVE
    )
    return ", ".join(ext.lstrip(".") for ext in extensions)


def _usage(option: str, why: str, observed: str, fix: str) -> str:
    return f"invalid {option}: why: {why}; observed: {observed}; fix: {fix}"


def _check_options(args: argparse.Namespace) -> str | None:
    """The usage error of ``args`` (suffix, format, output folder), or None when valid."""
    suffix: str = args.suffix
    separators = [sep for sep in (os.sep, os.altsep, "\0") if sep]
    if any(sep in suffix for sep in separators):
        return _usage(
            "--suffix",
            "the suffix is added to a file name, so it cannot hold a path separator or NUL",
            repr(suffix),
            "pass a plain suffix such as .gpu, or use --output-dir to write elsewhere",
        )
    if not suffix and not args.output_dir:
        return _usage(
            "--suffix",
            "outputs written beside their inputs need a suffix, or they would replace the "
            "inputs and a later run could not tell outputs from inputs",
            "--suffix '' without --output-dir",
            "pass a suffix such as .gpu, or --output-dir to keep the names",
        )
    if args.format is not None:
        text = args.format[1:] if args.format.startswith(".") else args.format
        if not _FORMAT_TEXT.fullmatch(text):
            return _usage(
                "--format",
                "the format is a file extension without dots or path separators",
                repr(args.format),
                "pass an extension such as png, jpg or bmp",
            )
        if _writable_format(f".{text}") is None:
            return _usage(
                "--format",
                "Pillow has no writer for files with this extension",
                repr(args.format),
                f"pass one of: {_writable_extensions()}",
            )
        args.format = text
    if args.output_dir is not None:
        if not args.output_dir:
            return _usage(
                "--output-dir",
                "an empty folder name is ambiguous",
                "''",
                "name the folder, e.g. -o out (or -o . for the current folder)",
            )
        root = Path(args.output_dir)
        if root.exists() and not root.is_dir():
            return _usage(
                "--output-dir",
                "outputs are written into a folder",
                f"{_shown(args.output_dir)} exists and is not a folder",
                "name a folder (it is created when missing)",
            )
        real = os.path.normcase(os.path.realpath(root))
        for text in args.paths:
            if Path(text).is_dir() and os.path.normcase(os.path.realpath(text)) == real:
                return _usage(
                    "--output-dir",
                    "the output folder is an input folder, so outputs would replace their "
                    "inputs and be read again by the next run",
                    f"-o {_shown(args.output_dir)} and input {_shown(text)} are one folder",
                    "choose an output folder that is not an input folder (a sub-folder is "
                    "fine: it is skipped when reading the input)",
                )
    return None


# -- discovery -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Input:
    path: Path
    output: Path
    format: str


def _image_extensions() -> frozenset[str]:
    return frozenset(ext.lower() for ext in PILImage.registered_extensions())


def _real(path: Path | str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _within(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _output_path(source: Path, relative: Path, args: argparse.Namespace) -> Path:
    suffix = f".{args.format}" if args.format else source.suffix
    if args.output_dir:
        return Path(args.output_dir) / relative.with_suffix(suffix)
    return source.with_name(f"{source.stem}{args.suffix}{suffix}")


@dataclass(slots=True, kw_only=True)
class _Discovery:
    """What :func:`_discover` found: inputs to run, failures, ignored duplicates."""

    inputs: list[_Input] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    duplicates: int = 0


def _folder_files(
    folder: Path, args: argparse.Namespace, skip: str | None, unreadable: list[OSError]
) -> tuple[list[Path], int, int]:
    """Image files of ``folder`` (sorted), files without an image extension, earlier outputs.

    Sub-folders are searched with ``--recursive``; symlinked sub-folders are not followed and
    the output folder ``skip`` (a resolved path) is never entered. Folders that cannot be
    listed are appended to ``unreadable``.
    """
    extensions = _image_extensions()
    found: list[Path] = []
    other = earlier = 0
    for top, folders, names in os.walk(folder, onerror=unreadable.append):
        if not args.recursive:
            folders.clear()
        elif skip is not None:
            folders[:] = [name for name in folders if _real(Path(top) / name) != skip]
        for name in names:
            child = Path(top) / name
            if child.suffix.lower() not in extensions or not child.is_file():
                other += 1
            elif not args.output_dir and child.stem.endswith(args.suffix):
                earlier += 1  # an earlier output written beside its input
            else:
                found.append(child)
    return sorted(found), other, earlier


def _no_images(text: str, args: argparse.Namespace, other: int, earlier: int) -> Failure:
    observed = f"{other} other file(s)"
    if earlier:
        observed += f" and {earlier} earlier output(s) ending in {args.suffix!r}, skipped"
    fix = "check the path" if args.recursive else "pass -r to search sub-folders, or check the path"
    return Failure(
        path=text,
        kind="NoImages",
        stage="input",
        message=f"why: the folder holds no image file to process; observed: {observed}; fix: {fix}",
    )


def _missing(text: str, what: str) -> Failure:
    return Failure(
        path=text,
        kind="FileNotFoundError",
        stage="input",
        message=f"why: the input is not an image file or folder; observed: {what}; "
        "fix: check the path",
    )


def _discover(paths: Sequence[str], args: argparse.Namespace, interrupted: Any) -> _Discovery:
    """Expand folders into their image files and claim each output name once.

    No file is opened here. Inputs are de-duplicated by resolved path (the first mention
    wins); an input whose output name is already claimed, or is an input, is a failure.
    """
    found = _Discovery()
    skip = _real(args.output_dir) if args.output_dir else None
    candidates: list[tuple[Path, Path]] = []
    for text in paths:
        if interrupted():
            break
        path = Path(text)
        if path.is_dir():
            unreadable: list[OSError] = []
            children, other, earlier = _folder_files(path, args, skip, unreadable)
            for error in unreadable:
                where = str(error.filename) if error.filename is not None else text
                found.failures.append(Failure.from_error(where, error, "input"))
            if not children and not unreadable:
                found.failures.append(_no_images(text, args, other, earlier))
            candidates.extend((child, child.relative_to(path)) for child in children)
        elif path.is_file():
            candidates.append((path, Path(path.name)))
        elif path.exists() or path.is_symlink():
            what = "a dangling symlink" if not path.exists() else "not a regular file or folder"
            found.failures.append(_missing(text, what))
        else:
            found.failures.append(_missing(text, "no file or folder at this path"))
    sources: dict[str, Path] = {}
    unique: list[tuple[Path, Path]] = []
    for path, relative in candidates:
        real = _real(path)
        if real in sources:
            found.duplicates += 1
            continue
        sources[real] = path
        unique.append((path, relative))
    claimed: dict[str, Path] = {}
    folders: dict[Path, str] = {}  # resolved output folders, cached
    for path, relative in unique:
        output = _output_path(path, relative, args)
        writer = _writable_format(output.suffix)
        if writer is None:
            found.failures.append(_output_failure(path, _no_writer(output)))
            continue
        parent = folders.get(output.parent)
        if parent is None:
            parent = folders[output.parent] = os.path.realpath(output.parent)
        name = os.path.normcase(os.path.join(parent, output.name))
        if name in claimed or name in sources:
            owner, role = (
                (claimed[name], "the output of")
                if name in claimed
                else (sources[name], "the input")
            )
            found.failures.append(_output_failure(path, _collision(output, owner, role)))
            continue
        claimed[name] = path
        found.inputs.append(_Input(path=path, output=output, format=writer))
    return found


def _no_writer(output: Path) -> _OutputError:
    return _OutputError(
        "Unsupported",
        "why: Pillow has no writer for the output's extension; "
        f"observed: {_shown(str(output))} (extension {output.suffix or 'none'!r}); "
        "fix: pass --format with a writable extension such as png",
    )


def _collision(output: Path, owner: Path, role: str) -> _OutputError:
    return _OutputError(
        "OutputCollision",
        "why: two inputs of this run map to one output name, and outputs are never "
        "overwritten within a run (the first input keeps the name); "
        f"observed: {_shown(str(output))} is already {role} {_shown(str(owner))}; "
        "fix: rename one input, run the folders separately with different --output-dir, "
        "or keep the extensions distinct (no --format)",
    )


# -- writing ---------------------------------------------------------------------------------


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@dataclass(slots=True, kw_only=True)
class _Writer:
    """Writes outputs atomically, never through a symlink and never twice to one file."""

    root: str | None  # the resolved --output-dir, or None when writing beside inputs
    overwrite: bool
    quality: int | None = None  # --quality, for the formats in QUALITY_FORMATS
    mode: int = field(default_factory=_file_mode)
    written: set[tuple[int, int]] = field(default_factory=set)

    def check(self, item: _Input) -> None:
        """Raise :class:`_OutputError` when ``item``'s output must not be written."""
        parent = item.output.parent
        if self.root is not None:
            real = _real(parent)
            if not _within(real, self.root):
                raise _OutputError(
                    "UnsafeOutput",
                    "why: a symlink inside the output folder leads out of it, and outputs are "
                    f"never written outside it; observed: {_shown(str(parent))} resolves to "
                    f"{_shown(real)}; fix: remove the symlink, or choose another --output-dir",
                )
        try:
            status = os.lstat(item.output)
        except FileNotFoundError:
            return
        except NotADirectoryError as error:
            raise _OutputError(
                "NotADirectoryError",
                f"why: the output's folder is a file; observed: {error}; "
                "fix: remove that file, or choose another --output-dir",
            ) from error
        if (status.st_dev, status.st_ino) in self.written:
            raise _OutputError(
                "OutputCollision",
                "why: another input of this run was already written to this file (the file "
                "system folds names or links folders); observed: "
                f"{_shown(str(item.output))}; fix: rename one input or use separate runs",
            )
        if stat.S_ISDIR(status.st_mode):
            raise _OutputError(
                "IsADirectoryError",
                f"why: a folder sits at the output name; observed: {_shown(str(item.output))}; "
                "fix: move the folder, or choose another --suffix or --output-dir",
            )
        if not self.overwrite:
            link = " (a symlink, which is never followed)" if stat.S_ISLNK(status.st_mode) else ""
            raise _OutputError(
                "FileExistsError",
                f"why: the output already exists{link}; observed: {_shown(str(item.output))}; "
                "fix: pass --overwrite, another --suffix or --output-dir",
            )

    def write(self, item: _Input, image: PILImage.Image) -> None:
        """Save ``image`` to a temporary file beside the output, then rename it into place.

        A symlink at the output name is replaced, never followed. On any failure (an
        interrupt included) the temporary file is removed and the old output is untouched.
        """
        self.check(item)
        parent = item.output.parent
        parent.mkdir(parents=True, exist_ok=True)
        self.check(item)  # the folders exist now: resolve them again
        prefix = f".{item.output.name[:64]}."
        handle, temp = tempfile.mkstemp(prefix=prefix, suffix=TEMP_SUFFIX, dir=parent)
        options = {}
        if self.quality is not None and item.format in QUALITY_FORMATS:
            options["quality"] = self.quality
        try:
            with os.fdopen(handle, "wb") as stream:
                image.save(stream, format=item.format, **options)
            os.chmod(temp, self.mode)
            os.replace(temp, item.output)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        status = os.lstat(item.output)
        self.written.add((status.st_dev, status.st_ino))


# -- the run ---------------------------------------------------------------------------------


class _Interrupt:
    """SIGINT handling: the first signal asks the run to stop, a second one raises."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None
        self._installed = False

    def __call__(self) -> bool:
        return self.requested

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> _Interrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            previous = self._previous if self._previous is not None else signal.SIG_DFL
            signal.signal(signal.SIGINT, previous)


@dataclass(slots=True, kw_only=True)
class _Run:
    """Shared state of one ``apply`` run: inputs, writer, failures, counters."""

    chain: Chain
    admission: Admission
    stop_on_error: bool
    writer: _Writer
    interrupt: _Interrupt
    inputs: list[_Input] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    written: int = 0
    settled: int = 0
    output_bytes: int = 0
    exhausted: bool = False
    stopped: bool = False

    @property
    def halted(self) -> bool:
        return self.stopped or self.interrupt.requested

    def fail(self, failure: Failure, report: _Report) -> None:
        self.failures.append(failure)
        report(failure)
        if self.stop_on_error:
            self.stopped = True

    def jobs(self, report: _Report) -> Iterator[tuple[int, Image.Image]]:
        """Yield ``(index, lazy graph)``; inputs that cannot be admitted are reported here."""
        for index, item in enumerate(self.inputs):
            if self.halted:
                break
            graph = self._graph(item, report)
            if graph is None:
                self.settled += 1
                continue
            yield index, graph
        self.exhausted = True

    def _graph(self, item: _Input, report: _Report) -> Image.Image | None:
        key = str(item.path)
        try:
            self.writer.check(item)
        except _OutputError as error:
            self.fail(_output_failure(key, error), report)
            return None
        except OSError as error:
            self.fail(Failure.from_error(key, error, "output"), report)
            return None
        try:
            source = Image.open(item.path)  # the header only; decoding happens on upload
        except Exception as error:  # DecompressionBombError and MemoryError included
            self.fail(Failure.from_error(key, error, "open"), report)
            return None
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
            return None
        try:
            return self.chain.apply(source)
        except Exception as error:
            self.fail(Failure.from_error(key, error, "record"), report)
            return None

    def path_of(self, key: object) -> str:
        if isinstance(key, int) and 0 <= key < len(self.inputs):
            return str(self.inputs[key].path)
        return _RUN

    def save(self, key: object, image: PILImage.Image, report: _Report) -> bool:
        """Write the result of input ``key``; report a failure instead of raising."""
        self.settled += 1
        assert isinstance(key, int)
        item = self.inputs[key]
        try:
            self.writer.write(item, image)
        except _OutputError as error:
            self.fail(_output_failure(item.path, error), report)
            return False
        except Exception as error:  # MemoryError included
            self.fail(Failure.from_error(str(item.path), error, "save"), report)
            return False
        self.written += 1
        self.output_bytes += image.width * image.height * len(image.getbands())
        return True


def _executor(args: argparse.Namespace) -> Any:
    from pillow_gpu import GpuBatchExecutor

    return GpuBatchExecutor(
        max_jobs=args.max_jobs,
        max_in_flight=args.max_in_flight,
        gpu_bytes=args.gpu_mib << 20,
        host_bytes=args.host_mib << 20,
    )


def _drive(run: _Run, args: argparse.Namespace, bar: Any) -> None:
    """Stream every input through the executor, restarting a stream an error stopped."""
    started = time.perf_counter()

    def report(failure: Failure) -> None:
        bar.write(f"pillow-gpu: failed: {failure}", file=sys.stderr)
        bar.update(1)

    feed = run.jobs(report)
    with _executor(args) as executor:  # settings were checked by run_apply
        while not run.exhausted and not run.halted:
            # A job-scoped error surfaces from next(); the stream keeps going, except after
            # an admission error, which stops it reading inputs: then a new stream resumes
            # from the same feed. Closing the stream (on a stop or SIGINT) cancels the jobs
            # still in flight, so nothing after the file being saved is written.
            with executor.run(feed, output="cpu") as results:
                while not run.halted:
                    try:
                        result = next(results)
                    except StopIteration:
                        break
                    except GpuError as error:
                        key = error.input_key
                        path = run.path_of(key)
                        if path != _RUN:
                            run.settled += 1
                        run.fail(Failure.from_error(path, error, error.stage), report)
                        if run.stopped or path == _RUN or executor.closed:
                            # Not job-scoped (e.g. the device failed): nothing can go on.
                            run.stopped = True
                            return
                        continue
                    except Exception as error:  # not attributable to one input
                        run.fail(Failure.from_error(_RUN, error, "run"), report)
                        run.stopped = True
                        return
                    if run.save(result.input_key, result.image, report):
                        bar.update(1)
                    elapsed = max(time.perf_counter() - started, 1e-9)
                    bar.set_postfix_str(f"{run.output_bytes / elapsed / 1e6:.1f} MB/s")


def run_apply(args: argparse.Namespace) -> int:
    """Run ``pillow-gpu apply`` with parsed arguments (``args.chain`` is a parsed Chain)."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    problem = _check_options(args)
    if problem is not None:
        print(f"pillow-gpu: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    chain: Chain = args.chain
    admission = admitted_modes(chain)
    try:
        admission.require_any(chain)
    except ChainError as error:
        print(f"pillow-gpu: error: chain refused before reading any file: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        _executor(args).close()  # check the executor settings before reading any file
    except (TypeError, ValueError) as error:
        print(f"pillow-gpu: error: invalid executor setting: {error}", file=sys.stderr)
        return EXIT_USAGE
    writer = _Writer(
        root=_real(args.output_dir) if args.output_dir else None,
        overwrite=args.overwrite,
        quality=args.quality,
    )
    started = time.perf_counter()
    with _Interrupt() as interrupt:
        run = _Run(
            chain=chain,
            admission=admission,
            stop_on_error=args.stop_on_error,
            writer=writer,
            interrupt=interrupt,
        )
        found = _Discovery()
        try:
            found = _discover(args.paths, args, interrupt)
            run.inputs = found.inputs
            run.failures.extend(found.failures)
            for failure in run.failures:
                print(f"pillow-gpu: failed: {failure}", file=sys.stderr)
            if run.failures and run.stop_on_error:
                return EXIT_FAILED
            progress = args.progress if args.progress is not None else sys.stderr.isatty()
            with tqdm(
                total=len(run.inputs),
                unit="img",
                disable=not progress,
                file=sys.stderr,
                dynamic_ncols=True,
            ) as bar:
                _drive(run, args, bar)
        except KeyboardInterrupt:  # a second SIGINT: the file being saved was discarded
            interrupt.requested = True
        _summary(run, admission, time.perf_counter() - started, found.duplicates)
    if interrupt.requested:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if run.failures else EXIT_OK


def _summary(run: _Run, admission: Admission, elapsed: float, duplicates: int) -> None:
    elapsed = max(elapsed, 1e-9)
    notes = ""
    if duplicates:
        notes += f", {duplicates} duplicate input(s) ignored"
    if run.interrupt.requested:
        left = len(run.inputs) - run.settled
        print(
            "pillow-gpu: interrupted (SIGINT): stopped after the file being saved; every "
            f"output written is complete; {left} input(s) not processed; run the command "
            "again to process them (existing outputs are reported unless --overwrite)",
            file=sys.stderr,
        )
        notes += f", interrupted with {left} not processed"
    print(
        f"pillow-gpu apply: {run.written} written, {len(run.failures)} failed{notes} in "
        f"{elapsed:.2f} s ({run.written / elapsed:.1f} img/s, "
        f"{run.output_bytes / elapsed / 1e6:.2f} MB/s); chain {run.chain} is admitted for "
        f"{', '.join(admission.admitted)}"
    )
