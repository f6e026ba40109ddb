"""What ``pillow-gpu apply`` tells its user: per-file failures and the end-of-run summary.

Every input ends in exactly one of four outcomes, and the summary counts each: written by
the GPU (byte-exact), written by the CPU fallback (live Pillow, ``--cpu-fallback``), refused
by the GPU (at admission, or at the decode) and not written, or failed (unreadable,
undecodable, unwritable, or a chain Pillow itself cannot apply). GPU refusals are grouped by
their ``why`` text, most common first, whether or not the CPU fallback then wrote the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from PIL import Image as PILImage

from pillow_gpu._crashing_saves import CrashingSave
from pillow_gpu.cli._frames import FrameSizes, OneFrameFormat
from pillow_gpu.cli._writer_limits import WriterLimit
from pillow_gpu.errors import GpuError
from pillow_gpu.gpu._work import RAISE_BOUND

__all__ = ["TOP_REASONS", "Failure", "Tally", "is_refusal", "silence_standard_streams"]

#: How many refusal reasons the summary lists.
TOP_REASONS = 5
#: The kinds and stages of GPU error that are refusals (the CPU fallback may run them).
_REFUSAL_KINDS = frozenset({"Unsupported", "Limit"})
_REFUSAL_STAGES = frozenset({"admission", "decode"})


def is_refusal(error: BaseException) -> bool:
    """True when ``error`` is the GPU refusing a job (Unsupported or Limit): at admission, or
    at the decode where Pillow's loaded pixels turn out to be what it has not proven exact
    (an L GIF whose pixels Pillow loads as P, ``pillow_gpu.gpu._plan``)."""
    return (
        isinstance(error, GpuError)
        and error.kind in _REFUSAL_KINDS
        and error.stage in _REFUSAL_STAGES
    )


def shown(path: str) -> str:
    """``path`` as printed: quoted and escaped when it holds control or undecodable characters."""
    return path if path.isprintable() else ascii(path)


def printable(text: str) -> str:
    """``text`` on one line: control and undecodable characters escaped (a message may quote
    a hostile file name)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


#: (why, fix) of an unstructured exception by the stage it was raised in.
_STAGE_TEXT = {
    "open": (
        "Pillow could not read the file's header",
        "check that the file is a complete image in a format Pillow reads, or leave it out",
    ),
    "frames": (
        "the file holds several frames (an animation or pages) and apply writes one image "
        "per input, so every frame after the first would be lost",
        "pass --first-frame to write its first frame only, or split the frames into files "
        "first (Pillow's ImageSequence)",
    ),
    "frames-decode": (
        "Pillow could not decode every frame of the file (--all-frames)",
        "check that the file is complete, pass --first-frame to write its first frame only, "
        "or leave it out",
    ),
    "record": (
        "the chain cannot be applied to this file",
        "change the chain's arguments for files of this size and mode, or leave the file out",
    ),
    "save": (
        "Pillow could not write the output",
        "choose a --format that can hold the result's mode or its metadata (or pass "
        "--strip-metadata), or check the output folder",
    ),
    "input": (
        "an input folder could not be listed",
        "check the folder's permissions, or leave it out",
    ),
    "output": (
        "the output's folder could not be checked",
        "check the output folder's permissions, or choose another --output-dir",
    ),
    "fallback": (
        "the GPU refused the file and live Pillow (--cpu-fallback) could not apply the chain "
        "to it either",
        "check that the file decodes with Pillow and that the chain suits its mode, or leave "
        "the file out",
    ),
    "run": (
        "the executor failed outside any single input, so the run cannot go on",
        "run the command again; if it recurs, lower --max-jobs or --gpu-mib and report it",
    ),
}


#: Why a save failed and what to do, by the operating system's error number: the output's
#: file system, not its format, refused it (the previous output, if any, is kept).
_WRITE_ERRORS = {
    errno.ENOSPC: (
        "the output's disk is full",
        "free space on it or choose another --output-dir, then run the failed inputs again",
    ),
    errno.EDQUOT: (
        "the disk quota of the output's file system is used up",
        "free space within the quota or choose another --output-dir",
    ),
    errno.EROFS: (
        "the output folder is on a read-only file system",
        "choose another --output-dir",
    ),
    **dict.fromkeys(
        (errno.EACCES, errno.EPERM),
        (
            "the output folder cannot be written (permission denied)",
            "check its permissions, or choose another --output-dir",
        ),
    ),
    errno.ENAMETOOLONG: (
        "the output's name is longer than its file system allows",
        "write into a folder with a shorter path (--output-dir), or shorten the input's name",
    ),
}

#: Pillow's messages when a format's writer cannot hold the image's mode, naming the mode and
#: the format; and those naming neither (QOI, SGI, BLP, GIF) or only the mode (PDF), for which
#: the caller's result and format fill them in.
_CANNOT_WRITE = (
    re.compile(r"cannot write mode (\S+) as (\S+)"),
    re.compile(r"Cannot save (\S+) images as (\S+)"),
)
_MODE_REFUSED = re.compile(
    r"Unsupported \S+ image mode|cannot save mode \S+|image has wrong mode"  # the last: GIF's
)
#: The modes Pillow's JPEG 2000 encoder writes; for another its message names no mode.
_JPEG2000_MODES = frozenset({"L", "LA", "RGB", "RGBA", "CMYK", "YCbCr", "I;16", "I;16B"})
_JPEG2000_REFUSED = "broken data stream when writing image file"
#: Modes with transparency, which ``flatten`` puts onto a colour (an RGB result).
_TRANSPARENT = frozenset({"RGBA", "RGBa", "LA", "La", "PA", "P"})
#: Modes of more than 8 bits a band, and the formats Pillow writes them to as they are.
_WIDE = {
    **dict.fromkeys(("I;16", "I;16B", "I;16L", "I;16N"), "png or tiff"),
    **dict.fromkeys(("I", "F"), "tiff"),
}


def _mode_fix(mode: str, file_format: str) -> str:
    """The fix for a result of ``mode`` that ``file_format``'s writer cannot hold."""
    if mode in _TRANSPARENT:
        step = "add flatten to the end of the chain (transparency onto white, an RGB image)"
        other = "a --format that keeps transparency, such as png, webp or tiff"
    elif mode in _WIDE:  # convert:L would clip every value over 255 (a 16-bit scan: white)
        return (
            f"choose a --format that holds {mode} as it is, such as {_WIDE[mode]} "
            f"({file_format} cannot hold {mode} images; Pillow's convert to L clips values "
            "over 255, it does not scale them)"
        )
    else:
        step = "add convert:RGB to the end of the chain"
        other = f"a --format that holds {mode}, such as tiff"
    return f"{step}, or choose {other} ({file_format} cannot hold {mode} images)"


def _unwritable(observed: str, mode: str, file_format: str) -> tuple[str, str] | None:
    """The (mode, format) a save failure says the format cannot hold, or None."""
    for pattern in _CANNOT_WRITE:
        found = pattern.fullmatch(observed)
        if found is not None:
            return found[1], found[2]
    if mode and file_format and _MODE_REFUSED.fullmatch(observed):
        return mode, file_format
    if file_format == "JPEG2000" and observed == _JPEG2000_REFUSED and mode:
        return (mode, file_format) if mode not in _JPEG2000_MODES else None
    return None


def _explain(error: BaseException, stage: str, mode: str = "", file_format: str = "") -> str:
    observed = f"{error}" or type(error).__name__
    unwritable = _unwritable(observed, mode, file_format) if stage == "save" else None
    if unwritable is not None:
        why = "the output's format cannot hold the chain's result in its mode"
        fix = _mode_fix(*unwritable)
    elif isinstance(error, FrameSizes):  # refused before Pillow's writers cut or refuse them
        why = (
            "the chain's results for this file's frames differ in size, and the format's "
            "animations hold frames of one size"
        )
        fix = (
            "choose --format tiff, whose pages keep each frame's size (Pillow's GIF and APNG "
            "writers would cut or pad every frame to the first one's size, and its WebP and "
            "AVIF writers refuse them), or pass --first-frame to write the first frame only"
        )
    elif isinstance(error, CrashingSave):  # refused before Pillow's writer ends the process
        why, observed = error.why, error.observed
        fix = (
            "start the chain with exif_transpose (it turns the frames upright and removes the "
            "orientation), pass --strip-metadata, choose another --format such as webp, png or "
            "tiff, or pass --first-frame"
        )
    elif isinstance(error, WriterLimit):  # explained where Pillow's writer names no cause
        why, fix = error.why, error.fix
    elif isinstance(error, OneFrameFormat):
        why = "the output's format holds one image, and this file has several frames"
        fix = (
            "choose a --format that holds them all, such as tiff, png, gif or webp, or pass "
            "--first-frame to write the first frame only"
        )
    elif stage == "save" and isinstance(error, OSError) and error.errno in _WRITE_ERRORS:
        why, fix = _WRITE_ERRORS[error.errno]
    elif isinstance(error, PILImage.DecompressionBombError):
        why = "the file declares more pixels than Pillow's decompression-bomb bound allows"
        fix = (
            "leave the file out; if it is trusted, shrink it first (the GPU path admits at "
            "most 8192x8192 pixels anyway)"
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
    #: True for a GPU refusal that was not written (no ``--cpu-fallback``).
    refusal: bool = False

    @classmethod
    def from_error(
        cls, path: str, error: BaseException, stage: str, *, mode: str = "", file_format: str = ""
    ) -> Failure:
        """Describe ``error`` (structured for GpuError, by exception type otherwise); a save
        failure is told the result's ``mode`` and the output's ``file_format``."""
        if isinstance(error, GpuError):
            return cls(path=path, kind=error.kind, stage=error.stage, message=str(error))
        message = _explain(error, stage, mode, file_format)
        return cls(path=path, kind=type(error).__name__, stage=stage, message=message)

    @classmethod
    def refused(cls, path: str, error: GpuError) -> Failure:
        """A GPU refusal without ``--cpu-fallback``: the file is not written."""
        return cls(
            path=path,
            kind=error.kind,
            stage=error.stage,
            refusal=True,
            message=f"why: the GPU refuses this file's job: {error.why}; observed: "
            f"{error.observed}; fix: pass --cpu-fallback to write refused files with live "
            "Pillow, or change the chain (the planner's advice: "
            f"{error.fix.replace(RAISE_BOUND, '--max-submission-work')})",
        )

    def __str__(self) -> str:
        return f"{shown(self.path)}: {self.kind} at {self.stage}: {printable(self.message)}"


@dataclass(slots=True, kw_only=True)
class Tally:
    """The outcome counts of one run and the GPU refusals by reason."""

    gpu: int = 0
    cpu: int = 0
    failures: list[Failure] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    output_bytes: int = 0
    #: Metadata items outputs could not hold, by what and why; and how many outputs.
    left_out: Counter[str] = field(default_factory=Counter)
    left_out_outputs: int = 0

    def leave_out(self, items: Iterable[str]) -> None:
        """Count the metadata ``items`` one written output could not hold."""
        counted = Counter(items)
        if counted:
            self.left_out.update(counted)
            self.left_out_outputs += 1

    @property
    def written(self) -> int:
        """Outputs written, by the GPU and by the CPU fallback."""
        return self.gpu + self.cpu

    @property
    def refused(self) -> int:
        """GPU refusals that were not written (no ``--cpu-fallback``)."""
        return sum(failure.refusal for failure in self.failures)

    @property
    def failed(self) -> int:
        """Failures that are not GPU refusals (those are counted in :attr:`refused`)."""
        return len(self.failures) - self.refused

    def lines(self, *, elapsed: float, notes: str, fallback: bool, admitted: str) -> list[str]:
        """The summary, one string per line (the first line starts ``N written, ``)."""
        elapsed = max(elapsed, 1e-9)
        lines = [
            f"{self.written} written, {self.failed} failed, {self.refused} refused{notes} in "
            f"{elapsed:.2f} s ({self.written / elapsed:.1f} img/s, "
            f"{self.output_bytes / elapsed / 1e6:.2f} MB/s)",
            f"  written: {self.gpu} on the GPU (byte-exact), {self.cpu} on the CPU fallback "
            f"(live Pillow){'' if fallback else '; --cpu-fallback is off'}",
        ]
        if self.left_out:
            lines.append(
                f"  metadata left out of {self.left_out_outputs} output(s), which their format "
                "cannot hold (--strip-metadata writes none on purpose):"
            )
            for what, count in self.left_out.most_common(TOP_REASONS):
                lines.append(f"    {count}x {printable(what)}")
            if len(self.left_out) > TOP_REASONS:
                lines.append(f"    ... and {len(self.left_out) - TOP_REASONS} other item(s)")
        total = sum(self.reasons.values())
        if total:
            after = (
                f"{self.cpu} written by the CPU fallback, {total - self.cpu} not written"
                if fallback
                else "none written; --cpu-fallback runs them with live Pillow"
            )
            lines.append(f"  refused by the GPU: {total} ({after}); top reasons:")
            for why, count in self.reasons.most_common(TOP_REASONS):
                lines.append(f"    {count}x {printable(why)}")
            if len(self.reasons) > TOP_REASONS:
                lines.append(f"    ... and {len(self.reasons) - TOP_REASONS} other reason(s)")
        kinds = Counter(failure.kind for failure in self.failures if not failure.refusal)
        if kinds:
            counted = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
            lines.append(f"  failed: {counted} (each reported on stderr by path)")
        lines.append(f"  chain {admitted}")
        return lines


def silence_standard_streams() -> None:
    """Point stdout and stderr at the null device, once their reader is gone (a closed pipe, a
    terminal that hung up), so that the interpreter's last flush at exit meets no closed pipe
    or gone terminal (a second error, printed as "Exception ignored", and status 120)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # no file descriptor (replaced)
                os.dup2(devnull, stream.fileno())
    finally:
        os.close(devnull)
