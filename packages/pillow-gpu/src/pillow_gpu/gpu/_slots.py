"""Reusable device allocations of plans: buffers plus bind groups, pooled per program shape.

Creating a plan's buffers and bind groups costs far more than its kernels on small images, so a
released plan hands its :class:`Slot` back to the device's :class:`SlotPool`, and the next plan
with the same program shape (buffer sizes, dispatches, uploads and constant bytes) takes it
instead of creating new objects. A slot may hold several same-shaped plans at once, one per
*lane* (a stack: see :mod:`pillow_gpu.gpu._stack`); it goes back to the pool when its last
plan is released. Reuse is ordered by the single queue: a later plan's uploads and dispatches
are queued after every command that used the slot before. A reused slot zeroes its working
(non-upload) image buffers before its dispatches, so it behaves like fresh, zero-initialised
buffers. The executor's consumed staging arenas are pooled here too, as one-buffer slots keyed
``("arena", size)``. Idle slots are bounded by ``max_bytes``; the oldest are destroyed first.
Idle slots are not charged to any executor's credits (they back no live job).

The bound is :data:`IDLE_SLOT_BYTES`, raised while an executor is open to that executor's
``gpu_bytes`` budget (:meth:`SlotPool.widen`): a batch whose working set exceeds the fixed
bound (16 jobs of 1024x1024 RGB thumbnails hold about 85 MiB) otherwise destroyed slots at the
end of every submission and created them again for the next one (on lavapipe, 2 cores, that
cost 1.34x on such a batch). Closing the executor narrows the bound again and destroys what
no longer fits.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any

__all__ = ["IDLE_SLOT_BYTES", "Slot", "SlotPool"]

#: Most bytes of idle pooled slots kept per device.
IDLE_SLOT_BYTES = 64 << 20


class Slot:
    """The device allocation of ``lanes`` same-shaped plans: buffers, resources, bind groups.

    ``resources[i]`` binds buffer ``i`` whole (every lane of a working image); lane ``j`` of
    working image ``i`` starts ``j * strides[i]`` bytes in. ``bind_groups[d]`` binds dispatch
    ``d`` over whole buffers (the stacked dispatch, and the only one of a one-lane slot);
    ``lane_groups`` holds the per-lane bind groups made on demand.
    """

    __slots__ = (
        "bind_groups",
        "buffers",
        "clear",
        "holders",
        "lane_groups",
        "lanes",
        "nbytes",
        "resources",
        "strides",
    )

    def __init__(
        self,
        *,
        buffers: list[Any],
        resources: list[dict[str, Any]],
        bind_groups: list[Any],
        clear: tuple[Any, ...],
        nbytes: int,
        lanes: int = 1,
        strides: dict[int, int] | None = None,
    ) -> None:
        self.buffers = buffers
        self.resources = resources
        self.bind_groups = bind_groups
        #: Working buffers a reused slot zeroes before its dispatches.
        self.clear = clear
        self.nbytes = nbytes
        self.lanes = lanes
        self.strides: dict[int, int] = strides or {}
        self.lane_groups: dict[tuple[int, int], Any] = {}
        #: Plans allocated in this slot and not yet released (the executor's thread only).
        self.holders = 0

    def destroy(self) -> None:
        """Destroy the slot's buffers."""
        for buffer in self.buffers:
            buffer.destroy()
        self.buffers = []
        self.bind_groups = []
        self.lane_groups = {}
        self.resources = []


class SlotPool:
    """Idle slots by program shape, at most ``max_bytes`` in all (thread-safe)."""

    def __init__(self, max_bytes: int = IDLE_SLOT_BYTES) -> None:
        #: The bound now: the larger of the base bound and every open widening.
        self.max_bytes = max_bytes
        self._base_bytes = max_bytes
        self._widenings: dict[int, int] = {}
        self._expired: list[int] = []
        self._next_token = 0
        self._idle: dict[Hashable, list[Slot]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def widen(self, nbytes: int) -> int:
        """Keep up to ``nbytes`` idle until :meth:`narrow` is called with the returned token."""
        self._narrow_expired()
        with self._lock:
            self._next_token += 1
            self._widenings[self._next_token] = nbytes
            self.max_bytes = max([self._base_bytes, *self._widenings.values()])
            return self._next_token

    def expire(self, token: int) -> None:
        """Mark the widening ``token`` ended without locking (safe inside a garbage collection,
        which may run while this thread holds the pool's lock); the next :meth:`give`,
        :meth:`widen` or :meth:`narrow` narrows the bound."""
        self._expired.append(token)  # one C call: atomic, takes no lock

    def narrow(self, token: int) -> None:
        """End the widening ``token`` (idempotent); destroy the oldest slots beyond the bound."""
        self.expire(token)
        self._narrow_expired()

    def _narrow_expired(self) -> None:
        """End every expired widening: recompute the bound and destroy what exceeds it."""
        if not self._expired:
            return
        evicted: list[Slot] = []
        with self._lock:
            while self._expired:
                self._widenings.pop(self._expired.pop(), None)
            self.max_bytes = max([self._base_bytes, *self._widenings.values()])
            while self._bytes > self.max_bytes and self._idle:
                evicted.append(self._pop_oldest())
        for victim in evicted:
            victim.destroy()

    def _pop_oldest(self) -> Slot:
        """Remove the oldest idle slot of the least recently used shape (lock held)."""
        oldest = next(iter(self._idle))
        shelf = self._idle[oldest]
        victim = shelf.pop(0)
        if not shelf:
            del self._idle[oldest]
        self._bytes -= victim.nbytes
        return victim

    @property
    def idle_bytes(self) -> int:
        """Bytes held by idle slots now."""
        return self._bytes

    def take(self, key: Hashable) -> Slot | None:
        """Remove and return an idle slot of shape ``key``, or None."""
        with self._lock:
            found = self._idle.get(key)
            if not found:
                return None
            slot = found.pop()
            if not found:
                del self._idle[key]
            self._bytes -= slot.nbytes
            return slot

    def give(self, key: Hashable, slot: Slot) -> None:
        """Keep ``slot`` for reuse (evicting the oldest shapes), or destroy it if too large."""
        self._narrow_expired()
        evicted: list[Slot] = []
        with self._lock:
            if slot.nbytes > self.max_bytes:
                evicted.append(slot)
            else:
                mine = self._idle.pop(key, [])  # re-inserted last: most recently used
                while self._bytes + slot.nbytes > self.max_bytes:
                    if self._idle:
                        evicted.append(self._pop_oldest())
                    else:
                        victim = mine.pop(0)
                        self._bytes -= victim.nbytes
                        evicted.append(victim)
                mine.append(slot)
                self._idle[key] = mine
                self._bytes += slot.nbytes
        for victim in evicted:
            victim.destroy()

    def clear(self) -> None:
        """Destroy every idle slot."""
        with self._lock:
            slots = [slot for shelf in self._idle.values() for slot in shelf]
            self._idle.clear()
            self._bytes = 0
        for slot in slots:
            slot.destroy()
