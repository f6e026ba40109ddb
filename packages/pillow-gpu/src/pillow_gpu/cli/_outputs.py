"""Where ``pillow-gpu apply`` reads and writes: option checks, input discovery, safe writing.

Inputs are de-duplicated by their resolved path (the first mention wins), and every output
name is claimed once: a later input whose output is already claimed by an earlier input of
the run (or is an input of the run) is an ``OutputCollision`` failure and nothing is written
for it. Each output is written to a hidden temporary file in its target folder and renamed
into place, so a final name never holds a partial file, and a failed save leaves the
previous file intact. A symlink at an output name is never followed (``--overwrite``
replaces the link itself), and no output is written through a symlink that leads out of
``--output-dir``. The output folder is never read as input.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import errno
import io
import os
import stat
import struct
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from PIL import Image as PILImage

from pillow_gpu._crashing_saves import refuse_crashing_save
from pillow_gpu.cli._frames import animation_options
from pillow_gpu.cli._metadata import (
    NO_ITEMS,
    FileItems,
    iptc_record,
    metadata_options,
    with_iptc,
)
from pillow_gpu.cli._plugins import HIDDEN, named_extensions, plugin_hint
from pillow_gpu.cli._report import Failure
from pillow_gpu.cli._report import shown as _shown
from pillow_gpu.cli._writer_limits import WriterLimit, refuse_palette_alpha, refuse_too_large

__all__ = [
    "QUALITY_FORMATS",
    "TEMP_SUFFIX",
    "Discovery",
    "Input",
    "OutputError",
    "Writer",
    "discover",
    "encode",
    "output_failure",
    "real_path",
    "writable_format",
]

#: The name ending of the temporary file an output is written to before it is renamed into
#: place (a hidden ``.NAME.XXXXXXXX.pillow-gpu.tmp`` beside the output). Only a killed process
#: (SIGKILL, power loss) can leave one behind; it is never read as an input or an output.
TEMP_SUFFIX = ".pillow-gpu.tmp"

#: Pillow formats whose save takes ``--quality`` (as ``quality=``); others are saved without it.
QUALITY_FORMATS = frozenset({"JPEG", "WEBP", "AVIF"})


class OutputError(Exception):
    """An output that must not be written; ``kind`` names the failure."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def output_failure(path: Path | str, error: OutputError) -> Failure:
    """The failure of an output that must not be written."""
    return Failure(path=str(path), kind=error.kind, stage="output", message=str(error))


# -- output formats ------------------------------------------------------------------------


def writable_format(extension: str) -> str | None:
    """The Pillow format that writes files ending in ``extension`` (``.png``), or None."""
    name = PILImage.registered_extensions().get(extension.lower())
    return name if name is not None and name.upper() in PILImage.SAVE else None


# -- discovery -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Input:
    """One input file, the output it is written to and the Pillow format that writes it."""

    path: Path
    output: Path
    format: str


def _image_extensions() -> frozenset[str]:
    return frozenset(ext.lower() for ext in PILImage.registered_extensions())


#: The extension an output of an identified file gets, where the format's own name is not the
#: usual one (an MPO is a camera JPEG; its JPEG writer writes the picture).
_USUAL_EXTENSION = {"JPEG": ".jpg", "MPO": ".jpg", "TIFF": ".tif"}


def identified_extension(path: Path) -> str | None:
    """The usual extension of the format Pillow identifies ``path``'s content as (its header
    only, as ``Image.open`` does whatever the name; ``""`` for a format Pillow registers no
    extension for, such as SPIDER), or None where it identifies no image.

    For files whose extension Pillow does not register: a download's ``photo.jpg_large``, a
    file without one. Pillow's identification is by each format's signature, so other files
    (text, archives, programs) are not taken for images.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a header Pillow warns about is still identified
            with PILImage.open(path) as opened:
                file_format = opened.format
    except Exception:  # no image Pillow reads, or one it refuses to open (a bomb)
        return None
    usual = _USUAL_EXTENSION.get(file_format or "")
    if usual is not None:
        return usual
    extensions = [
        ext for ext, name in PILImage.registered_extensions().items() if name == file_format
    ]
    own = f".{(file_format or '').lower()}"
    return own if own in extensions else (extensions[0] if extensions else "")


def real_path(path: Path | str) -> str:
    """``path`` resolved and case-normalised, for comparing paths."""
    return os.path.normcase(os.path.realpath(path))


def _within(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _output_path(
    source: Path, relative: Path, args: argparse.Namespace, identified: str | None
) -> Path:
    suffix = f".{args.format}" if args.format else (identified or source.suffix)
    if args.output_dir:
        return Path(args.output_dir) / relative.with_suffix(suffix)
    return source.with_name(f"{source.stem}{args.suffix}{suffix}")


@dataclass(slots=True, kw_only=True)
class Discovery:
    """What :func:`discover` found: inputs to run, failures, ignored duplicates."""

    inputs: list[Input] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    duplicates: int = 0
    #: What the folders held and the run left out: extension (or ``HIDDEN``) -> count.
    skipped: collections.Counter[str] = field(default_factory=collections.Counter)
    #: Files of the folders left out for their extension that Pillow identifies as images.
    readable: collections.Counter[str] = field(default_factory=collections.Counter)


def _folder_files(
    folder: Path, args: argparse.Namespace, skip: str | None, unreadable: list[OSError]
) -> tuple[list[Path], collections.Counter[str], collections.Counter[str], int]:
    """Image files of ``folder`` (sorted), the other files by extension, those of them Pillow
    identifies as images by their content (:func:`identified_extension`) by extension, and
    the number of earlier outputs.

    Only files with an image extension are inputs, as a shell's ``*.jpg`` would choose them:
    a camera card's ``.THM`` previews are JPEGs, and a folder's stray images under other names
    are counted (the summary names them), not run.

    Sub-folders are searched with ``--recursive``; symlinked sub-folders are not followed and
    the output folder ``skip`` (a resolved path) is never entered. Hidden files and folders
    (a name starting with a dot: a Mac's ``._IMG.jpg`` resource forks, ``.thumbnails``) are
    left out, as a shell's ``*`` leaves them out, and counted with the other files. Folders
    that cannot be listed are appended to ``unreadable``.
    """
    extensions = _image_extensions()
    found: list[Path] = []
    other: collections.Counter[str] = collections.Counter()
    readable: collections.Counter[str] = collections.Counter()
    earlier = 0
    for top, folders, names in os.walk(folder, onerror=unreadable.append):
        if not args.recursive:
            folders.clear()
        hidden = sum(name.startswith(".") for name in folders)
        if hidden:
            other[HIDDEN] += hidden
        folders[:] = [
            name
            for name in folders
            if not name.startswith(".") and (skip is None or real_path(Path(top) / name) != skip)
        ]
        for name in names:
            if name.startswith("."):
                other[HIDDEN] += 1
                continue
            child = Path(top) / name
            if not child.is_file():
                other["(not a file)"] += 1
            elif child.suffix.lower() not in extensions:
                if identified_extension(child) is None:
                    other[child.suffix.lower()] += 1
                else:
                    readable[child.suffix.lower()] += 1
            elif not args.output_dir and child.stem.endswith(args.suffix):
                earlier += 1  # an earlier output written beside its input
            else:
                found.append(child)
    return sorted(found), other, readable, earlier


def _no_images(
    text: str,
    args: argparse.Namespace,
    other: collections.Counter[str],
    readable: collections.Counter[str],
    earlier: int,
) -> Failure:
    held = [f"{sum(other.values())} other file(s)"]
    if other:
        held[0] += f" ({named_extensions(other)})"
    elif readable:
        held.clear()
    if readable:
        held.append(
            f"{sum(readable.values())} image file(s) under other extensions "
            f"({named_extensions(readable)})"
        )
    if earlier:
        held.append(f"{earlier} earlier output(s) ending in {args.suffix!r}, skipped")
    observed = " and ".join(held)
    fix = "check the path" if args.recursive else "pass -r to search sub-folders, or check the path"
    hint = plugin_hint(other)
    if hint is not None:
        fix = f"{hint}, or {fix}"
    if readable:
        fix = f"name the image files on the command line, or {fix}"
    return Failure(
        path=text,
        kind="NoImages",
        stage="input",
        message=f"why: the folder holds no image file to process; observed: {observed}; fix: {fix}",
    )


def _missing(text: str, what: str) -> Failure:
    fix = "check the path"
    if text == "-":  # other tools' name for standard input
        fix = "inputs are files or folders, not standard input: save the stream to a file"
    return Failure(
        path=text,
        kind="FileNotFoundError",
        stage="input",
        message=f"why: the input is not an image file or folder; observed: {what}; fix: {fix}",
    )


def discover(
    paths: Sequence[str], args: argparse.Namespace, interrupted: Callable[[], bool]
) -> Discovery:
    """Expand folders into their image files and claim each output name once.

    A file with an image extension is not opened here. A folder's other files are identified
    by their content (counted, not run); a file named with another extension (or none) is an
    input where Pillow identifies an image in it (:func:`identified_extension`), and its
    output takes that format's extension. Inputs are de-duplicated by resolved path (the
    first mention wins); an input whose output name is already claimed, or is an input, is a
    failure.
    """
    found = Discovery()
    skip = real_path(args.output_dir) if args.output_dir else None
    candidates: list[tuple[Path, Path, str | None]] = []
    for text in paths:
        if interrupted():
            break
        path = Path(text)
        if path.is_dir():
            unreadable: list[OSError] = []
            children, other, readable, earlier = _folder_files(path, args, skip, unreadable)
            found.skipped.update(other)
            found.readable.update(readable)
            for error in unreadable:
                where = str(error.filename) if error.filename is not None else text
                found.failures.append(Failure.from_error(where, error, "input"))
            if not children and not unreadable:
                found.failures.append(_no_images(text, args, other, readable, earlier))
            candidates.extend((child, child.relative_to(path), None) for child in children)
        elif path.is_file():
            registered = path.suffix.lower() in _image_extensions()
            candidates.append(
                (path, Path(path.name), None if registered else identified_extension(path))
            )
        elif path.exists() or path.is_symlink():
            what = "a dangling symlink" if not path.exists() else "not a regular file or folder"
            found.failures.append(_missing(text, what))
        else:
            found.failures.append(_missing(text, "no file or folder at this path"))
    sources: dict[str, Path] = {}
    unique: list[tuple[Path, Path, str | None]] = []
    for path, relative, identified in candidates:
        real = real_path(path)
        if real in sources:
            found.duplicates += 1
            continue
        sources[real] = path
        unique.append((path, relative, identified))
    claimed: dict[str, Path] = {}
    folders: dict[Path, str] = {}  # resolved output folders, cached
    for path, relative, identified in unique:
        output = _output_path(path, relative, args, identified)
        writer = writable_format(output.suffix)
        if writer is None:
            found.failures.append(output_failure(path, _no_writer(output)))
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
            found.failures.append(output_failure(path, _collision(output, owner, role)))
            continue
        claimed[name] = path
        found.inputs.append(Input(path=path, output=output, format=writer))
    return found


def _no_writer(output: Path) -> OutputError:
    return OutputError(
        "Unsupported",
        "why: Pillow has no writer for the output's extension; "
        f"observed: {_shown(str(output))} (extension {output.suffix or 'none'!r}); "
        "fix: pass --format with a writable extension such as png",
    )


def _collision(output: Path, owner: Path, role: str) -> OutputError:
    return OutputError(
        "OutputCollision",
        "why: two inputs of this run map to one output name, and outputs are never "
        "overwritten within a run (the first input keeps the name); "
        f"observed: {_shown(str(output))} is already {role} {_shown(str(owner))}; "
        "fix: rename one input, run the folders separately with different --output-dir, "
        "or keep the extensions distinct (no --format)",
    )


# -- writing ---------------------------------------------------------------------------------


def encode(
    stream: IO[bytes],
    file_format: str,
    image: PILImage.Image,
    *more: PILImage.Image,
    quality: int | None = None,
    metadata: bool | None = True,
    source: FileItems = NO_ITEMS,
) -> list[str]:
    """Save ``image`` (with ``more`` frames: all of them as one file) to ``stream`` as
    ``file_format``, as ``apply`` writes an output: with ``quality`` where the format takes
    it, the metadata (``True``: kept, with what it keeps of its input file, ``source``;
    ``False``: stripped; ``None``: as Pillow's plain ``save`` writes it; see
    :mod:`pillow_gpu.cli._metadata`) and every frame's timing. Returns the metadata items
    the format could not hold, each named with why."""
    options: dict[str, Any] = {}
    if quality is not None and file_format in QUALITY_FORMATS:
        options["quality"] = quality
    left_out: list[str] = []
    if metadata is not None:
        options.update(
            metadata_options(
                image,
                keep=metadata,
                source=source,
                output_format=file_format,
                left_out=left_out,
            )
        )
    if more:
        options.update(animation_options((image, *more), file_format, left_out))
    # Pillow's JPEG writer has no IPTC option: such a JPEG is written, then given it.
    iptc = iptc_record(image, source) if metadata and file_format == "JPEG" else None
    refuse_crashing_save(image, file_format, options)
    try:
        if iptc is None:
            image.save(stream, format=file_format, **options)
        else:
            encoded = io.BytesIO()
            image.save(encoded, format=file_format, **options)
            stream.write(with_iptc(encoded.getvalue(), iptc))
    except (TypeError, ValueError, OverflowError, OSError, RuntimeError, struct.error) as error:
        if isinstance(error, OSError) and error.errno is not None:
            raise  # the file system's (a full disk): reported as such
        frames = (image, *more)
        explained: WriterLimit | None = refuse_too_large(error, file_format, frames)
        if explained is None and isinstance(error, TypeError):
            explained = refuse_palette_alpha(error, file_format, frames)
        if explained is None:
            raise
        raise explained from error
    return left_out


#: ``link`` errors of a file system without hard links (FAT, exFAT, some network shares),
#: where an output is renamed into place after its check instead.
_NO_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK})


def _linked(temp: str, output: Path) -> bool:
    """Link the written ``temp`` file to ``output`` where no file is there, and remove
    ``temp``; False where the file system has no hard links. Raises :class:`OutputError`
    when a file appeared at ``output`` after it was checked."""
    try:
        os.link(temp, output)  # the temporary file is never a symlink
    except FileExistsError as error:
        raise OutputError(
            "FileExistsError",
            "why: the output appeared while this file was written (another process wrote it), "
            f"and outputs are never overwritten without --overwrite; observed: "
            f"{_shown(str(output))}; fix: run one command per output folder, or pass "
            "--overwrite",
        ) from error
    except OSError as error:
        if error.errno in _NO_LINKS:
            return False
        raise
    os.unlink(temp)
    return True


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@dataclass(slots=True, kw_only=True)
class Writer:
    """Writes outputs atomically, never through a symlink and never twice to one file."""

    root: str | None  # the resolved --output-dir, or None when writing beside inputs
    overwrite: bool
    quality: int | None = None  # --quality, for the formats in QUALITY_FORMATS
    metadata: bool = True  # not --strip-metadata: EXIF, ICC profile, XMP, dpi (cli._metadata)
    mode: int = field(default_factory=_file_mode)
    written: set[tuple[int, int]] = field(default_factory=set)

    def check(self, item: Input) -> None:
        """Raise :class:`OutputError` when ``item``'s output must not be written."""
        parent = item.output.parent
        if self.root is not None:
            real = real_path(parent)
            if not _within(real, self.root):
                raise OutputError(
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
            raise OutputError(
                "NotADirectoryError",
                f"why: the output's folder is a file; observed: {error}; "
                "fix: remove that file, or choose another --output-dir",
            ) from error
        if (status.st_dev, status.st_ino) in self.written:
            raise OutputError(
                "OutputCollision",
                "why: another input of this run was already written to this file (the file "
                "system folds names or links folders); observed: "
                f"{_shown(str(item.output))}; fix: rename one input or use separate runs",
            )
        if stat.S_ISDIR(status.st_mode):
            raise OutputError(
                "IsADirectoryError",
                f"why: a folder sits at the output name; observed: {_shown(str(item.output))}; "
                "fix: move the folder, or choose another --suffix or --output-dir",
            )
        if not self.overwrite:
            link = " (a symlink, which is never followed)" if stat.S_ISLNK(status.st_mode) else ""
            raise OutputError(
                "FileExistsError",
                f"why: the output already exists{link}; observed: {_shown(str(item.output))}; "
                "fix: pass --overwrite, another --suffix or --output-dir",
            )

    def write(
        self,
        item: Input,
        image: PILImage.Image,
        *more: PILImage.Image,
        source: FileItems = NO_ITEMS,
    ) -> list[str]:
        """Save ``image`` (with ``more`` frames: all of them as one file) to a temporary file
        beside the output, then rename it into place, with what it keeps of its input file
        (``source``: a PNG's text chunks, a TIFF's picture tags; :mod:`pillow_gpu.cli._metadata`).
        Returns the metadata items the output's format could not hold, each named with why.

        A symlink at the output name is replaced, never followed. On any failure (an
        interrupt included) the temporary file is removed and the old output is untouched.
        Without ``overwrite`` the file is linked into place, which fails where another process
        wrote the output meanwhile (two runs into one folder), instead of replacing it.
        """
        self.check(item)
        parent = item.output.parent
        parent.mkdir(parents=True, exist_ok=True)
        self.check(item)  # the folders exist now: resolve them again
        prefix = f".{item.output.name[:64]}."
        handle, temp = tempfile.mkstemp(prefix=prefix, suffix=TEMP_SUFFIX, dir=parent)
        try:
            with os.fdopen(handle, "w+b") as stream:  # TIFF's save_all reads back its pages
                left_out = encode(
                    stream,
                    item.format,
                    image,
                    *more,
                    quality=self.quality,
                    metadata=self.metadata,
                    source=source,
                )
            os.chmod(temp, self.mode)
            if self.overwrite or not _linked(temp, item.output):
                os.replace(temp, item.output)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        status = os.lstat(item.output)
        self.written.add((status.st_dev, status.st_ino))
        return left_out
