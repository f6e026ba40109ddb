"""Admission credits: byte and job reservations charged against the executor's caps.

A :class:`Charge` is a reservation (GPU bytes, host bytes, job slots). :class:`Credits` holds
the caps and what is charged now; it is shared with resident-output leases, which may return
their charge after the executor is closed (so it is guarded by a lock).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = ["Charge", "Credits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Charge:
    """A reservation: GPU bytes, host bytes and job slots."""

    gpu_bytes: int = 0
    host_bytes: int = 0
    jobs: int = 0

    def __add__(self, other: Charge) -> Charge:
        return Charge(
            gpu_bytes=self.gpu_bytes + other.gpu_bytes,
            host_bytes=self.host_bytes + other.host_bytes,
            jobs=self.jobs + other.jobs,
        )

    def __sub__(self, other: Charge) -> Charge:
        return Charge(
            gpu_bytes=self.gpu_bytes - other.gpu_bytes,
            host_bytes=self.host_bytes - other.host_bytes,
            jobs=self.jobs - other.jobs,
        )

    def covers(self, other: Charge) -> bool:
        """True when every field of ``self`` is at least that of ``other``."""
        return (
            self.gpu_bytes >= other.gpu_bytes
            and self.host_bytes >= other.host_bytes
            and self.jobs >= other.jobs
        )


ZERO = Charge()


class Credits:
    """Caps and the charge held now; ``take``/``give`` keep the books exact."""

    def __init__(self, *, gpu_bytes: int, host_bytes: int, max_jobs: int) -> None:
        self.caps = Charge(gpu_bytes=gpu_bytes, host_bytes=host_bytes, jobs=max_jobs)
        self._charged = ZERO
        self._lock = threading.Lock()

    @property
    def charged(self) -> Charge:
        """What is reserved now."""
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

    def try_take(self, charge: Charge) -> bool:
        """Reserve ``charge`` if it fits beside what is charged; report whether it did."""
        with self._lock:
            if not self.caps.covers(self._charged + charge):
                return False
            self._charged = self._charged + charge
            return True

    def give(self, charge: Charge) -> None:
        """Return a reservation taken earlier (never below zero)."""
        with self._lock:
            left = self._charged - charge
            if not left.covers(ZERO):
                msg = f"credit accounting error: returning {charge} from {self._charged}"
                raise AssertionError(msg)
            self._charged = left
