"""Checks of ``pillow-gpu apply``'s output options (suffix, format, quality, output folder)
before any file is read: each problem is a usage error naming why, what was given and the fix."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from PIL import Image as PILImage

from pillow_gpu.cli._outputs import QUALITY_FORMATS, writable_format
from pillow_gpu.cli._report import shown as _shown

__all__ = ["check_options"]

_FORMAT_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]*")


def _writable_extensions() -> str:
    extensions = sorted(
        ext for ext, name in PILImage.registered_extensions().items() if name in PILImage.SAVE
    )
    return ", ".join(ext.lstrip(".") for ext in extensions)


def _usage(option: str, why: str, observed: str, fix: str) -> str:
    return f"invalid {option}: why: {why}; observed: {observed}; fix: {fix}"


def check_options(args: argparse.Namespace) -> str | None:
    """The usage error of ``args`` (suffix, format, quality, output folder), or None when
    valid."""
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
        if writable_format(f".{text}") is None:
            return _usage(
                "--format",
                "Pillow has no writer for files with this extension",
                repr(args.format),
                f"pass one of: {_writable_extensions()}",
            )
        args.format = text
        quality = getattr(args, "quality", None)
        written_as = writable_format(f".{text}")
        if quality is not None and (written_as or "").upper() not in QUALITY_FORMATS:
            return _usage(
                "--quality",
                "only JPEG, WebP and AVIF outputs take a quality; Pillow's writer of this "
                "format would ignore it",
                f"--quality {quality} with --format {text} ({written_as} files)",
                "drop --quality, or pass --format jpg, webp or avif",
            )
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
        if not root.exists() and writable_format(root.suffix) is not None:
            # `-o result.png`: a file name meant as the output would become a folder of it.
            return _usage(
                "--output-dir",
                "-o names the folder outputs are written into (each keeps its input's name), "
                "and this one would be created with an image file's extension",
                f"{_shown(args.output_dir)} does not exist and ends in {root.suffix}",
                "name a folder, e.g. -o out (create it first to use this name anyway); "
                "--format sets the outputs' file type",
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
