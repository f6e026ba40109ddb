"""Damaged copies of real files for the random graphs (``random_graph_draw.file_outcome``): a
seed picks the damage, so a difference found is replayed from its seed and source file.

Decoders meet files cut short by a download, bits flipped on a disk, a header field another
program wrote wrong, or a run of bytes repeated by a bad copy. Each kind here makes one of
those out of a file Pillow opens: header bytes set to boundary values, a few bits flipped
anywhere, a span overwritten with noise, the file cut, or a span repeated in place. Damage to
the units of a file's structure (chunks, boxes, segments, blocks, TIFF entries) is
``random_graph_structure``'s.
"""

from __future__ import annotations

import random
from pathlib import Path

from .random_graph_draw import file_outcome
from .random_graph_structure import damaged_structure

__all__ = ["DAMAGE", "damaged", "damaged_file_outcome"]

#: The kinds of damage, drawn evenly.
DAMAGE = ("header", "bits", "noise", "cut", "repeat")
#: Bytes at the start of a file taken as its header.
_HEADER_BYTES = 128


def damaged(data: bytes, seed: int) -> tuple[str, bytes]:
    """The kind of damage ``seed`` draws (one of :data:`DAMAGE`) and ``data`` with it ("none"
    and ``data`` for fewer than two bytes)."""
    rng = random.Random(seed)
    found = bytearray(data)
    if len(found) < 2:
        return "none", bytes(found)
    kind = rng.choice(DAMAGE)
    if kind == "header":
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(min(len(found), _HEADER_BYTES))
            found[at] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)])
    elif kind == "bits":
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(found))
            found[at] ^= 1 << rng.randrange(8)
    elif kind == "noise":
        at = rng.randrange(len(found))
        end = min(len(found), at + rng.randint(1, 64))
        found[at:end] = rng.randbytes(end - at)
    elif kind == "cut":
        del found[rng.randint(max(1, len(found) // 8), len(found) - 1) :]
    else:  # repeat
        at = rng.randrange(len(found))
        found[at:at] = found[at : at + rng.randint(1, 256)]
    return kind, bytes(found)


def damaged_file_outcome(source: Path, seed: int, folder: Path, *, structure: bool = False) -> str:
    """:func:`file_outcome` of the graph ``seed`` draws on ``source`` damaged by ``seed``
    (its structure with ``structure``: ``random_graph_structure``), written into ``folder``
    under the source's extension (plugins are picked by content, some by extension)."""
    path = folder / f"damaged-{seed}{source.suffix}"
    damage = damaged_structure if structure else damaged
    path.write_bytes(damage(source.read_bytes(), seed)[1])
    try:
        return file_outcome(path, seed)
    finally:
        path.unlink(missing_ok=True)
