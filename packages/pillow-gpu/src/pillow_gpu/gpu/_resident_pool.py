"""Idle buffer pairs of resident outputs, reused by later resident jobs of the same size.

A resident output (``output="gpu"``) holds two buffers: the terminal bytes and the mappable
workspace its downloads go through. Made for every job and destroyed when the last handle is
dropped, they cost the driving thread two buffer creations a job, and a destroy waits for
wgpu's poll thread. When a handle is dropped, its idle pair goes here instead (its last GPU
work, the job's submission or a download, completed before the handle existed or returned),
and the next resident job of that size takes it.

Pairs come back from a handle's finalizer, which a garbage collection may run anywhere,
including inside a locked section of the same thread: :meth:`ResidentPool.give` therefore
takes no lock (one ``list.append``, atomic), and only :meth:`ResidentPool.take` locks (against
other takers). The pool keeps at most :data:`IDLE_RESIDENT_BYTES` of idle buffers and
:data:`IDLE_RESIDENT_PAIRS` pairs per device, charged to no executor (like idle slots); a pair
past that is destroyed as before.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["IDLE_RESIDENT_BYTES", "ResidentPool"]

#: Most bytes of idle resident pairs (both buffers) kept per device.
IDLE_RESIDENT_BYTES = 64 << 20
#: Most idle pairs kept per device, whatever their size (an empty image's are a few bytes).
IDLE_RESIDENT_PAIRS = 256


class ResidentPool:
    """Idle ``(resident, workspace)`` pairs by buffer size (thread-safe, lock-free returns)."""

    def __init__(
        self, max_bytes: int = IDLE_RESIDENT_BYTES, max_pairs: int = IDLE_RESIDENT_PAIRS
    ) -> None:
        self.max_bytes = max_bytes
        self.max_pairs = max_pairs
        self._idle: list[tuple[int, Any, Any]] = []  # (size of each buffer, resident, workspace)
        self._lock = threading.Lock()

    @property
    def idle_bytes(self) -> int:
        """Bytes of the pairs waiting for reuse."""
        return sum(2 * entry[0] for entry in list(self._idle))

    def take(self, nbytes: int) -> tuple[Any, Any] | None:
        """An idle pair whose buffers hold ``nbytes`` each (the most recent one), or None."""
        with self._lock:
            idle = self._idle
            # Appends only ever go to the end, so an index found here stays valid.
            for index in range(len(idle) - 1, -1, -1):
                if idle[index][0] == nbytes:
                    _, resident, workspace = idle.pop(index)
                    return resident, workspace
        return None

    def give(self, resident: Any, workspace: Any) -> bool:
        """Keep an idle, unmapped pair for reuse; False (nothing kept) when the pool is full,
        and the caller destroys the pair. Takes no lock: safe inside a finalizer."""
        nbytes = int(resident.size)
        if len(self._idle) >= self.max_pairs or self.idle_bytes + 2 * nbytes > self.max_bytes:
            return False
        self._idle.append((nbytes, resident, workspace))
        return True

    def clear(self) -> None:
        """Destroy every idle pair."""
        with self._lock:
            idle, self._idle = self._idle, []
        for _, resident, workspace in idle:
            resident.destroy()
            workspace.destroy()
