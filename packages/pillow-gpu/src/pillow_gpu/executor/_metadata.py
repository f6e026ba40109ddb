"""Result metadata (``info``): validated, snapshotted at admission, copied per result.

Accepted values are exactly ``None``, ``bool``, ``int``, ``float``, ``complex``, ``str``,
``bytes`` and the containers ``dict``, ``list`` and ``tuple`` nested at most
:data:`MAX_DEPTH` deep. Subclasses and other objects are rejected, so a snapshot owns every
mutable part and later caller mutations cannot grow what was charged.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pillow_gpu.executor._errors import BatchLimit, BatchUnsupported

__all__ = ["MAX_DEPTH", "InfoSnapshot", "snapshot_info"]

#: Deepest container nesting accepted (the info dict itself is depth 1).
MAX_DEPTH = 8

_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_CONTAINERS = (dict, list, tuple)


@dataclass(frozen=True, slots=True, kw_only=True)
class InfoSnapshot:
    """An owned copy of a job's metadata and the host bytes it is charged."""

    value: dict[str, Any]
    nbytes: int

    def copy(self) -> dict[str, Any]:
        """An independent copy for one result."""
        copied, _ = _copy(self.value, depth=1, path="info")
        return copied


def _reject_type(value: object, path: str) -> BatchUnsupported:
    return BatchUnsupported(
        "result metadata accepts only scalars, bytes and dict/list/tuple containers "
        "(exact types, no subclasses)",
        observed=f"{path} is a {type(value).__module__}.{type(value).__qualname__}",
        fix="remove or convert that value in the image's info before submitting",
        stage="admission",
    )


def _copy(value: Any, *, depth: int, path: str) -> tuple[Any, int]:
    kind = type(value)
    if kind in _SCALARS:
        return value, sys.getsizeof(value)
    if kind not in _CONTAINERS:
        raise _reject_type(value, path)
    if depth > MAX_DEPTH:
        raise BatchLimit(
            f"result metadata may nest at most {MAX_DEPTH} containers deep",
            observed=f"{path} is at depth {depth}",
            fix="flatten the image's info before submitting",
            stage="admission",
        )
    nbytes = sys.getsizeof(value)
    if kind is dict:
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if type(key) not in _SCALARS:
                raise _reject_type(key, f"{path} key {key!r}")
            copied, size = _copy(item, depth=depth + 1, path=f"{path}[{key!r}]")
            out[key] = copied
            nbytes += sys.getsizeof(key) + size
        return out, nbytes
    items = []
    for index, item in enumerate(value):
        copied, size = _copy(item, depth=depth + 1, path=f"{path}[{index}]")
        items.append(copied)
        nbytes += size
    return (items if kind is list else tuple(items)), nbytes


def snapshot_info(info: Mapping[str, Any]) -> InfoSnapshot:
    """Validate ``info`` and return an owned snapshot with its charged size."""
    value, nbytes = _copy(dict(info), depth=1, path="info")
    return InfoSnapshot(value=value, nbytes=nbytes)
