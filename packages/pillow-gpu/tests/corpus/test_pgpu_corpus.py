"""Real files written by other software, hostile ones included, through pillow-gpu vs Pillow.

The corpora (see ``conftest.py``) are Pillow's own ``Tests/images/`` (every format Pillow
reads, files from many other programs, fuzzer ``crash-*``/``timeout-*``/``oom-*`` files and
decompression bombs), then files other programs wrote (ImageMagick's, and samples of many
formats), each run alone. Every file is opened with Pillow and with ``pillow_gpu.Image.open``;
every file Pillow opens goes through the everyday pipelines of :data:`PIPELINES`, each built
once with pillow_gpu and once with Pillow (the oracle), through ``GpuBatchExecutor.run(...,
output="cpu")`` (many jobs per stream; there is no keep-going mode, so a stream that an
admission error stopped is followed by a new one over the same feed, as ``apply`` does),
through ``pillow_gpu.gpu.evaluate`` on a sample, and, with one chain, through ``pillow-gpu
apply`` over a copy of the corpus folder.

The rule, from the code and the docs (README, docs/executor.md): each case ends in exactly one
of these outcomes; anything else fails the test and is listed by file and pipeline.

``exact``
    The GPU result equals Pillow's: ``mode``, ``size``, ``tobytes()``, ``info`` and, for P and
    PA results, the palette (its mode and entries).
``exact-pixels:load-time-info``
    Mode, size and bytes equal; ``info`` equals Pillow's except for keys Pillow's plugin adds
    only while decoding (the ``duration`` and ``timestamp`` of an AVIF whose part libavif
    versions choose differently, an animated PNG's frame keys and chunks after its data): a
    lazy graph's ``info`` is known without evaluating (README; a still PNG's chunks after its
    pixels and a WebP's or AVIF's first-frame timing are read at open), and the executor
    copies the graph's ``info``. Reported per case.
``refused:Unsupported`` / ``refused:Limit``
    A documented refusal (``errors.Unsupported``/``Limit``, ``BatchUnsupported``/``BatchLimit``
    from the executor): no proven route, the shader-work bound, the 8192 x 8192 bound
    (``gpu._planner.MAX_PIXELS``; larger files must be refused before anything decodes) or a
    cap, raised at recording or admission. Pillow is not run for those cases.
``refused:Decode``
    ``BatchDecodeError``/``errors.DecodeError`` (a source failed to decode at allocation),
    documented *only* where Pillow's own pipeline fails on that file too.
``pillow-raises``
    Pillow's pipeline raises, and recording it with pillow_gpu raises the same exception type
    (argument and mode checks are Pillow's own, run on the header). When Pillow fails while
    decoding first (a truncated file), recording may raise what Pillow raises for the same
    pipeline on a blank image of the header's mode and size: recording decodes nothing.
``pillow-cannot-open`` / ``bomb``
    ``PIL.Image.open`` raises; ``pillow_gpu.Image.open`` (which reads the header with
    ``PIL.Image.open``) must raise the same exception type. ``bomb``: that exception is
    ``DecompressionBombError`` or ``DecompressionBombWarning``. This suite turns warnings into
    errors (``filterwarnings = error``); the test handles that explicitly: bomb warnings stay
    errors (so no bomb is ever decoded), other warnings are recorded and counted in the report.
``capped``
    A full-size pipeline (:data:`FULL_SIZE`) not run on a file over :data:`FULL_SIZE_PIXELS`.
``known-defect``
    A case covered by a named entry of :data:`KNOWN_DEFECTS` (or :data:`KNOWN_CASE_DEFECTS`):
    a library defect this test found, with the reason and the workaround the test applies
    (none today: the two it found are fixed, and ``test_fixed_defect_stays_fixed`` reproduces
    each alone in a child process).

Failures: a GPU result whose bytes, mode, size or info differ from Pillow's; a GPU result where
Pillow raises; a Decode error where Pillow decodes; any other exception type (a recording error
Pillow does not raise, ``DeviceError``/``ExecutionError``, a crash of the executor: its jobs are
then rerun one per fresh executor to pin the crash on cases); anything taking longer than
:data:`CASE_SECONDS` (a hang, via SIGALRM). Admission is reported, never asserted.

Caps, to stay near a minute on 2 CPU cores with lavapipe: the pipelines end small (thumbnail
128, resize 64) except the three of :data:`FULL_SIZE`, which run only on files up to
:data:`FULL_SIZE_PIXELS`; ``evaluate`` runs every :data:`EVALUATE_EVERY`-th opened file plus
every fuzzer file; multi-frame files are checked on their first frame only. The report
(``corpus-report.json``, and ``corpus-report-program.json`` for other programs' files, in
pytest's cache, ``.pytest_cache/d/pillow-gpu-corpus/``, and the ``-s`` output) gives the shares
of every outcome, per pipeline and for evaluate and apply.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps
from pillow_gpu._testing import undated_info
from pillow_gpu.cli import main
from pillow_gpu.cli._apply import TEMP_SUFFIX
from pillow_gpu.errors import DecodeError, GpuError, Limit, Unsupported
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._planner import MAX_PIXELS

from ..gpu.random_graph_damage import damaged
from ..gpu.random_graph_structure import damaged_structure
from .conftest import RealCorpus

# -- the pipelines ---------------------------------------------------------------------------
# Each is written once against a namespace of modules (Pillow's or pillow_gpu's).


def _thumbnail_blur(image: Any, ops: Any, filters: Any) -> Any:
    image = ops.exif_transpose(image).convert("RGB")
    image.thumbnail((128, 128))  # in place, in Pillow and in pillow_gpu
    return image.filter(filters.GaussianBlur(1))


def _gray_autocontrast_median(image: Any, ops: Any, filters: Any) -> Any:
    return ops.autocontrast(image.convert("L")).filter(filters.MedianFilter(3))


def _resize_unsharp(image: Any, ops: Any, filters: Any) -> Any:
    return image.resize((64, 64)).filter(filters.UnsharpMask())


def _invert(image: Any, ops: Any, filters: Any) -> Any:
    return ops.invert(image)


def _flatten_thumbnail(image: Any, ops: Any, filters: Any) -> Any:
    """What a user writes before saving a JPEG: transparency pasted over white through its
    own alpha (images without it just converted), then a thumbnail."""
    image = ops.exif_transpose(image)
    if {"A", "a"} & set(image.getbands()) or "transparency" in image.info:
        rgba = image.convert("RGBA")
        new = PILImage.new if isinstance(image, PILImage.Image) else Image.new
        flat = new("RGB", rgba.size, "white")
        flat.paste(rgba, (0, 0), rgba)
    else:
        flat = image.convert("RGB")
    flat.thumbnail((128, 128))
    return flat


def _thumbnail_own_mode(image: Any, ops: Any, filters: Any) -> Any:
    """A thumbnail in the file's own mode (a GIF stays P, a fax TIFF 1), as saved back."""
    image = ops.exif_transpose(image)
    image.thumbnail((128, 128))
    return image


def _thumbnail_straightened(image: Any, ops: Any, filters: Any) -> Any:
    """The own-mode thumbnail straightened by a few degrees with BICUBIC (Pillow's generic
    transform; P and 1 images are rotated NEAREST, as Pillow forces)."""
    return _thumbnail_own_mode(image, ops, filters).rotate(
        7.5, PILImage.Resampling.BICUBIC, expand=True
    )


def _thumbnail_bilevel(image: Any, ops: Any, filters: Any) -> Any:
    """The own-mode thumbnail as a bilevel image, Pillow's default Floyd-Steinberg dither (a
    scan for fax, e-paper or a thermal printer)."""
    return _thumbnail_own_mode(image, ops, filters).convert("1")


def _thumbnail_mode_filter(image: Any, ops: Any, filters: Any) -> Any:
    """The own-mode thumbnail cleaned with ModeFilter(3), which Pillow runs on every 8-bit
    single-band and band-count mode, 1 and P (a GIF's indices) included."""
    return _thumbnail_own_mode(image, ops, filters).filter(filters.ModeFilter(3))


def _rotate_opened(image: Any, ops: Any, filters: Any) -> Any:
    """The opened file rotated at full size with BILINEAR, nothing loading it first (Pillow's
    transform copies the header's info before it loads; P and 1 rotate NEAREST)."""
    return image.rotate(30, PILImage.Resampling.BILINEAR, expand=True)


def _flatten_palette(image: Any, ops: Any, filters: Any) -> Any:
    """The flattened thumbnail on the WEB palette, Pillow's default dither (a GIF export)."""
    return _flatten_thumbnail(image, ops, filters).convert("P")


PIPELINES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "exif_transpose>convert(RGB)>thumbnail(128)>GaussianBlur(1)": _thumbnail_blur,
    "convert(L)>autocontrast>MedianFilter(3)": _gray_autocontrast_median,
    "resize(64x64)>UnsharpMask": _resize_unsharp,
    "ImageOps.invert": _invert,
    "exif_transpose>flatten(white)>thumbnail(128)": _flatten_thumbnail,
    "exif_transpose>thumbnail(128)": _thumbnail_own_mode,
    "exif_transpose>thumbnail(128)>rotate(7.5,BICUBIC,expand)": _thumbnail_straightened,
    "exif_transpose>thumbnail(128)>convert(1)": _thumbnail_bilevel,
    "exif_transpose>flatten(white)>thumbnail(128)>convert(P)": _flatten_palette,
    "rotate(30,BILINEAR,expand)": _rotate_opened,
    "exif_transpose>thumbnail(128)>ModeFilter(3)": _thumbnail_mode_filter,
}
#: Pipelines whose work grows with the file's size (no shrinking step first).
FULL_SIZE = frozenset(
    {"convert(L)>autocontrast>MedianFilter(3)", "ImageOps.invert", "rotate(30,BILINEAR,expand)"}
)
#: Files above this many pixels run only the shrinking pipelines (time cap; see the docstring).
FULL_SIZE_PIXELS = 1 << 18  # 512 x 512
#: ``evaluate`` runs every n-th file (and every fuzzer file).
EVALUATE_EVERY = 8
#: A case (recording, Pillow's pipeline, or one ``next()`` of the stream) taking longer hangs.
CASE_SECONDS = 60.0
#: The chain ``apply`` runs and the same steps as a pipeline (Pillow's oracle for apply).
APPLY_CHAIN = "exif_transpose,convert:RGB,thumbnail:128x128,gaussian_blur:1"
APPLY_PIPELINE = "apply:exif_transpose>convert(RGB)>thumbnail(128)>GaussianBlur(1)"
#: The everyday pipelines of the goal: at least this share of their cases that Pillow
#: completes (exact, or refused by us) must run exactly on the GPU.
EVERYDAY = (
    "exif_transpose>convert(RGB)>thumbnail(128)>GaussianBlur(1)",
    "convert(L)>autocontrast>MedianFilter(3)",
    "resize(64x64)>UnsharpMask",
    "exif_transpose>flatten(white)>thumbnail(128)",
    "exif_transpose>thumbnail(128)",
    "exif_transpose>thumbnail(128)>convert(1)",
    "exif_transpose>flatten(white)>thumbnail(128)>convert(P)",
)
EVERYDAY_GOAL = 0.95
_EXACT = ("exact", "exact-pixels:load-time-info")
_REFUSED = ("refused:Unsupported", "refused:Limit")


#: Every pipeline Pillow's oracle knows: the corpus lanes' and apply's.
_ORACLE_PIPELINES = {**PIPELINES, APPLY_PIPELINE: _thumbnail_blur}

#: Library defects this corpus found, by name; each is reproduced on its own in a child process
#: with a reproduction beside the fixed ones in ``_FIXED_DEFECTS``.
KNOWN_DEFECTS: dict[str, str] = {}
#: (file relative to Tests/images, pipeline) -> the defect that makes that case fail.
KNOWN_CASE_DEFECTS: dict[tuple[str, str], str] = {}

_PIL = (PILImageOps, PILImageFilter)
_GPU = (ImageOps, ImageFilter)
_FUZZ = re.compile(r"^(crash|timeout|oom|fuzz|bomb|decompression)", re.IGNORECASE)
_BOMBS = (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning)


# -- helpers ---------------------------------------------------------------------------------


class CaseTimeout(BaseException):
    """A case ran past CASE_SECONDS (a BaseException, as KeyboardInterrupt: streams resume)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise CaseTimeout after ``seconds`` (SIGALRM; a no-op off the main thread)."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise CaseTimeout(f"ran past {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _warnings_counted(counter: collections.Counter[str]) -> Iterator[None]:
    """Record warnings (counted by category) instead of raising; bombs still raise."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", PILImage.DecompressionBombWarning)
        try:
            yield
        finally:
            for item in caught:
                counter[f"{item.category.__name__}: {str(item.message)[:80]}"] += 1


def _name(error: BaseException) -> str:
    return f"{type(error).__module__}.{type(error).__qualname__}"


def _describe(error: BaseException) -> str:
    return f"{_name(error)}: {str(error)[:300]}"


def _chain(error: BaseException) -> str:
    """The exception and the ones it was raised from or during, innermost last."""
    parts, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts.append(_describe(current))
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)


def _documented_kind(error: BaseException) -> str | None:
    """'Unsupported'/'Limit'/'Decode' for pillow-gpu's documented refusals, else None."""
    if isinstance(error, Unsupported):
        return "Unsupported"
    if isinstance(error, Limit):
        return "Limit"
    if isinstance(error, DecodeError):
        return "Decode"
    return None


def _info_equal(left: dict[str, Any], right: dict[str, Any]) -> bool:
    # A profile LittleCMS made for a LAB conversion is stamped with the second it was made.
    left, right = undated_info(left), undated_info(right)
    if left.keys() != right.keys():
        return False
    for key, value in left.items():
        other = right[key]
        if type(value) is not type(other):
            return False
        try:
            same = bool(value == other)
        except Exception:  # e.g. an array-valued entry
            same = False
        if not same and repr(value) != repr(other):
            return False
    return True


def _info_diff(got: dict[str, Any], want: dict[str, Any]) -> str:
    keys = sorted(set(got) ^ set(want))
    changed = sorted(
        key for key in set(got) & set(want) if not _info_equal({key: got[key]}, {key: want[key]})
    )
    parts = []
    if keys:
        parts.append(f"keys only on one side {keys}")
    for key in changed[:4]:
        parts.append(f"{key}: gpu {got[key]!r:.80} vs pillow {want[key]!r:.80}")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Oracle:
    """Pillow's result of one case: an image digest, or the exception it raised."""

    mode: str = ""
    size: tuple[int, int] = (0, 0)
    digest: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None


def _pillow_result(path: Path, pipeline: str) -> PILImage.Image:
    with PILImage.open(path) as image:
        result = _ORACLE_PIPELINES[pipeline](image, *_PIL)
        result.load()
    return result


def _palette(image: PILImage.Image) -> bytes:
    """What a P or PA image's indices mean: its palette's mode and entries (else nothing)."""
    if image.mode not in ("P", "PA") or image.palette is None:
        return b""
    return image.palette.mode.encode() + b":" + bytes(image.getpalette(None) or ())


def _digest(image: PILImage.Image) -> str:
    return hashlib.sha256(image.tobytes() + _palette(image)).hexdigest()


def _byte_diff(got: PILImage.Image, want: PILImage.Image) -> str:
    a, b = got.tobytes(), want.tobytes()
    differ = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
    if not differ and len(a) == len(b):
        return f"palettes differ: gpu {_palette(got)[:60]!r} vs pillow {_palette(want)[:60]!r}"
    if not differ:
        return f"byte lengths {len(a)} vs {len(b)}"
    first = differ[0]
    return (
        f"{len(differ)} of {len(b)} bytes differ, first at {first}: gpu {a[first]} vs "
        f"pillow {b[first]}, max |diff| {max(abs(a[i] - b[i]) for i in differ)}"
    )


# -- the corpus run --------------------------------------------------------------------------


@dataclass(slots=True)
class Corpus:
    """Outcomes of every case, per path (run(), evaluate, apply), and what the report shows."""

    root: Path
    files: list[Path]
    outcomes: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)
    failures: dict[str, list[str]] = field(default_factory=dict)
    warnings: collections.Counter[str] = field(default_factory=collections.Counter)
    opened: dict[str, tuple[str, tuple[int, int]]] = field(default_factory=dict)
    oracles: dict[tuple[str, str], Oracle] = field(default_factory=dict)
    #: Opened files whose pixels Pillow cannot decode (truncated, broken, fuzzed).
    undecodable: set[str] = field(default_factory=set)
    #: Per file, the info keys Pillow adds only while decoding.
    load_keys: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Cases whose GPU info lacks keys Pillow adds while decoding (all else exact).
    late_info: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    slowest: list[tuple[float, str]] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def record(self, lane: str, case: tuple[str, str], outcome: str, detail: str = "") -> None:
        if outcome == "failed" and case in KNOWN_CASE_DEFECTS:
            outcome = "known-defect"
        self.outcomes.setdefault(lane, {})[case] = outcome
        if outcome == "failed":
            self.failures.setdefault(lane, []).append(f"{case[0]} | {case[1]} | {detail}")

    def oracle(self, case: tuple[str, str]) -> Oracle:
        cached = self.oracles.get(case)
        if cached is not None:
            return cached
        started = time.perf_counter()
        try:
            with _warnings_counted(self.warnings), _time_limit(CASE_SECONDS):
                result = _pillow_result(self.root / case[0], case[1])
            oracle = Oracle(result.mode, result.size, _digest(result), dict(result.info))
        except Exception as error:  # Pillow's own failure is an outcome, compared below
            oracle = Oracle(error=error)
        except CaseTimeout as error:
            oracle = Oracle(error=error)
        self.slowest.append((time.perf_counter() - started, f"pillow {case[0]} | {case[1]}"))
        self.oracles[case] = oracle
        return oracle

    def classify_image(self, case: tuple[str, str], got: PILImage.Image) -> tuple[str, str]:
        """(outcome, detail) of a GPU result: exact when it equals Pillow's result."""
        want = self.oracle(case)
        if isinstance(want.error, CaseTimeout):
            return "failed", f"Pillow's pipeline hangs: {want.error}"
        if want.error is not None:
            return "failed", f"GPU gave an image where Pillow raises {_describe(want.error)}"
        problems = []
        if got.mode != want.mode:
            problems.append(f"mode {got.mode} vs pillow {want.mode}")
        if got.size != want.size:
            problems.append(f"size {got.size} vs pillow {want.size}")
        if not problems and _digest(got) != want.digest:
            problems.append(_byte_diff(got, _pillow_result(self.root / case[0], case[1])))
        if problems:
            return "failed", "; ".join(problems)
        if _info_equal(dict(got.info), want.info):
            return "exact", ""
        # Keys Pillow's plugin adds to info only while decoding (animation timing, an
        # animated PNG's chunks after its data): known only by decoding (README).
        late = self.load_keys.get(case[0], frozenset())
        header_only = {k: v for k, v in want.info.items() if k not in late}
        if late and _info_equal(dict(got.info), header_only):
            missing = sorted(late & set(want.info))
            self.late_info[case] = missing
            return "exact-pixels:load-time-info", ", ".join(missing)
        return "failed", f"info differs: {_info_diff(dict(got.info), want.info)}"

    def classify_error(self, case: tuple[str, str], error: BaseException) -> tuple[str, str]:
        """(outcome, detail) of an exception from pillow-gpu (recording, admission, decode,
        execution)."""
        if isinstance(error, CaseTimeout):
            return "failed", f"hang: {error}"
        kind = _documented_kind(error)
        if kind in ("Unsupported", "Limit"):
            return f"refused:{kind}", ""
        want = self.oracle(case)
        if kind == "Decode":
            if want.error is None:
                return "failed", f"Decode error where Pillow decodes: {error}"
            return "refused:Decode", ""
        if want.error is not None and type(want.error) is type(error):
            return "pillow-raises", ""
        if want.error is not None and _raises_on_blank(self, case, error):
            # Pillow failed decoding first; recording checks the header only (no decode)
            # and raises what Pillow raises for this pipeline on a decodable file.
            return "pillow-raises", ""
        pillow = "succeeds" if want.error is None else f"raises {_describe(want.error)}"
        return "failed", f"{_chain(error)} where Pillow {pillow}"

    def judge_image(self, lane: str, case: tuple[str, str], got: PILImage.Image) -> None:
        self.record(lane, case, *self.classify_image(case, got))

    def judge_error(self, lane: str, case: tuple[str, str], error: BaseException) -> None:
        self.record(lane, case, *self.classify_error(case, error))


def _open_files(corpus: Corpus) -> list[tuple[str, str]]:
    """Open every file with Pillow and with pillow_gpu; return the cases of opened files."""
    cases: list[tuple[str, str]] = []
    for path in corpus.files:
        rel = corpus.rel(path)
        pil_error = gpu_error = None
        header: tuple[str, tuple[int, int], dict[str, Any]] | None = None
        with _warnings_counted(corpus.warnings), _time_limit(CASE_SECONDS):
            try:
                with PILImage.open(path) as opened:
                    header = (opened.mode, opened.size, dict(opened.info))
            except Exception as error:
                pil_error = error
            try:
                lazy = Image.open(path)
            except Exception as error:
                gpu_error = error
        names = list(PIPELINES)
        if pil_error is not None:
            outcome = "bomb" if isinstance(pil_error, _BOMBS) else "pillow-cannot-open"
            if gpu_error is None or type(gpu_error) is not type(pil_error):
                got = "opens it" if gpu_error is None else f"raises {_describe(gpu_error)}"
                detail = f"Pillow's open raises {_describe(pil_error)}; pillow_gpu {got}"
                for name in names:
                    corpus.record("open", (rel, name), "failed", detail)
            else:
                for name in names:
                    corpus.record("open", (rel, name), outcome)
            continue
        assert header is not None
        if gpu_error is not None:
            for name in names:
                corpus.record("open", (rel, name), "failed", f"open raises {_describe(gpu_error)}")
            continue
        if (lazy.mode, lazy.size) != header[:2] or not _info_equal(dict(lazy.info), header[2]):
            detail = f"header {lazy.mode} {lazy.size} vs Pillow {header[0]} {header[1]}"
            if not _info_equal(dict(lazy.info), header[2]):
                detail += f"; info: {_info_diff(dict(lazy.info), header[2])}"
            for name in names:
                corpus.record("open", (rel, name), "failed", detail)
            continue
        corpus.opened[rel] = (header[0], header[1])
        pixels = header[1][0] * header[1][1]
        late = _pillow_load_keys(corpus, path) if pixels <= MAX_PIXELS else frozenset()
        if late is None:
            corpus.undecodable.add(rel)
        elif late:
            corpus.load_keys[rel] = late
        for name in names:
            if name in FULL_SIZE and pixels > FULL_SIZE_PIXELS:
                corpus.record("open", (rel, name), "capped")
                continue
            corpus.record("open", (rel, name), "opened")
            cases.append((rel, name))
    return cases


def _pillow_load_keys(corpus: Corpus, path: Path) -> frozenset[str] | None:
    """The info keys Pillow adds while decoding the first frame; None if it cannot decode."""
    try:
        with (
            _warnings_counted(corpus.warnings),
            _time_limit(CASE_SECONDS),
            PILImage.open(path) as image,
        ):
            header = set(image.info)
            image.load()
            return frozenset(set(image.info) - header)
    except (Exception, CaseTimeout):
        return None


def _raises_on_blank(corpus: Corpus, case: tuple[str, str], error: BaseException) -> bool:
    """Whether Pillow's pipeline raises ``error``'s type on a blank image of the file's
    header mode and size (at most 256 x 256 where the header is over 2 x MAX_PIXELS: the
    argument and mode checks recording runs do not depend on the size)."""
    mode, size = corpus.opened[case[0]]
    if size[0] * size[1] > 2 * MAX_PIXELS:
        size = (min(size[0], 256), min(size[1], 256))
    try:
        with _warnings_counted(corpus.warnings):
            PIPELINES[case[1]](PILImage.new(mode, size), *_PIL)
    except Exception as blank:
        return type(blank) is type(error)
    return False


def _record(corpus: Corpus, case: tuple[str, str]) -> Any:
    """Record ``case``'s pipeline with pillow_gpu (raises what recording raises)."""
    return PIPELINES[case[1]](Image.open(corpus.root / case[0]), *_GPU)


class _Feed:
    """The jobs of ``run()``: each case's graph, recorded only when the executor pulls it.

    An iterator object, not a generator, so it survives an error that ends one stream and a
    new stream goes on from the next case. A case whose recording raises is judged here and
    not yielded. Graphs are built just in time, so decoded leaves do not pile up.
    """

    def __init__(self, corpus: Corpus, cases: list[tuple[str, str]]) -> None:
        self.corpus = corpus
        self.cases = cases
        self.next_index = 0
        self.current: int | None = None

    @property
    def exhausted(self) -> bool:
        return self.next_index >= len(self.cases)

    def __iter__(self) -> _Feed:
        return self

    def __next__(self) -> tuple[int, Any]:
        while self.next_index < len(self.cases):
            index = self.next_index
            self.next_index += 1
            self.current = index
            case = self.cases[index]
            try:
                with _warnings_counted(self.corpus.warnings):
                    graph = _record(self.corpus, case)
            except Exception as error:
                self.corpus.judge_error("run", case, error)
                continue
            return index, graph
        self.current = None
        raise StopIteration


class _Crash(Exception):
    """The executor raised something that is not a job-scoped GpuError: it cannot go on."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(_chain(error))
        self.error = error


def _drain(corpus: Corpus, executor: GpuBatchExecutor, feed: Any, cases: list[Any]) -> None:
    """Run streams over ``feed`` until it is exhausted; judge every delivered result or error.

    An admission error stops a stream reading inputs (docs/executor.md; there is no keep-going
    mode): the stream is drained, then a new one goes on from the same feed, as
    ``pillow-gpu apply`` does. Decode errors are job-scoped; the stream goes on. Anything else
    raises :class:`_Crash`.
    """
    while True:
        results = executor.run(feed, output="cpu")
        while True:
            try:
                with _warnings_counted(corpus.warnings), _time_limit(CASE_SECONDS):
                    result = next(results)
            except StopIteration:
                break
            except CaseTimeout as error:
                done = corpus.outcomes.get("run", {})
                names = [f"{c[0]} | {c[1]}" for c in cases[: feed.next_index] if c not in done]
                pytest.fail(f"run() hangs ({error}) with cases {names[-8:]} outstanding")
            except GpuError as error:
                key = error.input_key
                if not isinstance(key, int) or executor.closed:
                    raise _Crash(error) from error
                corpus.judge_error("run", cases[key], error)
                continue
            except Exception as error:
                raise _Crash(error) from error
            key = result.input_key
            assert isinstance(key, int)
            corpus.judge_image("run", cases[key], result.image)
        if feed.exhausted:
            return


def _close(executor: GpuBatchExecutor) -> BaseException | None:
    try:
        executor.close()
    except Exception as error:
        return error
    return None


def _run_single(corpus: Corpus, case: tuple[str, str]) -> tuple[str, str]:
    """(outcome, detail) of ``case`` alone in a fresh executor's ``run()`` stream."""
    single = Corpus(
        root=corpus.root,
        files=[],
        oracles=corpus.oracles,
        warnings=corpus.warnings,
        opened=corpus.opened,
        undecodable=corpus.undecodable,
        load_keys=corpus.load_keys,
        late_info=corpus.late_info,
    )
    executor = GpuBatchExecutor(submission_timeout=CASE_SECONDS)
    try:
        _drain(single, executor, _Feed(single, [case]), [case])
    except _Crash as crash:
        _close(executor)
        return "failed", f"the executor crashed running this case alone: {crash}"
    error = _close(executor)
    if error is not None:
        return "failed", f"executor.close() raised {_chain(error)}"
    outcome = single.outcomes.get("run", {}).get(case)
    if outcome is None:
        return "failed", "run() delivered neither a result nor an error"
    detail = next(iter(single.failures.get("run", [])), "")
    return outcome, detail


def _run_lane(corpus: Corpus, cases: list[tuple[str, str]]) -> None:
    """Every case through ``GpuBatchExecutor.run(..., output="cpu")``, many jobs per stream.

    If the executor crashes (an undocumented exception, see :class:`_Crash`), the cases it
    held are run again one per fresh executor, so that the crash is pinned on the cases that
    cause it, and the corpus goes on with a new executor.
    """
    feed = _Feed(corpus, cases)
    started = time.perf_counter()
    crashes: list[str] = []
    stats: collections.Counter[str] = collections.Counter()
    while not feed.exhausted:
        executor = GpuBatchExecutor(max_jobs=32, submission_timeout=CASE_SECONDS)
        try:
            _drain(corpus, executor, feed, cases)
        except _Crash as crash:
            crashes.append(str(crash)[:300])
            _close(executor)
            done = corpus.outcomes.setdefault("run", {})
            for case in cases[: feed.next_index]:
                if case not in done:
                    outcome, detail = _run_single(corpus, case)
                    corpus.record("run", case, outcome, detail)
            continue
        error = _close(executor)
        if error is not None:
            pytest.fail(f"executor.close() raised {_chain(error)}")
        now = dict(executor.stats)
        assert now["gpu_bytes"] == now["host_bytes"] == now["live_jobs"] == 0, now
        stats.update({k: v for k, v in now.items() if k in ("submissions", "submitted_jobs")})
    corpus.seconds["run"] = time.perf_counter() - started
    corpus.notes["executor_stats"] = dict(stats)
    corpus.notes["executor_crashes"] = crashes
    judged = corpus.outcomes.get("run", {})
    missing = [case for case in cases if case not in judged]
    assert not missing, f"run() never delivered or failed {len(missing)} cases: {missing[:10]}"


def _evaluate_lane(corpus: Corpus, cases: list[tuple[str, str]]) -> None:
    """A sample of the cases through ``pillow_gpu.gpu.evaluate`` (fresh graphs)."""
    started = time.perf_counter()
    index = {rel: i for i, rel in enumerate(sorted(corpus.opened))}
    for case in cases:
        name = Path(case[0]).name
        if index[case[0]] % EVALUATE_EVERY and not _FUZZ.match(name):
            continue
        try:
            with _warnings_counted(corpus.warnings), _time_limit(CASE_SECONDS):
                result = evaluate(_record(corpus, case))
        except (Exception, CaseTimeout) as error:
            corpus.judge_error("evaluate", case, error)
            continue
        corpus.judge_image("evaluate", case, result)
    corpus.seconds["evaluate"] = time.perf_counter() - started


def _shares(outcomes: dict[tuple[str, str], str]) -> dict[str, Any]:
    counts = collections.Counter(outcomes.values())
    total = sum(counts.values())
    return {
        "cases": total,
        "counts": dict(sorted(counts.items())),
        "shares": {k: round(v / total, 4) for k, v in sorted(counts.items())} if total else {},
    }


def _everyday_shares(outcomes: dict[tuple[str, str], str]) -> dict[str, float]:
    """Per everyday pipeline: exact cases over the cases Pillow completes that we ran or refused.

    A Decode refusal is documented only where Pillow's own pipeline fails too, so it is not a
    case Pillow completes; capped, bomb and pillow-raises cases are not either.
    """
    shares = {}
    for name in EVERYDAY:
        found = [o for (_, pipeline), o in outcomes.items() if pipeline == name]
        done = sum(1 for o in found if o in _EXACT)
        completes = done + sum(1 for o in found if o in _REFUSED)
        shares[name] = round(done / completes, 4) if completes else 0.0
    return shares


def _report(corpus: Corpus, cache_dir: Path, name: str) -> dict[str, Any]:
    # Per case: where it ended (a failed open, else the run() outcome).
    combined = {**corpus.outcomes.get("open", {})}
    for case, outcome in corpus.outcomes.get("run", {}).items():
        combined[case] = outcome
    combined = {case: o for case, o in combined.items() if o != "opened"}
    opened_cases = {c: o for c, o in combined.items() if c[0] in corpus.opened and o != "capped"}
    exact = sum(1 for o in opened_cases.values() if o == "exact")
    per_pipeline = {
        name: _shares({c: o for c, o in combined.items() if c[1] == name}) for name in PIPELINES
    }
    report = {
        "files": len(corpus.files),
        "files_opened": len(corpus.opened),
        "pipelines": list(PIPELINES),
        "all_cases": _shares(combined),
        "admitted_exact_share_of_opened_cases": round(exact / len(opened_cases), 4)
        if opened_cases
        else 0.0,
        "per_pipeline": per_pipeline,
        "everyday_gpu_share": _everyday_shares(combined),
        "evaluate_sample": _shares(corpus.outcomes.get("evaluate", {})),
        "apply": corpus.notes.get("apply"),
        "failures": corpus.failures,
        "known_defects": KNOWN_DEFECTS,
        "known_case_defects": [f"{f} | {p}: {w}" for (f, p), w in KNOWN_CASE_DEFECTS.items()],
        "undecodable_files": sorted(corpus.undecodable),
        "load_time_info_keys_missing": {
            f"{f} | {p}": keys for (f, p), keys in sorted(corpus.late_info.items())
        },
        "warnings_recorded": dict(corpus.warnings.most_common(20)),
        "seconds": {k: round(v, 2) for k, v in corpus.seconds.items()},
        "slowest": [
            f"{seconds:.2f} s {what}" for seconds, what in sorted(corpus.slowest, reverse=True)[:8]
        ],
        "executor_stats": corpus.notes.get("executor_stats"),
        "executor_crashes": corpus.notes.get("executor_crashes"),
        "caps": {
            "full_size_pipelines_only_up_to_pixels": FULL_SIZE_PIXELS,
            "gpu_pixel_bound": MAX_PIXELS,
            "evaluate_every_nth_file": EVALUATE_EVERY,
            "case_seconds": CASE_SECONDS,
        },
    }
    path = cache_dir / ("corpus-report.json" if name == "pillow" else f"corpus-report-{name}.json")
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    report["path"] = str(path)
    return report


def _summary(report: dict[str, Any]) -> str:
    lines = [
        f"pillow-gpu corpus: {report['files']} files ({report['files_opened']} opened), "
        f"{report['all_cases']['cases']} (file, pipeline) cases; exact share of opened cases "
        f"{report['admitted_exact_share_of_opened_cases']:.1%}; report {report.get('path')}",
        f"  all cases: {report['all_cases']['counts']}",
    ]
    for name, shares in report["per_pipeline"].items():
        lines.append(f"  {name}: {shares['counts']}")
    lines.append(f"  everyday pipelines on the GPU: {report['everyday_gpu_share']}")
    lines.append(f"  evaluate sample: {report['evaluate_sample']['counts']}")
    if report["apply"]:
        lines.append(f"  apply: {report['apply']}")
    lines.append(f"  seconds: {report['seconds']}")
    return "\n".join(lines)


def _run_lanes(corpus: Corpus) -> None:
    """Open every file, then run the opened cases through run() and the evaluate sample."""
    started = time.perf_counter()
    cases = _open_files(corpus)
    corpus.seconds["open"] = time.perf_counter() - started
    _run_lane(corpus, cases)
    _evaluate_lane(corpus, cases)


@pytest.fixture(scope="module")
def corpus_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("pillow-gpu-corpus"))
    return tmp_path_factory.mktemp("pillow-gpu-corpus-report")


@pytest.fixture(scope="module")
def corpus(real_corpus: RealCorpus, device: SharedDevice, corpus_cache: Path) -> Iterator[Corpus]:
    """Run the open/run()/evaluate lanes once per corpus; the report is written when the
    corpus is done."""
    root = real_corpus.root
    files = sorted(path for path in root.rglob("*") if path.is_file() and path.name[0] != ".")
    result = Corpus(root=root, files=files)
    _run_lanes(result)
    yield result
    report = _report(result, corpus_cache, real_corpus.name)
    print("\n" + _summary(report))


# -- damaged copies --------------------------------------------------------------------------
#: Damaged copies of corpus files run through the same lanes, as a user's broken downloads
#: and half-written files (``gpu/random_graph_damage.py``: header bytes set to boundary values,
#: flipped bits, a span of noise, a cut, a repeated span; every other file one unit of its
#: structure, ``gpu/random_graph_structure.py``): how many, drawn with this seed
#: (PILLOW_GPU_CORPUS_MUTATION_SEED draws another set, to explore) from files up to
#: MUTATED_SOURCE_BYTES.
MUTATED_FILES = 240
MUTATION_SEED = 2026
MUTATED_SOURCE_BYTES = 400_000


@pytest.fixture(scope="module")
def damaged_corpus(
    pillow_corpus: Path,
    program_corpus: Path,
    device: SharedDevice,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Corpus]:
    """:data:`MUTATED_FILES` damaged copies of files of both corpora through the open, run()
    and evaluate lanes."""
    extensions = {ext.lower() for ext in PILImage.registered_extensions()}
    sources = sorted(
        path
        for corpus in (pillow_corpus, program_corpus)
        for path in corpus.rglob("*")
        if path.is_file()
        and path.suffix.lower() in extensions
        and 16 < path.stat().st_size <= MUTATED_SOURCE_BYTES
    )
    seed = int(os.environ.get("PILLOW_GPU_CORPUS_MUTATION_SEED", MUTATION_SEED))
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("damaged-corpus")
    for index in range(MUTATED_FILES):
        source = rng.choice(sources)
        # Every other file has one unit of its structure damaged where it has units.
        damage = damaged_structure if index % 2 else damaged
        kind, data = damage(source.read_bytes(), rng.randrange(1 << 32))
        kind = kind.replace(" ", "-")
        (root / f"{index:03d}-{kind}-{source.name}").write_bytes(data)
    result = Corpus(root=root, files=sorted(root.iterdir()))
    result.notes["seed"] = seed
    _run_lanes(result)
    yield result
    counts = {lane: _shares(found)["counts"] for lane, found in result.outcomes.items()}
    print(f"\npillow-gpu damaged corpus (seed {seed}, {MUTATED_FILES} files): {counts}")
    if result.notes.get("apply"):
        print(f"  apply: {result.notes['apply']}")


# -- the tests -------------------------------------------------------------------------------


def test_corpus_open_matches_pillow(corpus: Corpus) -> None:
    """pillow_gpu.Image.open raises exactly what PIL.Image.open raises, bombs included."""
    failures = corpus.failures.get("open", [])
    assert not failures, f"{len(failures)} open failures:\n" + "\n".join(failures[:40])


def test_corpus_run_matches_pillow(corpus: Corpus) -> None:
    """Every run() case is exact or a documented refusal/error (see the module docstring)."""
    failures = corpus.failures.get("run", [])
    shares = _shares(corpus.outcomes.get("run", {}))
    assert not failures, f"{len(failures)} run() failures ({shares['counts']}):\n" + "\n".join(
        failures[:40]
    )
    assert shares["counts"].get("exact", 0) > 0, shares


def test_corpus_everyday_pipelines_run_on_the_gpu(corpus: Corpus) -> None:
    """The goal: at least 95 % of everyday pipeline cases Pillow completes run exactly here."""
    shares = _everyday_shares(corpus.outcomes.get("run", {}))
    below = {name: share for name, share in shares.items() if share < EVERYDAY_GOAL}
    assert not below, f"everyday pipelines below {EVERYDAY_GOAL:.0%} on the GPU: {below}"


def test_corpus_evaluate_matches_pillow(corpus: Corpus) -> None:
    """The evaluate() sample is exact or documented, and agrees with run() on each case."""
    failures = list(corpus.failures.get("evaluate", []))
    run = corpus.outcomes.get("run", {})
    for case, outcome in corpus.outcomes.get("evaluate", {}).items():
        if case in run and run[case] != outcome and "known-defect" not in (outcome, run[case]):
            failures.append(f"{case[0]} | {case[1]} | evaluate {outcome} but run() {run[case]}")
    assert not failures, f"{len(failures)} evaluate failures:\n" + "\n".join(failures[:40])


def _apply_copy(corpus: Corpus, folder: Path) -> dict[str, str]:
    """Copy the files apply reads into ``folder`` with unique stems; output -> source rel."""
    extensions = {ext.lower() for ext in PILImage.registered_extensions()}
    sources: dict[str, str] = {}
    for path in corpus.files:
        rel = Path(corpus.rel(path))
        if path.suffix.lower() not in extensions:
            continue
        # a.jpg -> a~jpg.jpg, so that a.jpg and a.png do not collide as a.png outputs
        copy = rel.with_name(f"{rel.stem}~{rel.suffix[1:]}{rel.suffix}")
        (folder / copy).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / copy)
        sources[copy.with_suffix(".png").as_posix()] = rel.as_posix()
    return sources


def test_corpus_apply_matches_pillow(
    corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pillow-gpu apply`` over a copy of the corpus: exit 0/1, no traceback, exact outputs
    (:func:`_check_apply`)."""
    _check_apply(corpus, tmp_path, capsys)


def test_damaged_corpus_apply_matches_pillow(
    damaged_corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pillow-gpu apply`` over the damaged copies, as over the corpus."""
    _check_apply(damaged_corpus, tmp_path, capsys)


def _check_apply(corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``pillow-gpu apply`` over a copy of ``corpus``'s files: exit 0/1, no traceback, exact
    outputs.

    Run in-process through ``pillow_gpu.cli.main`` with Python's default warning filters (a
    user's, not this suite's ``error``). Every written output opens with Pillow and equals
    Pillow's pipeline result for its file; no temporary file is left in the output folder;
    the input folder is unchanged.
    """
    inputs, out = tmp_path / "in", tmp_path / "out"
    sources = _apply_copy(corpus, inputs)
    before = sorted(p.relative_to(inputs).as_posix() for p in inputs.rglob("*"))
    argv = ["apply", APPLY_CHAIN, str(inputs), "-r", "-o", str(out), "--format", "png"]
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")  # a user's filters (recorded here, not printed)
        code = main([*argv, "--no-progress"])  # an exception escaping here is a traceback
    corpus.warnings.update(f"apply: {w.category.__name__}" for w in caught)
    seconds = time.perf_counter() - started
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err[-4000:]
    assert "Traceback" not in captured.err, captured.err[-4000:]
    kinds = collections.Counter(
        match.group(1)
        for match in re.finditer(r"^pillow-gpu: failed: .*?: (\w+) at \w+: ", captured.err, re.M)
    )
    written = sorted(p for p in out.rglob("*") if p.is_file()) if out.exists() else []
    leftovers = [p.name for p in written if p.name.startswith(".") or p.name.endswith(TEMP_SUFFIX)]
    assert not leftovers, f"temporary files left: {leftovers[:10]}"
    after = sorted(p.relative_to(inputs).as_posix() for p in inputs.rglob("*"))
    assert after == before, "apply changed its input folder"
    problems = []
    exact = 0
    for path in written:
        rel = path.relative_to(out).as_posix()
        source = sources.get(rel)
        if source is None:
            problems.append(f"{rel}: an output no input maps to")
            continue
        with PILImage.open(path) as opened:
            got = opened.copy()
        want = corpus.oracle((source, APPLY_PIPELINE))
        if want.error is not None:
            problems.append(f"{source}: written although Pillow raises {_describe(want.error)}")
        elif (got.mode, got.size, _digest(got)) != (want.mode, want.size, want.digest):
            problems.append(f"{source}: output {got.mode} {got.size} differs from Pillow's")
        else:
            exact += 1
    summary = next((line for line in captured.out.splitlines() if " written, " in line), "")
    corpus.notes["apply"] = {
        "inputs": len(sources),
        "exit": code,
        "written_exact": exact,
        "failed_by_kind": dict(sorted(kinds.items())),
        "summary": summary,
    }
    corpus.seconds["apply"] = seconds
    known = {f for (f, p) in KNOWN_CASE_DEFECTS if p == APPLY_PIPELINE}
    problems = [p for p in problems if p.split(":", 1)[0] not in known]
    assert not problems, f"{len(problems)} apply problems:\n" + "\n".join(problems[:40])
    assert summary.startswith(f"pillow-gpu apply: {len(written)} written, "), summary
    assert sum(kinds.values()) + len(written) == len(sources), (kinds, len(written), summary)


#: Defects this corpus found and that were fixed, each reproduced alone in a child process
#: (a regression aborted the whole process): it prints OK when the library behaves as
#: documented.
_FIXED_DEFECTS = {
    "EXECUTOR_DECODE_CRASH": """
import io, sys
from PIL import Image as P
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu.executor import BatchDecodeError
buffer = io.BytesIO()
P.new("L", (64, 64), 3).save(buffer, "PNG")
with open(sys.argv[1], "wb") as out:
    out.write(buffer.getvalue()[:-30])  # a truncated PNG: the header opens, pixels do not
with GpuBatchExecutor() as executor, executor.run(
    [(0, ImageOps.invert(Image.open(sys.argv[1])))]
) as results:
    try:
        next(results)
    except BatchDecodeError:
        print("OK: a documented Decode error")
""",
    "FENCE_REPAIR_RACE": """
from PIL import Image as P
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
source = Image.from_pil(P.effect_noise((2048, 2048), 64))
with GpuBatchExecutor() as executor, executor.run([(0, ImageOps.autocontrast(source))]) as r:
    for result in r:
        print("OK:", result.image.size)
""",
}


@pytest.mark.parametrize("name", sorted(_FIXED_DEFECTS))
def test_fixed_defect_stays_fixed(name: str, tmp_path: Path) -> None:
    """Each fixed defect, reproduced alone in a child process (a regression may abort it)."""
    done = subprocess.run(
        [sys.executable, "-c", _FIXED_DEFECTS[name], str(tmp_path / "case.png")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    tail = (done.stdout + done.stderr)[-1500:]
    assert done.returncode == 0, f"exit {done.returncode}: {tail}"
    assert "OK" in done.stdout, tail


def test_damaged_files_match_pillow(damaged_corpus: Corpus) -> None:
    """Damaged copies follow the rule of the whole corpus (module docstring) in every lane:
    a truncated or bit-flipped file is exact, a documented refusal, or fails as Pillow fails."""
    failures = [
        f"{lane}: {failure}"
        for lane in ("open", "run", "evaluate")
        for failure in damaged_corpus.failures.get(lane, [])
    ]
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:40])
    run = collections.Counter(damaged_corpus.outcomes.get("run", {}).values())
    # The copies are damaged (some fail to decode, as in Pillow) and many still run exactly.
    assert run["exact"] > MUTATED_FILES, run
    assert run["refused:Decode"] > 0, run
