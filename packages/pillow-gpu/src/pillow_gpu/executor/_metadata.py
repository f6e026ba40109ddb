"""Result metadata (``info``): validated, snapshotted at admission, copied per result.

Accepted values are exactly ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes``, the containers ``dict``, ``list``, ``tuple``, ``set`` and ``frozenset`` nested at
most :data:`MAX_DEPTH` deep, and the value types Pillow's own plugins put in ``info``:
``PIL.TiffImagePlugin.IFDRational`` (a TIFF's ``dpi`` and ``resolution``) and
``PIL.PngImagePlugin.iTXt`` (PNG international text, with its ``lang`` and ``tkey``). Every
type is matched exactly (no subclasses), and Pillow's types are rebuilt from validated parts, so
no caller code (``__repr__``, ``__eq__``, ``__sizeof__`` ...) runs during validation, a snapshot
owns every mutable part, and later caller mutations cannot grow what was charged. The walk is
bounded by :data:`MAX_DEPTH`, so deep nesting raises :class:`BatchLimit`, never RecursionError.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from PIL.PngImagePlugin import iTXt
from PIL.TiffImagePlugin import IFDRational

from pillow_gpu.executor._errors import BatchLimit, BatchUnsupported

__all__ = ["MAX_DEPTH", "InfoSnapshot", "info_nbytes", "snapshot_info"]

#: Deepest container nesting accepted (the info dict itself is depth 1).
MAX_DEPTH = 8

_SCALARS = frozenset({type(None), bool, int, float, complex, str, bytes})
_CONTAINERS = frozenset({dict, list, tuple, set, frozenset})
_TEXT_PARTS = frozenset({type(None), str, bytes})  # iTXt lang/tkey


@dataclass(frozen=True, slots=True, kw_only=True)
class InfoSnapshot:
    """An owned copy of a job's metadata and the host bytes it is charged."""

    value: dict[str, Any]
    nbytes: int

    def copy(self) -> dict[str, Any]:
        """An independent copy for one result (of values validated already: no walk checks
        or charges them again)."""
        if not self.value:
            return {}
        return cast("dict[str, Any]", _duplicate(self.value))


def _where(path: tuple[object, ...]) -> str:
    """``info['a'][0]`` for a path of validated keys (repr of exact scalars only, truncated)."""
    shown = (part[:60] if isinstance(part, (str, bytes)) else part for part in path[1:])
    return str(path[0]) + "".join(f"[{part!r}]" for part in shown)


def _reject_type(value: object, path: tuple[object, ...], what: str = "") -> BatchUnsupported:
    return BatchUnsupported(
        "result metadata accepts only scalars, bytes, dict/list/tuple/set containers and "
        "Pillow's own IFDRational and iTXt values (exact types, no subclasses)",
        observed=f"{_where(path)}{what} is a {type(value).__module__}.{type(value).__qualname__}",
        fix="remove or convert that value in the image's info before submitting",
        stage="admission",
    )


def _ifd_rational(value: IFDRational, path: tuple[object, ...]) -> tuple[IFDRational, int]:
    # The slots are read through object's own accessors: IFDRational's properties and
    # operators would be Pillow code, but its parts may be anything a caller stored there.
    try:
        numerator = object.__getattribute__(value, "_numerator")
        denominator = object.__getattribute__(value, "_denominator")
        val = object.__getattribute__(value, "_val")
    except AttributeError:  # built with __new__ alone: not a value Pillow produces
        raise _reject_type(value, path, " (uninitialised)") from None
    if type(numerator) not in (int, float):
        raise _reject_type(numerator, path, " numerator")
    if type(denominator) is not int:
        raise _reject_type(denominator, path, " denominator")
    if type(val) is Fraction:
        val = Fraction(int(val.numerator), int(val.denominator))  # exact ints, a fresh Fraction
    elif type(val) is not float:
        raise _reject_type(val, path, " value")
    copied = IFDRational.__new__(IFDRational)
    copied._numerator = numerator
    copied._denominator = denominator
    copied._val = val
    return copied, sys.getsizeof(copied) + 3 * sys.getsizeof(0)


def _itxt(value: iTXt, path: tuple[object, ...]) -> tuple[iTXt, int]:
    parts = object.__getattribute__(value, "__dict__")
    lang, tkey = parts.get("lang"), parts.get("tkey")
    for name, part in (("lang", lang), ("tkey", tkey)):
        if type(part) not in _TEXT_PARTS:
            raise _reject_type(part, path, f" {name}")
    text = str.__str__(value)  # an exact str copy of the characters
    copied = iTXt(text, cast("str | None", lang), cast("str | None", tkey))  # or bytes
    nbytes = sys.getsizeof(text) + sys.getsizeof(lang) + sys.getsizeof(tkey)
    return copied, nbytes


def _copy(value: Any, *, depth: int, path: tuple[object, ...]) -> tuple[Any, int]:
    kind = type(value)
    if kind in _SCALARS:
        return value, sys.getsizeof(value)
    if kind is IFDRational:
        return _ifd_rational(value, path)
    if kind is iTXt:
        return _itxt(value, path)
    if kind not in _CONTAINERS:
        raise _reject_type(value, path)
    if depth > MAX_DEPTH:
        raise BatchLimit(
            f"result metadata may nest at most {MAX_DEPTH} containers deep",
            observed=f"{_where(path)} is at depth {depth}",
            fix="flatten the image's info before submitting",
            stage="admission",
        )
    nbytes = sys.getsizeof(value)
    if kind is dict:
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if type(key) not in _SCALARS:
                raise _reject_type(key, path, " key")
            copied, size = _copy(item, depth=depth + 1, path=(*path, key))
            out[key] = copied
            nbytes += sys.getsizeof(key) + size
        return out, nbytes
    items = []
    for index, item in enumerate(value):
        copied, size = _copy(item, depth=depth + 1, path=(*path, index))
        items.append(copied)
        nbytes += size
    if kind is list:
        return items, nbytes
    return kind(items), nbytes  # tuple, set, frozenset: members are validated copies


def _duplicate(value: Any) -> Any:
    """A copy of a snapshot's validated ``value`` owning its every mutable part: containers,
    and Pillow's values rebuilt from their parts (immutable scalars are shared)."""
    kind = type(value)
    if kind is dict:
        return {key: _duplicate(item) for key, item in value.items()}
    if kind in _CONTAINERS:
        return kind([_duplicate(item) for item in value])
    if kind is IFDRational:
        return _ifd_rational(value, ())[0]
    if kind is iTXt:
        return _itxt(value, ())[0]
    return value


#: The snapshot of every empty ``info`` (shared: a snapshot is never changed, and each result
#: gets its own :meth:`InfoSnapshot.copy`).
_EMPTY = InfoSnapshot(value={}, nbytes=sys.getsizeof({}))


def snapshot_info(info: Mapping[str, Any]) -> InfoSnapshot:
    """Validate ``info`` and return an owned snapshot with its charged size."""
    if not info:  # the common case of generated images: nothing to validate or copy
        return _EMPTY
    if type(info) is not dict:
        info = dict(info)  # a graph's read-only view of its own dict
    value, nbytes = _copy(info, depth=1, path=("info",))
    return InfoSnapshot(value=value, nbytes=nbytes)


def info_nbytes(info: Mapping[str, Any]) -> int:
    """The host bytes :func:`snapshot_info` charges for ``info``; 0 where it would reject it.

    For the planner's metadata reservation: like the snapshot it runs no caller code and is
    bounded in depth, and rejection is left to the executor's admission (``evaluate`` passes
    ``info`` through as Pillow does).
    """
    try:
        return snapshot_info(info).nbytes
    except (BatchUnsupported, BatchLimit):
        return 0
