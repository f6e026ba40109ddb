"""Carrying metadata never costs ``pillow-gpu apply`` an output, over real files.

Every corpus file (Pillow's test images and piexif's camera photos) whose header holds an item
``apply`` carries (EXIF, an ICC profile, XMP, a resolution, a TIFF's picture tags) goes
through ``apply`` into JPEG, PNG, WebP and TIFF, once keeping the items and once with
``--strip-metadata``: the same files must be written. Items an output format cannot store are
left out instead of failing the file: a PNG's resolution past its 32-bit pixels per metre (the
4294967295 dpi sentinel some writers leave), an EXIF block Pillow cannot read as tags in a
TIFF (which stores EXIF as tags), a TIFF's Exif and GPS directories in a compressed TIFF
(which Pillow hands to libtiff). Before those rules, 6 of these files failed where Pillow's
plain save writes them.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu.cli import main
from pillow_gpu.cli._metadata import NO_ITEMS, file_items

from .conftest import opened_files

pytestmark = pytest.mark.usefixtures("device")

#: The info entries ``apply`` writes into outputs.
_CARRIED = ("exif", "icc_profile", "xmp", "dpi")
#: Pillow's fuzzer files: each is a failure either way, and some take long to fail.
_FUZZED = ("crash", "timeout", "oom", "fuzz", "bomb")


def _holds_metadata(opened: PILImage.Image) -> bool:
    if opened.format == "TIFF" and file_items(opened) != NO_ITEMS:
        return True
    return any(opened.info.get(key) for key in _CARRIED)


@pytest.fixture(scope="module")
def inputs(
    pillow_corpus: Path, camera_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """One folder of the corpus files that hold metadata (numbered: names repeat)."""
    folder = tmp_path_factory.mktemp("metadata-corpus") / "in"
    folder.mkdir()
    files = [
        path
        for corpus in (pillow_corpus, camera_corpus)
        for path in opened_files(corpus, _holds_metadata)
        if not path.name.lower().startswith(_FUZZED)
    ]
    for index, path in enumerate(files):
        shutil.copyfile(path, folder / f"{index:04d}-{path.name}")
    return folder


def _written(inputs: Path, out: Path, output: str, *extra: str) -> set[str]:
    argv = ["apply", "thumbnail:64x64", str(inputs), "-o", str(out), "--format", output]
    main([*argv, "--first-frame", "--cpu-fallback", "--no-progress", *extra])
    return {path.name for path in out.iterdir()} if out.exists() else set()


@pytest.mark.parametrize("output", ["jpg", "png", "webp", "tif"])
def test_corpus_outputs_with_metadata_are_the_outputs_without(
    inputs: Path, tmp_path: Path, capsys: Any, output: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files
        kept = _written(inputs, tmp_path / "kept", output)
        stripped = _written(inputs, tmp_path / "stripped", output, "--strip-metadata")
    capsys.readouterr()
    count = len(list(inputs.iterdir()))
    print(f"\n{output}: {len(kept)} of {count} files with metadata written either way")
    assert sorted(stripped - kept) == []
    assert sorted(kept - stripped) == []
    assert len(kept) > count // 2
