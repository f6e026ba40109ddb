"""Errors of the example architecture, in the core's "why=...; what=...; how=..." shape."""

from __future__ import annotations

from pixtreme.infer.errors import ContractError, InferError


class ExampleWeightsError(InferError, ValueError):
    """A weight file is missing, altered, or does not match its network."""


def parameter_error(*, why: str, what: str, how: str) -> ContractError:
    """The core's ContractError (a ValueError) for a rejected request or setting."""
    return ContractError(why=why, what=what, how=how)


def weights_error(*, why: str, what: str, how: str) -> ExampleWeightsError:
    """An ExampleWeightsError with an actionable message."""
    return ExampleWeightsError(why=why, what=what, how=how)


class ExampleEngineError(InferError, ValueError):
    """A cached TensorRT engine is corrupt, or was built for other conditions."""


def engine_error(*, why: str, what: str, how: str) -> ExampleEngineError:
    """An ExampleEngineError with an actionable message."""
    return ExampleEngineError(why=why, what=what, how=how)


class ClosedInstanceError(InferError, RuntimeError):
    """An operation was requested after close()."""


def closed_error(what: str) -> ClosedInstanceError:
    """A ClosedInstanceError for ``what`` attempted after close()."""
    return ClosedInstanceError(
        why="this instance has been closed and released its GPU resources",
        what=f"{what} after close()",
        how="open a new instance from the factory",
    )
