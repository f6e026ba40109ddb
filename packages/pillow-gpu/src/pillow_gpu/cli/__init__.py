"""The ``pillow-gpu`` command line: ``apply``, ``info`` and ``bench``.

``pillow-gpu apply CHAIN PATH...`` streams image files through a chain of operations on the
GPU (see :mod:`pillow_gpu.cli._chain` for the syntax), ``pillow-gpu info`` prints the adapter,
its limits and the native route table, and ``pillow-gpu bench`` runs the benchmark
(:mod:`pillow_gpu.bench`). ``python -m pillow_gpu`` is the same command.

wgpu-native's warnings while it creates the adapter ("Unable to find extension: ...", "No
config found!", "No windowing system present. Using surfaceless platform", ...) reach Python's
``wgpu`` logger at WARNING level, which prints them on stderr. The command sets that logger
to ERROR for the duration of a run (wgpu passes the level on to wgpu-native), so only errors
show; ``-v``/``--verbose`` (or ``PILLOW_GPU_VERBOSE=1``) shows the warnings, ``-vv`` wgpu's
info messages too.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version

from pillow_gpu.cli._chain import ChainError, parse_chain
from pillow_gpu.cli._report import silence_standard_streams
from pillow_gpu.cli._steps import describe_steps
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

__all__ = ["VERBOSE_ENV", "build_parser", "main"]

#: Environment variable giving the default ``--verbose`` count (e.g. ``PILLOW_GPU_VERBOSE=1``).
VERBOSE_ENV = "PILLOW_GPU_VERBOSE"
#: ``wgpu`` logger level per ``--verbose`` count (0: errors only).
_WGPU_LEVELS = (logging.ERROR, logging.WARNING, logging.INFO)


def _version_text() -> str:
    def of(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
            return "unknown"

    return f"pillow-gpu {of('pillow-gpu')} (Pillow {of('pillow')}, wgpu {of('wgpu')})"


def _verbosity(args: argparse.Namespace) -> int:
    given = getattr(args, "verbose", None)
    if given is not None:
        return int(given)
    text = os.environ.get(VERBOSE_ENV, "").strip()
    return int(text) if text.isdigit() else 0


@contextlib.contextmanager
def _wgpu_log_level(verbosity: int) -> Iterator[None]:
    """Set wgpu's logger (and so wgpu-native's log level) for one command, then restore it."""
    import wgpu  # type: ignore[import-untyped]  # noqa: F401 - installs wgpu's own logger class

    logger = logging.getLogger("wgpu")
    previous = logger.level
    logger.setLevel(_WGPU_LEVELS[min(max(verbosity, 0), len(_WGPU_LEVELS) - 1)])
    try:
        yield
    finally:
        logger.setLevel(previous)


def _register_plugins() -> None:
    """Register the installed Pillow plugins (:mod:`pillow_gpu.cli._plugins`); say why where
    one is installed but fails."""
    from pillow_gpu.cli._plugins import register_plugins

    for problem in register_plugins()[1]:
        print(f"pillow-gpu: warning: {problem}", file=sys.stderr)


def _cmd_info(args: argparse.Namespace) -> int:
    from pillow_gpu.cli._info import render_info

    sys.stdout.write(render_info(as_json=args.json))
    return 0


def _cmd_apply(args: argparse.Namespace) -> int:
    from pillow_gpu.cli._apply import run_apply
    from pillow_gpu.cli._exit import EXIT_INTERRUPTED, EXIT_USAGE

    if args.ray is None:
        given = [name for name in _RAY_ONLY if getattr(args, name) is not None]
        if given:
            options = ", ".join("--" + name.replace("_", "-") for name in given)
            print(
                f"pillow-gpu: error: why: {options} only apply with --ray; observed: no --ray; "
                "fix: add --ray (a local cluster) or --ray ADDRESS, or drop the option",
                file=sys.stderr,
            )
            return EXIT_USAGE
    _register_plugins()
    try:
        if args.ray is not None:
            from pillow_gpu.cli._apply_ray import run_apply_ray

            return run_apply_ray(args)
        return run_apply(args)
    except KeyboardInterrupt:  # before the run's own SIGINT handling was installed
        print("pillow-gpu: interrupted (SIGINT) before any file was read", file=sys.stderr)
        return EXIT_INTERRUPTED


#: ``apply`` options that only mean something with ``--ray``.
_RAY_ONLY = ("ray_actors", "ray_gpus", "batch_size")

_APPLY_OUTPUTS = """\
Outputs:
  Without -o, each output is written beside its input as STEM + SUFFIX + extension
  (default a.png -> a.gpu.png); a later run over the folder skips files whose stem ends in
  SUFFIX. With -o, outputs keep their names and sub-folders under the output folder, which
  is never read as input (even inside an input folder with -r).
  The extension is --format's, or the input's (for a file named with another extension or
  none, such as photo.jpg_large, its format's usual one: photo.gpu.jpg).
  A folder's files are those with an extension Pillow reads (.heic and .jxl too where
  pillow-heif or pillow-jxl-plugin is installed: they are registered); hidden files and
  folders (names starting with a dot) are left out, as a shell's * leaves them out. The
  summary counts what was left out, by extension, and apart the images under other names
  (identified by their content), which run when named on the command line.
  Each output name is claimed once per run: inputs are de-duplicated by resolved path (the
  first mention wins), and a later input that maps to an output name already claimed (a.png
  in two input folders, or x/a.png and x/a.jpg with --format png) fails as OutputCollision;
  nothing is overwritten within a run.
  Each output is written to a hidden temporary file beside it and renamed into place: a
  final name never holds a partial file, and a failed save keeps the old output. A symlink
  at an output name is never followed (--overwrite replaces the link itself), and nothing is
  written through a symlink leading out of the output folder.
  Every per-file problem is reported on stderr by path and the run goes on (unless
  --stop-on-error). The first Ctrl-C (SIGINT) finishes the file being saved, discards the
  rest and prints the summary; a second one stops at once.

Refusals and --cpu-fallback:
  Each file is planned for the GPU on its own. A file whose job the GPU refuses at
  admission (Unsupported or Limit: a mode, size or step not proven byte-exact) is reported
  as "PATH: Unsupported at admission: ..." and not written; with --cpu-fallback the same
  chain runs on it with live Pillow and it is written the same way. The GPU path never
  falls back by itself, and a file that fails to decode is reported, never retried on the
  CPU. The summary counts the outputs written on the GPU and by the CPU fallback, the
  refused and the failed inputs, and the top 5 refusal reasons with their counts.
"""


def _apply_epilog() -> str:
    from pillow_gpu.cli._exit import EXIT_STATUSES

    statuses = "\n".join(f"  {code:<3}  {meaning}" for code, meaning in EXIT_STATUSES)
    return (
        "CHAIN is a comma-separated list of steps, each NAME or NAME:ARG[:ARG]; for "
        f"example invert,gaussian_blur:2,grayscale. Steps:\n{describe_steps()}\n\n"
        f"{_APPLY_OUTPUTS}\nExit status:\n{statuses}\n"
    )


def _cmd_bench(args: argparse.Namespace) -> int:
    from pillow_gpu.bench._cli import run_from_args

    return run_from_args(args)


def _add_apply(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "apply",
        help="stream image files through a chain of GPU operations",
        description="Stream image files (or folders of them) through CHAIN on the GPU with "
        "GpuBatchExecutor.run, writing one output per input. The chain is checked against "
        "the GPU planner before any file is read.",
        epilog=_apply_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("chain", help="the chain of steps, e.g. invert,gaussian_blur:2")
    parser.add_argument("paths", nargs="+", help="image files or folders of image files")
    parser.add_argument(
        "-o",
        "--output-dir",
        help="write outputs into this folder (keeping names and sub-folders; created when "
        "missing; never an input folder); by default each output is written beside its input "
        "with --suffix added to its stem",
    )
    parser.add_argument(
        "--suffix",
        default=".gpu",
        help="added to each output's stem when writing beside the input (default: .gpu); "
        "no path separators; must not be empty without --output-dir",
    )
    parser.add_argument(
        "--format",
        help="output file extension Pillow can write, e.g. png (default: the input's)",
    )
    parser.add_argument("-r", "--recursive", action="store_true", help="descend into sub-folders")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing output files (atomically; a failed save keeps the old file)",
    )
    errors = parser.add_mutually_exclusive_group()
    errors.add_argument(
        "--stop-on-error",
        dest="stop_on_error",
        action="store_true",
        help="stop at the first failed input",
    )
    errors.add_argument(
        "--keep-going",
        dest="stop_on_error",
        action="store_false",
        help="report failed inputs and carry on with the rest (the default)",
    )
    parser.add_argument(
        "--cpu-fallback",
        action="store_true",
        help="run files whose GPU job is refused at admission (Unsupported, Limit) through "
        "live Pillow with the same chain and write them the same way; counted separately "
        "in the summary (default: refused files are reported and not written)",
    )
    frames = parser.add_mutually_exclusive_group()
    frames.add_argument(
        "--first-frame",
        action="store_true",
        help="write only the first frame of an animation or a multi-page file (GIF, APNG, "
        "WebP, TIFF, ...), as Image.open and the chain give it in Pillow (default: such a file "
        "is reported and not written, since its other frames would be lost; an MPO's "
        "previews and a PSD's layers are not counted as frames)",
    )
    frames.add_argument(
        "--all-frames",
        action="store_true",
        help="run every frame of an animation or a multi-page file through the chain and "
        "write them all as one file, with each frame's duration and the loop count (Pillow's "
        "save_all of the frames ImageSequence gives); results of different sizes fail for "
        "GIF, APNG, WebP and AVIF outputs, whose animations hold one size",
    )
    parser.add_argument("--max-jobs", type=int, default=64, help="executor max_jobs (64)")
    parser.add_argument("--max-in-flight", type=int, default=2, help="executor max_in_flight (2)")
    parser.add_argument("--gpu-mib", type=int, default=1024, help="executor gpu_bytes in MiB")
    parser.add_argument("--host-mib", type=int, default=1024, help="executor host_bytes in MiB")
    parser.add_argument(
        "--max-submission-work",
        type=int,
        default=MAX_SUBMISSION_WORK,
        help="executor max_submission_work: the shader-work units one submission may hold "
        f"(default {MAX_SUBMISSION_WORK:.0e}, sized for a 2-core software adapter under a GPU "
        "watchdog; raise it on a fast GPU for heavy steps on large photos)",
    )
    parser.add_argument(
        "--decode-threads",
        type=int,
        default=None,
        help="threads that decode files while earlier ones run (default: the CPUs less one, "
        "at most 8; 0 on a CPU adapter; per actor with --ray)",
    )
    parser.add_argument(
        "--write-threads",
        type=_threads,
        default=None,
        help="threads that encode and write outputs while the GPU runs the next files, "
        "reported in input order (default: the CPUs, at most 8, and 0 with --stop-on-error; 0 "
        "writes each output in the thread that drives the GPU)",
    )
    parser.add_argument(
        "--quality",
        type=_quality,
        help="JPEG/WebP/AVIF quality 0..100 passed to Pillow's save (default: Pillow's, 75 "
        "for JPEG and AVIF, 80 for WebP); outputs of other formats are written without it, "
        "and with a --format of another format it is a usage error",
    )
    parser.add_argument(
        "--strip-metadata",
        action="store_true",
        help="write outputs without the input's EXIF (camera data, GPS position; a TIFF's "
        "make, model, artist, copyright and Exif directory), ICC profile, XMP, IPTC record "
        "(captions, credits, keywords), resolution and comment (a JPEG's or GIF's) "
        "(default: each is written where the output format holds it, as the chain leaves it: "
        "exif_transpose removes the orientation it applied; the ICC profile only where it "
        "describes the output's mode)",
    )
    ray = parser.add_argument_group(
        "Ray Data (needs pillow-gpu[ray]; see docs/ray.md)",
        "Put --ray after the inputs (or write --ray=ADDRESS): a bare word after it is taken "
        "as the address.",
    )
    ray.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run the chain on a Ray Data cluster: ADDRESS (auto, ray://HOST:10001, ...) or, "
        "without one, a local cluster started for the run; one GpuBatchExecutor per actor, "
        "outputs written by this process with the same rules",
    )
    ray.add_argument("--ray-actors", type=int, default=None, help="actors in the pool (default: 1)")
    ray.add_argument(
        "--ray-gpus",
        type=float,
        default=None,
        help="GPUs Ray reserves per actor: 1 for one actor per GPU, 0.5 for two (default: 1 "
        "when the cluster has GPUs, else 0)",
    )
    ray.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="rows per map_batches call, i.e. per actor call (default: 16)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar with throughput (default: when stderr is a terminal)",
    )
    _add_verbose(parser)
    parser.set_defaults(func=_cmd_apply)


def _threads(text: str) -> int:
    value = int(text)
    if value < 0:
        msg = f"a thread count must be 0 or more; observed {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _quality(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 100:
        msg = f"quality must be 0..100; observed {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _add_verbose(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        # Only the top level has a default, so a subcommand's -v is not reset by it.
        default=None if top else argparse.SUPPRESS,
        help="show wgpu's warnings while it creates the adapter (-vv: its info messages "
        f"too); default from {VERBOSE_ENV}, else errors only",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``pillow-gpu``."""
    parser = argparse.ArgumentParser(
        prog="pillow-gpu",
        description="Byte-exact Pillow operations on the GPU through wgpu.",
    )
    parser.add_argument("--version", action="version", version=_version_text())
    _add_verbose(parser, top=True)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{apply,info,bench}")
    _add_apply(commands)
    info = commands.add_parser(
        "info", help="print the adapter, its limits and the native route table"
    )
    info.add_argument("--json", action="store_true", help="print JSON instead of text")
    _add_verbose(info)
    info.set_defaults(func=_cmd_info)
    from pillow_gpu.bench._cli import add_bench_arguments

    bench = commands.add_parser(
        "bench",
        help="run the benchmark (Pillow baselines, executor lanes, peer, reference, ceiling)",
        description="Benchmark GpuBatchExecutor against sequential Pillow, Pillow over all "
        "CPU cores, pillow-rs (--pillow-rs-venv), hand-written reference kernels, the "
        "transfer bound and a direct-wgpu ceiling; write JSON, Markdown and a PNG plot.",
    )
    add_bench_arguments(bench)
    _add_verbose(bench)
    bench.set_defaults(func=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``pillow-gpu`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "chain", None) is not None:
        try:
            args.chain = parse_chain(args.chain)
        except ChainError as error:
            parser.exit(2, f"pillow-gpu: error: invalid chain: {error}\n")
    try:
        with _wgpu_log_level(_verbosity(args)):
            result: int = args.func(args)
    except GpuError as error:  # e.g. no adapter: say why instead of a traceback
        print(f"pillow-gpu: error: {error.kind} at {error.stage}: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader of the output went away (`pillow-gpu ... | head -1`): stop quietly, as
        # other command-line tools do. Outputs already written stay; one being written is
        # removed with its temporary file, as on any failure.
        silence_standard_streams()
        return 1
    return result
