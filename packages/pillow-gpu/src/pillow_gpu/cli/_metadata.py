"""The metadata ``pillow-gpu apply`` writes into each output.

Pillow's ``save`` writes a JPEG or WebP without the EXIF, ICC profile, XMP packet and
resolution of the image it saves unless they are passed, and a PNG without its EXIF and
resolution; so a photo run through a plain Pillow script loses its camera data and its
orientation tag (and shows turned), and a wide-gamut photo its colours. ``apply`` passes them
(``--strip-metadata`` does not), each as the result's ``info`` holds it after the chain, as
Pillow's operations leave it there: ``exif_transpose`` removes the orientation it applied, and
a resize keeps the rest as it was.

An ICC profile is written only when its colour space is the output's (a profile describes how
to read the pixels, so an RGB profile on a grayscale result would misdescribe them; Pillow's
PNG, TIFF and AVIF plugins would write it from ``info`` on their own): RGB for
RGB, RGBA, RGBX, P and PA results, GRAY for L, LA, 1 and the integer modes, CMYK for CMYK, Lab
for LAB, YCbr for YCbCr. A format that cannot hold an item ignores it, as Pillow's plugins do.

A PNG output holds the XMP packet in the iTXt chunk the XMP specification names
(``XML:com.adobe.xmp``, which Pillow's reader puts in ``info["xmp"]``): Pillow's PNG writer
takes no ``xmp`` option, so a JPEG's, WebP's or TIFF's packet was otherwise lost.

A PNG saved from a PNG also keeps its text chunks (``tEXt``, ``zTXt`` and ``iTXt``: a
``Software`` or ``Comment`` entry, an image generator's ``parameters``), which Pillow's reader
puts in ``info`` as strings and its writer writes only from a ``pnginfo`` (``zTXt`` ones are
written uncompressed). Other formats' string entries in ``info`` (a TIFF's ``compression``)
are not text chunks, so only a PNG's are carried.

A TIFF keeps its camera and author data in its own tags, which Pillow's reader leaves in the
opened file's tag directories (not in ``info``) and its writer writes only from an ``exif`` or
``tiffinfo`` option; so an output of a TIFF is given, as its EXIF, the tags of the TIFF's first
directory that describe the picture (:data:`TIFF_PICTURE_TAGS`: description, make, model,
software, date, artist, copyright, Windows' title, author and keywords) with its Exif and GPS
directories, read when the file is opened (:func:`file_items`). The tags that describe how the
TIFF stored its pixels (size, strips, compression, orientation, which Pillow's reader applies)
are not carried. A TIFF output also keeps the TIFF's XMP, IPTC and Photoshop blocks
(:data:`TIFF_BLOCKS`), as Pillow's own ``thumbnail`` and ``save`` of an opened TIFF do. Pillow's
TIFF writer ignores an ``xmp`` option, so any input's XMP packet goes into a TIFF output as its
XMP tag, through the ``exif`` option. An input's EXIF reaches a TIFF output without the tags
that say how a file stores its pixels (:data:`TIFF_LAYOUT_TAGS`: a phone's JPEG names its full
width and height there), which the writer would take over its own. A directory that cannot be
read (a damaged file) is left out, and the other tags are kept. A compressed TIFF output (which
keeps its input's compression, and which Pillow writes through libtiff) gets the first
directory's tags without the Exif and GPS directories: Pillow cannot hand those to libtiff.

A JPEG's IPTC-NAA record (captions, credits, keywords, as news and stock photo tools write
it; the Photoshop resource of its APP13 segment, which Pillow's reader puts in
``info["photoshop"]``) is not written by Pillow's JPEG writer: :func:`iptc_record` finds it
(or a TIFF's IPTC tag) and :func:`with_iptc` puts it into a JPEG output's APP13 segment after
Pillow has written the file; a TIFF output gets it as its IPTC tag.

A JPEG holds its EXIF and its XMP packet in one marker segment each, of at most 64 KiB, and
Pillow's JPEG writer refuses more: a longer EXIF (a raw converter's TIFF or PNG with the
camera maker's notes) is written without the maker's notes where that fits, and otherwise left
out, as a longer XMP packet is.

Where an item would make Pillow's writer fail, the output is written without it and the item
is named among those left out: a resolution past the 32 bits of pixels per metre a PNG or BMP
stores (a sentinel such as 4294967295 dpi, which some writers leave; an ICO's writer hands it
to theirs), and for an AVIF output an EXIF block its writer cannot parse (it reads the block
to take out the orientation; other writers copy the bytes as they are).

``--strip-metadata`` writes none of them, the ICC profile included (Pillow's PNG, TIFF and
AVIF plugins write the one ``info`` holds unless told otherwise), nor a JPEG's or GIF's
comment (which those writers take from ``info`` too): for publishing a photo without its
camera data, GPS position included.
"""

from __future__ import annotations

import math
import numbers
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from PIL import ExifTags, PngImagePlugin, TiffImagePlugin
from PIL import Image as PILImage

__all__ = [
    "HELD_ITEMS",
    "LEFT_OUT_SEPARATOR",
    "NO_ITEMS",
    "TIFF_BLOCKS",
    "TIFF_LAYOUT_TAGS",
    "TIFF_PICTURE_TAGS",
    "FileItems",
    "file_items",
    "iptc_record",
    "metadata_options",
    "with_iptc",
]

_Base = ExifTags.Base
#: The tags of a TIFF's first directory that describe its picture, not how the file stores it:
#: the EXIF standard's first-directory tags other than layout ones, and Windows' XP tags.
TIFF_PICTURE_TAGS = frozenset(
    {
        _Base.DocumentName,
        _Base.ImageDescription,
        _Base.Make,
        _Base.Model,
        _Base.Software,
        _Base.DateTime,
        _Base.Artist,
        _Base.HostComputer,
        _Base.Rating,
        _Base.RatingPercent,
        _Base.Copyright,
        _Base.XPTitle,
        _Base.XPComment,
        _Base.XPAuthor,
        _Base.XPKeywords,
        _Base.XPSubject,
    }
)
#: The tags that say how a TIFF stores its pixels (TIFF 6.0's size, sample, strip, tile,
#: compression, palette and YCbCr-coding tags): a TIFF reader decodes by them, and a TIFF
#: writer sets its own. An input's EXIF may hold some (a phone writes its photo's width and
#: height into the JPEG's), and given to a TIFF output they would replace the writer's: a
#: 4000 x 3000 ``ImageWidth`` over a thumbnail's pixels leaves a file no reader can load.
TIFF_LAYOUT_TAGS = frozenset(
    {
        *(254, 255, 256, 257, 258, 259),  # subfile types, width, length, bits, compression
        *(262, 263, 264, 265, 266),  # photometric, thresholding, cell size, fill order
        *(273, 277, 278, 279, 280, 281, 284),  # strips, samples per pixel, planar layout
        *(288, 289, 290, 291, 292, 293, 317, 320),  # free space, gray response, fax, predictor
        *(322, 323, 324, 325, 330),  # tiles, sub-directories
        *(332, 333, 334, 336, 338, 339, 340, 341),  # inks, extra samples, sample format
        *(347, 512, 513, 514, 515, 517, 518, 519, 520, 521),  # JPEG tables, old-style JPEG
        *(529, 530, 531, 532),  # YCbCr coding
    }
)
#: The directories a TIFF's first directory points to that an output keeps with those tags.
_DIRECTORIES = (ExifTags.IFD.Exif, ExifTags.IFD.GPSInfo)
#: The blocks of a TIFF's first directory that Pillow's TIFF writer keeps from an opened TIFF
#: (XMP, IPTC, Photoshop resources): carried into TIFF outputs only.
TIFF_BLOCKS = frozenset({700, 33723, 34377})
_XMP = 700
#: The TIFF tag of the IPTC-NAA record, and the Photoshop image resource that holds it in a
#: JPEG's APP13 segment.
_IPTC_TAG = 33723
_IPTC_RESOURCE = 0x0404


@dataclass(frozen=True, slots=True)
class FileItems:
    """What an output keeps of its input file that the result's ``info`` does not hold."""

    #: The input is a PNG: its text chunks (in ``info``) are written into a PNG output.
    png: bool = False
    #: A TIFF input's picture tags and directories (:func:`tiff_tags`), written as EXIF.
    tiff_tags: Mapping[int, Any] | None = None


#: The items of an input that holds none of them.
NO_ITEMS = FileItems()


def file_items(opened: Any) -> FileItems:
    """The :class:`FileItems` of an opened file (a lazy image or Pillow's; header only)."""
    return FileItems(png=opened.format == "PNG", tiff_tags=tiff_tags(opened))


def tiff_tags(opened: Any) -> dict[int, Any] | None:
    """The picture tags (:data:`TIFF_PICTURE_TAGS`) and blocks (:data:`TIFF_BLOCKS`) of an
    opened TIFF's first directory, with its Exif and GPS directories (as dicts); None for
    another format or a TIFF without any.

    A directory that cannot be read is left out; tags that cannot be read at all give None.
    """
    if opened.format != "TIFF":
        return None
    try:
        exif = opened.getexif()
        tags: dict[int, Any] = {tag: exif[tag] for tag in exif if tag in TIFF_PICTURE_TAGS}
        # A block stored as numbers (an IPTC block as LONGs) is left out, as Pillow's writer
        # leaves it out.
        tags |= {tag: exif[tag] for tag in TIFF_BLOCKS & set(exif) if isinstance(exif[tag], bytes)}
    except Exception:  # a damaged first directory: Pillow raises on reading it
        return None
    for pointer in _DIRECTORIES:
        if pointer not in exif:
            continue
        try:
            directory = dict(exif.get_ifd(pointer))
            if ExifTags.IFD.Interop in directory:  # the Exif directory's own pointer
                interop = dict(exif.get_ifd(ExifTags.IFD.Interop))
                if interop:
                    directory[ExifTags.IFD.Interop] = interop
                else:
                    del directory[ExifTags.IFD.Interop]
        except Exception:  # a damaged directory: the rest is kept
            continue
        if directory:
            tags[pointer] = directory
    return tags or None


def _picture_exif(tags: Mapping[int, Any], output_format: str) -> PILImage.Exif:
    """The EXIF of a TIFF's ``tags`` (:func:`tiff_tags`) for an ``output_format`` file."""
    exif = PILImage.Exif()
    for tag, value in tags.items():
        if output_format == "TIFF" or tag not in TIFF_BLOCKS:
            exif[tag] = value
    return exif


def _tiff_exif(
    given: bytes | PILImage.Exif | None,
    xmp: bytes | str | None,
    iptc: bytes | None,
    info: Mapping[str, Any],
    notes: list[str],
) -> PILImage.Exif:
    """The tags of a TIFF output's ``exif`` option: the ``given`` EXIF (an input's bytes, or a
    TIFF's picture tags) with the XMP packet and the IPTC record as tags (the TIFF writer
    ignores an ``xmp`` option), without the tags of the input's storage
    (:data:`TIFF_LAYOUT_TAGS`), and without the Exif and GPS directories where libtiff
    writes the file (:func:`_through_libtiff`). EXIF bytes that Pillow cannot read as tags
    (a damaged block) are left out: a TIFF stores EXIF as tags, not as the bytes a JPEG, PNG
    or WebP output carries; of EXIF it reads, the tags it cannot write again are left out
    (:func:`_writable`)."""
    exif = given if isinstance(given, PILImage.Exif) else PILImage.Exif()
    if isinstance(given, bytes) and given:
        try:
            exif.load(given)
        except Exception:  # Pillow cannot read it as tags; a TIFF stores nothing else
            exif = PILImage.Exif()
            notes.append(f"{_EXIF} (Pillow cannot read it as the tags a TIFF stores)")
        exif = _writable(exif, notes)
    for tag in TIFF_LAYOUT_TAGS.intersection(exif):
        del exif[tag]
    if xmp and _XMP not in exif:
        exif[_XMP] = xmp.encode() if isinstance(xmp, str) else xmp
    if iptc and _IPTC_TAG not in exif:
        exif[_IPTC_TAG] = iptc
    directories = [pointer for pointer in _DIRECTORIES if pointer in exif]
    if directories and _through_libtiff(info):
        for pointer in directories:
            del exif[pointer]
        notes.append("the EXIF's Exif and GPS directories (a compressed TIFF: libtiff writes it)")
    return exif


def _serialises(exif: PILImage.Exif) -> bool:
    try:
        exif.tobytes()  # as the TIFF writer will
    except Exception:
        return False
    return True


def _tag(tag: int, value: Any) -> PILImage.Exif:
    exif = PILImage.Exif()
    exif[tag] = value
    return exif


def _writable(exif: PILImage.Exif, notes: list[str]) -> PILImage.Exif:
    """``exif`` where Pillow can write it again; else the tags of its first, Exif and GPS
    directories that it can write, each tried alone: a photo editor's EXIF may hold a
    resolution stored as text (Pillow's corpus: broken_exif_dpi.jpg,
    invalid-exif-without-x-resolution.jpg), which Pillow reads but cannot write, beside the
    camera's make, model and exposure."""
    if _serialises(exif):
        return exif
    kept = PILImage.Exif()
    for tag, value in exif.items():
        if tag not in _DIRECTORIES and _serialises(_tag(tag, value)):
            kept[tag] = value
    for pointer in _DIRECTORIES:
        try:
            directory = exif.get_ifd(pointer)
        except Exception:  # a directory Pillow cannot read
            continue
        fine = {tag: value for tag, value in directory.items() if _serialises(_tag(tag, value))}
        if fine and _serialises(_tag(pointer, fine)):
            kept[pointer] = fine
    notes.append(f"{_EXIF} tags Pillow cannot write again (in a TIFF)")
    return kept


def _through_libtiff(info: Mapping[str, Any]) -> bool:
    """True when Pillow's TIFF writer hands an output to libtiff (a compressed TIFF keeps its
    input's ``compression``), whose tag writing takes no directories: Pillow raises "Error
    setting from dictionary" for an ``exif`` holding an Exif or GPS directory."""
    return bool(TiffImagePlugin.WRITE_LIBTIFF) or info.get("compression") not in (None, "raw")


#: Most bytes of one JPEG marker segment, which holds the EXIF (with its ``Exif`` header) or
#: the XMP packet (after its 29-byte namespace): Pillow's JPEG writer refuses more.
_JPEG_SEGMENT = 65533
_XMP_NAMESPACE = 29
_JPEG_FORMATS = frozenset({"JPEG", "MPO"})


#: The identifier that starts a JPEG's EXIF segment, before the TIFF header.
_EXIF_HEADER = b"Exif\x00\x00"
_TIFF_HEADERS = (b"II*\x00", b"MM\x00*")


def _jpeg_exif(exif: bytes, notes: list[str]) -> bytes | None:
    """``exif`` as a JPEG's EXIF segment holds it, where one segment holds it; else the same
    tags without the camera maker's notes (``MakerNote``, the bulk of a long Exif directory: a
    raw converter's TIFF or PNG may carry 100 KiB of it) where that fits; else None, left out.

    A WebP's EXIF chunk holds the TIFF data without the ``Exif`` identifier (as its
    specification says, and as cwebp and Pillow's WebP writer store it), and Pillow's reader
    hands it on so; Pillow's JPEG writer writes what it is given, and a segment without the
    identifier is one no reader (Pillow's included) takes for EXIF: it is added."""
    if exif.startswith(_TIFF_HEADERS):
        exif = _EXIF_HEADER + exif
    if len(exif) <= _JPEG_SEGMENT:
        return exif
    try:
        tags = PILImage.Exif()
        tags.load(exif)
        tags.get_ifd(ExifTags.IFD.Exif).pop(ExifTags.Base.MakerNote, None)
        shorter = tags.tobytes()
    except Exception:  # tags Pillow cannot read or write again
        shorter = exif
    if len(shorter) <= _JPEG_SEGMENT:
        notes.append("the EXIF's maker notes (past what a JPEG segment holds)")
        return shorter
    notes.append(f"{_EXIF} (longer than a JPEG segment holds)")
    return None


def iptc_record(image: Any, source: FileItems = NO_ITEMS) -> bytes | None:
    """The IPTC-NAA record a result carries from its input: a JPEG's, which Pillow's reader
    puts in ``info["photoshop"]``, or a TIFF's IPTC tag (``source``); None where there is none
    (or only one stored as numbers, which Pillow's TIFF writer leaves out too)."""
    blocks = (getattr(image, "info", None) or {}).get("photoshop")
    record = blocks.get(_IPTC_RESOURCE) if isinstance(blocks, Mapping) else None
    if record is None and source.tiff_tags:
        record = source.tiff_tags.get(_IPTC_TAG)
    return record if isinstance(record, bytes) and record else None


def with_iptc(jpeg: bytes, record: bytes) -> bytes:
    """``jpeg`` (a file Pillow wrote) with ``record`` as the IPTC resource of a Photoshop
    APP13 segment, after the file's other application and comment segments, where Photoshop
    and cameras put it; ``jpeg`` as it is where the record does not fit one segment."""
    resource = b"8BIM" + _IPTC_RESOURCE.to_bytes(2, "big") + b"\0\0"  # an empty name
    resource += len(record).to_bytes(4, "big") + record + b"\0" * (len(record) % 2)
    body = b"Photoshop 3.0\0" + resource
    if len(body) > _JPEG_SEGMENT or jpeg[:2] != b"\xff\xd8":
        return jpeg
    at = 2  # after SOI: skip APPn (0xE0..0xEF) and COM (0xFE) segments
    while (
        len(jpeg) >= at + 4
        and jpeg[at] == 0xFF
        and (0xE0 <= jpeg[at + 1] <= 0xEF or jpeg[at + 1] == 0xFE)
    ):
        at += 2 + int.from_bytes(jpeg[at + 2 : at + 4], "big")
    segment = b"\xff\xed" + (len(body) + 2).to_bytes(2, "big") + body
    return jpeg[:at] + segment + jpeg[at:]


#: The most pixels per metre a PNG's pHYs chunk and a BMP's header store (32 bits unsigned).
_PER_METRE_MOST = 0xFFFFFFFF


def _png_per_metre(dpi: float) -> int:
    return int(dpi / 0.0254 + 0.5)


def _bmp_per_metre(dpi: float) -> int:
    return int(dpi * 39.3701 + 0.5)


#: How each format's writer turns dpi into the pixels per metre it stores, where it does (an
#: ICO's writer hands the option to the PNG or BMP writer of each size it holds).
_PER_METRE: Mapping[str, Callable[[float], int]] = {
    "PNG": _png_per_metre,
    **dict.fromkeys(("BMP", "DIB"), _bmp_per_metre),
    "ICO": lambda dpi: max(_png_per_metre(dpi), _bmp_per_metre(dpi)),
}

#: Colour space signature of an ICC profile (header bytes 16..19) by the modes it describes.
_PROFILE_SPACES = {
    b"RGB ": frozenset({"RGB", "RGBA", "RGBX", "RGBa", "P", "PA"}),
    b"GRAY": frozenset({"L", "LA", "La", "1", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"}),
    b"CMYK": frozenset({"CMYK"}),
    b"Lab ": frozenset({"LAB"}),
    b"YCbr": frozenset({"YCbCr"}),
}


def _profile_fits(profile: bytes, mode: str) -> bool:
    return mode in _PROFILE_SPACES.get(profile[16:20], frozenset())


def _resolution(value: Any, output_format: str) -> bool:
    """True for a resolution ``output_format`` can store (a PNG stores pixels per metre in 32
    bits: a sentinel such as 4294967295 dpi, which some writers leave, does not fit)."""
    if not (isinstance(value, tuple) and len(value) == 2):
        return False
    for item in value:  # a TIFF's are rationals (IFDRational)
        if not (isinstance(item, numbers.Real) and math.isfinite(float(item)) and float(item) > 0):
            return False
        per_metre = _PER_METRE.get(output_format)
        if per_metre is not None and per_metre(float(item)) > _PER_METRE_MOST:
            return False
    return True


#: What separates metadata items left out where they are joined into one string (the
#: ``metadata_left_out`` column of ``PillowGpuMapper`` rows); no item's name holds it.
LEFT_OUT_SEPARATOR = "; "

_EXIF, _PROFILE, _XMP_PACKET, _RESOLUTION = "EXIF", "ICC profile", "XMP", "resolution"
_IPTC, _TEXT, _COMMENT = "IPTC record", "text chunks", "comment"
_PHOTO_ITEMS = frozenset({_EXIF, _PROFILE, _XMP_PACKET})
#: The metadata items each output format holds (by Pillow's format name), as ``apply``
#: writes them (a JPEG's or GIF's comment as Pillow's writers take it from ``info``); a
#: format not named holds none (JPEG 2000, ICO, TGA, PPM, ...).
HELD_ITEMS: Mapping[str, frozenset[str]] = {
    "JPEG": _PHOTO_ITEMS | {_RESOLUTION, _IPTC, _COMMENT},
    "MPO": _PHOTO_ITEMS | {_RESOLUTION, _COMMENT},
    "PNG": _PHOTO_ITEMS | {_RESOLUTION, _TEXT},
    "TIFF": _PHOTO_ITEMS | {_RESOLUTION, _IPTC},
    "WEBP": _PHOTO_ITEMS,
    "AVIF": _PHOTO_ITEMS,
    "GIF": frozenset({_COMMENT}),
    "BMP": frozenset({_RESOLUTION}),
    "DIB": frozenset({_RESOLUTION}),
}


def metadata_options(
    image: Any,
    *,
    keep: bool = True,
    source: FileItems = NO_ITEMS,
    output_format: str = "",
    left_out: list[str] | None = None,
) -> dict[str, Any]:
    """``save`` options that write ``image.info``'s EXIF, ICC profile (where it describes the
    image's mode, else ``icc_profile=None``), XMP and resolution into its file (another item
    absent or empty is left out), with what it keeps of its input file (``source``: a TIFF's
    picture tags as EXIF, and a PNG's text chunks when ``output_format`` is ``"PNG"``); or with
    ``keep=False`` that write none of them. A TIFF output's XMP goes into its ``exif``, the
    option its writer reads.

    Each item the result carries that an ``output_format`` file cannot hold (the format holds
    none, :data:`HELD_ITEMS`, or this one does not fit) is appended to ``left_out``, named
    with why (``"EXIF (GIF files hold none)"``).
    """
    if not keep:  # the items Pillow's writers fall back to ``info`` for
        return {"icc_profile": None, "comment": b""}
    notes: list[str] = [] if left_out is None else left_out
    info = getattr(image, "info", None) or {}
    if output_format:
        _not_held(image, info, source, output_format, notes)
    options: dict[str, Any] = {}
    exif: bytes | PILImage.Exif | None = info.get("exif")
    if not (isinstance(exif, bytes) and exif):
        exif = _picture_exif(source.tiff_tags, output_format) if source.tiff_tags else None
    profile = info.get("icc_profile")
    fits = isinstance(profile, bytes) and _profile_fits(profile, image.mode)
    # None, not absent: Pillow's PNG, TIFF and AVIF plugins would write ``info``'s otherwise.
    options["icc_profile"] = profile if fits else None
    xmp = info.get("xmp")
    if isinstance(xmp, (bytes, str)) and xmp:
        options["xmp"] = xmp
    iptc = iptc_record(image) if output_format == "TIFF" else None
    if output_format == "TIFF" and (exif or "xmp" in options or iptc):
        exif = _tiff_exif(exif, options.pop("xmp", None), iptc, info, notes) or None
    if exif:
        written = exif if isinstance(exif, bytes) else _exif_bytes(exif, notes)
        if written:
            options["exif"] = written
    if output_format in _JPEG_FORMATS:  # what one marker segment cannot hold is left out
        fitted = _jpeg_exif(options.pop("exif"), notes) if "exif" in options else None
        if fitted is not None:
            options["exif"] = fitted
        if len(options.get("xmp", "")) > _JPEG_SEGMENT - _XMP_NAMESPACE:
            del options["xmp"]
            notes.append(f"{_XMP_PACKET} (longer than a JPEG segment holds)")
    if output_format == "AVIF" and "exif" in options and not _avif_reads(options["exif"]):
        del options["exif"]
        notes.append(f"{_EXIF} (a damaged block, which Pillow's AVIF writer cannot read)")
    dpi = info.get("dpi")
    if _resolution(dpi, output_format):
        options["dpi"] = dpi
    elif _RESOLUTION in HELD_ITEMS.get(output_format, ()) and _resolution(dpi, ""):
        notes.append(f"{_RESOLUTION} (past what a {output_format} stores)")
    if output_format == "PNG":
        pnginfo = _png_text(info, source, options.pop("xmp", None), notes)
        if pnginfo is not None:
            options["pnginfo"] = pnginfo
    return options


def _exif_bytes(exif: PILImage.Exif, notes: list[str]) -> bytes | None:
    """``exif.tobytes()`` of the EXIF built from an input's tags; None, with a note, where
    Pillow cannot write it: a tag whose type another program wrote wrong holds a value of
    another kind than Pillow writes for it (a date read as a rational)."""
    try:
        return exif.tobytes()
    except (ValueError, TypeError, AttributeError, OverflowError, struct.error) as error:
        notes.append(f"{_EXIF} (a tag holds a value Pillow cannot write: {error})")
        return None


def _avif_reads(exif: bytes) -> bool:
    """True where Pillow's AVIF writer can read ``exif``: it parses the block to take out its
    orientation, which a damaged one (a string where a number belongs, a wrong byte order
    mark, a cut directory) fails with whatever the parser raised, where other writers copy the
    bytes as they are; and it hands that orientation to libavif as a C int (a rational or a
    number past 32 bits, from a tag of the wrong type, fails there)."""
    try:
        parsed = PILImage.Exif()
        parsed.load(exif)
        if ExifTags.Base.Orientation in parsed:
            orientation = parsed.pop(ExifTags.Base.Orientation)
            parsed.tobytes()
            if type(orientation) is not int or not -(2**31) <= orientation < 2**31:
                return False
    except Exception:  # the writer's failure, whatever the damage made the parser raise
        return False
    return True


def _not_held(
    image: Any, info: Mapping[str, Any], source: FileItems, output_format: str, notes: list[str]
) -> None:
    """Append to ``notes`` the items ``image`` carries that no ``output_format`` file holds."""
    held = HELD_ITEMS.get(output_format, frozenset())
    profile = info.get("icc_profile")
    carried = {
        _EXIF: bool(info.get("exif")) or bool(source.tiff_tags),
        _PROFILE: isinstance(profile, bytes) and _profile_fits(profile, image.mode),
        _XMP_PACKET: bool(info.get("xmp")),
        _RESOLUTION: _resolution(info.get("dpi"), ""),
        _IPTC: iptc_record(image, source) is not None,
        _TEXT: source.png and any(_is_text(key, value) for key, value in info.items()),
        _COMMENT: bool(info.get("comment")),
    }
    for item, present in carried.items():
        if present and item not in held:
            notes.append(f"{item} ({output_format} files hold none)")


#: The keyword of the iTXt chunk that holds a PNG's XMP packet (XMP specification, part 3).
_PNG_XMP = "XML:com.adobe.xmp"


def _is_text(key: str, value: Any) -> bool:
    """True for a text chunk of a PNG's ``info`` other than its XMP packet's (which other
    formats hold as XMP)."""
    return isinstance(value, str) and key != _PNG_XMP


def _png_text(
    info: Mapping[str, Any], source: FileItems, xmp: bytes | str | None, notes: list[str]
) -> PngImagePlugin.PngInfo | None:
    """The text chunks of a PNG output: its input PNG's (``source``), and the XMP packet as
    the iTXt chunk that holds it (Pillow's PNG writer takes no ``xmp`` option, so a photo's
    packet would be lost), unless a chunk of the input already holds it; None where there is
    no chunk. A packet that is not UTF-8, as the chunk's text must be, is left out."""
    chunks = [(key, value) for key, value in info.items() if isinstance(value, str)]
    chunks = chunks if source.png else []
    if isinstance(xmp, bytes):
        try:
            xmp = xmp.decode("utf-8")
        except UnicodeDecodeError:
            xmp = None
            notes.append(f"{_XMP_PACKET} (not UTF-8, as a PNG's text must be)")
    if not chunks and not xmp:
        return None
    pnginfo = PngImagePlugin.PngInfo()
    for key, value in chunks:
        pnginfo.add_text(key, value)  # an iTXt keeps its language and translated key
    if xmp and all(key != _PNG_XMP for key, _ in chunks):
        pnginfo.add_itxt(_PNG_XMP, xmp)
    return pnginfo
