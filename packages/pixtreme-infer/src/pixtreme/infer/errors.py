"""Errors of pixtreme.infer: one message shape, "why=...; what=...; how=...".

Every public error subclasses a builtin (ValueError, ImportError, RuntimeError) so callers can
catch it the usual way, and carries the three message parts as attributes.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = (
    "ArchitectureNotInstalledError",
    "ContractError",
    "EvidenceUnavailable",
    "InferError",
    "OptionalDependencyError",
    "RecordError",
    "TelemetryUnavailableError",
    "format_error",
    "require_optional",
)


def format_error(*, why: str, what: str, how: str) -> str:
    """Return the shared message shape ``why=...; what=...; how=...``."""
    return f"why={why}; what={what}; how={how}"


class InferError(Exception):
    """Mixin root of pixtreme.infer errors; the message always has why, what and how."""

    def __init__(self, *, why: str, what: str, how: str) -> None:
        super().__init__(format_error(why=why, what=what, how=how))
        self.why = why
        self.what = what
        self.how = how


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


def require_optional(module: str, *, extra: str) -> ModuleType:
    """Import an optional module, or raise an actionable error naming the extra to install.

    Only a missing ``module`` itself (or its parent package) is translated; an error raised
    inside an installed module, including a missing dependency of that module, passes through
    unchanged so a broken installation is not mistaken for an absent one.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        parents = {module.rsplit(".", depth)[0] for depth in range(module.count(".") + 1)}
        if error.name not in parents:
            raise
        raise OptionalDependencyError(
            why=f"this capability needs the optional module {module!r} (extra {extra!r})",
            what=f"importing {module!r} raised ModuleNotFoundError for {error.name!r}",
            how=f"pip install 'pixtreme-infer[{extra}]'",
            module=module,
            extra=extra,
        ) from error
