"""``ImageOps.exif_transpose`` on real JPEG/PNG files: GPU pixels and ``info`` equal Pillow's."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import (
    assert_image_equal,
    make_image,
    png_chunk,
    png_with_late_chunks,
    rebuilt,
)
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

_ORIENTATION = 0x0112
ORIENTATIONS = {"none": None, **{f"orientation-{value}": value for value in range(1, 9)}}
FORMATS = {"jpeg": ("JPEG", "L"), "png": ("PNG", "RGBA")}


def _exif(orientation: int | None) -> bytes:
    exif = PILImage.Exif()
    exif[0x010F] = "pillow-gpu"  # Make: a tag that must survive the rewrite
    if orientation is not None:
        exif[_ORIENTATION] = orientation
    return exif.tobytes()


def _write(
    tmp_path: Path, fmt: str, mode: str, orientation: int | None, size: tuple[int, int] = (7, 5)
) -> Path:
    path = tmp_path / f"source.{fmt.lower()}"
    make_image(mode, size, seed=11).save(path, fmt, exif=_exif(orientation))
    return path


def _pillow(path: Path) -> PILImage.Image:
    with PILImage.open(path) as opened:
        return PILImageOps.exif_transpose(opened)


@pytest.mark.parametrize("orientation", list(ORIENTATIONS))
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_exif_transpose_of_a_file_matches_pillow(
    fmt: str, orientation: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, *FORMATS[fmt], ORIENTATIONS[orientation])
    expected = _pillow(path)
    lazy = ImageOps.exif_transpose(Image.open(path))
    assert not lazy.is_evaluated  # recorded from the header alone
    assert lazy.size == expected.size
    assert lazy.info == expected.info
    assert PILImage.Exif().load(expected.info["exif"]) is None  # parseable after the rewrite
    result = evaluate(lazy)
    assert_image_equal(result, expected)
    assert result.info == expected.info
    cpu = ImageOps.exif_transpose(Image.open(path)).to_pil()
    assert_image_equal(cpu, expected)
    assert cpu.info == expected.info
    assert cpu.getexif().get(_ORIENTATION) == expected.getexif().get(_ORIENTATION)


_XMP_FORMS = {
    "xmp-attribute": '<x:xmpmeta><rdf:Description tiff:Orientation="6" a="1"/></x:xmpmeta>',
    "xmp-element": "<x:xmpmeta><tiff:Orientation>3</tiff:Orientation></x:xmpmeta>",
}


@pytest.mark.parametrize("form", list(_XMP_FORMS))
def test_orientation_from_jpeg_xmp_matches_pillow(form: str, tmp_path: Path) -> None:
    path = tmp_path / "xmp.jpg"
    make_image("RGB", (6, 4), seed=2).save(path, xmp=_XMP_FORMS[form].encode(), exif=_exif(None))
    expected = _pillow(path)
    lazy = ImageOps.exif_transpose(Image.open(path))
    assert lazy.info == expected.info
    assert b"Orientation" not in expected.info["xmp"]
    assert_image_equal(evaluate(lazy), expected)


def test_raw_profile_exif_of_a_pil_image_matches_pillow() -> None:
    source = make_image("RGB", (5, 3), seed=6)
    data = bytes.fromhex(_exif(8).hex())
    source.info["Raw profile type exif"] = f"\nexif\n{len(data):8}\n{data.hex()}\n"
    expected = PILImageOps.exif_transpose(source)
    lazy = ImageOps.exif_transpose(Image.from_pil(source))
    assert lazy.info == expected.info
    assert lazy.info["Raw profile type exif"] != source.info["Raw profile type exif"]
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("orientation", [1, 6], ids=["orientation-1", "orientation-6"])
def test_thumbnail_after_exif_transpose_does_not_draft_as_in_pillow(
    orientation: int, tmp_path: Path
) -> None:
    path = _write(tmp_path, "JPEG", "RGB", orientation, size=(200, 150))
    expected = _pillow(path)
    expected.thumbnail((20, 20))  # Pillow: a loaded, transposed image; draft does nothing
    lazy = ImageOps.exif_transpose(Image.open(path))
    lazy.thumbnail((20, 20))  # in place, as in Pillow
    assert_image_equal(evaluate(lazy), expected)
    drafted = Image.open(path)
    drafted.thumbnail((20, 20))  # a JPEG leaf would be drafted instead
    if orientation == 1:
        assert evaluate(drafted).tobytes() != expected.tobytes(), "the draft changed nothing"


def test_executor_runs_exif_transposed_files_like_pillow(tmp_path: Path) -> None:
    paths = {}
    for orientation in (3, 6, None):
        folder = tmp_path / str(orientation)
        folder.mkdir()
        paths[str(orientation)] = _write(folder, "JPEG", "RGB", orientation, size=(40, 24))
    jobs = [(key, ImageOps.exif_transpose(Image.open(path))) for key, path in paths.items()]
    jobs.append(("fit", ImageOps.fit(ImageOps.exif_transpose(Image.open(paths["6"])), (9, 9))))
    with GpuBatchExecutor() as executor:
        results = {result.input_key: result.image for result in executor.run(jobs)}
    for key, path in paths.items():
        assert_image_equal(results[key], _pillow(path))
        assert results[key].info == _pillow(path).info
    assert_image_equal(results["fit"], PILImageOps.fit(_pillow(paths["6"]), (9, 9)))


def test_cli_step_transposes_an_oriented_image_like_pillow() -> None:
    source = make_image("RGB", (7, 5), seed=8)
    source.info["exif"] = _exif(5)
    result = evaluate(parse_chain("exif_transpose").apply(Image.from_pil(source)))
    expected = PILImageOps.exif_transpose(source)
    assert_image_equal(result, expected)
    assert result.info == expected.info


IN_PLACE_ORIENTATIONS = ["none", "orientation-1", "orientation-3", "orientation-6"]


@pytest.mark.parametrize("orientation", IN_PLACE_ORIENTATIONS)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_in_place_changes_the_handle_as_pillow_changes_its_image(
    fmt: str, orientation: str, tmp_path: Path
) -> None:
    path = _write(tmp_path, *FORMATS[fmt], ORIENTATIONS[orientation], size=(40, 24))
    with PILImage.open(path) as expected:
        assert PILImageOps.exif_transpose(expected, in_place=True) is None
        image = Image.open(path)
        original = image.copy()
        assert ImageOps.exif_transpose(image, in_place=True) is None
        assert (image.size, image.info) == (expected.size, expected.info)
        assert_image_equal(evaluate(rebuilt(image)), expected)  # its own copy: results are cached
        assert original.size == (40, 24)
        # The copy stays undecoded: a full crop of the leaf, which Pillow's copy has loaded.
        assert original.node.op == "crop"
        assert original.node.inputs[0].op == "open"
        assert original.node.cache.get() is None
        expected.thumbnail((9, 9))  # loaded by exif_transpose: no draft, in both
        image.thumbnail((9, 9))
        assert_image_equal(image.to_pil(), expected)


@pytest.mark.parametrize(
    "orientation", [None, 1, 6], ids=["none", "orientation-1", "orientation-6"]
)
def test_tiff_leaf_copies_as_pillows_load_time_transpose(
    orientation: int | None, tmp_path: Path
) -> None:
    path = _write(tmp_path, "TIFF", "RGB", orientation)
    if orientation == 6:  # Pillow's TIFF load() transposes; the header is sized turned already
        assert _pillow(path).size == Image.open(path).size == (5, 7)
    expected = _pillow(path)
    lazy = ImageOps.exif_transpose(Image.open(path))
    assert lazy.info == expected.info
    assert_image_equal(evaluate(lazy), expected)


def _late_orientation_chunk(carrier: str, orientation: int) -> bytes:
    """A chunk after the pixels that gives ``orientation`` the way ``carrier`` writers do."""
    exif = PILImage.Exif()
    exif[0x010F] = "pillow-gpu"
    exif[_ORIENTATION] = orientation
    if carrier == "exif":
        return png_chunk(b"eXIf", exif.tobytes()[6:])
    if carrier == "raw-profile":  # ImageMagick's zTXt
        payload = exif.tobytes().hex()
        text = f"\nexif\n{len(payload) // 2:8d}\n{payload}".encode()
        return png_chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(text))
    xmp = (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
        f'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="{orientation}"/>'
        "</rdf:RDF></x:xmpmeta>"
    )
    return png_chunk(b"iTXt", b"XML:com.adobe.xmp\0\0\0\0\0" + xmp.encode())


@pytest.mark.parametrize("orientation", [1, 2, 3, 6, 8], ids=lambda o: f"orientation-{o}")
@pytest.mark.parametrize("carrier", ["exif", "raw-profile", "xmp"])
def test_orientation_after_the_pixels_matches_pillow(
    carrier: str, orientation: int, tmp_path: Path, executor: GpuBatchExecutor
) -> None:
    """Pillow's exif_transpose loads a PNG without a header eXIf and honours what follows its
    pixels; so do the GPU route and the executor (pixels and info)."""
    path = tmp_path / "late.png"
    chunk = _late_orientation_chunk(carrier, orientation)
    path.write_bytes(png_with_late_chunks(make_image("RGB", (7, 5), seed=5), [chunk]))
    expected = _pillow(path)
    lazy = ImageOps.exif_transpose(Image.open(path))
    assert lazy.size == expected.size
    assert lazy.info == expected.info
    result = evaluate(lazy)
    assert_image_equal(result, expected)
    assert result.info == expected.info
    (delivered,) = executor.run([(0, ImageOps.exif_transpose(Image.open(path)))])
    assert_image_equal(delivered.image, expected)
    assert delivered.image.info == expected.info


def test_orientation_after_the_pixels_of_a_loaded_leaf_matches_pillow(tmp_path: Path) -> None:
    """``load()`` first (the leaf decoded), then exif_transpose: Pillow's loaded image has the
    orientation that followed the pixels in its info, and so does the decoded leaf."""
    path = tmp_path / "late.png"
    chunk = _late_orientation_chunk("exif", 6)
    path.write_bytes(png_with_late_chunks(make_image("RGB", (7, 5), seed=5), [chunk]))
    with PILImage.open(path) as opened:
        opened.load()
        expected = PILImageOps.exif_transpose(opened)
    leaf = Image.open(path)
    leaf.load()
    lazy = ImageOps.exif_transpose(leaf)
    assert lazy.size == expected.size == (5, 7)
    assert lazy.info == expected.info
    assert_image_equal(evaluate(lazy), expected)


@pytest.mark.parametrize("carrier", ["exif", "raw-profile", "xmp"])
def test_transposing_a_derived_image_of_such_a_png_matches_pillow(
    carrier: str, tmp_path: Path
) -> None:
    """Pillow's operations load first, so a derived image carries the orientation that
    followed the pixels in its info; so does the recorded graph (the leaf's loaded info is
    read at open, no pixel decoded), and exif_transpose of it turns as Pillow's does."""
    path = tmp_path / "late.png"
    chunk = _late_orientation_chunk(carrier, 6)
    path.write_bytes(png_with_late_chunks(make_image("RGB", (7, 5), seed=5), [chunk]))
    with PILImage.open(path) as opened:
        expected = PILImageOps.exif_transpose(opened.convert("L"))
    leaf = Image.open(path)
    lazy = ImageOps.exif_transpose(leaf.convert("L"))
    assert leaf.node.cache.get() is None  # recording decoded nothing
    assert lazy.size == expected.size == (5, 7)
    assert lazy.info == expected.info
    result = evaluate(lazy)
    assert_image_equal(result, expected)
    assert result.info == expected.info


def test_transposing_a_derived_image_is_refused_where_the_loaded_info_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if Pillow could not read what follows the pixels (_png_tail.loaded_info: None).
    monkeypatch.setattr("pillow_gpu._leaves.loaded_info", lambda *arguments, **options: None)
    path = tmp_path / "late.png"
    chunk = _late_orientation_chunk("exif", 6)
    path.write_bytes(png_with_late_chunks(make_image("RGB", (7, 5), seed=5), [chunk]))
    derived = Image.open(path).convert("L")
    with pytest.raises(Unsupported, match="orientation metadata follows its pixels"):
        ImageOps.exif_transpose(derived)
