"""Plan each graph *shape* once: a bounded cache of lowered programs keyed by graph shape.

:func:`plan_cached` returns what :func:`~pillow_gpu.gpu._planner.plan_graph` returns, but a
graph with the same shape as one planned before reuses that plan's :class:`Program` (which
nothing changes after planning: plans, slots and the executor only read it) and binds only its
own leaves. A batch of same-shaped jobs is then lowered once instead of once per job.

The shape key is built from the planner's own walk (:func:`pillow_gpu._graph.walk`), node by
node in walk order, and holds everything planning reads:

* ``limits`` (by value: the planner reads only its fields) and ``max_work``;
* per uploaded node (a leaf other than ``Image.new``, or any completed node): its operation,
  whether it is completed, mode, size and ``info["transparency"]`` (and an undecoded file's
  ``format``, ``draft`` request and ``late`` PNG metadata); never its pixels or other leaf
  parameters (file path, bytes, encoded size, PIL image), which only ``allocate`` and the
  ``host_bytes`` count read;
* per ``Image.new`` leaf: mode, size, parameters (the fill colour) and
  ``info["transparency"]``;
* per operation: its name, mode, size, parameters, ``info["transparency"]`` and the walk
  positions of its inputs (so a shared input, a diamond and two separate leaves differ).

Of ``info``, planning reads only ``"transparency"`` (whether it is there, and its value):
the rest (EXIF, ICC profile, XMP, resolution, text chunks, frame timing) is metadata that
each graph's own root carries to its result, and which differs from photo to photo, so a
batch of real photos keyed by it would plan every job afresh.

Values are normalised conservatively and tagged by type, so ``1``, ``1.0`` and ``True`` never
meet: ``int``, ``bool``, ``str``, ``bytes`` and ``None`` as they are; floats by their exact bits
(``float.hex``: ``-0.0`` and ``0.0`` differ); tuples, lists, dicts and mapping proxies
recursively; enum members by (type, value); Pillow's own filter objects (``PIL.ImageFilter``
classes) by their type and type-tagged attributes where those are plain values
(``_probes.plain_filter_key``), else by (type, attributes, ``filterargs``). Anything else
makes the graph uncacheable and it is planned by ``plan_graph`` every time: callables (a
``point`` callable kept for I/F), other objects, NumPy scalars and arrays, subclasses of the
simple types, NaN floats, values nested deeper than :data:`_MAX_DEPTH` or with more than
:data:`_MAX_ITEMS` items in all, and an ``info["transparency"]`` of those kinds.

Excluded graphs (always planned afresh), and why:

* any walked node of mode P, PA or 1: the ``convert`` of a P/1 image builds its table from the
  leaf's palette and ``info`` through live Pillow (``lowering.indexed.palette_table``), i.e.
  from leaf data outside the key. No other lowering reads leaf pixels or leaf parameters
  (``lowering/*`` and the planner were read for this: the planner reads a leaf's mode, size and
  completion, ``Image.new``'s colour, and an open leaf's ``encoded_nbytes`` for ``host_bytes``,
  which is recomputed per graph); ``convert`` and ``lowering.wide`` read the *input's*
  ``info["transparency"]``, which the key holds for every node.
* graphs ``plan_graph`` refuses: only successful plans are stored, so a refused graph is
  planned (and refused) on every call.

A hit builds a new :class:`Plan` for this graph: the stored program, terminal and staging
sizes, this graph's uploads in walk order, and ``host_bytes`` recomputed from this graph's
leaves (``encoded_nbytes``, decode temporaries) and root ``info`` as ``plan_graph`` counts
them. A miss stores its plan only when the key read again after planning is unchanged (a node
completed by another thread meanwhile changes it). The cache is an LRU of at most
:data:`PLAN_CACHE_SHAPES` shapes and :data:`PLAN_CACHE_BYTES` bytes (program data and key
bytes), guarded by a lock.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from PIL import ImageFilter as PILImageFilter

from pillow_gpu._graph import LEAF_OPS, Node, walk_list
from pillow_gpu._probes import plain_filter_key, recorded_filter_key
from pillow_gpu.gpu._device import DeviceLimits
from pillow_gpu.gpu._plan import Plan, Upload
from pillow_gpu.gpu._planner import _leaf_host_bytes, plan_graph
from pillow_gpu.gpu._program import Program
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

__all__ = [
    "EXCLUDED_MODES",
    "PLAN_CACHE_BYTES",
    "PLAN_CACHE_SHAPES",
    "SHARED_PLAN_CACHE",
    "PlanCache",
    "plan_cached",
]

#: Most graph shapes the shared cache keeps.
PLAN_CACHE_SHAPES = 64
#: Most bytes (program tables and parameters plus key bytes) the shared cache keeps.
PLAN_CACHE_BYTES = 32 << 20
#: Modes whose graphs are never cached (their lowerings read the leaf's palette).
EXCLUDED_MODES = frozenset({"P", "PA", "1"})

#: Parameters of an ``open`` leaf the key holds (never its bytes, path or encoded size); a
#: PNG's metadata after its pixels (``late``) decides whether the planner admits it.
_HEADER_PARAMS = ("format", "draft", "late")
#: The one ``info`` entry planning reads (``convert`` and ``lowering.wide``, of an input).
_PLANNED_INFO = "transparency"
#: Deepest nesting of a parameter or info value a key holds.
_MAX_DEPTH = 16
#: Most scalar items of all parameters and info values of one graph a key holds.
_MAX_ITEMS = 4096


#: What ``info_nbytes`` charges for an empty ``info`` (the common case of generated images).
_EMPTY_INFO_NBYTES = sys.getsizeof({})


#: ``info`` without the entry planning reads.
_ABSENT = object()


class _Uncacheable(Exception):
    """The graph holds a value the key cannot represent exactly."""


class _Keyer:
    """Normalises one graph's values into a hashable key, counting items and bytes."""

    __slots__ = ("items", "nbytes")

    def __init__(self) -> None:
        self.items = 0
        self.nbytes = 0

    def value(self, value: Any, depth: int = 0) -> Hashable:
        self.items += 1
        if self.items > _MAX_ITEMS or depth > _MAX_DEPTH:
            raise _Uncacheable
        kind = type(value)
        if value is None or kind is int:
            return value
        if kind is str or kind is bytes:
            self.nbytes += len(value)
            return value
        if kind is bool:
            return ("b", value)
        if kind is float:
            if math.isnan(value):  # NaN: its payload is not worth keying
                raise _Uncacheable
            return ("f", value.hex())
        if kind is tuple or kind is list:
            items = tuple(self.value(item, depth + 1) for item in value)
            return ("t" if kind is tuple else "l", items)
        if kind is dict or kind is MappingProxyType:
            return ("m" if kind is dict else "p", self.mapping(value, depth + 1))
        # The common object: a recorded shared filter, looked up by identity. Another of
        # Pillow's own filters is keyed by value, several times cheaper than the general key.
        plain = recorded_filter_key(value)
        pillows = plain is not None or (
            isinstance(value, PILImageFilter.Filter) and kind.__module__ == "PIL.ImageFilter"
        )
        if plain is None and pillows:
            plain = plain_filter_key(value)
        if plain is not None:
            self.items += len(plain[1])
            if self.items > _MAX_ITEMS:
                raise _Uncacheable
            return ("P", plain)
        if isinstance(value, enum.Enum):
            return ("e", kind, self.value(value.value, depth + 1))
        if pillows:
            try:
                attributes = vars(value)
            except TypeError as error:  # no __dict__: nothing to key it by
                raise _Uncacheable from error
            args = getattr(value, "filterargs", None)
            return ("F", kind, self.mapping(attributes, depth + 1), self.value(args, depth + 1))
        raise _Uncacheable

    def mapping(self, mapping: Any, depth: int) -> Hashable:
        if not mapping:
            return ()
        value = self.value
        return tuple([(value(key, depth), value(item, depth)) for key, item in mapping.items()])


def _header(keyer: _Keyer, node: Node) -> Hashable:
    """An undecoded file's format and draft request: unread by planning today, but cheap to
    key and the same across a batch (a new upload layout may come to depend on them)."""
    if node.op != "open":
        return ()
    return tuple(keyer.value(node.params.get(name), 1) for name in _HEADER_PARAMS)


def _shape(root: Node) -> tuple[Hashable, list[Node], int] | None:
    """(key, uploaded nodes in walk order, key bytes) of ``root``'s graph, or None."""
    keyer = _Keyer()
    positions: dict[int, int] = {}
    parts: list[Hashable] = []
    uploads: list[Node] = []
    # Runs for every job of a batch: the checks and empty mappings are inlined.
    try:
        for node in walk_list(root):
            op, mode, size, info, params = node.op, node.mode, node.size, node.info, node.params
            if (
                type(mode) is not str
                or mode in EXCLUDED_MODES
                or type(size) is not tuple
                or len(size) != 2
                or type(size[0]) is not int
                or type(size[1]) is not int
            ):
                return None
            completed = node.cache.get() is not None
            planned = info.get(_PLANNED_INFO, _ABSENT) if info else _ABSENT
            head = (op, mode, size, () if planned is _ABSENT else (keyer.value(planned, 1),))
            if completed or (op in LEAF_OPS and op != "new"):
                header = () if completed else _header(keyer, node)
                parts.append(("upload", completed, *head, header))
                uploads.append(node)
            elif op == "new":
                parts.append(("new", *head, keyer.mapping(params, 1) if params else ()))
            else:
                inputs = tuple([positions[id(child)] for child in node.inputs])
                parts.append(("op", *head, keyer.mapping(params, 1) if params else (), inputs))
            positions[id(node)] = len(positions)
    except _Uncacheable:
        return None
    return tuple(parts), uploads, keyer.nbytes


@dataclass(frozen=True, slots=True, kw_only=True)
class _Entry:
    """What a plan of one shape shares with every graph of that shape (no node references)."""

    program: Program
    upload_buffers: tuple[int, ...]
    shape: dict[str, Any]  # Plan.shape(): the attributes every plan of the shape shares
    fixed_host_bytes: int  # host_bytes less the per-leaf and metadata parts
    nbytes: int


def _metadata_nbytes(root: Node, known: int | None = None) -> int:
    if known is not None:  # the caller's snapshot of root.info charged this already
        return known
    if not root.info:
        return _EMPTY_INFO_NBYTES
    from pillow_gpu.executor._metadata import info_nbytes  # the executor imports the planner

    return info_nbytes(root.info)


def _variable_host_bytes(
    root: Node, uploads: list[Node], metadata_nbytes: int | None = None
) -> int:
    """The part of ``host_bytes`` that differs between graphs of one shape: an undecoded
    file's encoded bytes and the root's metadata (every other part of a leaf's count,
    ``_leaf_host_bytes``, follows from its operation, mode, size and completion, all keyed)."""
    encoded = 0
    for node in uploads:
        if node.op == "open":
            encoded += _leaf_host_bytes(node)
    return encoded + _metadata_nbytes(root, metadata_nbytes)


class PlanCache:
    """An LRU of lowered programs by graph shape (thread-safe); see the module docstring."""

    def __init__(
        self, max_shapes: int = PLAN_CACHE_SHAPES, max_bytes: int = PLAN_CACHE_BYTES
    ) -> None:
        self.max_shapes = max_shapes
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        #: Plans served from a stored program / lowered afresh / of uncacheable graphs.
        self.hits = 0
        self.misses = 0
        self.uncacheable = 0
        self._limits: tuple[DeviceLimits, Hashable] | None = None

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def nbytes(self) -> int:
        """Bytes the stored entries are charged."""
        return self._bytes

    def clear(self) -> None:
        """Drop every stored shape."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def plan(
        self,
        image: Any,
        *,
        limits: DeviceLimits | None = None,
        max_work: int = MAX_SUBMISSION_WORK,
        metadata_nbytes: int | None = None,
    ) -> Plan:
        """``plan_graph(image, limits=limits, max_work=max_work)``, lowering each shape once.

        ``metadata_nbytes``: what the executor's snapshot of the root's ``info`` charged
        (``pillow_gpu.executor._metadata.snapshot_info``), so that a stored shape's plan
        does not walk the ``info`` again for the same count."""
        root: Node = getattr(image, "node", image)
        cacheable = (
            isinstance(root, Node)
            and (limits is None or type(limits) is DeviceLimits)
            and type(max_work) is int
        )
        shape = _shape(root) if cacheable else None
        if shape is None:
            with self._lock:
                self.uncacheable += 1
            return plan_graph(root, limits=limits, max_work=max_work)
        key = (self._limits_key(limits), max_work, shape[0])
        uploads = shape[1]
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
        if entry is not None:
            return Plan.of_shape(
                entry.shape,
                root=root,
                uploads=tuple(
                    [
                        Upload(buffer, node)
                        for buffer, node in zip(entry.upload_buffers, uploads, strict=True)
                    ]
                ),
                host_bytes=entry.fixed_host_bytes
                + _variable_host_bytes(root, uploads, metadata_nbytes),
            )
        plan = plan_graph(root, limits=limits, max_work=max_work)  # refusals are never stored
        self._store(key, shape, plan)
        return plan

    def _limits_key(self, limits: DeviceLimits | None) -> Hashable:
        """``limits`` by value as a plain tuple (hashed in C on every lookup, not by the
        dataclass's generated ``__hash__``); the last one is remembered."""
        if limits is None:
            return None
        last = self._limits
        if last is not None and last[0] is limits:
            return last[1]
        key = dataclasses.astuple(limits)
        self._limits = (limits, key)
        return key

    def _store(self, key: Hashable, shape: tuple[Hashable, list[Node], int], plan: Plan) -> None:
        uploads = shape[1]
        if [upload.node for upload in plan.uploads] != uploads:
            return  # defensive: the planner uploaded other nodes than the key's walk found
        fixed = plan.host_bytes - _variable_host_bytes(plan.root, uploads)
        again = _shape(plan.root)  # unchanged: no node was completed while planning
        if again is None or again[0] != shape[0]:
            return
        data = sum(len(spec.data or b"") for spec in plan.program.buffers)
        entry = _Entry(
            program=plan.program,
            upload_buffers=tuple(upload.buffer for upload in plan.uploads),
            shape=plan.shape(),
            fixed_host_bytes=fixed,
            nbytes=data + shape[2] + 64 * len(plan.program.buffers),
        )
        if entry.nbytes > self.max_bytes or self.max_shapes < 1:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes
            self._entries[key] = entry
            self._bytes += entry.nbytes
            while len(self._entries) > self.max_shapes or self._bytes > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.nbytes


#: The process-wide cache the batch executor plans through.
SHARED_PLAN_CACHE = PlanCache()


def plan_cached(
    image: Any,
    *,
    limits: DeviceLimits | None = None,
    max_work: int = MAX_SUBMISSION_WORK,
    metadata_nbytes: int | None = None,
) -> Plan:
    """Exactly what :func:`~pillow_gpu.gpu._planner.plan_graph` returns (or raises), with
    graphs of a shape planned before reusing its lowered program (:data:`SHARED_PLAN_CACHE`;
    ``metadata_nbytes`` as :meth:`PlanCache.plan` takes it)."""
    return SHARED_PLAN_CACHE.plan(
        image, limits=limits, max_work=max_work, metadata_nbytes=metadata_nbytes
    )
