"""Pillow's own argument checks, run on tiny probe images so recording allocates O(1) memory.

A recorded operation is first called on a 1x1 (or at most 8x8) Pillow image of the same
mode, so it raises the exception Pillow raises for the real call; target sizes are probed at
2 pixels or fewer per edge (:func:`_tiny_size`), crop boxes are checked without cropping and
rank filters are probed at size 1.
"""

from __future__ import annotations

import copy
import functools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image as PILImage
from PIL import ImageFilter

__all__ = [
    "_check_crop",
    "_filter_probe",
    "_probe",
    "_probe_image",
    "_probe_mode",
    "_tiny_size",
    "plain_filter_key",
    "recorded_filter",
    "recorded_filter_key",
]


def _probe_image(mode: str, size: tuple[int, int] = (1, 1)) -> PILImage.Image:
    try:
        return PILImage.new(mode, size)
    except ValueError:  # a mode Pillow cannot hold (a damaged header's name): not loadable
        return _UnloadableProbe(mode, size)


class _UnloadableProbe(PILImage.Image):
    """A probe of a mode Pillow read from a damaged file's header but cannot hold pixels of
    (an IM file naming ``RGB iage``): like Pillow's image of that file, an operation that
    checks the mode first raises its own error, and one that loads first raises the load's."""

    def __init__(self, mode: str, size: tuple[int, int]) -> None:
        super().__init__()
        self._mode, self._size = mode, size

    def load(self) -> Any:
        return PILImage.core.new(self.mode, self.size)  # raises Pillow's ValueError


def _probe(
    call: Callable[..., PILImage.Image], *modes: str, size: tuple[int, int] = (1, 1)
) -> PILImage.Image:
    """Run ``call`` on small Pillow images of ``modes`` so Pillow validates the arguments."""
    return call(*(_probe_image(mode, size) for mode in modes))


#: Largest value of a C ``int``: Pillow's C layer rejects larger edges before allocating.
_C_INT_MAX = 2**31 - 1


def _tiny_size(size: Any) -> tuple[Any, tuple[int, ...] | None]:
    """(probe size, real edges): ``size`` with every edge in 3..2**31-1 replaced by 2.

    Pillow's checks of a target size depend only on each edge's type, sign, zero-ness and C int
    range, never on its magnitude, so a probe at the tiny size raises exactly what the real call
    raises, without allocating the real size. The real edges (ints) come back when every edge
    is an integer; otherwise None and the probe size is ``size`` unchanged (as a tuple, when
    it is iterable, so that a one-shot iterator is read once, as Pillow reads it).
    """
    try:
        edges = tuple(size)
    except TypeError:
        return size, None
    if len(edges) != 2 or not all(hasattr(type(edge), "__index__") for edge in edges):
        return edges, None
    real = tuple(operator.index(edge) for edge in edges)
    return tuple(2 if 2 < edge <= _C_INT_MAX else edge for edge in real), real


def _check_crop(mode: str, box: Sequence[Any]) -> tuple[int, int, int, int]:
    """Pillow's ``crop(box)`` checks, in its order, without allocating the cropped area.

    Returns Pillow's integer box (each coordinate rounded). The C layer's checks of the four
    coordinates (integer range) run on empty crops of a 1x1 image, which allocate nothing.
    """
    if box[2] < box[0]:
        msg = "Coordinate 'right' is less than 'left'"
        raise ValueError(msg)
    if box[3] < box[1]:
        msg = "Coordinate 'lower' is less than 'upper'"
        raise ValueError(msg)
    x0, y0, x1, y1 = map(int, map(round, box))
    PILImage._decompression_bomb_check((abs(x1 - x0), abs(y1 - y0)))
    image = _probe_image(mode)
    image.crop((x0, y0, x0, y0))
    image.crop((x1, y1, x1, y1))
    return x0, y0, x1, y1


#: Pillow's rank filters pad the image by ``size // 2`` before filtering; their checks (mode
#: and palette) do not depend on the size, which the constructor has already checked.
_RANK_FILTERS = (
    ImageFilter.RankFilter,
    ImageFilter.MedianFilter,
    ImageFilter.MinFilter,
    ImageFilter.MaxFilter,
)


def _filter_probe(instance: ImageFilter.Filter) -> ImageFilter.Filter:
    """The filter to probe ``instance``'s checks with: a size-1 rank filter for a valid one
    of Pillow's own rank filters (whose probe would pad to (8 + size)**2 and sort size**2
    values per pixel), else ``instance`` itself."""
    if type(instance) not in _RANK_FILTERS:
        return instance
    size, rank = getattr(instance, "size", None), getattr(instance, "rank", None)
    valid = (
        type(size) is int
        and type(rank) is int
        and size % 2 == 1
        and size * size * 4 <= _C_INT_MAX
        and 0 <= rank < size * size
    )
    return ImageFilter.RankFilter(1, 0) if valid else instance


#: Most filter probe outcomes :func:`recorded_filter` remembers (the table is then emptied).
_FILTER_PROBES_MAX = 256
#: Passed probes as ``(shared copy, mode, probe size)``: the key holds the copy, so its
#: identity stands for its plain key (hashed by address, not by value) for as long as it lives.
_filter_probes: set[tuple[Any, ...]] = set()
#: The shared private copies of recorded plain filters by plain key, and ``(plain key, copy)``
#: by the copy's id (emptied together, at the same bound).
_shared_filters: dict[tuple[Any, ...], ImageFilter.Filter] = {}
_shared_filter_keys: dict[int, tuple[tuple[Any, ...], ImageFilter.Filter]] = {}
_SIMPLE = frozenset((int, bool, str, type(None)))


def plain_filter_key(instance: object) -> tuple[Any, ...] | None:
    """``(class, attributes)`` of one of Pillow's own filter objects whose attributes are all
    plain values or flat tuples of them, each tagged by its type (so ``1``, ``1.0`` and
    ``True`` differ; floats by their exact bits, so ``-0.0`` and ``0.0`` differ too); None for
    any other object, or a NaN anywhere (never equal to itself)."""
    kind = type(instance)
    if kind.__module__ != "PIL.ImageFilter" or not isinstance(instance, ImageFilter.Filter):
        return None
    try:
        attributes = vars(instance)
    except TypeError:
        return None
    items: list[tuple[Any, ...]] = []
    # Keys every filter of every batch job: plain loops, no generator per attribute.
    for name, value in attributes.items():
        outer = type(value)
        tagged: list[tuple[Any, Any]] = []
        for item in value if outer is tuple else (value,):
            inner = type(item)
            if inner is float:
                if math.isnan(item):
                    return None
                tagged.append((float, item.hex()))
            elif inner in _SIMPLE:
                tagged.append((inner, item))
            else:
                return None
        items.append((name, outer, tuple(tagged)))
    return kind, tuple(items)


def recorded_filter(
    instance: ImageFilter.Filter, mode: str, size: tuple[int, int]
) -> ImageFilter.Filter:
    """Run Pillow's checks of ``image.filter(instance)`` for a ``mode`` image (probed at
    ``size``) and return the filter the graph records: a private copy of ``instance``.

    Pillow applies a filter when ``filter()`` is called, so a change to ``instance`` after
    recording must not reach the graph. Pillow's own filters with plain attributes
    (:func:`plain_filter_key`) are recorded as one shared copy per key, which nothing mutates,
    and their passing probe is remembered, so a batch of graphs filtered alike probes and
    copies once. Other filters are deep-copied for each graph (an object that cannot be
    copied is recorded as it is). Rejections are never remembered.
    """
    plain = plain_filter_key(instance)
    if plain is None:
        _probe_filter(instance, mode, size)
        try:
            return copy.deepcopy(instance)
        except Exception:  # an uncopyable user object is kept as given
            return instance
    shared = _shared_filters.get(plain)
    if shared is None:
        if len(_shared_filters) >= _FILTER_PROBES_MAX:
            _shared_filters.clear()
            _shared_filter_keys.clear()
        shared = copy.copy(instance)  # plain attributes: immutable values, shared safely
        _shared_filter_keys[id(shared)] = (plain, shared)
        _shared_filters[plain] = shared
    key = (shared, mode, size)
    if key not in _filter_probes:
        _probe_filter(instance, mode, size)
        if len(_filter_probes) >= _FILTER_PROBES_MAX:
            _filter_probes.clear()
        _filter_probes.add(key)
    return shared


def _probe_filter(instance: ImageFilter.Filter, mode: str, size: tuple[int, int]) -> None:
    checked = _filter_probe(instance)
    _probe(lambda image: image.filter(checked), mode, size=size)


def recorded_filter_key(instance: object) -> tuple[Any, ...] | None:
    """:func:`plain_filter_key` of a filter :func:`recorded_filter` returned as a shared copy
    (looked up, not recomputed), else None."""
    entry = _shared_filter_keys.get(id(instance))
    if entry is not None and entry[1] is instance:
        return entry[0]
    return None


@functools.cache
def _probe_mode(call: Callable[..., PILImage.Image], *modes: str) -> str:
    """The output mode of a parameterless Pillow ``call`` on ``modes``, probed once per modes.

    Only successful probes are remembered; a rejected combination raises on every call.
    """
    return _probe(call, *modes).mode
