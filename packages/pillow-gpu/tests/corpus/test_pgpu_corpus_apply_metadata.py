"""Carrying metadata never costs ``pillow-gpu apply`` an output or its pixels, over real files.

Every corpus file (Pillow's test images and piexif's camera photos) whose header holds an item
``apply`` carries (EXIF, an ICC profile, XMP, a resolution, IPTC, a TIFF's picture tags) goes
through ``apply`` into JPEG, PNG, WebP and TIFF, once keeping the items and once with
``--strip-metadata``: the same files must be written, and each pair must read back as the same
pixels (a TIFF output turned by the orientation it carries, which Pillow's TIFF reader
applies). Items an output format cannot store are left out instead of failing the file: a
PNG's resolution past its 32-bit pixels per metre (the 4294967295 dpi sentinel some writers
leave), an EXIF block Pillow cannot read as tags in a TIFF (which stores EXIF as tags), a
TIFF's Exif and GPS directories in a compressed TIFF (which Pillow hands to libtiff). Before
those rules, 6 of these files failed where Pillow's plain save writes them. The tags of an
EXIF that say how a TIFF stores pixels are left out of a TIFF output: before that, 5 TIFF
outputs (photos whose EXIF holds their width and height) were written and could not be read.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from PIL import ExifTags
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu.cli import main
from pillow_gpu.cli._metadata import NO_ITEMS, file_items

from .conftest import opened_files

pytestmark = pytest.mark.usefixtures("device")

#: The info entries ``apply`` writes into outputs.
_CARRIED = ("exif", "icc_profile", "xmp", "dpi", "photoshop")
#: Pillow's fuzzer files: each is a failure either way, and some take long to fail.
_FUZZED = ("crash", "timeout", "oom", "fuzz", "bomb")


def _holds_metadata(opened: PILImage.Image) -> bool:
    if opened.format == "TIFF" and file_items(opened) != NO_ITEMS:
        return True
    return any(opened.info.get(key) for key in _CARRIED)


@pytest.fixture(scope="module")
def inputs(
    pillow_corpus: Path,
    camera_corpus: Path,
    program_corpus: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """One folder of the corpus files that hold metadata (numbered: names repeat)."""
    folder = tmp_path_factory.mktemp("metadata-corpus") / "in"
    folder.mkdir()
    files = [
        path
        for corpus in (pillow_corpus, camera_corpus, program_corpus)
        for path in opened_files(corpus, _holds_metadata)
        if not path.name.lower().startswith(_FUZZED)
    ]
    for index, path in enumerate(files):
        shutil.copyfile(path, folder / f"{index:04d}-{path.name}")
    return folder


def _read(path: Path, turn: int | None = None) -> tuple[str, tuple[int, int], bytes]:
    """An output's mode, size and pixels, turned as EXIF orientation ``turn`` says (what
    Pillow's TIFF reader does to a TIFF that carries it)."""
    with PILImage.open(path) as image:
        image.load()
        read = image.copy()
    if turn not in (None, 1):
        exif = PILImage.Exif()
        exif[ExifTags.Base.Orientation] = turn
        read.info["exif"] = exif.tobytes()
        read = PILImageOps.exif_transpose(read)
    return read.mode, read.size, read.tobytes()


def _orientation(path: Path) -> int | None:
    with PILImage.open(path) as image:
        return image.getexif().get(ExifTags.Base.Orientation) if image.format == "TIFF" else None


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
    unlike = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(kept):
            try:
                turn = _orientation(tmp_path / "kept" / name)
                same = _read(tmp_path / "kept" / name) == _read(tmp_path / "stripped" / name, turn)
            except OSError as error:  # an output no reader can load
                unlike.append(f"{name}: {error}")
                continue
            if not same:
                unlike.append(f"{name}: other pixels")
    assert unlike == []
