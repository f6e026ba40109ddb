"""``pillow-gpu apply``: stream image files through a chain with ``GpuBatchExecutor.run``.

The chain is admitted against the GPU planner on probe images before any file is read (see
:func:`pillow_gpu.cli._chain.admitted_modes`). Inputs are then opened lazily one at a time
(only the header is read until the executor decodes the file), outputs are written as results
arrive, and every failed input is reported by its path with the structured error (``kind``,
``stage`` and the "why; observed; fix" message). ``--stop-on-error`` stops at the first
failure; by default the remaining inputs are still processed.

What a run guarantees (the README's "apply" section says the same for users):

- Every input ends in one outcome the summary counts: written by the GPU (byte-exact with
  Pillow), written by the CPU fallback, refused by the GPU and not written, or failed.
- A file whose GPU job is refused at admission (``Unsupported`` or ``Limit``: a mode, size or
  step the GPU has not proven exact) is reported and not written; with ``--cpu-fallback``
  the same chain runs on it with live Pillow instead and the output is written the same
  way. The GPU path never falls back by itself, and a file that fails to decode is reported,
  never retried on the CPU (it is as broken there).
- One file's failure never stops the others: a refusal found while recording or planning a
  file here never reaches the executor, and a job the executor refuses ends its stream's
  reading only, after which a new stream resumes from the next input (what
  ``GpuBatchExecutor.run`` offers today).
- Output names, atomic writes and symlinks: see :mod:`pillow_gpu.cli._outputs`. Every
  per-file problem (``MemoryError`` and Pillow's ``DecompressionBombError`` included) is a
  reported failure, and the run goes on.
- Outputs are written by worker threads (:mod:`pillow_gpu.cli._output_queue`,
  ``--write-threads``) and settled in input order, so the report is the one a single writing
  thread gives.
- The first SIGINT (or SIGTERM: ``kill``, ``timeout``, ``docker stop``; or SIGHUP: the terminal
  closed) finishes the files being saved, discards the rest and prints the summary so far (exit
  status 130, SIGTERM 143, SIGHUP 129); a second signal stops at once, still without a partial
  output. A signal the command was started with ignored (``nohup``) stays ignored.

Exit status: :data:`EXIT_OK`, :data:`EXIT_FAILED`, :data:`EXIT_USAGE`, :data:`EXIT_INTERRUPTED`,
:data:`EXIT_TERMINATED`, :data:`EXIT_HANGUP`.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence

from pillow_gpu import Image
from pillow_gpu.cli._chain import Admission, Chain, ChainError, admitted_modes
from pillow_gpu.cli._exit import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    Interrupt,
)
from pillow_gpu.cli._fallback import memory_refusal
from pillow_gpu.cli._frames import ExtraFrames, refuse_extra_frames, run_frames
from pillow_gpu.cli._metadata import NO_ITEMS, FileItems, file_items
from pillow_gpu.cli._options import check_options
from pillow_gpu.cli._output_queue import OutputQueue, write_threads
from pillow_gpu.cli._outputs import (
    QUALITY_FORMATS,
    TEMP_SUFFIX,
    Discovery,
    Input,
    OutputError,
    Writer,
    discover,
    output_failure,
    real_path,
)
from pillow_gpu.cli._plugins import skipped_note
from pillow_gpu.cli._report import (
    Failure,
    Tally,
    is_refusal,
    printable,
    shown,
    silence_standard_streams,
)
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._planner import plan_graph

__all__ = [
    "QUALITY_FORMATS",
    "TEMP_SUFFIX",
    "Failure",
    "run_apply",
]

_RUN = "(no single input: the run)"


class _Quiet:
    """The progress bar's interface before the bar exists: lines go to stderr."""

    def write(self, text: str, file: Any = None) -> None:
        print(text, file=sys.stderr)

    def update(self, count: int = 1) -> None:
        pass

    def set_postfix_str(self, text: str) -> None:
        pass


@dataclass(slots=True, kw_only=True)
class _Run:
    """Shared state of one ``apply`` run: inputs, writer, outcome tally, progress."""

    chain: Chain
    admission: Admission
    stop_on_error: bool
    fallback: bool
    first_frame: bool
    all_frames: bool
    writer: Writer
    interrupt: Interrupt
    #: The writes of outputs, by worker threads (--write-threads), settled in input order.
    outputs: OutputQueue = field(default_factory=lambda: OutputQueue(0, 0))
    inputs: list[Input] = field(default_factory=list)
    #: Inputs of several frames that --all-frames runs after the stream, frame by frame.
    animations: list[int] = field(default_factory=list)
    #: What outputs keep of their input files beyond the results' info, by input (a PNG's
    #: text chunks, a TIFF's picture tags; cli._metadata); inputs holding none are left out.
    file_items: dict[int, FileItems] = field(default_factory=dict)
    tally: Tally = field(default_factory=Tally)
    bar: Any = field(default_factory=_Quiet)
    started: float = field(default_factory=time.perf_counter)
    settled: int = 0
    exhausted: bool = False
    stopped: bool = False
    #: Why the run stopped before its inputs were all processed, where no input was at fault
    #: (the output's file system refuses every write); empty otherwise.
    stop_reason: str = ""

    @property
    def halted(self) -> bool:
        return self.stopped or self.interrupt.requested

    def fail(self, failure: Failure) -> None:
        """Count and report an input that is not written."""
        self.tally.failures.append(failure)
        self.bar.write(f"pillow-gpu: failed: {failure}", file=sys.stderr)
        self.bar.update(1)
        if self.stop_on_error:
            self.stopped = True
            self.outputs.cancel()

    def jobs(self) -> Iterator[tuple[int, Image.Image]]:
        """Yield ``(index, lazy graph)``; inputs settled without the GPU are handled here."""
        for index, item in enumerate(self.inputs):
            if self.halted:
                break
            graph = self._graph(index, item)
            if graph is None:
                self.settled += 1
                continue
            if not isinstance(graph, Image.Image):  # _ANIMATION: runs after the stream
                self.animations.append(index)
                continue
            yield index, graph
        self.exhausted = True

    def _graph(self, index: int, item: Input) -> Image.Image | object | None:
        key = str(item.path)
        try:
            self.writer.check(item)
        except OutputError as error:
            self.fail(output_failure(key, error))
            return None
        except OSError as error:
            self.fail(Failure.from_error(key, error, "output"))
            return None
        try:
            source = Image.open(item.path)  # the header only; decoding happens on upload
        except Exception as error:  # DecompressionBombError and MemoryError included
            self.fail(Failure.from_error(key, error, "open"))
            return None
        items = file_items(source) if self.writer.metadata else NO_ITEMS  # read only if kept
        if items != NO_ITEMS:
            self.file_items[index] = items
        if not self.first_frame:
            try:
                refuse_extra_frames(source)
            except ExtraFrames as error:
                if self.all_frames and error.counted:
                    return _ANIMATION
                self.fail(Failure.from_error(key, error, "frames"))
                return None
        mode = source.mode
        try:
            graph = self.chain.apply(source)
            if mode not in self.admission.admitted:
                # Likely refused (the probes were, or never ran for this mode): plan the file
                # here, where a refusal stops nothing, instead of in the executor's stream.
                plan_graph(graph)
        except Exception as error:
            if isinstance(error, GpuError) and is_refusal(error):
                self.refuse(index, error)
            else:  # a chain Pillow itself cannot apply to this file
                self.fail(Failure.from_error(key, error, "record"))
            return None
        return graph

    def refuse(self, index: int, error: GpuError) -> None:
        """A GPU refusal: counted by reason, then run with Pillow (--cpu-fallback) or failed."""
        item = self.inputs[index]
        self.tally.reasons[error.why] += 1
        if not self.fallback:
            self.fail(Failure.refused(str(item.path), error))
            return
        self.bar.write(
            f"pillow-gpu: cpu fallback: {shown(str(item.path))}: {error.kind} at "
            f"{error.stage}: {printable(error.why)}",
            file=sys.stderr,
        )
        too_large = memory_refusal(item.path, self.chain, animation=index in self.animations)
        if too_large is not None:
            self.fail(too_large)
            return
        try:
            with PILImage.open(item.path) as opened:
                try:
                    if index in self.animations:  # every frame, as --all-frames writes them
                        frames = [
                            self.chain.apply_pil(frame.copy())
                            for frame in PILImageSequence.Iterator(opened)
                        ]
                    else:
                        frames = [self.chain.apply_pil(opened)]
                    for result in frames:
                        result.load()
                except Exception as failure:
                    self.fail(Failure.from_error(str(item.path), failure, "fallback"))
                    return
                # Written before the file closes (which drops the pixels of its results).
                self.save(index, *frames, route="cpu", wait=True)
        except Exception as failure:  # the file could no longer be opened
            self.fail(Failure.from_error(str(item.path), failure, "fallback"))

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Settle every queued write, in order, when the block ends, and stop the writers; the
        writes not started yet are cancelled where the block was interrupted or raised, or a
        stop was asked."""
        interrupted = True
        try:
            yield
            interrupted = False
        finally:
            if interrupted or self.interrupt.requested:
                self.outputs.cancel()
            try:
                self.outputs.finish()
            finally:
                self.outputs.close()

    def path_of(self, key: object) -> str:
        if isinstance(key, int) and 0 <= key < len(self.inputs):
            return str(self.inputs[key].path)
        return _RUN

    def save(
        self,
        index: int,
        image: PILImage.Image,
        *more: PILImage.Image,
        route: str,
        wait: bool = False,
        left_out: tuple[str, ...] = (),
    ) -> None:
        """Queue the write of input ``index``'s result (with ``more`` frames: all of them as
        one file), made on ``route`` (``"gpu"`` or ``"cpu"``, the fallback's); its outcome is
        counted and reported when it is settled (at once with ``wait``), never raised. The
        metadata ``left_out`` of an output encoded elsewhere (a Ray actor's) count with it."""
        item = self.inputs[index]
        source = self.file_items.get(index, NO_ITEMS)
        nbytes = sum(frame.width * frame.height * len(frame.getbands()) for frame in (image, *more))

        def write() -> list[str]:
            return self.writer.write(item, image, *more, source=source)

        def settle(outcome: Future[list[str]]) -> None:
            self._saved(index, image, route, outcome, left_out)

        self.outputs.make_room(nbytes)  # settling earlier writes may stop the run
        if self.halted:  # a full disk, --stop-on-error or an interrupt: not processed
            self.settled -= 1
            return
        self.outputs.put(write, nbytes, settle, wait=wait)

    def _saved(
        self,
        index: int,
        image: PILImage.Image,
        route: str,
        outcome: Future[Any],
        noted: tuple[str, ...],
    ) -> None:
        """Count and report one settled write (a cancelled one is an input not processed)."""
        item = self.inputs[index]
        if outcome.cancelled():
            self.settled -= 1
            return
        try:
            left_out = outcome.result()
        except OutputError as error:
            self.fail(output_failure(item.path, error))
            return
        except Exception as error:  # MemoryError included
            unsaved = Failure.from_error(
                str(item.path), error, "save", mode=image.mode, file_format=item.format
            )
            self.fail(unsaved)
            if isinstance(error, OSError) and error.errno in _FILE_SYSTEM_REFUSALS:
                # No later output can be written either: stop instead of failing them all.
                self.stop_reason = f"the output's file system refused a write ({error.strerror})"
                self.stopped = True
                self.outputs.cancel()
            return
        if route == "gpu":
            self.tally.gpu += 1
        else:
            self.tally.cpu += 1
        self.tally.leave_out([*noted, *left_out])
        self.tally.output_bytes += image.width * image.height * len(image.getbands())
        self.bar.update(1)
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        self.bar.set_postfix_str(f"{self.tally.output_bytes / elapsed / 1e6:.1f} MB/s")

    def settle(self, error: GpuError, closed: bool) -> bool:
        """Handle a GPU error from the stream; False when the run cannot go on."""
        path = self.path_of(error.input_key)
        if path == _RUN:
            self.fail(Failure.from_error(path, error, error.stage))
            return False
        self.settled += 1
        if is_refusal(error):
            assert isinstance(error.input_key, int)
            self.refuse(error.input_key, error)
        else:  # a decode failure: reported, never retried on the CPU
            self.fail(Failure.from_error(path, error, error.stage))
        return not (self.stopped or closed)  # closed: not job-scoped (the device failed)

    def animate(self, executor: Any, index: int) -> None:
        """Run every frame of input ``index`` (``--all-frames``) as one stream of jobs and
        write them as one file; a frame the GPU refuses refuses the whole file. Frames are
        decoded as the stream reaches them, so only the results are held together."""
        item = self.inputs[index]
        self.settled += 1
        try:
            run = run_frames(executor, self.chain.apply, item.path)
        except Exception as error:  # not one frame's: the executor cannot go on
            self.fail(Failure.from_error(str(item.path), error, "run"))
            self.stopped = True
            return
        failure = run.failure
        if run.stopped is not None:
            stage, problem = run.stopped
            if isinstance(problem, GpuError) and is_refusal(problem):
                self.refuse(index, problem)
            else:
                self.fail(Failure.from_error(str(item.path), problem, stage))
        elif failure is None:
            self.save(index, *run.results, route="gpu")
        elif is_refusal(failure):
            self.refuse(index, failure)
        else:  # a frame that fails to decode: reported, never retried on the CPU
            self.fail(Failure.from_error(str(item.path), failure, failure.stage))


#: Errors of a write that every later write to the same file system would meet too.
_FILE_SYSTEM_REFUSALS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})

#: What ``_Run._graph`` returns for a file of several frames under ``--all-frames``.
_ANIMATION = object()


def _executor(args: argparse.Namespace) -> Any:
    from pillow_gpu import GpuBatchExecutor

    return GpuBatchExecutor(
        max_jobs=args.max_jobs,
        max_in_flight=args.max_in_flight,
        gpu_bytes=args.gpu_mib << 20,
        host_bytes=args.host_mib << 20,
        max_submission_work=args.max_submission_work,
        decode_threads=args.decode_threads,
    )


def _drive(run: _Run, args: argparse.Namespace) -> None:
    """Stream every input through the executor, restarting a stream a refusal stopped; then
    settle every output write (the ones not started are cancelled on an interrupt)."""
    with run.writing():
        _stream(run, args)


def _stream(run: _Run, args: argparse.Namespace) -> None:
    feed = run.jobs()
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
                        if not run.settle(error, executor.closed):
                            run.stopped = True
                            return
                        continue
                    except Exception as error:  # not attributable to one input
                        run.fail(Failure.from_error(_RUN, error, "run"))
                        run.stopped = True
                        return
                    run.settled += 1
                    run.save(result.input_key, result.image, route="gpu")
        for index in run.animations:  # --all-frames: files of several frames, one by one
            if run.halted:
                break
            run.animate(executor, index)


def run_apply(args: argparse.Namespace) -> int:
    """Run ``pillow-gpu apply`` with parsed arguments (``args.chain`` is a parsed Chain)."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    problem = check_options(args)
    if problem is not None:
        print(f"pillow-gpu: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    admission = checked_admission(args.chain)
    if admission is None:
        return EXIT_USAGE
    try:
        _executor(args).close()  # check the executor settings before reading any file
    except (TypeError, ValueError) as error:
        print(f"pillow-gpu: error: invalid executor setting: {error}", file=sys.stderr)
        return EXIT_USAGE
    with Interrupt() as interrupt:
        run = new_run(args, admission, interrupt)
        found = Discovery()
        try:
            found = discover_inputs(run, args)
            if found.failures and run.stop_on_error:
                return EXIT_FAILED
            progress = args.progress if args.progress is not None else sys.stderr.isatty()
            with tqdm(
                total=len(run.inputs),
                unit="img",
                disable=not progress,
                file=sys.stderr,
                dynamic_ncols=True,
            ) as bar:
                run.bar = bar
                _drive(run, args)
            run.bar = _Quiet()
        except KeyboardInterrupt:  # a second SIGINT: the file being saved was discarded
            interrupt.requested = True
        try:
            _summary(run, time.perf_counter() - run.started, found)
        except OSError as error:
            if error.errno != errno.EIO:
                raise
            # The terminal is gone (it hung up: SIGHUP, then EIO on every write to it), so
            # nobody reads the summary; the outputs are complete, and the status says why.
            silence_standard_streams()
    return exit_code(run)


def checked_admission(chain: Chain) -> Admission | None:
    """The modes ``chain`` is admitted for; None (the refusal printed) when it admits none."""
    admission = admitted_modes(chain)
    try:
        admission.require_any(chain)
    except ChainError as error:
        print(f"pillow-gpu: error: chain refused before reading any file: {error}", file=sys.stderr)
        return None
    return admission


def new_run(args: argparse.Namespace, admission: Admission, interrupt: Interrupt) -> _Run:
    """The state of one run of ``args.chain``, with its output writer and write threads."""
    writer = Writer(
        root=real_path(args.output_dir) if args.output_dir else None,
        overwrite=args.overwrite,
        quality=args.quality,
        metadata=not args.strip_metadata,
    )
    return _Run(
        chain=args.chain,
        admission=admission,
        stop_on_error=args.stop_on_error,
        fallback=args.cpu_fallback,
        first_frame=args.first_frame,
        all_frames=args.all_frames,
        writer=writer,
        interrupt=interrupt,
        outputs=OutputQueue(
            write_threads(args.write_threads, stop_on_error=args.stop_on_error),
            args.host_mib << 20,
        ),
    )


def discover_inputs(run: _Run, args: argparse.Namespace) -> Discovery:
    """Find the run's inputs; failures found on the way are tallied and printed."""
    found = discover(args.paths, args, run.interrupt)
    run.inputs = found.inputs
    run.tally.failures.extend(found.failures)
    for failure in found.failures:
        print(f"pillow-gpu: failed: {failure}", file=sys.stderr)
    return found


def exit_code(run: _Run) -> int:
    """The command's exit status once the run has ended."""
    if run.interrupt.requested:
        return run.interrupt.exit_status
    return EXIT_FAILED if run.tally.failures else EXIT_OK


def _summary(run: _Run, elapsed: float, found: Discovery) -> None:
    notes = ""
    if found.duplicates:
        notes += f", {found.duplicates} duplicate input(s) ignored"
    if run.interrupt.requested:
        left = len(run.inputs) - run.settled
        print(
            f"pillow-gpu: interrupted ({run.interrupt.name}): stopped after the file being "
            f"saved; every output written is complete; {left} input(s) not processed; run the "
            "command again to process them (existing outputs are reported unless --overwrite)",
            file=sys.stderr,
        )
        notes += f", interrupted with {left} not processed"
    elif run.stop_reason and len(run.inputs) > run.settled:
        left = len(run.inputs) - run.settled
        print(
            f"pillow-gpu: stopped: {run.stop_reason}; every output written is complete; "
            f"{left} input(s) not processed; free space (or choose another --output-dir) and "
            "run the command again to process them (existing outputs are reported unless "
            "--overwrite)",
            file=sys.stderr,
        )
        notes += f", stopped with {left} not processed"
    admitted = (
        f"{run.chain} is admitted for {', '.join(run.admission.admitted)} on probe images; "
        "each file is planned for the GPU on its own"
    )
    lines = run.tally.lines(elapsed=elapsed, notes=notes, fallback=run.fallback, admitted=admitted)
    skipped = skipped_note(found.skipped, found.readable)
    if skipped is not None:
        lines.insert(-1, f"  {skipped}")
    print(f"pillow-gpu apply: {lines[0]}")
    for line in lines[1:]:
        print(line)
