"""The Exif a lazy image's ``getexif()`` hands out, kept as Pillow keeps its own
(pillow_gpu._handed_exif): one object per image, whose edits ``exif_transpose`` reads and a
TIFF loads by."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal
from pillow_gpu.errors import Unsupported

ORIENTATION = 0x0112


def _oriented_file(file_format: str, orientation: int = 6) -> bytes:
    """An 8x5 RGB file of ``file_format`` (one red corner) with EXIF ``orientation``."""
    source = PILImage.new("RGB", (8, 5), (10, 20, 30))
    source.putpixel((0, 0), (255, 0, 0))
    exif = PILImage.Exif()
    exif[ORIENTATION] = orientation
    written = io.BytesIO()
    source.save(written, file_format, exif=exif if file_format == "TIFF" else exif.tobytes())
    return written.getvalue()


def _to_pil(image: Image.Image) -> PILImage.Image:
    return image.to_pil()


def _executor(image: Image.Image) -> PILImage.Image:
    with GpuBatchExecutor() as executor:
        (result,) = executor.run([("job", image)])
    assert isinstance(result.image, PILImage.Image)
    return result.image


ROUTES: dict[str, Callable[[Image.Image], PILImage.Image]] = {
    "to_pil": _to_pil,
    "executor": _executor,
}


def _set(value: int) -> Callable[[PILImage.Exif], None]:
    def edit(exif: PILImage.Exif) -> None:
        exif[ORIENTATION] = value

    return edit


def _maker(exif: PILImage.Exif) -> None:
    exif[0x010F] = "Maker"


#: Edits of the Exif ``getexif()`` returned.
EDITS: dict[str, Callable[[PILImage.Exif], None]] = {
    "none": lambda exif: None,
    "orientation-1": _set(1),
    "orientation-3": _set(3),
    "orientation-8": _set(8),
    "delete-orientation": lambda exif: exif.pop(ORIENTATION, None),
    "maker": _maker,
}
FORMATS = ["JPEG", "WEBP", "PNG", "TIFF"]


def _exif_state(exif: PILImage.Exif) -> dict[int, Any]:
    return {int(tag): value for tag, value in exif.items()}


def test_getexif_returns_one_object_whose_edits_last() -> None:
    lazy = Image.open(io.BytesIO(_oriented_file("JPEG")))
    exif = lazy.getexif()
    assert lazy.getexif() is exif
    exif[0x010F] = "Maker"
    assert lazy.getexif()[0x010F] == "Maker"
    assert lazy.copy().getexif() is not exif  # a copy is a new image, as in Pillow


def _loads_at_open_size(data: bytes, edit: str) -> bool:
    """Whether Pillow's image of ``data``, its handed Exif edited, loads at its size at open
    (a TIFF turns while loading by the edited orientation; other files load as they are)."""
    with PILImage.open(io.BytesIO(data)) as reference:
        opened = reference.size
        EDITS[edit](reference.getexif())
        reference.load()
        return bool(reference.im.size == opened)


@pytest.mark.parametrize("in_place", [False, True], ids=["new", "in-place"])
@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("file_format", FORMATS)
def test_exif_transpose_reads_the_handed_exif(file_format: str, edit: str, in_place: bool) -> None:
    # Pillow's exif_transpose asks the image's getexif(): the object handed out before, edits
    # included; in place it deletes the orientation from that object and writes it to info. A
    # TIFF turns while loading, by that object too.
    data = _oriented_file(file_format)
    lazy = Image.open(io.BytesIO(data))
    EDITS[edit](lazy.getexif())
    result = lazy if in_place else ImageOps.exif_transpose(lazy)
    if in_place:
        assert ImageOps.exif_transpose(lazy, in_place=True) is None
    if not _loads_at_open_size(data, edit):
        # The graph was recorded on the size at open: refused when the file decodes.
        with pytest.raises(Unsupported, match="changed how Pillow loads it"):
            result.to_pil()
        return
    with PILImage.open(io.BytesIO(data)) as reference:
        EDITS[edit](reference.getexif())
        if in_place:
            PILImageOps.exif_transpose(reference, in_place=True)
            expected = reference.copy()
        else:
            expected = PILImageOps.exif_transpose(reference)
        expected_exif = _exif_state(reference.getexif())
    actual = result.to_pil()
    assert_image_equal(actual, expected)
    assert actual.info == expected.info
    assert _exif_state(lazy.getexif()) == expected_exif


#: Operations that load the file in Pillow (and decode it here).
OPERATIONS: dict[str, Callable[[Any], Any]] = {
    "convert-L": lambda im: im.convert("L"),
    "rotate-90": lambda im: im.rotate(90, expand=True),
}


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("operation", list(OPERATIONS))
@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("orientation", [3, 6])
def test_a_tiff_loads_by_the_handed_exif(
    orientation: int, edit: str, operation: str, route: str
) -> None:
    # Pillow's TIFF plugin turns the pixels while loading by the orientation of the Exif
    # getexif() handed out: an edit of it before the first use changes the pixels.
    data = _oriented_file("TIFF", orientation)
    with PILImage.open(io.BytesIO(data)) as reference:
        opened_size = reference.size
        EDITS[edit](reference.getexif())
        reference.load()
        loaded_size = reference.im.size
        expected = OPERATIONS[operation](reference) if loaded_size == opened_size else None
    lazy = Image.open(io.BytesIO(data))
    EDITS[edit](lazy.getexif())
    result = OPERATIONS[operation](lazy)
    if expected is None:
        # The edited turn loads at another size than the header gave at open.
        with pytest.raises(Unsupported, match="changed how Pillow loads it"):
            ROUTES[route](result)
        return
    assert_image_equal(ROUTES[route](result), expected)


def test_an_edit_after_the_first_use_does_not_turn_the_tiff() -> None:
    # Pillow loads at the first use; a later edit of its Exif no longer turns the pixels.
    data = _oriented_file("TIFF", 3)
    with PILImage.open(io.BytesIO(data)) as reference:
        exif = reference.getexif()
        expected = reference.convert("L")
        exif[ORIENTATION] = 1
    lazy = Image.open(io.BytesIO(data))
    exif = lazy.getexif()
    result = lazy.convert("L")
    exif[ORIENTATION] = 1
    for route in ROUTES.values():
        assert_image_equal(route(result), expected)


def test_a_loaded_tiff_reports_no_orientation() -> None:
    # Pillow's TIFF plugin deletes the orientation it turned the pixels by while loading.
    data = _oriented_file("TIFF", 6)
    with PILImage.open(io.BytesIO(data)) as reference:
        reference.load()
        expected = _exif_state(reference.getexif())
    assert ORIENTATION not in expected
    lazy = Image.open(io.BytesIO(data))
    lazy.load()
    assert _exif_state(lazy.getexif()) == expected


def _two_page_tiff() -> bytes:
    written = io.BytesIO()
    first = PILImage.new("RGB", (8, 5), (1, 2, 3))
    exif = PILImage.Exif()
    exif[0x010F] = "First"
    first.save(
        written,
        "TIFF",
        save_all=True,
        append_images=[PILImage.new("RGB", (6, 4), (4, 5, 6))],
        exif=exif,
    )
    return written.getvalue()


@pytest.mark.parametrize("file_format", ["TIFF", "GIF"])
def test_seek_reloads_the_handed_exif_as_pillow(file_format: str) -> None:
    # Pillow's TIFF plugin reloads the image's Exif from the new page's IFD when it seeks (the
    # same object); its GIF plugin keeps it as it was.
    if file_format == "TIFF":
        data = _two_page_tiff()
    else:
        written = io.BytesIO()
        frames = [PILImage.new("L", (4, 4), value) for value in (0, 9)]
        frames[0].save(written, "GIF", save_all=True, append_images=frames[1:])
        data = written.getvalue()
    states = []
    for module in (PILImage, Image):
        image: Any = module.open(io.BytesIO(data))
        exif = image.getexif()
        exif[0x0131] = "Edited"
        image.seek(1)
        states.append((image.getexif() is exif, _exif_state(image.getexif())))
    assert states[1] == states[0]


@pytest.mark.parametrize("reads", ["none", "metadata"])
def test_the_first_use_of_a_tiff_deletes_its_orientation_from_the_handed_exif(
    reads: str,
) -> None:
    # Pillow's TIFF plugin deletes the orientation it turned the pixels by when the image
    # first loads (an operation): saving with that Exif then records no turn. Reads that load
    # nothing in Pillow (info, n_frames, repr, getxmp) leave it.
    data = _oriented_file("TIFF", 6)
    written = []
    for module in (PILImage, Image):
        image: Any = module.open(io.BytesIO(data))
        exif = image.getexif()
        if reads == "metadata":
            _ = image.info, image.n_frames, repr(image), image.getxmp()
            assert exif[ORIENTATION] == 6
        converted = image.convert("L")
        assert ORIENTATION not in exif
        saved = io.BytesIO()
        converted.save(saved, "PNG", exif=exif)
        written.append(saved.getvalue())
    assert written[1] == written[0]


#: An EXIF block whose TIFF header is not one: Pillow's parse raises SyntaxError.
_INVALID_EXIF = b"Exif\x00\x00\xff\xff\xff\xff\x00\x00\x00\x08"

#: How the handle whose Exif is read is made from the opened file.
_MADE: dict[str, Callable[[Any], Any]] = {
    "opened": lambda image: image,
    "rotated": lambda image: image.rotate(90),
    "exif-transposed": lambda image: (
        ImageOps if isinstance(image, Image.Image) else PILImageOps
    ).exif_transpose(image),
}


def _outcomes(image: Any) -> list[Any]:
    """``dict(getexif())`` twice, then ``dict(getexif().get_ifd(EXIF))``: each call's value or
    the type of the exception it raised."""
    found: list[Any] = []
    for ifd in (None, None, 0x8769):
        try:
            exif = image.getexif()
            found.append(dict(exif if ifd is None else exif.get_ifd(ifd)))
        except Exception as error:  # the outcome compared is the exception's type
            found.append(type(error).__name__)
    return found


@pytest.mark.filterwarnings("ignore::UserWarning")  # Pillow's own warnings on the bad EXIF
@pytest.mark.parametrize("made", list(_MADE), ids=list(_MADE))
def test_an_exif_that_fails_to_parse_answers_later_calls_as_pillow(made: str) -> None:
    written = io.BytesIO()
    PILImage.new("RGB", (8, 5)).save(written, "JPEG", exif=_INVALID_EXIF)
    data = written.getvalue()
    expected = _outcomes(_MADE[made](PILImage.open(io.BytesIO(data))))
    assert _outcomes(_MADE[made](Image.open(io.BytesIO(data)))) == expected
    if made == "rotated":  # the case raises first, and answers what was parsed after
        assert expected == ["SyntaxError", {}, {}]
