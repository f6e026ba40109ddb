"""``pillow-gpu apply`` keeps a photo's EXIF, ICC profile, XMP and resolution in its output.

Pillow's plain ``save`` of a JPEG or WebP drops them (and a PNG's EXIF and resolution), so a
camera photo would lose its camera data and orientation tag (and show turned) and a wide-gamut
photo its colours. Every output here is byte-equal to Pillow's result of the chain saved with
the items its ``info`` holds, and the items are checked in the written file: EXIF as the chain
leaves it (``exif_transpose`` removes the orientation, a resize keeps it), the ICC profile
where it describes the output's mode, the resolution. A TIFF's picture tags (make, model,
artist, copyright, ... with its Exif and GPS directories) are its outputs' EXIF, in every
format. ``--strip-metadata`` writes none.
"""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import (
    ExifTags,
    ImageCms,
    IptcImagePlugin,
    PngImagePlugin,
    TiffImagePlugin,
    TiffTags,
    features,
)
from PIL import Image as PILImage
from pillow_gpu._testing import make_image, tiff_entry_edited
from pillow_gpu.cli import main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.cli._metadata import (
    TIFF_PICTURE_TAGS,
    FileItems,
    file_items,
    metadata_options,
    with_iptc,
)
from pillow_gpu.gpu._device import SharedDevice

#: Files with EXIF (orientation 6, a camera's make and model), an sRGB profile and 300 dpi,
#: in every format whose plugin writes each item it holds.
FILES = {
    "photo.jpg": {"exif": True, "icc": True, "dpi": True},
    "photo.png": {"exif": True, "icc": True, "dpi": True},
    "photo.webp": {"exif": True, "icc": True, "dpi": False},
    # A TIFF's make and model are tags of its own, carried as EXIF; Pillow's reader turns its
    # pixels by the orientation, which is not carried.
    "photo.tif": {"exif": True, "icc": True, "dpi": True, "turned": True},
}
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
#: Chains and what each leaves: the orientation tag, and whether the RGB profile still fits.
CHAINS = {
    "resize:60x40": (6, True),
    "exif_transpose,resize:40x60": (None, True),
    "grayscale": (6, False),  # an L result: the RGB profile no longer describes it
}


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("metadata") / "in"
    folder.mkdir()
    exif = PILImage.Exif()
    exif[0x0112], exif[0x010F], exif[0x0110] = 6, "Canon", "EOS R5"
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    image = make_image("RGB", (90, 60), 5)
    for name in FILES:
        extra = {"xmp": XMP} if name.endswith((".jpg", ".webp")) else {}
        image.save(folder / name, exif=exif.tobytes(), icc_profile=profile, dpi=(300, 300), **extra)
    return folder


def _pillow_bytes(path: Path, chain: str, *, keep: bool) -> bytes:
    with PILImage.open(path) as opened:
        result = parse_chain(chain).apply_pil(opened)
        buffer = io.BytesIO()
        options = metadata_options(result, keep=keep, source=file_items(opened))
        result.save(buffer, format=opened.format, **options)
    return buffer.getvalue()


@pytest.mark.parametrize("strip", [False, True], ids=["kept", "stripped"])
@pytest.mark.parametrize("chain", list(CHAINS))
def test_outputs_keep_the_metadata_the_chain_leaves(
    photos: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    chain: str,
    strip: bool,
) -> None:
    out = tmp_path / "out"
    extra = ["--strip-metadata"] if strip else []
    argv = ["apply", chain, str(photos), "-o", str(out), "--no-progress", "--cpu-fallback"]
    assert main([*argv, *extra]) == 0, capsys.readouterr().err
    orientation, profile_fits = CHAINS[chain]
    for name, holds in FILES.items():
        written = (out / name).read_bytes()
        assert written == _pillow_bytes(photos / name, chain, keep=not strip), name
        with PILImage.open(out / name) as output:
            exif = output.getexif()
            if holds["exif"] and not strip:
                assert (exif.get(0x010F), exif.get(0x0110)) == ("Canon", "EOS R5"), name
                assert exif.get(0x0112) == (None if holds.get("turned") else orientation), name
            else:
                assert 0x010F not in exif, name
            has_profile = bool(output.info.get("icc_profile"))
            assert has_profile == (holds["icc"] and profile_fits and not strip), name
            dpi = output.info.get("dpi")
            if holds["dpi"] and not strip:
                assert dpi is not None, name
                assert [round(value) for value in dpi] == [300, 300], name
            else:
                assert dpi in (None, (1, 1), (72, 72)), name  # the format's own default
            if name.endswith((".jpg", ".webp")):
                assert (output.info.get("xmp") is not None) == (not strip), name


def _image(mode: str, **info: object) -> SimpleNamespace:
    return SimpleNamespace(mode=mode, info=info)


def _profile(space: bytes) -> bytes:
    return bytes(16) + space + bytes(108)


@pytest.mark.parametrize(
    ("mode", "space", "kept"),
    [
        ("RGB", b"RGB ", True),
        ("RGBA", b"RGB ", True),
        ("P", b"RGB ", True),
        ("L", b"GRAY", True),
        ("I;16", b"GRAY", True),
        ("CMYK", b"CMYK", True),
        ("L", b"RGB ", False),
        ("RGB", b"CMYK", False),
        ("CMYK", b"RGB ", False),
        ("RGB", b"????", False),
    ],
    ids=lambda value: value.decode().strip() if isinstance(value, bytes) else str(value),
)
def test_a_profile_is_kept_only_for_the_modes_it_describes(
    mode: str, space: bytes, kept: bool
) -> None:
    profile = _profile(space)
    options = metadata_options(_image(mode, icc_profile=profile))
    assert options == {"icc_profile": profile if kept else None}  # None: not info's either


def test_empty_and_odd_items_are_left_out() -> None:
    odd = _image(
        "RGB", exif=b"", icc_profile=b"", xmp="", dpi=(0, 72), comment=b"kept by Pillow itself"
    )
    none = {"icc_profile": None}
    assert metadata_options(odd) == none
    assert metadata_options(_image("RGB", dpi=(float("nan"), 1.0))) == none
    assert metadata_options(_image("RGB", dpi=(72, 72, 72))) == none
    assert metadata_options(_image("RGB", dpi=(72.5, 72))) == {**none, "dpi": (72.5, 72)}
    stripped = metadata_options(_image("RGB", exif=b"Exif\0\0x", comment=b"x"), keep=False)
    assert stripped == {"icc_profile": None, "comment": b""}  # not info's either


@pytest.mark.parametrize("source", ["photo.jpg", "anim.gif"])
def test_a_comment_is_kept_where_the_format_holds_it_and_stripped_on_request(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    # Pillow's JPEG and GIF writers write info's comment on their own (a camera's serial
    # number, an editor's note): --strip-metadata leaves it out too.
    folder = tmp_path / "in"
    folder.mkdir()
    make_image("RGB", (30, 20), 5).save(folder / source, comment=b"serial 4031")
    suffix = Path(source).suffix[1:]
    runs = {"kept": [], "stripped": ["--strip-metadata"], "png": ["--format", "png"]}
    for name, extra in runs.items():
        out = tmp_path / name
        argv = ["apply", "flip", str(folder), "-o", str(out), "--no-progress", *extra]
        assert main(argv) == 0, capsys.readouterr().err
        written = out / f"{Path(source).stem}.{'png' if name == 'png' else suffix}"
        with PILImage.open(written) as reread:
            reread.load()
            assert reread.info.get("comment") == (b"serial 4031" if name == "kept" else None)
        summary = capsys.readouterr().out
        assert ("    1x comment (PNG files hold none)" in summary) == (name == "png")


def test_exif_a_jpeg_cannot_hold_is_left_out_and_the_file_written(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    # A PNG's EXIF has no size bound; a JPEG's APP1 segment holds at most 65533 bytes, and
    # Pillow's writer raised "EXIF data is too long" (the file was not written).
    exif = PILImage.Exif()
    exif[0x010E] = "x" * 70_000  # ImageDescription: too long without any maker's notes
    folder = tmp_path / "in"
    folder.mkdir()
    make_image("RGB", (20, 10), 1).save(folder / "long.png", exif=exif.tobytes())
    argv = ["apply", "invert", str(folder), "--format", "jpg", "--no-progress"]
    assert main([*argv, "-o", str(tmp_path / "kept")]) == 0, capsys.readouterr().err
    assert main([*argv, "-o", str(tmp_path / "stripped"), "--strip-metadata"]) == 0
    kept, stripped = tmp_path / "kept" / "long.jpg", tmp_path / "stripped" / "long.jpg"
    with PILImage.open(kept) as written:
        assert "exif" not in written.info
    assert kept.read_bytes() == stripped.read_bytes()


def _png_with_text(path: Path) -> dict[str, str]:
    """A PNG with a tEXt, a zTXt and an iTXt chunk; its text."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", "a camera app 1.2")
    info.add_text("parameters", "a lighthouse at dusk, Steps: 30, Seed: 1234", zip=True)
    info.add_itxt("Title", "Fyrtårn", lang="da", tkey="Titel")
    make_image("RGB", (40, 30), 8).save(path, pnginfo=info)
    with PILImage.open(path) as opened:
        text = dict(opened.text)
    assert sorted(text) == ["Software", "Title", "parameters"]
    return text


@pytest.mark.parametrize(
    ("extra", "output", "kept"),
    [([], "png", True), (["--strip-metadata"], "png", False), (["--format", "jpg"], "jpg", False)],
    ids=["png-kept", "png-stripped", "to-jpeg"],
)
def test_a_png_s_text_chunks_are_kept_in_a_png(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    output: str,
    kept: bool,
) -> None:
    source = tmp_path / "in" / "generated.png"
    source.parent.mkdir()
    text = _png_with_text(source)
    out = tmp_path / "out"
    argv = ["apply", "resize:20x15", str(source.parent), "-o", str(out), "--no-progress"]
    assert main([*argv, *extra]) == 0, capsys.readouterr().err
    written = out / f"generated.{output}"
    with PILImage.open(source) as opened:
        result = parse_chain("resize:20x15").apply_pil(opened)
        buffer = io.BytesIO()
        file_format = PILImage.registered_extensions()[f".{output}"]
        items = file_items(opened)
        assert items.png
        options = metadata_options(result, keep=not extra, source=items, output_format=file_format)
        result.save(buffer, format=file_format, **options)
    assert written.read_bytes() == buffer.getvalue()
    with PILImage.open(written) as reread:
        found = dict(getattr(reread, "text", {}))
    assert found == (text if kept else {})
    if kept:
        title = found["Title"]
        assert isinstance(title, PngImagePlugin.iTXt)
        assert (title.lang, title.tkey) == ("da", "Titel")


def test_text_chunks_are_carried_only_from_a_png() -> None:
    # A TIFF's info holds a str that is no text chunk: its compression.
    tiff = _image("RGB", compression="raw", dpi=(72, 72))
    assert "pnginfo" not in metadata_options(tiff)
    png = _image("RGB", Software="x", gamma=0.45)
    from_png = FileItems(png=True)
    chunks = metadata_options(png, source=from_png, output_format="PNG")["pnginfo"].chunks
    assert [chunk[0] for chunk in chunks] == [b"tEXt"]
    assert "pnginfo" not in metadata_options(png, source=from_png, output_format="JPEG")
    assert "pnginfo" not in metadata_options(png, source=from_png, output_format="PNG", keep=False)


# -- a TIFF's picture tags -----------------------------------------------------------------------

_Base = ExifTags.Base
#: A scanned or exported photo's first directory: its picture tags, and the orientation that
#: Pillow's reader applies to the pixels.
PICTURE = {
    _Base.ImageDescription: "A harbour at dawn",
    _Base.Make: "Nikon",
    _Base.Model: "Z 8",
    _Base.Software: "Capture 23",
    _Base.DateTime: "2026:11:30 06:12:01",
    _Base.Artist: "Jane Doe",
    _Base.Copyright: "(c) 2026 Jane Doe",
}
EXPOSURE = {
    _Base.DateTimeOriginal: "2026:11:30 06:12:01",
    _Base.ExposureTime: 0.004,
    _Base.FNumber: 8.0,
    _Base.ISOSpeedRatings: 200,
}
POSITION = {1: "N", 2: (55.0, 40.0, 30.5), 3: "E", 4: (12.0, 34.0, 56.0)}
#: Tags that say how a file stores its pixels (size, strips, compression): never carried.
_LAYOUT = {256, 257, 258, 259, 262, 273, 274, 277, 278, 279, 284}


def _tagged_tiff(path: Path, *, exposure: bool = True) -> None:
    exif = PILImage.Exif()
    for tag, value in PICTURE.items():
        exif[tag] = value
    exif[_Base.Orientation] = 6
    if exposure:
        exif[ExifTags.IFD.Exif] = EXPOSURE
        exif[ExifTags.IFD.GPSInfo] = POSITION
    make_image("RGB", (90, 60), 3).save(path, exif=exif.tobytes(), dpi=(300, 300))


def _damage_exif_pointer(path: Path) -> None:
    """Point the first directory's Exif entry past the end of the file."""
    data = path.read_bytes()
    path.write_bytes(tiff_entry_edited(data, ExifTags.IFD.Exif, value=len(data) + 4096))


@pytest.mark.parametrize("output", ["jpg", "png", "webp", "tif"])
def test_a_tiff_s_picture_tags_are_its_outputs_exif(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _tagged_tiff(folder / "scan.tif")
    out = tmp_path / "out"
    argv = ["apply", "resize:30x20", str(folder), "-o", str(out), "--format", output]
    assert main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
    written = out / f"scan.{output}"
    with PILImage.open(folder / "scan.tif") as opened:
        result = parse_chain("resize:30x20").apply_pil(opened)
        buffer = io.BytesIO()
        file_format = PILImage.registered_extensions()[f".{output}"]
        options = metadata_options(result, source=file_items(opened), output_format=file_format)
        result.save(buffer, format=file_format, **options)
    assert written.read_bytes() == buffer.getvalue()
    with PILImage.open(written) as reread:
        exif = reread.getexif()
        assert {tag: exif.get(tag) for tag in PICTURE} == PICTURE
        assert dict(exif.get_ifd(ExifTags.IFD.Exif)) == EXPOSURE
        assert dict(exif.get_ifd(ExifTags.IFD.GPSInfo)) == POSITION
        assert _Base.Orientation not in exif  # applied by Pillow's reader, not carried
        if output != "tif":  # a TIFF output's own layout tags are the new file's
            assert not _LAYOUT & set(exif)


def test_strip_metadata_leaves_out_a_tiff_s_tags(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "scan.tif"
    _tagged_tiff(source)
    out = tmp_path / "out"
    argv = ["apply", "invert", str(source), "-o", str(out), "--format", "jpg", "--no-progress"]
    assert main([*argv, "--strip-metadata"]) == 0, capsys.readouterr().err
    with PILImage.open(out / "scan.jpg") as reread:
        assert "exif" not in reread.info
        assert not set(reread.getexif()) & (TIFF_PICTURE_TAGS | {ExifTags.IFD.Exif})


def test_a_tiff_whose_exif_directory_is_damaged_keeps_its_other_tags(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "scan.tif"
    _tagged_tiff(source)
    _damage_exif_pointer(source)
    corrupt = pytest.warns(UserWarning, match="Corrupt EXIF data")
    with PILImage.open(source) as opened, corrupt:
        assert opened.getexif().get_ifd(ExifTags.IFD.Exif) == {}  # Pillow reads none of it
    out = tmp_path / "out"
    argv = ["apply", "invert", str(source), "-o", str(out), "--format", "jpg", "--no-progress"]
    with corrupt:  # Pillow's reader warns again where it loads the file (its orientation)
        assert main(argv) == 0, capsys.readouterr().err
    with PILImage.open(out / "scan.jpg") as reread:
        exif = reread.getexif()
        assert {tag: exif.get(tag) for tag in PICTURE} == PICTURE
        assert ExifTags.IFD.Exif not in exif
        assert dict(exif.get_ifd(ExifTags.IFD.GPSInfo)) == POSITION


def _retype_tag(path: Path, tag: int, kind: int) -> None:
    """Give the first directory's ``tag`` entry the TIFF type ``kind`` and a count of one, as
    a faulty editor writes it (a date read back as a rational)."""
    path.write_bytes(tiff_entry_edited(path.read_bytes(), tag, kind=kind, count=1))


@pytest.mark.parametrize("output", ["jpg", "bmp", "png"])
def test_a_tiff_tag_pillow_cannot_write_leaves_the_exif_out_named(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    """A date whose entry says RATIONAL: Pillow reads a rational, and its EXIF writer fails
    on it (an ASCII tag), in every output format, since apply builds the EXIF from the
    TIFF's tags first. The EXIF is left out and named; the image is written."""
    folder = tmp_path / "in"
    folder.mkdir()
    _tagged_tiff(folder / "scan.tif", exposure=False)
    _retype_tag(folder / "scan.tif", _Base.DateTime, TiffTags.RATIONAL)
    with PILImage.open(folder / "scan.tif") as opened:
        assert isinstance(opened.getexif()[_Base.DateTime], TiffImagePlugin.IFDRational)
    out = tmp_path / "out"
    argv = ["apply", "invert", str(folder), "-o", str(out), "--format", output, "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    assert "EXIF (a tag holds a value Pillow cannot write: " in captured.out
    with PILImage.open(out / f"scan.{output}") as reread:
        assert "exif" not in reread.info


def test_only_a_tiff_gives_picture_tags(tmp_path: Path) -> None:
    plain = tmp_path / "plain.tif"
    make_image("L", (8, 8), 1).save(plain)
    tagged = tmp_path / "tagged.tif"
    _tagged_tiff(tagged, exposure=False)
    jpeg = tmp_path / "photo.jpg"
    exif = PILImage.Exif()
    exif[_Base.Make] = "Canon"
    make_image("RGB", (8, 8), 1).save(jpeg, exif=exif.tobytes())
    with PILImage.open(plain) as opened:
        assert file_items(opened) == FileItems()  # Pillow wrote no picture tags
    with PILImage.open(tagged) as opened:
        assert file_items(opened) == FileItems(tiff_tags=PICTURE)
    with PILImage.open(jpeg) as opened:  # a JPEG's EXIF is in its info, written from there
        assert file_items(opened) == FileItems()
        assert metadata_options(opened)["exif"] == opened.info["exif"]


#: A TIFF's XMP, IPTC and Photoshop blocks: kept in TIFF outputs only.
BLOCKS = {700: b'<x:xmpmeta xmlns:x="adobe:ns:meta/"/>', 33723: b"\x1c\x02\x00", 34377: b"8BIM"}


@pytest.mark.parametrize(
    ("output", "compression", "directories", "blocks"),
    [
        ("JPEG", None, True, False),
        ("PNG", None, True, False),
        ("TIFF", None, True, True),
        ("TIFF", "raw", True, True),
        ("TIFF", "tiff_lzw", False, True),  # written by libtiff: no directories
        ("TIFF", "tiff_adobe_deflate", False, True),
    ],
    ids=["jpeg", "png", "tiff", "tiff-raw", "tiff-lzw", "tiff-deflate"],
)
def test_a_tiff_s_tags_are_written_as_each_output_holds_them(
    output: str, compression: str | None, directories: bool, blocks: bool
) -> None:
    tags = {_Base.Make: "Nikon", ExifTags.IFD.Exif: EXPOSURE, **BLOCKS}
    info = {} if compression is None else {"compression": compression}
    image = make_image("RGB", (12, 8), 4)
    image.info.update(info)
    source, left_out = FileItems(tiff_tags=tags), list[str]()
    options = metadata_options(image, source=source, output_format=output, left_out=left_out)
    libtiff = ["the EXIF's Exif and GPS directories (a compressed TIFF: libtiff writes it)"]
    png = ["IPTC record (PNG files hold none)"]  # the IPTC tag of BLOCKS
    assert left_out == (png if output == "PNG" else [] if directories else libtiff)
    buffer = io.BytesIO()
    image.save(buffer, format=output, **options)  # Pillow writes every combination
    with PILImage.open(buffer) as reread:
        exif = reread.getexif()
        assert exif.get(_Base.Make) == "Nikon"
        assert dict(exif.get_ifd(ExifTags.IFD.Exif)) == (EXPOSURE if directories else {})
        found = {tag: reread.tag_v2.get(tag) for tag in BLOCKS} if output == "TIFF" else {}
        assert found == (BLOCKS if blocks else {})
        if not blocks:
            assert not set(exif) & set(BLOCKS)


def test_a_tiff_s_blocks_reach_a_tiff_output_as_pillow_s_own_save_keeps_them(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in" / "scan.tif"
    source.parent.mkdir()
    blocks = PILImage.Exif()
    for tag, value in BLOCKS.items():
        blocks[tag] = value
    make_image("RGB", (40, 30), 6).save(source, exif=blocks.tobytes())
    out = tmp_path / "out"
    argv = ["apply", "thumbnail:20x20", str(source.parent), "-o", str(out), "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    with PILImage.open(source) as opened:
        opened.thumbnail((20, 20))  # Pillow's own program: its writer keeps these blocks
        buffer = io.BytesIO()
        opened.save(buffer, format="TIFF")
    with PILImage.open(buffer) as pillow, PILImage.open(out / "scan.tif") as ours:
        assert {tag: ours.tag_v2.get(tag) for tag in BLOCKS} == BLOCKS
        assert {tag: pillow.tag_v2.get(tag) for tag in BLOCKS} == BLOCKS
        assert ours.tobytes() == pillow.tobytes()


@pytest.mark.parametrize("output", ["tif", "png"])
@pytest.mark.parametrize("source", ["photo.jpg", "photo.webp"])
def test_tiff_and_png_outputs_keep_any_input_s_xmp(
    photos: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    source: str,
    output: str,
) -> None:
    # Pillow's TIFF and PNG writers ignore an xmp option; the packet goes in as the TIFF's XMP
    # tag, and as a PNG's XML:com.adobe.xmp iTXt chunk.
    out = tmp_path / "out"
    argv = ["apply", "resize:60x40", str(photos / source), "-o", str(out), "--format", output]
    assert main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
    with PILImage.open(out / f"{Path(source).stem}.{output}") as reread:
        reread.load()  # a PNG's chunks after its pixels
        assert reread.info.get("xmp") == XMP
        if output == "tif":
            assert reread.tag_v2.get(700) == XMP
        else:
            assert reread.info.get("XML:com.adobe.xmp") == XMP.decode()
        assert (reread.getexif().get(0x010F), reread.getexif().get(0x0110)) == ("Canon", "EOS R5")
    assert main([*argv, "--no-progress", "--strip-metadata", "--overwrite"]) == 0
    with PILImage.open(out / f"{Path(source).stem}.{output}") as reread:
        reread.load()
        assert "xmp" not in reread.info


def test_a_png_output_of_a_png_writes_its_xmp_chunk_once(tmp_path: Path) -> None:
    # A PNG's own XMP chunk is one of its text chunks; no second one is added.
    chunks = PngImagePlugin.PngInfo()
    chunks.add_itxt("XML:com.adobe.xmp", XMP.decode())
    make_image("RGB", (8, 8), 1).save(tmp_path / "in.png", pnginfo=chunks)
    with PILImage.open(tmp_path / "in.png") as opened:
        opened.load()
        options = metadata_options(opened, source=file_items(opened), output_format="PNG")
        buffer = io.BytesIO()
        opened.save(buffer, format="PNG", **options)
    assert buffer.getvalue().count(b"XML:com.adobe.xmp") == 1
    buffer.seek(0)
    with PILImage.open(buffer) as reread:
        reread.load()
        assert reread.info.get("xmp") == XMP


def _photo_exif(first: dict[int, object], exposure: dict[int, object]) -> bytes:
    """A photo's EXIF: the ``first`` directory's tags beside PICTURE and orientation 6, and
    the Exif directory ``exposure``."""
    exif = PILImage.Exif()
    for tag, value in {**first, **PICTURE, _Base.Orientation: 6}.items():
        exif[tag] = value
    exif[ExifTags.IFD.Exif] = exposure
    return exif.tobytes()


#: A phone's EXIF: its first directory names the photo's full width and height (as Pillow's
#: test image flower2.jpg's does) beside layout tags of other files (strips, tiles, YCbCr).
PHONE_LAYOUT = {256: 4000, 257: 3000, 258: (8, 8, 8), 262: 2, 277: 3, 322: 512, 323: 512, 531: 1}


@pytest.mark.parametrize("source", ["phone.jpg", "phone.webp", "phone.png"])
def test_an_exif_s_layout_tags_never_replace_a_tiff_output_s_own(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    # Given to Pillow's TIFF writer, the EXIF's width and height replaced the thumbnail's: the
    # output said 4000 x 3000 over 40 x 30 pixels and no reader could load it.
    folder = tmp_path / "in"
    folder.mkdir()
    exif = _photo_exif(PHONE_LAYOUT, EXPOSURE)
    make_image("RGB", (80, 60), 4).save(folder / source, exif=exif)
    out = tmp_path / "out"
    argv = ["apply", "thumbnail:40x40", str(folder / source), "-o", str(out), "--format", "tif"]
    assert main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
    with PILImage.open(folder / source) as opened:
        expected = parse_chain("thumbnail:40x40").apply_pil(opened)
    with PILImage.open(out / "phone.tif") as written:
        tags = dict(written.getexif())
        exposure = dict(written.getexif().get_ifd(ExifTags.IFD.Exif))
        written.load()  # Pillow's TIFF reader turns the pixels by the orientation carried
        turned = expected.transpose(PILImage.Transpose.ROTATE_270)
        assert (written.size, written.tobytes()) == (turned.size, turned.tobytes())
    assert (tags[256], tags[257]) == expected.size  # the writer's, not the phone's
    assert not {322, 323, 531} & set(tags)
    assert {tag: tags.get(tag) for tag in PICTURE} == PICTURE
    assert exposure[_Base.ISOSpeedRatings] == EXPOSURE[_Base.ISOSpeedRatings]


#: A raw converter's maker notes: the bulk of a long Exif directory.
MAKER_NOTE = b"Nikon\x00\x02\x10" + bytes(range(256)) * 300


@pytest.mark.parametrize("source", ["scan.tif", "export.png", "export.webp"])
def test_a_jpeg_output_keeps_a_long_exif_without_the_maker_s_notes(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    # A JPEG segment holds 64 KiB: Pillow's writer raised "EXIF data is too long".
    folder = tmp_path / "in"
    folder.mkdir()
    exif = _photo_exif({}, {**EXPOSURE, _Base.MakerNote: MAKER_NOTE})
    assert len(exif) > 65533
    make_image("RGB", (80, 60), 4).save(folder / source, exif=exif)
    out = tmp_path / "out"
    argv = ["apply", "resize:40x30", str(folder / source), "-o", str(out), "--format", "jpg"]
    assert main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
    with PILImage.open(out / f"{Path(source).stem}.jpg") as written:
        tags = written.getexif()
        exposure = dict(tags.get_ifd(ExifTags.IFD.Exif))
    assert {tag: tags.get(tag) for tag in PICTURE} == PICTURE
    # The photo still shows upright (a TIFF's own orientation turns its pixels as read).
    assert tags.get(_Base.Orientation) == (None if source.endswith(".tif") else 6)
    assert _Base.MakerNote not in exposure
    assert exposure[_Base.ISOSpeedRatings] == EXPOSURE[_Base.ISOSpeedRatings]
    summary = capsys.readouterr().out  # the summary says what was left out
    assert "  metadata left out of 1 output(s), which their format cannot hold" in summary
    assert "    1x the EXIF's maker notes (past what a JPEG segment holds)\n" in summary


@pytest.mark.parametrize("output", ["JPEG", "MPO", "PNG", "WEBP"])
def test_exif_and_xmp_one_jpeg_segment_cannot_hold_are_left_out_of_a_jpeg_only(
    output: str,
) -> None:
    image = make_image("RGB", (12, 8), 7)
    exif = PILImage.Exif()
    exif[_Base.ImageDescription] = "x" * 70000  # too long without any maker's notes
    xmp = b"<x:xmpmeta>" + b" " * 70000 + b"</x:xmpmeta>"
    image.info.update(exif=exif.tobytes(), xmp=xmp)
    left_out: list[str] = []
    options = metadata_options(image, output_format=output, left_out=left_out)
    jpeg = output in ("JPEG", "MPO")
    too_long = ["EXIF (longer than a JPEG segment holds)", "XMP (longer than a JPEG segment holds)"]
    assert left_out == (too_long if jpeg else [])
    xmp_kept = "pnginfo" in options if output == "PNG" else "xmp" in options  # a PNG: a chunk
    assert ("exif" in options, xmp_kept) == (not jpeg, not jpeg)
    buffer = io.BytesIO()
    image.save(buffer, format=output, **options)  # Pillow writes what is left
    buffer.seek(0)
    with PILImage.open(buffer) as written:
        written.load()
        assert (written.info.get("xmp") == xmp) == (not jpeg)


def _dataset(number: int, value: bytes) -> bytes:
    """One IPTC dataset of the application record (2): marker, record, number, length."""
    return b"\x1c\x02" + bytes([number]) + len(value).to_bytes(2, "big") + value


#: An IPTC-NAA record as news and stock photo tools write it: a caption, a credit, keywords.
IPTC = (
    _dataset(120, b"Harbour at dawn, Aarhus")
    + _dataset(110, b"Jane Doe")
    + _dataset(25, b"harbour")
    + _dataset(25, b"dawn")
)
#: The APP13 segment Photoshop writes for it: one 8BIM resource 0x0404 with an empty name.
APP13 = (
    b"\xff\xed"
    + (2 + 14 + 12 + len(IPTC)).to_bytes(2, "big")
    + b"Photoshop 3.0\x00"
    + b"8BIM\x04\x04\x00\x00"
    + len(IPTC).to_bytes(4, "big")
    + IPTC
)


def _with_app13(jpeg: bytes) -> bytes:
    """``jpeg`` with APP13 after its JFIF segment, as Photoshop places it."""
    assert jpeg[:4] == b"\xff\xd8\xff\xe0"
    end = 4 + int.from_bytes(jpeg[4:6], "big")
    return jpeg[:end] + APP13 + jpeg[end:]


@pytest.mark.parametrize("output", ["jpg", "tif", "png"])
def test_a_jpeg_s_iptc_record_is_kept_in_jpeg_and_tiff_outputs(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    # Pillow's JPEG writer has no IPTC option: a resized photo lost its caption and credit.
    folder = tmp_path / "in"
    folder.mkdir()
    buffer = io.BytesIO()
    make_image("RGB", (80, 60), 4).save(buffer, format="JPEG", quality=90)
    (folder / "news.jpg").write_bytes(_with_app13(buffer.getvalue()))
    with PILImage.open(folder / "news.jpg") as opened:
        assert opened.info["photoshop"] == {0x0404: IPTC}  # what Pillow's reader makes of it
        expected = IptcImagePlugin.getiptcinfo(opened)
    argv = ["apply", "resize:40x30", str(folder), "--format", output, "--no-progress"]
    assert main([*argv, "-o", str(tmp_path / "kept")]) == 0, capsys.readouterr().err
    assert main([*argv, "-o", str(tmp_path / "stripped"), "--strip-metadata"]) == 0
    kept = (tmp_path / "kept" / f"news.{output}").read_bytes()
    stripped = (tmp_path / "stripped" / f"news.{output}").read_bytes()
    with PILImage.open(io.BytesIO(kept)) as written:
        record = IptcImagePlugin.getiptcinfo(written)
        assert record == (None if output == "png" else expected)  # a PNG has no IPTC place
    if output == "jpg":  # the segment added to the very file Pillow wrote
        assert kept.replace(APP13, b"", 1) == stripped
    elif output == "png":
        assert kept == stripped


def test_a_tiff_s_iptc_tag_reaches_a_jpeg_output(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    tags = TiffImagePlugin.ImageFileDirectory_v2()
    tags[33723], tags.tagtype[33723] = IPTC, TiffTags.UNDEFINED
    make_image("RGB", (40, 30), 2).save(folder / "scan.tif", tiffinfo=tags)
    argv = ["apply", "invert", str(folder), "-o", str(tmp_path / "out"), "--format", "jpg"]
    assert main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
    with PILImage.open(tmp_path / "out" / "scan.jpg") as written:
        assert written.info["photoshop"] == {0x0404: IPTC}


def test_with_iptc_places_the_segment_after_the_application_segments() -> None:
    buffer = io.BytesIO()
    exif = PILImage.Exif()
    exif[_Base.Make] = "Canon"
    make_image("RGB", (16, 16), 1).save(buffer, format="JPEG", exif=exif, comment="a comment")
    jpeg = buffer.getvalue()
    marked = with_iptc(jpeg, IPTC)
    at = marked.index(APP13)
    assert marked[:at] + marked[at + len(APP13) :] == jpeg
    assert marked[at + len(APP13) : at + len(APP13) + 2] == b"\xff\xdb"  # then the tables
    with PILImage.open(io.BytesIO(marked)) as reread:
        assert (reread.info["photoshop"], reread.info["comment"]) == ({0x0404: IPTC}, b"a comment")
    assert with_iptc(jpeg, b"x" * 70000) == jpeg  # past one segment: left out


#: EXIF whose TIFF header Pillow cannot read (a file of Pillow's corpus, invalid-exif.jpg).
BROKEN_EXIF = b"Exif\x00\x00\xff\xff\xff\xff\x00\x00\x00\x08"
#: The resolution some writers leave for "unknown".
SENTINEL_DPI = (4294967295.0, 4294967295.0)


_AVIF = pytest.param(
    "AVIF",
    marks=pytest.mark.skipif(not features.check("avif"), reason="this Pillow has no AVIF"),
)


@pytest.mark.parametrize("output", ["JPEG", "PNG", "WEBP", "TIFF", "BMP", "ICO", _AVIF])
def test_items_an_output_format_cannot_store_are_left_out_not_failed(output: str) -> None:
    image = make_image("RGB", (12, 8), 7)
    image.info.update(exif=BROKEN_EXIF, dpi=SENTINEL_DPI)
    left_out: list[str] = []
    options = metadata_options(image, output_format=output, left_out=left_out)
    assert (
        left_out
        == {
            "JPEG": [],
            "PNG": ["resolution (past what a PNG stores)"],
            "WEBP": ["resolution (WEBP files hold none)"],
            "TIFF": ["EXIF (Pillow cannot read it as the tags a TIFF stores)"],
            "BMP": ["EXIF (BMP files hold none)", "resolution (past what a BMP stores)"],
            "ICO": ["EXIF (ICO files hold none)", "resolution (ICO files hold none)"],
            "AVIF": [
                "resolution (AVIF files hold none)",
                "EXIF (a damaged block, which Pillow's AVIF writer cannot read)",
            ],
        }[output]
    )
    # A TIFF stores EXIF as tags, and Pillow's AVIF writer reads the block for its
    # orientation: neither can read this one. The others store its bytes (BMP ignores them).
    assert options.get("exif") == (None if output in ("TIFF", "AVIF") else BROKEN_EXIF)
    # PNG and BMP store pixels per metre in 32 bits (an ICO's writer hands the option to
    # theirs); JPEG and TIFF take the value (WebP and AVIF none).
    assert ("dpi" in options) == (output not in ("PNG", "BMP", "ICO"))
    image.save(io.BytesIO(), format=output, **options)  # Pillow writes what is left
    for item in ("exif", "dpi"):  # and fails with the item it left out
        if item not in options:
            with pytest.raises(Exception):  # noqa: B017, PT011 - whatever the writer raises
                image.save(io.BytesIO(), format=output, **options, **{item: image.info[item]})


def _camera_exif(orientation: int | None) -> bytes:
    camera = PILImage.Exif()
    camera[_Base.Make] = "Canon"
    if orientation is not None:
        camera[_Base.Orientation] = orientation
    return camera.tobytes()


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow was built without AVIF")
@pytest.mark.parametrize(
    "exif",
    [
        "editor-turned",
        "editor-upright",
        "camera-turned",
        "camera-upright",
        "broken",
        "cut",
        "rational-turn",
        "past-32-bits",
    ],
)
def test_an_avif_output_leaves_out_exactly_the_exif_its_writer_cannot_read(exif: str) -> None:
    """Pillow's AVIF writer parses the block and writes it again only where it holds an
    orientation (which it takes out): an editor's resolution stored as text fails there
    only, a block that is not TIFF data or is cut short fails at once."""
    block = {
        "rational-turn": _typed_orientation(TiffTags.RATIONAL, TiffImagePlugin.IFDRational(6, 1)),
        "past-32-bits": _typed_orientation(TiffTags.LONG, 2**31),
        "editor-turned": _editor_exif(orientation=6),
        "editor-upright": _editor_exif(),
        "camera-turned": _camera_exif(6),
        "camera-upright": _camera_exif(None),
        "broken": BROKEN_EXIF,
        "cut": _camera_exif(6)[:20],
    }[exif]
    image = make_image("RGB", (12, 8), 7)
    image.info["exif"] = block
    left_out: list[str] = []
    options = metadata_options(image, output_format="AVIF", left_out=left_out)
    try:
        image.save(io.BytesIO(), format="AVIF", exif=block)
        pillow_writes = True
    except Exception:  # whatever the parser raised for the damage
        pillow_writes = False
    assert pillow_writes == (exif in ("editor-upright", "camera-turned", "camera-upright"))
    assert ("exif" in options) == pillow_writes
    named = "EXIF (a damaged block, which Pillow's AVIF writer cannot read)" in left_out
    assert named == (not pillow_writes)
    image.save(io.BytesIO(), format="AVIF", **options)


def _typed_orientation(kind: int, value: Any) -> bytes:
    """A block whose orientation entry says type ``kind`` (a faulty writer's): Pillow reads
    the value as that type, and its AVIF writer hands it to libavif, which takes a C int."""
    directory = TiffImagePlugin.ImageFileDirectory_v2(prefix=b"MM")
    directory[_Base.Orientation] = value
    directory.tagtype[_Base.Orientation] = kind
    return b"Exif\x00\x00MM\x00*\x00\x00\x00\x08" + directory.tobytes(8)


def _editor_exif(orientation: int | None = None) -> bytes:
    """A photo editor's EXIF whose resolution is stored as text (as in Pillow's corpus files
    broken_exif_dpi.jpg and invalid-exif-without-x-resolution.jpg), beside the camera's make,
    model and exposure, and ``orientation`` where given: Pillow reads it, and cannot write
    it again."""
    directory = TiffImagePlugin.ImageFileDirectory_v2(prefix=b"MM")
    directory[_Base.Make], directory[_Base.Model] = "NIKON", "D800"
    if orientation is not None:
        directory[_Base.Orientation] = orientation
    directory[_Base.XResolution] = "300"
    directory.tagtype[_Base.XResolution] = TiffTags.ASCII
    directory[ExifTags.IFD.Exif] = {_Base.ExposureTime: 0.004, _Base.ISOSpeedRatings: 400}
    return b"Exif\x00\x00MM\x00*\x00\x00\x00\x08" + directory.tobytes(8)


def test_a_tiff_output_keeps_the_tags_of_an_exif_pillow_cannot_write_whole(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    exif = PILImage.Exif()
    exif.load(_editor_exif())
    with pytest.raises(TypeError):
        exif.tobytes()  # the resolution as text
    folder = tmp_path / "in"
    folder.mkdir()
    make_image("RGB", (40, 30), 2).save(folder / "edited.jpg", exif=_editor_exif())
    out = tmp_path / "out"
    argv = ["apply", "invert", str(folder), "-o", str(out), "--format", "tif", "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    with PILImage.open(out / "edited.tif") as reread:
        tags = reread.getexif()
        assert (tags.get(_Base.Make), tags.get(_Base.Model)) == ("NIKON", "D800")
        exposure = tags.get_ifd(ExifTags.IFD.Exif)
        assert (exposure[_Base.ExposureTime], exposure[_Base.ISOSpeedRatings]) == (0.004, 400)
        assert reread.info["dpi"] == (72.0, 72.0)  # the text resolution left out: the default
        assert reread.size == (40, 30)
    summary = capsys.readouterr().out
    assert "    1x EXIF tags Pillow cannot write again (in a TIFF)\n" in summary


def test_photos_with_such_items_are_written_as_pillow_s_plain_save_writes_them(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    make_image("RGB", (40, 30), 2).save(folder / "broken.jpg", exif=BROKEN_EXIF)
    sentinel = PILImage.Exif()
    sentinel[_Base.XResolution] = sentinel[_Base.YResolution] = 4294967295
    sentinel[_Base.ResolutionUnit] = 2
    make_image("RGB", (40, 30), 3).save(folder / "sentinel.jpg", exif=sentinel.tobytes())
    with PILImage.open(folder / "broken.jpg") as broken:
        assert broken.info["exif"] == BROKEN_EXIF
    with PILImage.open(folder / "sentinel.jpg") as odd:
        assert odd.info["dpi"] == SENTINEL_DPI  # read from the EXIF, as Pillow reads it
    for output in ("png", "tif"):
        out = tmp_path / output
        argv = ["apply", "invert", str(folder), "-o", str(out), "--format", output]
        assert main([*argv, "--no-progress"]) == 0, capsys.readouterr().err
        with PILImage.open(out / f"broken.{output}") as reread:
            assert reread.info.get("exif") == (BROKEN_EXIF if output == "png" else None)
        with PILImage.open(out / f"sentinel.{output}") as reread:
            assert reread.getexif().get(_Base.XResolution) == 4294967295
            assert (reread.info.get("dpi") is None) == (output == "png")
