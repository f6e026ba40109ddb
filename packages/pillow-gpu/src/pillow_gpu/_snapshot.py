"""A lazy leaf's private copy of Pillow's storage, in host buffers that are recycled.

``from_pil`` copies the pixels it wraps (:func:`~pillow_gpu._pillow_memory.stored_snapshot`),
and a batch holds one such copy per leaf until its job is delivered. Fresh memory of a few
hundred KiB comes from the allocator as untouched pages (glibc maps large allocations and
trims its heap when a batch's copies are freed), and the first write to each page faults: on
a 2-core Firecracker VM, copying a 256x256 RGB image into fresh memory took about 170 us
against 12-30 us into memory written before, so every window of a batch paid the faults
again. A :class:`Snapshot` of at least :data:`MIN_POOLED_BYTES` therefore takes its buffer from
a pool of buffers that dead snapshots gave back (:data:`IDLE_SNAPSHOT_BYTES` at most, by
exact size, least recently returned sizes dropped first).

A buffer goes back only when no view of it is alive (only its snapshot refers to the buffer
itself), so a recycled buffer is never visible through an older snapshot.
"""

from __future__ import annotations

import ctypes
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pillow_gpu._copy import copy_memory

__all__ = ["IDLE_SNAPSHOT_BYTES", "MIN_POOLED_BYTES", "Snapshot", "SnapshotPool", "snapshot_pool"]

#: Most bytes of idle snapshot buffers kept for reuse.
IDLE_SNAPSHOT_BYTES = 64 << 20

#: Snapshots smaller than this use plain allocations (small ones are reused by the allocator
#: itself, and a pooled buffer costs a little bookkeeping).
MIN_POOLED_BYTES = 32 << 10


class SnapshotPool:
    """Idle snapshot buffers by exact size, bounded in bytes (thread-safe)."""

    def __init__(self, max_bytes: int = IDLE_SNAPSHOT_BYTES) -> None:
        self.max_bytes = max_bytes
        self._idle: OrderedDict[int, list[bytearray]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def idle_bytes(self) -> int:
        """Bytes of the buffers waiting for reuse."""
        return self._bytes

    def take(self, nbytes: int) -> bytearray | None:
        """An idle buffer of exactly ``nbytes`` (its old contents still in it), or None."""
        with self._lock:
            stack = self._idle.get(nbytes)
            if not stack:
                return None
            buffer = stack.pop()
            self._bytes -= nbytes
            return buffer

    def give(self, buffer: bytearray) -> None:
        """Keep ``buffer`` for reuse if it fits the bound (dropping older sizes first).

        Never waits: a call that finds the pool busy (another thread, or a garbage collection
        that ran inside :meth:`take`) drops the buffer instead.
        """
        nbytes = len(buffer)
        if nbytes > self.max_bytes:
            return
        fresh: list[bytearray] = []  # a new size's shelf, made before locking
        if not self._lock.acquire(blocking=False):
            return
        try:
            while self._bytes + nbytes > self.max_bytes:
                size, stack = next(iter(self._idle.items()))
                if stack:
                    stack.pop()
                    self._bytes -= size
                else:
                    del self._idle[size]
            stack = self._idle.setdefault(nbytes, fresh)
            self._idle.move_to_end(nbytes)
            stack.append(buffer)
            self._bytes += nbytes
        finally:
            self._lock.release()

    def clear(self) -> None:
        """Drop every idle buffer."""
        with self._lock:
            self._idle.clear()
            self._bytes = 0


_POOL = SnapshotPool()


def snapshot_pool() -> SnapshotPool:
    """The process-wide pool of idle snapshot buffers."""
    return _POOL


def _buffer(nbytes: int, padded: int) -> bytearray:
    """A buffer of ``padded`` bytes from the pool (or new), zero past ``nbytes``."""
    buffer = _POOL.take(padded) if padded >= MIN_POOLED_BYTES else None
    if buffer is None:
        return bytearray(padded)
    if padded > nbytes:
        buffer[nbytes:] = bytes(padded - nbytes)  # a recycled buffer's old tail
    return buffer


class Snapshot:
    """Read-only bytes (the buffer protocol and ``len``) whose buffer returns to the pool.

    Build one with :meth:`copy_of`; read it with ``memoryview(snapshot)`` or ``bytes()``.
    """

    __slots__ = ("_buffer",)

    def __init__(self, buffer: bytearray) -> None:
        self._buffer = buffer

    @classmethod
    def copy_of(cls, address: int, nbytes: int, padded: int) -> Snapshot:
        """A snapshot of ``padded`` bytes: ``nbytes`` copied from memory at ``address``, then
        zeros (the caller keeps that memory alive during the call)."""
        buffer = _buffer(nbytes, padded)
        # The first byte's address (one c_char: no array type per size, which ctypes would
        # rebuild after every garbage collection).
        target = ctypes.c_char.from_buffer(buffer)
        copy_memory(ctypes.addressof(target), address, nbytes)  # large ones split, see _copy
        del target  # release the export: a buffer with exports is never given back
        return cls(buffer)

    @classmethod
    def written(cls, nbytes: int, padded: int, write: Callable[[bytearray], None]) -> Snapshot:
        """A snapshot of ``padded`` bytes whose first ``nbytes`` ``write(buffer)`` fills, then
        zeros; ``write`` must not keep a view of the buffer (one alive keeps it from the pool)."""
        buffer = _buffer(nbytes, padded)
        write(buffer)
        return cls(buffer)

    def __buffer__(self, flags: int) -> memoryview:
        return memoryview(self._buffer).toreadonly()

    def __len__(self) -> int:
        return len(self._buffer)

    def __repr__(self) -> str:
        return f"<Snapshot of {len(self._buffer)} bytes>"

    # The pool is bound as a default: it outlives module teardown at exit.
    def __del__(self, _give: Any = _POOL.give) -> None:
        buffer = self._buffer
        if len(buffer) < MIN_POOLED_BYTES:
            return
        # Only this object refers to the buffer itself; a view of it is an export, and a
        # bytearray with exports refuses to resize: popping a byte (then putting it back) is
        # an exact test that no view is alive, on every Python, without counting references.
        try:
            last = buffer.pop()
        except BufferError:
            return
        buffer.append(last)
        _give(buffer)
