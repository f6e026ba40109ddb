"""Damage to a file's structure for the random graphs (``random_graph_damage``): a seed picks
one unit of the file (a PNG chunk, a RIFF chunk of a WebP file, a box of an AVIF file, a
JPEG marker segment, a GIF block, an entry of a TIFF directory, in a TIFF file or in the Exif
block of a JPEG, PNG or WebP file) and damages it as a faulty writer or editor would.

A chunk, box, segment or block is dropped, written twice, swapped with the next one of its
parent, given a wrong length, or has bytes of its payload set to boundary values. A dropped
or repeated chunk, box or segment keeps the lengths of the chunks and boxes around it right,
and a PNG chunk whose payload changed gets its CRC written anew (a program that writes a
wrong value computes the CRC of what it wrote), so the readers meet well-formed files that
say odd things, not only broken ones. A TIFF entry is dropped (the directory's count less
one), written over the next one, swapped with it (tags out of order), or has its type, count
or value set to boundary values; or a directory's next-directory offset points at itself, at
the first directory or elsewhere. The sizes of the whole file only change where a unit is
dropped or repeated.
"""

from __future__ import annotations

import random
import struct
import zlib
from dataclasses import dataclass

__all__ = ["KINDS", "Unit", "damaged_structure", "units"]

#: What is done to a chunk, box, segment or block; to a TIFF directory entry.
KINDS = ("drop", "twice", "swap", "length", "field")
_ENTRY_KINDS = ("drop", "twice", "swap", "type", "count", "value", "next")

#: Most units read from one file, and most TIFF directories walked.
_MAX_UNITS = 4_000
_MAX_DIRECTORIES = 8

#: Boxes of an AVIF (ISO base media) file holding boxes, and the bytes before those.
_CONTAINERS = {
    b"moov": 0,
    b"trak": 0,
    b"mdia": 0,
    b"minf": 0,
    b"stbl": 0,
    b"dinf": 0,
    b"edts": 0,
    b"udta": 0,
    b"meta": 4,
    b"iprp": 0,
    b"ipco": 0,
    b"iref": 4,
    b"grpl": 0,
    b"stsd": 8,
}


@dataclass(frozen=True)
class Unit:
    """One unit of a file: ``data[start:end]`` whole, ``data[body:body_end]`` its payload.

    ``length``: where its length field is (offset, bytes, byte order), None without one;
    ``parents``: the length fields of the units holding it (they count its bytes); ``crc``:
    the ``(start, end)`` a PNG CRC covers, written at ``end``, for a unit inside a PNG chunk;
    ``parent``: which unit holds it (siblings share it); ``entry``: for a TIFF directory
    entry, ``(count offset, index, entries, byte order, TIFF header offset)`` of its
    directory.
    """

    name: str
    start: int
    end: int
    body: int
    body_end: int
    length: tuple[int, int, str] | None = None
    parents: tuple[tuple[int, int, str], ...] = ()
    crc: tuple[int, int] | None = None
    parent: int = -1
    entry: tuple[int, int, int, str, int] | None = None


def units(data: bytes) -> list[Unit]:
    """The units of ``data`` this module walks (empty for other formats)."""
    found: list[Unit] = []
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n"):
            _png(data, found)
        elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            _riff(data, 12, min(len(data), 8 + int.from_bytes(data[4:8], "little")), found)
        elif data[4:8] == b"ftyp":
            _boxes(data, 0, len(data), (), -1, found)
        elif data[:2] == b"\xff\xd8":
            _jpeg(data, found)
        elif data[:6] in (b"GIF87a", b"GIF89a"):
            _gif(data, found)
        elif data[:4] in (b"II*\x00", b"MM\x00*"):
            _tiff(data, 0, len(data), None, found)
    except (IndexError, struct.error):  # a unit runs past the end: the ones before it count
        pass
    return found[:_MAX_UNITS]


def _png(data: bytes, found: list[Unit]) -> None:
    position = 8
    while position + 12 <= len(data) and len(found) < _MAX_UNITS:
        length, kind = struct.unpack_from(">I4s", data, position)
        body = position + 8
        if body + length + 4 > len(data):
            return
        unit = Unit(
            kind.decode("latin-1"),
            position,
            body + length + 4,
            body,
            body + length,
            length=(position, 4, "big"),
            crc=(position + 4, body + length),
        )
        found.append(unit)
        if kind == b"eXIf":
            _tiff(data, body, body + length, unit.crc, found)
        position = unit.end


def _riff(data: bytes, start: int, end: int, found: list[Unit], parents: tuple = ()) -> None:
    parents = ((4, 4, "little"), *parents)
    holder = len(found) - 1 if start > 12 else -1
    position = start
    while position + 8 <= end and len(found) < _MAX_UNITS:
        kind = data[position : position + 4]
        length = int.from_bytes(data[position + 4 : position + 8], "little")
        body = position + 8
        if body + length > end:
            return
        unit = Unit(
            kind.decode("latin-1"),
            position,
            min(end, body + length + (length & 1)),
            body,
            body + length,
            length=(position + 4, 4, "little"),
            parents=parents,
            parent=holder,
        )
        found.append(unit)
        if kind == b"ANMF" and length > 16:  # a frame: 16 bytes of fields, then its chunks
            _riff(data, body + 16, body + length, found, ((position + 4, 4, "little"),))
        elif kind == b"EXIF":
            exif = body + 6 if data[body : body + 6] == b"Exif\x00\x00" else body
            _tiff(data, exif, body + length, None, found)
        position = unit.end


def _boxes(
    data: bytes,
    start: int,
    end: int,
    parents: tuple[tuple[int, int, str], ...],
    holder: int,
    found: list[Unit],
) -> None:
    position = start
    while position + 8 <= end and len(found) < _MAX_UNITS:
        length, kind = struct.unpack_from(">I4s", data, position)
        header = 8
        if length == 1:  # a 64-bit size: not walked into, not counted in its parents
            return
        if length == 0:
            length = end - position
        if length < header or position + length > end:
            return
        unit = Unit(
            kind.decode("latin-1"),
            position,
            position + length,
            position + header,
            position + length,
            length=(position, 4, "big"),
            parents=parents,
            parent=holder,
        )
        found.append(unit)
        skip = _CONTAINERS.get(kind)
        if skip is not None:
            here = len(found) - 1
            _boxes(data, unit.body + skip, unit.end, ((position, 4, "big"), *parents), here, found)
        position = unit.end


def _jpeg(data: bytes, found: list[Unit]) -> None:
    position = 2
    while position + 4 <= len(data) and len(found) < _MAX_UNITS:
        if data[position] != 0xFF:
            position = _next_marker(data, position)
            if position < 0:
                return
            continue
        marker = data[position + 1]
        if marker == 0xD9:  # the end of the image: an MPO's next image is not walked
            return
        if marker == 0xFF or 0xD0 <= marker <= 0xD7 or marker == 0x01:
            position += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(data[position + 2 : position + 4], "big")
        end = position + 2 + length
        if length < 2 or end > len(data):
            return
        found.append(
            Unit(f"FF{marker:02X}", position, end, position + 4, end, (position + 2, 2, "big"))
        )
        if marker == 0xE1 and data[position + 4 : position + 10] == b"Exif\x00\x00":
            _tiff(data, position + 10, end, None, found)
        position = end
        if marker == 0xDA:  # the scan's data follows, up to the next marker
            position = _next_marker(data, position)
            if position < 0:
                return


def _next_marker(data: bytes, position: int) -> int:
    """The next marker after entropy-coded data (a 0xFF not stuffed and not a restart)."""
    while True:
        position = data.find(b"\xff", position)
        if position < 0 or position + 1 >= len(data):
            return -1
        following = data[position + 1]
        if following != 0 and not 0xD0 <= following <= 0xD7 and following != 0xFF:
            return position
        position += 1 if following == 0xFF else 2


def _gif(data: bytes, found: list[Unit]) -> None:
    packed = data[10]
    position = 13 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0)
    found.append(Unit("screen", 6, position, 6, 13))
    while position < len(data) and len(found) < _MAX_UNITS:
        start = position
        introducer = data[position]
        if introducer == 0x21:
            name = f"ext{data[position + 1]:02X}"
            position += 2
        elif introducer == 0x2C:
            name = "image"
            flags = data[position + 9]
            position += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0) + 1
        else:  # the trailer, or bytes no block starts with
            return
        first = position  # the first sub-block's length byte
        while data[position]:
            position += 1 + data[position]
        position += 1
        if position > len(data):
            return
        # An extension's payload: its first sub-block (a GCE's flags, delay, transparency);
        # an image's: its descriptor and local palette.
        body_end = first + 1 + data[first] if introducer == 0x21 else first
        found.append(Unit(name, start, position, start, body_end, length=(first, 1, "little")))


def _tiff(data: bytes, base: int, end: int, crc: tuple[int, int] | None, found: list[Unit]) -> None:
    order = {b"II": "little", b"MM": "big"}.get(data[base : base + 2])
    if order is None or end - base < 8:
        return
    short, long = ("<H", "<I") if order == "little" else (">H", ">I")
    pending = [struct.unpack_from(long, data, base + 4)[0]]
    seen: set[int] = set()
    while pending and len(seen) < _MAX_DIRECTORIES and len(found) < _MAX_UNITS:
        offset = pending.pop(0)
        at = base + offset
        if offset in seen or offset < 8 or at + 2 > end:
            continue
        seen.add(offset)
        count = struct.unpack_from(short, data, at)[0]
        if at + 2 + 12 * count + 4 > end:
            continue
        for index in range(count):
            entry = at + 2 + 12 * index
            tag, kind, items, value = struct.unpack_from(short[0] + "HHII", data, entry)
            found.append(
                Unit(
                    f"tag{tag}",
                    entry,
                    entry + 12,
                    entry,
                    entry + 12,
                    crc=crc,
                    entry=(at, index, count, order, base),
                )
            )
            if tag in (0x8769, 0x8825, 0xA005) and kind in (4, 13) and items == 1:
                pending.append(value)  # the Exif, GPS and interoperability directories
        pending.append(struct.unpack_from(long, data, at + 2 + 12 * count)[0])


def damaged_structure(data: bytes, seed: int) -> tuple[str, bytes]:
    """``(what was done, data with it)`` for the unit and kind ``seed`` draws (drawn again, up
    to eight times, while it changes nothing); ``("none", data)`` where :func:`units` finds
    none."""
    found = units(data)
    if not found:
        return "none", data
    rng = random.Random(seed)
    for _ in range(8):  # a draw that changes nothing (a last chunk swapped) draws again
        unit = rng.choice(found)
        if unit.entry is not None:
            kind = rng.choice(_ENTRY_KINDS)
            damaged = _entry_damaged(bytearray(data), unit, kind, rng)
        else:
            kind = rng.choice(KINDS)
            damaged = _unit_damaged(bytearray(data), unit, kind, found, rng)
        if unit.crc is not None and (kind == "field" or unit.entry is not None):
            _write_crc(damaged, unit.crc)  # a payload changed in place (an eXIf entry too)
        if damaged != data:
            break
    return f"{unit.name} {kind}", bytes(damaged)


def _boundary(rng: random.Random, value: int, size: int) -> int:
    top = (1 << (8 * size)) - 1
    return rng.choice(
        [0, 1, max(0, value - 1), min(top, value + 1), top, top >> 1, rng.randrange(top + 1)]
    )


def _write(data: bytearray, field: tuple[int, int, str], value: int) -> None:
    offset, size, order = field
    data[offset : offset + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, order)


def _read(data: bytes | bytearray, field: tuple[int, int, str]) -> int:
    offset, size, order = field
    return int.from_bytes(data[offset : offset + size], order)


def _unit_damaged(
    data: bytearray, unit: Unit, kind: str, found: list[Unit], rng: random.Random
) -> bytearray:
    size = unit.end - unit.start
    if kind in ("drop", "twice"):
        change = -size if kind == "drop" else size
        for field in unit.parents:  # the holders' lengths count the unit's bytes
            _write(data, field, _read(data, field) + change)
        if kind == "drop":
            del data[unit.start : unit.end]
        else:
            data[unit.end : unit.end] = data[unit.start : unit.end]
        return data
    if kind == "swap":
        later = [
            other
            for other in found
            if other.parent == unit.parent and other.entry is None and other.start >= unit.end
        ]
        if later:
            other = min(later, key=lambda other: other.start)
            between = data[unit.end : other.start]
            data[unit.start : other.end] = (
                data[other.start : other.end] + between + data[unit.start : unit.end]
            )
        return data
    if kind == "length" and unit.length is not None:
        _write(data, unit.length, _boundary(rng, _read(data, unit.length), unit.length[1]))
        return data
    if unit.body_end > unit.body:  # field: one to three payload bytes
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(unit.body, unit.body_end)
            data[at] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, data[at] ^ 1, rng.randrange(256)])
    return data


def _entry_damaged(data: bytearray, unit: Unit, kind: str, rng: random.Random) -> bytearray:
    assert unit.entry is not None
    directory, index, count, order, base = unit.entry
    entries = directory + 2
    start = unit.start
    if kind == "drop":  # the later entries move up, the next-directory offset with them
        data[start : entries + 12 * count + 4] = data[
            start + 12 : entries + 12 * count + 4
        ] + bytes(12)
        _write(data, (directory, 2, order), count - 1)
    elif kind in ("twice", "swap") and index + 1 < count:
        following = data[start + 12 : start + 24]
        data[start + 12 : start + 24] = data[start : start + 12]
        if kind == "swap":
            data[start : start + 12] = following
    elif kind == "type":
        _write(
            data,
            (start + 2, 2, order),
            rng.choice([0, 1, 2, 3, 4, 5, 7, 10, 12, 13, 16, 255, 0xFFFF]),
        )
    elif kind == "count":
        field = (start + 4, 4, order)
        _write(data, field, _boundary(rng, _read(data, field), 4))
    elif kind == "value":
        field = (start + 8, 4, order)
        _write(data, field, _boundary(rng, _read(data, field), 4))
    else:  # next: the next-directory offset
        field = (entries + 12 * count, 4, order)
        first = _read(data, (base + 4, 4, order))
        _write(
            data,
            field,
            rng.choice([0, first, directory - base, 0xFFFFFFFF, rng.randrange(1 << 16)]),
        )
    return data


def _write_crc(data: bytearray, crc: tuple[int, int]) -> None:
    start, end = crc
    if end + 4 <= len(data):
        data[end : end + 4] = zlib.crc32(data[start:end]).to_bytes(4, "big")
