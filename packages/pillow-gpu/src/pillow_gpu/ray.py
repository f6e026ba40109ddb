"""pillow-gpu on Ray Data: :class:`PillowGpuMapper`, a callable class for ``map_batches``.

Ray does the scheduling; each actor owns one :class:`~pillow_gpu.GpuBatchExecutor`, whose
credits bound that actor's GPU and host memory::

    import ray
    from pillow_gpu.ray import PillowGpuMapper

    ds = ray.data.read_binary_files("photos/", include_paths=True)
    out = ds.map_batches(
        PillowGpuMapper,
        fn_constructor_kwargs={"chain": "exif_transpose,thumbnail:256x256", "format": "png"},
        batch_size=16,
        compute=ray.data.ActorPoolStrategy(size=2),
        num_gpus=1,
    )

Input rows carry the encoded file in ``bytes`` (as ``read_binary_files`` gives it) or a file
path in ``path``, plus a key column (``key=``, default ``path``). Output rows carry the key,
the result (``bytes``: the encoded file; or ``pixels`` for ``format="numpy"``), ``mode``,
``width``, ``height``, ``format`` and the error columns :data:`ERROR_COLUMNS`, which are empty
strings for a good row; an encoded row's ``metadata_left_out`` names the metadata items (with
``metadata="keep"``) its format could not hold, separated by ``"; "``. A file the GPU
refuses or cannot decode becomes an error row; it never fails the batch. See
``docs/ray.md``.
"""

from __future__ import annotations

import contextlib
import io
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image as PILImage

from pillow_gpu import Image
from pillow_gpu.cli._chain import Chain, parse_chain
from pillow_gpu.cli._frames import ExtraFrames, refuse_extra_frames, run_frames
from pillow_gpu.cli._metadata import (
    LEFT_OUT_SEPARATOR,
    NO_ITEMS,
    FileItems,
    file_items,
)
from pillow_gpu.cli._outputs import encode
from pillow_gpu.cli._report import Failure
from pillow_gpu.executor import BatchFailure, GpuBatchExecutor
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

__all__ = ["ERROR_COLUMNS", "NUMPY", "PillowGpuMapper", "to_pil"]

#: The error columns of every output row: empty strings for a good row.
ERROR_COLUMNS = ("error_stage", "error_kind", "error_message")
#: ``format=NUMPY``: rows carry the raw pixels (``pixels``) instead of an encoded file.
NUMPY = "numpy"

#: ``chain=`` as a Python callable: a lazy pillow-gpu image in, the lazy result out.
GraphBuilder = Callable[[Image.Image], Image.Image]


def _usage(why: str, observed: str, fix: str) -> str:
    return f"why: {why}; observed: {observed}; fix: {fix}"


def _format_name(text: str) -> str:
    """The Pillow format that writes ``text`` (a format name such as PNG, or an extension)."""
    PILImage.init()
    name = text.upper().lstrip(".")
    if name in PILImage.SAVE:
        return name
    found = PILImage.registered_extensions().get("." + text.lower().lstrip("."))
    if found is not None and found in PILImage.SAVE:
        return found
    raise ValueError(
        _usage(
            "the output format must be one Pillow can write, or 'numpy' for raw pixels",
            repr(text),
            "pass a format such as 'png', 'jpeg' or 'webp', or format='numpy'",
        )
    )


def _builder(chain: str | Chain | GraphBuilder) -> tuple[GraphBuilder, Chain | None]:
    if isinstance(chain, str):
        chain = parse_chain(chain)  # ChainError (a ValueError) says what is wrong
    if isinstance(chain, Chain):
        return chain.apply, chain
    if callable(chain):
        return chain, None
    raise TypeError(
        _usage(
            "chain must be an apply chain string, a parsed Chain, or a callable building the "
            "lazy graph",
            f"{type(chain).__name__}",
            "pass e.g. 'invert,gaussian_blur:2' or lambda image: ImageOps.invert(image)",
        )
    )


@dataclass(slots=True)
class _Row:
    """The outcome of one input row while its batch runs."""

    result: bytes | np.ndarray | None = None
    mode: str = ""
    size: tuple[int, int] = (0, 0)
    palette: tuple[str, bytes] = ("", b"")  # (mode, entries) of a P or PA numpy result
    format: str = ""
    items: FileItems = NO_ITEMS  # what a kept output carries of its input file (cli._metadata)
    left_out: tuple[str, ...] = ()  # metadata items its format could not hold (cli._metadata)
    error: Failure | None = None


def to_pil(row: Mapping[str, Any]) -> PILImage.Image:
    """Rebuild the ``PIL.Image.Image`` of a good ``format="numpy"`` output row.

    ``pixels`` holds Pillow's ``tobytes()`` of the result; a P or PA result's palette is in
    ``palette`` (its entries) and ``palette_mode`` (``"RGB"`` or ``"RGBA"``), empty otherwise.
    Other ``info`` (a transparency colour, EXIF, ...) is not carried: use an encoded format
    to keep it.
    """
    if row.get("error_kind"):
        msg = _usage(
            "the row is an error row, so it has no pixels",
            f"{row.get('error_kind')} at {row.get('error_stage')}: {row.get('error_message')}",
            "check row['error_kind'] before rebuilding the image",
        )
        raise ValueError(msg)
    pixels = np.asarray(row["pixels"], dtype=np.uint8)
    size = (int(row["width"]), int(row["height"]))
    image = PILImage.frombytes(str(row["mode"]), size, pixels.tobytes())
    if row.get("palette_mode"):
        image.putpalette(bytes(row["palette"]), str(row["palette_mode"]))
    return image


#: What ``PillowGpuMapper(metadata=...)`` takes.
_METADATA = (None, "keep", "strip")


class PillowGpuMapper:
    """A ``map_batches`` callable class: one ``GpuBatchExecutor`` per Ray actor.

    ``chain``: an ``apply`` chain string (``"invert,gaussian_blur:2"``), a parsed ``Chain``,
    or a callable ``lazy image -> lazy image``. ``format``: a Pillow format (``"png"``,
    ``"jpeg"``, ...) for encoded ``bytes``, ``"numpy"`` for raw ``pixels``, or None to read
    it per row from a ``format`` column. ``quality`` is passed to JPEG, WebP and AVIF saves.
    ``key`` names the input column copied to the output. ``max_jobs``, ``gpu_bytes``,
    ``host_bytes`` and ``max_in_flight`` are the executor's credits (per actor),
    ``max_submission_work`` its shader-work bound per submission;
    ``decode_threads`` its worker decoders (per actor; default: the CPUs less one, at most 8).
    ``metadata``: None (a row holds what Pillow's plain ``save`` writes), ``"keep"`` (each
    result's EXIF, ICC profile, XMP and resolution, a PNG input's text chunks in a PNG, a
    TIFF input's picture tags as EXIF and a JPEG's IPTC record in a JPEG or TIFF, are written
    into its file, as ``pillow-gpu apply`` does) or ``"strip"`` (none of them, as ``apply
    --strip-metadata``); see :mod:`pillow_gpu.cli._metadata`.
    ``first_frame``: a file of several frames (an animation, pages) gives its first frame, as
    ``Image.open`` and the chain do in Pillow; False gives such a file's row an ``ExtraFrames``
    error (stage ``frames``) instead, as ``pillow-gpu apply`` does without ``--first-frame``.
    ``all_frames``: such a file's row is every frame through the chain, encoded as one file
    (Pillow's ``save_all`` of the results ``ImageSequence`` gives, with each frame's duration
    and the loop count), as ``apply --all-frames``; it takes precedence over ``first_frame``,
    and needs an encoded ``format`` (a ``numpy`` row holds one image). A frame the GPU refuses
    makes the whole row that refusal.
    ``plugins``: each actor registers the installed Pillow plugins the command line registers
    (pillow-heif's HEIF opener, :mod:`pillow_gpu.cli._plugins`), so it reads ``.heic`` files.
    """

    def __init__(
        self,
        chain: str | Chain | GraphBuilder,
        *,
        format: str | None = "png",
        quality: int | None = None,
        key: str = "path",
        max_jobs: int = 64,
        gpu_bytes: int = 1 << 30,
        host_bytes: int = 1 << 30,
        max_in_flight: int = 2,
        max_submission_work: int = MAX_SUBMISSION_WORK,
        decode_threads: int | None = None,
        metadata: str | None = None,
        first_frame: bool = True,
        all_frames: bool = False,
        plugins: bool = False,
    ) -> None:
        self._build, self.chain = _builder(chain)
        if plugins:
            from pillow_gpu.cli._plugins import register_plugins

            register_plugins()
        if metadata not in _METADATA:
            raise ValueError(
                _usage(
                    "metadata is what an encoded row keeps of each result's info",
                    repr(metadata),
                    "pass None (Pillow's plain save), 'keep' or 'strip'",
                )
            )
        if all_frames and format == NUMPY:
            raise ValueError(
                _usage(
                    "all_frames encodes every frame of a file as one row, and a numpy row "
                    "holds one image's pixels",
                    "all_frames=True with format='numpy'",
                    "pass an encoded format such as 'png' or 'webp', or all_frames=False",
                )
            )
        self.metadata = metadata
        self.first_frame = first_frame
        self.all_frames = all_frames
        self.format = None if format is None or format == NUMPY else _format_name(format)
        self.numpy = format == NUMPY
        self.quality = quality
        self.key = key
        self._lock = threading.Lock()
        self._executor: GpuBatchExecutor | None = None
        self._executor = GpuBatchExecutor(
            max_jobs=max_jobs,
            gpu_bytes=gpu_bytes,
            host_bytes=host_bytes,
            max_in_flight=max_in_flight,
            max_submission_work=max_submission_work,
            decode_threads=decode_threads,
        )

    def close(self) -> None:
        """Close this actor's executor and return its credits (idempotent)."""
        executor, self._executor = getattr(self, "_executor", None), None
        if executor is not None:
            executor.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown: nothing left to release
            self.close()

    def __call__(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run one batch (numpy format); every input row gives one output row, in order."""
        with self._lock:  # the executor has one driver; Ray may call from a thread pool
            return self._run(batch)

    # -- one batch ----------------------------------------------------------------------------
    def _column(self, batch: Mapping[str, np.ndarray], name: str) -> np.ndarray:
        if name not in batch:
            raise KeyError(
                _usage(
                    f"the batch has no {name!r} column",
                    f"columns {sorted(batch)}",
                    "read files with ray.data.read_binary_files(..., include_paths=True), or "
                    "pass key= naming your key column (and format=... unless rows carry "
                    "'format')",
                )
            )
        return batch[name]

    def _run(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        executor = self._executor
        if executor is None:
            raise RuntimeError(
                _usage(
                    "the mapper is closed",
                    "a batch after close()",
                    "create a new PillowGpuMapper (Ray does so for each actor)",
                )
            )
        keys = self._column(batch, self.key)
        if "bytes" in batch:
            sources: list[Any] = [io.BytesIO(bytes(data)) for data in batch["bytes"]]
        else:
            sources = [str(path) for path in self._column(batch, "path")]
        formats = (
            [self.format] * len(keys)
            if self.format is not None or self.numpy
            else [_format_name(str(name)) for name in self._column(batch, "format")]
        )
        rows = [_Row(format=name or "") for name in formats]
        labels = [str(key) for key in keys]
        animations: list[int] = []  # rows of several frames, run after the batch's stream
        jobs = self._jobs(sources, rows, labels, animations)
        for result in executor.run(jobs, errors="deliver"):
            assert isinstance(result.input_key, int)
            row = rows[result.input_key]
            if isinstance(result, BatchFailure):
                row.error = Failure.from_error(labels[result.input_key], result.error, "run")
            else:
                assert isinstance(result.image, PILImage.Image)
                self._encode(row, result.image, labels[result.input_key])
        for index in animations:
            again = io.BytesIO(bytes(batch["bytes"][index])) if "bytes" in batch else sources[index]
            self._animate(executor, again, rows[index], labels[index])
        return self._columns(keys, rows)

    def _animate(self, executor: GpuBatchExecutor, source: Any, row: _Row, label: str) -> None:
        """Run every frame of ``source`` as one stream and encode the results as one file; a
        frame that fails (a refusal included) makes the row that failure."""
        run = run_frames(executor, self._graph, source)
        if run.stopped is not None:
            stage, problem = run.stopped
            row.error = Failure.from_error(label, problem, stage)
        elif run.failure is not None:
            row.error = Failure.from_error(label, run.failure, "run")
        else:
            first, *more = run.results
            self._encode(row, first, label, *more)

    def _graph(self, image: Image.Image) -> Image.Image:
        """The chain's lazy graph of ``image`` (a callable chain's result checked)."""
        graph = self._build(image)
        if not isinstance(graph, Image.Image):
            raise TypeError(
                _usage(
                    "the chain callable must return a lazy pillow_gpu image",
                    f"{type(graph).__module__}.{type(graph).__qualname__}",
                    "build the result with pillow_gpu's Image/ImageOps/ImageFilter",
                )
            )
        return graph

    def _jobs(
        self, sources: list[Any], rows: list[_Row], labels: list[str], animations: list[int]
    ) -> Iterator[tuple[int, Image.Image]]:
        """Yield ``(row index, lazy graph)``; rows that fail before the GPU get their error,
        and with ``all_frames`` the indices of files of several frames go to ``animations``."""
        for index, source in enumerate(sources):
            stage = "open"
            try:
                image = Image.open(source)  # the header only; the executor decodes
                if self.metadata == "keep":  # read only where a kept output carries them
                    rows[index].items = file_items(image)
                if self.all_frames or not self.first_frame:
                    stage = "frames"
                    try:
                        refuse_extra_frames(image)
                    except ExtraFrames as error:
                        if not (self.all_frames and error.counted):
                            raise
                        animations.append(index)
                        continue
                stage = "record"
                graph = self._graph(image)
            except Exception as error:  # Unsupported at record time included
                rows[index].error = Failure.from_error(labels[index], error, stage)
                continue
            yield index, graph

    def _encode(self, row: _Row, image: PILImage.Image, label: str, *more: PILImage.Image) -> None:
        """Fill ``row`` with ``image`` encoded (with ``more`` frames: all of them as one file)."""
        row.mode, row.size = image.mode, image.size
        if self.numpy:
            row.result = np.frombuffer(image.tobytes(), dtype=np.uint8)
            if image.palette is not None and image.mode in ("P", "PA"):
                palette_mode = image.palette.mode
                row.palette = palette_mode, bytes(image.getpalette(palette_mode) or ())
            return
        buffer = io.BytesIO()
        metadata = None if self.metadata is None else self.metadata == "keep"
        try:
            left_out = encode(
                buffer,
                row.format,
                image,
                *more,
                quality=self.quality,
                metadata=metadata,
                source=row.items,
            )
        except Exception as error:  # e.g. RGBA to JPEG: Pillow refuses it the same way
            row.error = Failure.from_error(
                label, error, "save", mode=image.mode, file_format=row.format
            )
            row.mode, row.size = "", (0, 0)
            return
        row.result = buffer.getvalue()
        row.left_out = tuple(left_out)

    def _columns(self, keys: np.ndarray, rows: list[_Row]) -> dict[str, np.ndarray]:
        def strings(values: list[str]) -> np.ndarray:
            return np.array(values, dtype=object)

        if self.numpy:
            empty = np.zeros(0, dtype=np.uint8)
            pixels = np.empty(len(rows), dtype=object)
            for index, row in enumerate(rows):
                pixels[index] = row.result if row.error is None else empty
            palettes = np.array([row.palette[1] for row in rows], dtype=object)
            result = {
                "pixels": pixels,
                "palette": palettes,
                "palette_mode": strings([row.palette[0] for row in rows]),
            }
        else:
            encoded = [row.result if row.error is None else b"" for row in rows]
            left_out = strings([LEFT_OUT_SEPARATOR.join(row.left_out) for row in rows])
            result = {"bytes": np.array(encoded, dtype=object), "metadata_left_out": left_out}
        errors = [row.error for row in rows]
        return {
            self.key: keys,
            **result,
            "mode": strings([row.mode for row in rows]),
            "width": np.array([row.size[0] for row in rows], dtype=np.int64),
            "height": np.array([row.size[1] for row in rows], dtype=np.int64),
            "format": strings([NUMPY if self.numpy else row.format for row in rows]),
            "error_stage": strings([e.stage if e else "" for e in errors]),
            "error_kind": strings([e.kind if e else "" for e in errors]),
            "error_message": strings([e.message if e else "" for e in errors]),
        }
