"""Errors of pixtreme.infer: one message shape, "why=...; what=...; how=...".

Every public error subclasses a builtin (ValueError, ImportError, RuntimeError) so callers can
catch it the usual way, and carries the three message parts as attributes.
"""

from __future__ import annotations

__all__ = (
    "ArchitectureNotInstalledError",
    "ContractError",
    "EvidenceUnavailable",
    "InferError",
    "OptionalDependencyError",
    "RecordError",
    "TelemetryUnavailableError",
    "actionable_error",
)


def actionable_error(*, why: str, what: str, how: str) -> str:
    """Return the shared message shape ``why=...; what=...; how=...``."""
    return f"why={why}; what={what}; how={how}"


class InferError(Exception):
    """Mixin root of pixtreme.infer errors; the message always has why, what and how."""

    def __init__(self, *, why: str, what: str, how: str) -> None:
        super().__init__(actionable_error(why=why, what=what, how=how))
        self.why = why
        self.what = what
        self.how = how

    def __reduce__(self) -> tuple[object, ...]:
        # Exceptions pickle as ``cls(*args)``, which the keyword-only constructors refuse: an
        # error raised in a worker process would never reach the parent. Rebuilt from its
        # message and attributes (``why``, ``what``, ``how`` and a subclass's own) instead.
        return (_restored, (type(self), self.args), self.__dict__)


def _restored(cls: type[InferError], args: tuple[object, ...]) -> InferError:
    """An unpickled :class:`InferError` (``__setstate__`` then sets its attributes)."""
    error = cls.__new__(cls)
    error.args = args
    return error


class ContractError(InferError, ValueError):
    """A contract value, request or fact does not satisfy its declared contract."""


class RecordError(InferError, ValueError):
    """A JSON record or reference cannot be written, read or trusted."""


class OptionalDependencyError(InferError, ImportError):
    """An optional module needed by a capability is not installed."""

    def __init__(self, *, why: str, what: str, how: str, module: str, extra: str) -> None:
        super().__init__(why=why, what=what, how=how)
        self.module = module
        self.extra = extra


class ArchitectureNotInstalledError(InferError, ImportError):
    """A known architecture's distribution is not installed."""

    def __init__(self, *, why: str, what: str, how: str, distribution: str) -> None:
        super().__init__(why=why, what=what, how=how)
        self.distribution = distribution


class TelemetryUnavailableError(InferError, RuntimeError):
    """Device telemetry cannot be read on this machine (no NVML library or no device)."""


class EvidenceUnavailable(InferError, RuntimeError):
    """Raised by an evidence callable that cannot produce its facts here.

    The verification reports the check as unverified with this message instead of failed.
    """
