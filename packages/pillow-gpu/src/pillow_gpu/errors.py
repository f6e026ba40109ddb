"""Structured errors for the GPU path of pillow-gpu.

Every error carries the fields a batch caller needs to route it: ``kind`` (``"Unsupported"``,
``"Limit"``, ``"Device"``, ...), ``stage`` (where it happened: ``"admission"``, ``"allocation"``,
``"execution"``, ...), and the job identity (``job_id`` and ``input_key``; both ``None`` outside
a batch job). Messages read "why ...; observed ...; fix ...".

The batch executor adds its own subclasses (QueueFull, ResultBackpressure) on top of
:class:`GpuError`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

__all__ = ["DecodeError", "DeviceError", "GpuError", "Limit", "Unsupported"]


class GpuError(Exception):
    """Base of every structured pillow-gpu GPU error."""

    kind: str = "Error"

    def __init__(
        self,
        why: str,
        *,
        observed: str,
        fix: str,
        stage: str,
        job_id: int | None = None,
        input_key: Hashable | None = None,
    ) -> None:
        self.why = why
        self.observed = observed
        self.fix = fix
        self.stage = stage
        self.job_id = job_id
        self.input_key = input_key
        super().__init__(f"why: {why}; observed: {observed}; fix: {fix}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Exceptions pickle as ``cls(*args)``, which a keyword-only constructor refuses: an
        # error raised in a worker process (multiprocessing, concurrent.futures) would never
        # reach the parent. Rebuilt from its fields, then its other attributes (``kind``).
        fields = {
            "observed": self.observed,
            "fix": self.fix,
            "stage": self.stage,
            "job_id": self.job_id,
            "input_key": self.input_key,
        }
        return (_restored, (type(self), self.why, fields), self.__dict__)

    def with_job(self, job_id: int | None, input_key: Hashable | None) -> GpuError:
        """Return a copy of this error that names the job it belongs to."""
        copy = type(self)(
            self.why,
            observed=self.observed,
            fix=self.fix,
            stage=self.stage,
            job_id=job_id,
            input_key=input_key,
        )
        copy.__cause__ = self.__cause__
        return copy


def _restored(cls: type[GpuError], why: str, fields: dict[str, Any]) -> GpuError:
    """An unpickled :class:`GpuError` (``__setstate__`` then sets its other attributes)."""
    return cls(why, **fields)


class Unsupported(GpuError, ValueError):
    """An (operation, mode, parameters) context the GPU planner has not proven exact."""

    kind = "Unsupported"


class Limit(GpuError, RuntimeError):
    """A known size, device or configuration bound that the graph exceeds."""

    kind = "Limit"


class DeviceError(GpuError, RuntimeError):
    """The GPU device is unavailable, lost, or failed while executing work."""

    kind = "Device"


class DecodeError(GpuError, OSError):
    """An encoded source could not be decoded when its plan was allocated."""

    kind = "Decode"
