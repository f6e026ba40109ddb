"""Admission credits: byte and job reservations charged against the executor's caps.

A :class:`Charge` is a reservation (GPU bytes, host bytes, job slots). :class:`Credits` holds
the caps and what is charged now; it is shared with resident-output leases, which may return
their charge after the executor is closed (so it is guarded by a lock). A lease returns its
charge from a finalizer, which a garbage collection can run inside any locked section of the
same thread, so that return never waits for the lock (:meth:`Credits.give_lease`). Each
lease's share is a :class:`LeaseRecord`, so that :meth:`Credits.settle` (run when the executor
closes) can set the charge to exactly what live leases hold, whatever interrupted the executor
before.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any, NamedTuple

__all__ = ["Charge", "Credits", "LeaseRecord", "new_charge"]


class Charge(NamedTuple):
    """A reservation: GPU bytes, host bytes and job slots (immutable; a tuple, for speed: the
    executor adds and subtracts several per job)."""

    gpu_bytes: int = 0
    host_bytes: int = 0
    jobs: int = 0

    def __add__(self, other: Charge) -> Charge:  # type: ignore[override]
        return new_charge((self[0] + other[0], self[1] + other[1], self[2] + other[2]))

    def __sub__(self, other: Charge) -> Charge:
        return new_charge((self[0] - other[0], self[1] - other[1], self[2] - other[2]))

    def covers(self, other: Charge) -> bool:
        """True when every field of ``self`` is at least that of ``other``."""
        return self[0] >= other[0] and self[1] >= other[1] and self[2] >= other[2]


#: ``new_charge((gpu_bytes, host_bytes, jobs))``: a :class:`Charge` built without the
#: Python-level constructor (the executor builds several per job).
new_charge = partial(tuple.__new__, Charge)

ZERO = Charge()

#: :class:`LeaseRecord` states.
UNARMED, ARMED, RELEASED = 0, 1, 2


class LeaseRecord:
    """The charge one resident lease holds once armed (``state`` is set by the executor)."""

    __slots__ = ("charge", "state")

    def __init__(self, charge: Charge) -> None:
        self.charge = charge
        self.state = UNARMED


class Credits:
    """Caps and the charge held now; ``take``/``give`` keep the books exact."""

    def __init__(self, *, gpu_bytes: int, host_bytes: int, max_jobs: int) -> None:
        self.caps = Charge(gpu_bytes=gpu_bytes, host_bytes=host_bytes, jobs=max_jobs)
        self._charged = ZERO
        self._lock = threading.Lock()
        self._leases: list[LeaseRecord] = []
        self._prune_at = 64
        #: Lease returns that found the lock held, applied by the next call that takes it.
        self._returned: list[LeaseRecord] = []

    @property
    def charged(self) -> Charge:
        """What is reserved now (lease returns queued meanwhile applied, if the lock is free)."""
        if self._returned and self._lock.acquire(blocking=False):
            try:
                self._apply_returned()
            finally:
                self._lock.release()
        return self._charged

    def exceeded_cap(self, charge: Charge) -> str | None:
        """Name the cap a charge exceeds on its own (it could never be admitted), or None."""
        if charge.gpu_bytes > self.caps.gpu_bytes:
            return f"gpu_bytes ({charge.gpu_bytes} > {self.caps.gpu_bytes})"
        if charge.host_bytes > self.caps.host_bytes:
            return f"host_bytes ({charge.host_bytes} > {self.caps.host_bytes})"
        if charge.jobs > self.caps.jobs:
            return f"max_jobs ({charge.jobs} > {self.caps.jobs})"
        return None

    def try_take(self, charge: Charge, holder: Any = None) -> bool:
        """Reserve ``charge`` if it fits beside what is charged; report whether it did.

        ``holder.charged`` is set to True together with the reservation (no interrupt can
        land between the two), so a retry after an interrupt never charges twice.
        """
        with self._lock:
            self._apply_returned()
            charged = self._charged + charge
            if not self.caps.covers(charged):
                return False
            self._charged = charged
            if holder is not None:
                holder.charged = True
            return True

    def give(self, charge: Charge, holder: Any = None) -> None:
        """Return a reservation taken earlier (never below zero).

        ``holder.credited`` is set to True together with the return (see :meth:`try_take`).
        """
        with self._lock:
            self._apply_returned()
            left = self._charged - charge
            if not left.covers(ZERO):
                msg = f"credit accounting error: returning {charge} from {self._charged}"
                raise AssertionError(msg)
            self._charged = left
            if holder is not None:
                holder.credited = True

    def lease_record(self, charge: Charge) -> LeaseRecord:
        """A record for a resident lease's ``charge`` (counted by :meth:`settle` once armed)."""
        record = LeaseRecord(charge)
        with self._lock:
            self._apply_returned()
            if len(self._leases) >= self._prune_at:
                self._leases = [lease for lease in self._leases if lease.state != RELEASED]
                self._prune_at = max(64, 2 * len(self._leases))
            self._leases.append(record)
        return record

    def give_lease(self, record: LeaseRecord) -> None:
        """Return an armed lease's charge (once); an unarmed record is only retired.

        Called from a lease's finalizer, so it never waits for the lock: a garbage collection
        may run that finalizer while this very thread holds the lock (inside any call below),
        where waiting would deadlock. The return is then queued and applied, in order, by the
        next call that takes the lock.
        """
        if not self._lock.acquire(blocking=False):
            self._returned.append(record)  # one C call: atomic, takes no lock
            return
        try:
            self._apply_returned()
            self._release_lease(record)
        finally:
            self._lock.release()

    def _release_lease(self, record: LeaseRecord) -> None:
        if record.state == ARMED:
            left = self._charged - record.charge
            if not left.covers(ZERO):
                msg = f"credit accounting error: returning {record.charge} from {left}"
                raise AssertionError(msg)
            self._charged = left
        record.state = RELEASED

    def _apply_returned(self) -> None:
        """Apply queued lease returns (the caller holds the lock)."""
        returned = self._returned
        while returned:
            self._release_lease(returned.pop(0))

    def settle(self) -> None:
        """Set the charge to what armed, unreleased leases hold (the executor holds nothing)."""
        with self._lock:
            self._apply_returned()
            self._leases = [lease for lease in self._leases if lease.state != RELEASED]
            held = ZERO
            for lease in self._leases:
                if lease.state == ARMED:
                    held = held + lease.charge
            self._charged = held
