"""Every corpus TIFF (scanners, fax, GDAL, Photoshop, GIMP, libtiff's own samples, multi-page,
tiled, planar, 16-bit, broken and fuzzed files) read and saved through its tag directories,
against Pillow doing the same (:mod:`pillow_gpu._tiff_tags`); and every one that ``apply``
writes as a JPEG or a TIFF, with the source's picture tags and Exif and GPS directories in its
output's EXIF (:mod:`pillow_gpu.cli._metadata`).

Each case ends with the tags, the written file or the exception's type, and must equal
Pillow's. A TIFF written through libtiff is compared by its decoded tags and pixels with the
page number's second value left out: Pillow's own output carries uninitialised memory there
(two saves of the same image differ), everything else byte for byte. The shares are printed.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import ExifTags, TiffTags
from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageSequence
from pillow_gpu.cli import main
from pillow_gpu.cli._metadata import TIFF_BLOCKS, TIFF_PICTURE_TAGS

from .conftest import RealCorpus, Tally, opened_files, outcome

#: Largest header (pixels) whose cases run.
MAX_PIXELS = 1 << 22
PAGE_NUMBER = 297
COMPRESSION = 259


def _tags(image: Any) -> str:
    # repr: a rational's NaN (a zero denominator) compares unequal to itself.
    return repr(sorted((int(tag), repr(value)) for tag, value in image.tag_v2.items()))


def _written(image: Any, **params: Any) -> Any:
    """What ``image.save(..., "TIFF", **params)`` wrote: its bytes, or for a file libtiff wrote
    (compressed), its tags (the page number's first value only) and pixels."""
    out = io.BytesIO()
    image.save(out, "TIFF", **params)
    data = out.getvalue()
    with PILImage.open(io.BytesIO(data)) as written:
        if written.tag_v2.get(COMPRESSION, 1) == 1:
            return data
        tags = dict(written.tag_v2)
        if PAGE_NUMBER in tags:
            tags[PAGE_NUMBER] = tags[PAGE_NUMBER][:1]
        return len(data), repr(sorted(tags.items())), written.tobytes()


def _opened(sequence: Any, image: Any) -> tuple[Any, ...]:
    return (
        _tags(image),
        repr(sorted(image.tag.items())),
        image.ifd is image.tag,
        image.tag_v2 is image.tag_v2,
        image.get_photoshop_blocks(),
    )


def _after_use(sequence: Any, image: Any) -> tuple[Any, ...]:
    image.resize((8, 8)).tobytes()  # Pillow's image loads at the resize; a lazy one's first use
    return _tags(image), repr(sorted(image.tag.items()))


def _saved(sequence: Any, image: Any) -> tuple[Any, ...]:
    return (_written(image),)


def _edited_thumbnail_saved(sequence: Any, image: Any) -> tuple[Any, ...]:
    image.tag_v2[270] = "edited description"
    image.tag_v2[305] = "edited software"
    image.thumbnail((40, 40))
    return _tags(image), _written(image, compression="tiff_lzw")  # libtiff: every tag copied


def _exif_after_thumbnail(sequence: Any, image: Any) -> tuple[Any, ...]:
    image.thumbnail((40, 40))
    image.tobytes()  # a file Pillow cannot decode raises at the thumbnail, a lazy one here
    exif = image.getexif()
    return repr(sorted((int(tag), repr(value)) for tag, value in exif.items()))


def _pages_saved(sequence: Any, image: Any) -> tuple[Any, ...]:
    return tuple((_tags(page), _written(page)) for page in sequence.Iterator(image))


def _copy(sequence: Any, image: Any) -> tuple[Any, ...]:
    copy = image.copy()
    copy.tobytes()
    return hasattr(copy, "tag_v2"), hasattr(copy, "tag"), hasattr(image, "tag_v2")


CASES: dict[str, Callable[[Any, Any], tuple[Any, ...]]] = {
    "opened": _opened,
    "after-use": _after_use,
    "saved": _saved,
    "edited-thumbnail-saved": _edited_thumbnail_saved,
    "exif-after-thumbnail": _exif_after_thumbnail,
    "pages-saved": _pages_saved,
    "copy": _copy,
}


def _outcome(module: Any, sequence: Any, path: Path, case: str) -> Any:
    return outcome(module, path, lambda image: CASES[case](sequence, image))


def _tiffs(pillow_corpus: Path) -> list[Path]:
    return opened_files(
        pillow_corpus,
        lambda opened: hasattr(opened, "tag_v2") and opened.size[0] * opened.size[1] <= MAX_PIXELS,
    )


@pytest.mark.usefixtures("device")
def test_corpus_tiff_tags_match_pillow(real_corpus: RealCorpus) -> None:
    files = _tiffs(real_corpus.root)
    real_corpus.check_found(files, "TIFFs", pillow=80, program=4)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files, on both sides
        for path in files:
            for case in CASES:
                expected = _outcome(PILImage, PILImageSequence, path, case)
                actual = _outcome(Image, ImageSequence, path, case)
                tally.add(f"{path.name} {case}", expected, actual)
    tally.check(f"TIFF tags, {len(files)} files x {len(CASES)} cases")
    assert tally.shares["equal"] > 4 * tally.shares["same error"]


def _as_written(tag: int, value: Any) -> Any:
    """A tag value as Pillow's writer stores it: a text tag as ASCII text (other characters
    replaced by "?"), whatever type the file gave it (a scanner's number for its software)."""
    if TiffTags.lookup(tag).type == TiffTags.ASCII:
        return str(value).encode("ascii", "replace").decode("ascii")
    return value


def _picture(image: PILImage.Image, *, directories: bool, blocks: bool) -> dict[str, Any]:
    """The picture tags of ``image``'s EXIF, its Exif and GPS directories (with
    ``directories``) and its XMP, IPTC and Photoshop blocks (with ``blocks``), by ``repr``."""
    exif = image.getexif()
    found = {
        hex(tag): repr(_as_written(tag, exif[tag])) for tag in exif if tag in TIFF_PICTURE_TAGS
    }
    for pointer in (ExifTags.IFD.Exif, ExifTags.IFD.GPSInfo) if directories else ():
        with contextlib.suppress(Exception):  # a damaged directory is not carried
            directory = exif.get_ifd(pointer)
            kept = {tag: value for tag, value in directory.items() if tag != ExifTags.IFD.Interop}
            if kept:
                found[hex(pointer)] = repr(sorted(kept.items()))
    tags = getattr(image, "tag_v2", {}) if blocks else {}
    found |= {hex(tag): repr(tags[tag]) for tag in TIFF_BLOCKS & set(tags)}
    return found


def _apply_writes(folder: Path, argv: list[str]) -> set[str]:
    """The names ``apply`` wrote into ``folder`` (an emptied folder) with ``argv``."""
    shutil.rmtree(folder, ignore_errors=True)
    main([*argv, "-o", str(folder), "--cpu-fallback", "--no-progress"])
    return {path.name for path in folder.iterdir()}


@pytest.mark.parametrize("output", ["jpg", "tif"])
@pytest.mark.usefixtures("device")
def test_corpus_apply_outputs_keep_a_tiff_s_picture_tags(
    real_corpus: RealCorpus, tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    files = _tiffs(real_corpus.root)
    for index, path in enumerate(files):
        shutil.copyfile(path, folder / f"{index:03d}-{path.name}")
    out = tmp_path / "out"
    argv = ["apply", "thumbnail:64x64", str(folder), "--format", output]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Pillow's warnings about odd files
        stripped = _apply_writes(out, [*argv, "--strip-metadata"])
        kept = _apply_writes(out, argv)
        capsys.readouterr()
        assert kept == stripped  # carrying the tags never costs an output
        tally = Tally()
        tagged = 0
        for source in sorted(folder.iterdir()):
            written = out / f"{source.stem}.{output}"
            if not written.exists():  # a file Pillow cannot decode fails, as in Pillow
                continue
            to_tiff = output == "tif"
            with PILImage.open(source) as opened:
                # A compressed TIFF output goes through libtiff, which takes no directories.
                compressed = opened.info.get("compression", "raw") != "raw"
                directories = not (to_tiff and compressed)
                expected = _picture(opened, directories=directories, blocks=to_tiff)
            with PILImage.open(written) as reread:
                actual = _picture(reread, directories=directories, blocks=to_tiff)
                if not directories:
                    assert ExifTags.IFD.Exif not in reread.getexif(), source.name
            tagged += bool(expected)
            tally.add(source.name, expected, actual)
    tally.check(f"apply to {output}: picture tags of {len(files)} TIFFs, {tagged} with some")
    real_corpus.check_found(kept, "outputs", pillow=50, program=1)
    # scanners, Photoshop, ImageMagick, libtiff's tools, cameras (the four TIFFs of other
    # programs hold few tags, and the one of them written as JPEG none)
    real_corpus.check_found(tagged, "outputs with tags", pillow=20, program=0)
