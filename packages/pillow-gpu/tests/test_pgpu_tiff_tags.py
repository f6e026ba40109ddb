"""An opened TIFF's tag directories (``tag_v2``, ``tag``, ``ifd``, ``get_photoshop_blocks()``)
and the tags a TIFF saved from it keeps, against Pillow (:mod:`pillow_gpu._tiff_tags`).

The files are written by Pillow with the tags photo and scanning software leave: description,
software, artist, resolution, XMP, IPTC, Photoshop resources and an orientation; the corpus
test (``corpus/test_pgpu_corpus_tiff_tags.py``) runs the same reads on files other programs
wrote.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence
from PIL import TiffImagePlugin, TiffTags
from pillow_gpu import Image, ImageOps, ImageSequence

ORIENTATION = 274
#: A Photoshop image resource block: resolution info (id 0x03ED), 16 bytes.
PHOTOSHOP = b"8BIM\x03\xed\x00\x00\x00\x00\x00\x10" + bytes(range(16))
IPTC = b"\x1c\x02\x00\x00\x02\x00\x04\x1c\x02\x05\x00\x05title"
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'

pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture
def opened() -> Iterator[Callable[[Any, Path], Any]]:
    """``opened(module, path)``: ``module.open(path)``, Pillow's images closed after the test."""
    with contextlib.ExitStack() as stack:

        def open_(module: Any, path: Path) -> Any:
            image = module.open(path)
            if isinstance(image, PILImage.Image):
                stack.enter_context(image)
            return image

        yield open_


def _tiff(
    tmp_path: Path, *, orientation: int = 6, pages: int = 1, compression: str = "raw"
) -> Path:
    """A TIFF (``pages`` pages, 24x16 RGB) carrying the tags photo software writes."""
    tags = TiffImagePlugin.ImageFileDirectory_v2()
    tags[270] = "a scanned page"
    tags[305] = "Scanner 2.1"
    tags[315] = "Someone"
    tags[ORIENTATION] = orientation
    tags[700] = XMP
    tags[33723] = IPTC
    tags.tagtype[33723] = TiffTags.UNDEFINED
    tags[34377] = PHOTOSHOP
    frames = [PILImage.new("RGB", (24, 16), (40 * page, 90, 200)) for page in range(pages)]
    for frame in frames:
        frame.putpixel((1, 2), (255, 0, 0))  # a turn shows
    path = tmp_path / f"page-{orientation}-{pages}-{compression}.tif"
    frames[0].save(
        path,
        tiffinfo=tags,
        dpi=(300, 300),
        compression=compression,
        save_all=pages > 1,
        append_images=frames[1:],
    )
    return path


def _items(directory: Any) -> list[tuple[int, str]]:
    return sorted((int(tag), repr(value)) for tag, value in directory.items())


def _written(image: Any, **params: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, "TIFF", **params)
    return out.getvalue()


@pytest.mark.parametrize("compression", ["raw", "tiff_lzw"])
@pytest.mark.parametrize("orientation", [1, 6])
def test_directories_as_opened_are_pillow_s(
    opened: Callable[[Any, Path], Any], tmp_path: Path, orientation: int, compression: str
) -> None:
    path = _tiff(tmp_path, orientation=orientation, compression=compression)
    reference, lazy = opened(PILImage, path), opened(Image, path)
    assert _items(lazy.tag_v2) == _items(reference.tag_v2)
    assert _items(lazy.tag) == _items(reference.tag)
    assert lazy.tag_v2[ORIENTATION] == orientation
    assert lazy.tag_v2[305] == "Scanner 2.1"
    assert lazy.tag[270] == ("a scanned page",)  # the legacy directory's tuples
    assert lazy.tag_v2 is lazy.tag_v2
    assert lazy.ifd is lazy.tag
    assert isinstance(lazy.tag_v2, TiffImagePlugin.ImageFileDirectory_v2)
    assert lazy.get_photoshop_blocks() == reference.get_photoshop_blocks()
    assert lazy.get_photoshop_blocks() == {0x03ED: {"data": bytes(range(16))}}


#: Reads Pillow answers without loading the image: the orientation stays in ``tag_v2``.
READS: dict[str, Callable[[Any], object]] = {
    "info": lambda image: image.info,
    "size": lambda image: image.size,
    "getexif": lambda image: image.getexif(),
    "n_frames": lambda image: image.n_frames,
    "repr": repr,
}
#: Uses where Pillow's image loads: the orientation leaves ``tag_v2`` (and ``tag``).
USES: dict[str, Callable[[Any], object]] = {
    "load": lambda image: image.load(),
    "tobytes": lambda image: image.tobytes(),
    "resize": lambda image: image.resize((4, 4)),
    "thumbnail": lambda image: image.thumbnail((8, 8)),
    "convert": lambda image: image.convert("L"),
}


@pytest.mark.parametrize("read", list(READS) + list(USES))
def test_the_orientation_leaves_tag_v2_where_pillow_s_image_loads(
    opened: Callable[[Any, Path], Any], tmp_path: Path, read: str
) -> None:
    path = _tiff(tmp_path)
    answers = []
    for module in (PILImage, Image):
        image: Any = opened(module, path)
        directory, legacy = image.tag_v2, image.tag
        {**READS, **USES}[read](image)
        answers.append((ORIENTATION in directory, _items(directory), _items(legacy)))
        assert image.tag_v2 is directory
    assert answers[1] == answers[0]
    assert answers[0][0] is (read in READS)


@pytest.mark.parametrize("compression", ["raw", "tiff_lzw", "tiff_adobe_deflate"])
@pytest.mark.parametrize("edit", ["as-opened", "thumbnail", "edited-tags", "exif-transpose"])
def test_a_tiff_saved_from_an_opened_tiff_is_pillow_s(
    opened: Callable[[Any, Path], Any], tmp_path: Path, edit: str, compression: str
) -> None:
    # Pillow's TIFF encoder copies resolution, IPTC, Photoshop and XMP from the image's tags
    # (every tag where libtiff writes the file): an opened image saved keeps them.
    path = _tiff(tmp_path)
    written = []
    for module, ops in ((PILImage, PILImageOps), (Image, ImageOps)):
        image: Any = opened(module, path)
        if edit == "thumbnail":
            image.thumbnail((12, 12))
        elif edit == "edited-tags":
            image.tag_v2[270] = "edited description"
            image.tag_v2[282] = 150.0
            del image.tag_v2[34377]
        elif edit == "exif-transpose":
            ops.exif_transpose(image, in_place=True)
        written.append(_written(image, compression=compression))
    assert written[1] == written[0]
    with PILImage.open(io.BytesIO(written[1])) as saved:
        assert saved.tag_v2[33723] == IPTC
        assert saved.tag_v2[700] == XMP
        assert saved.info["dpi"] == ((150.0, 300.0) if edit == "edited-tags" else (300.0, 300.0))


def test_a_copy_or_a_result_has_no_directories(
    opened: Callable[[Any, Path], Any], tmp_path: Path
) -> None:
    path = _tiff(tmp_path)
    lazy = opened(Image, path)
    for derived in (lazy.copy(), lazy.resize((4, 4)), Image.new("RGB", (2, 2))):
        for name in ("tag_v2", "tag", "ifd", "get_photoshop_blocks"):
            assert not hasattr(derived, name)
        with pytest.raises(AttributeError, match="why: only an opened TIFF has tag directories"):
            derived.tag_v2  # noqa: B018
    reference = opened(PILImage, path)
    assert not hasattr(reference.copy(), "tag_v2")
    # A copy saved as TIFF has no tags of the file, in Pillow as here.
    assert _written(lazy.copy()) == _written(reference.copy())


@pytest.mark.parametrize("file_format", ["JPEG", "PNG", "GIF"])
def test_other_formats_have_no_directories(
    opened: Callable[[Any, Path], Any], tmp_path: Path, file_format: str
) -> None:
    path = tmp_path / f"image.{file_format.lower()}"
    PILImage.new("RGB", (4, 4)).save(path, file_format)
    assert not hasattr(opened(PILImage, path), "tag_v2")
    assert not hasattr(opened(Image, path), "tag_v2")


def test_seek_reloads_tag_v2_in_place_as_pillow_s(
    opened: Callable[[Any, Path], Any], tmp_path: Path
) -> None:
    path = _tiff(tmp_path, orientation=1, pages=3)
    answers = []
    for module in (PILImage, Image):
        image: Any = opened(module, path)
        directory, legacy = image.tag_v2, image.tag
        found = []
        for frame in (2, 1, 1, 0):
            image.seek(frame)
            image.load()
            found.append((image.tag_v2 is directory, image.tag is legacy, _items(image.tag_v2)))
            found.append(_written(image))
        answers.append(found)
    assert answers[1] == answers[0]


def test_frames_of_image_sequence_keep_their_tags(
    opened: Callable[[Any, Path], Any], tmp_path: Path
) -> None:
    # Pillow's iterator yields the file's image standing at each frame; a lazy frame is its own
    # image with that frame's directories, so each page saved keeps its tags.
    path = _tiff(tmp_path, pages=3)
    pages = [
        [(_items(page.tag_v2), _written(page)) for page in sequence.Iterator(opened(module, path))]
        for module, sequence in ((PILImage, PILImageSequence), (Image, ImageSequence))
    ]
    assert pages[1] == pages[0]
    assert len(pages[0]) == 3


@pytest.mark.parametrize("use", ["thumbnail-in-place", "lazy-resize"])
def test_getexif_after_a_use_is_pillow_s(
    opened: Callable[[Any, Path], Any], tmp_path: Path, use: str
) -> None:
    # Pillow's TIFF reads its Exif from the file (the tag directory), whatever was done in
    # place; a lazy operation is where Pillow's image loads (and turns the pixels), even before
    # the result is evaluated: the orientation is gone.
    path = _tiff(tmp_path)
    answers = []
    for module in (PILImage, Image):
        image: Any = opened(module, path)
        if use == "thumbnail-in-place":
            image.thumbnail((12, 12))
        else:
            image.resize((4, 4))
        answers.append((_items(image.getexif()), image.size))
    assert answers[1] == answers[0]
    assert (305, "'Scanner 2.1'") in answers[0][0]
    assert ORIENTATION not in dict(answers[0][0])


def test_pages_of_image_sequence_have_their_exif(
    opened: Callable[[Any, Path], Any], tmp_path: Path
) -> None:
    # Pillow's TIFF reads a page's Exif from that page's directory (its orientation until the
    # page loads); a lazy page has the same.
    path = _tiff(tmp_path, pages=3)
    answers = []
    for module, sequence in ((PILImage, PILImageSequence), (Image, ImageSequence)):
        found = []
        for page in sequence.Iterator(opened(module, path)):
            before = _items(page.getexif())
            page.load()
            found.append((before, _items(page.getexif())))
        answers.append(found)
    assert answers[1] == answers[0]
    assert (ORIENTATION, "6") in answers[0][1][0]
    assert ORIENTATION not in dict(answers[0][1][1])
