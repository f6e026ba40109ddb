"""Protocols an architecture implements: inference instances, factories and graph providers."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pixtreme.infer._contract_values import Precision
from pixtreme.infer._module_contracts import (
    StatelessFamilyContract,
    StatelessModuleContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalModuleContract,
    TemporalOpenContract,
)

if TYPE_CHECKING:
    from pixtreme.core import Frame


@runtime_checkable
class StatelessImageInference(Protocol):
    """Anything that maps one Frame (and keyword GPU parameters) to a new Frame."""

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Run one request; validates the Frame and parameters against the contract first."""
        ...


@runtime_checkable
class OpenedStatelessImageInference(StatelessImageInference, Protocol):
    """An opened stateless instance bound to one artifact, precision, input size and device."""

    @property
    def contract(self) -> StatelessModuleContract:
        """The contract this instance serves; equal to the factory's query result."""
        ...

    def close(self) -> None:
        """Release backend resources; idempotent. Later calls fail before GPU work."""
        ...


@runtime_checkable
class StatefulImageInference(Protocol):
    """An opened temporal instance: ``reset=True`` clears its state before the frame."""

    @property
    def contract(self) -> TemporalModuleContract:
        """The contract this instance serves; equal to the factory's query result."""
        ...

    def __call__(self, frame: Frame, /, *, reset: bool = False, **params: object) -> Frame:
        """Run one request in sequence; ``reset`` restarts the sequence at this frame."""
        ...

    def close(self) -> None:
        """Release backend resources and state; idempotent."""
        ...


@runtime_checkable
class StatelessInferenceFactory[A: Hashable](Protocol):
    """Opens stateless instances; querying a contract allocates no GPU memory."""

    @property
    def family_contract(self) -> StatelessFamilyContract:
        """What this factory offers, without an artifact or device."""
        ...

    def query_contract(
        self, artifact: A, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> StatelessOpenContract[A]:
        """Validate settings and return the contract an opened instance would have."""
        ...

    def open(
        self, artifact: A, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> OpenedStatelessImageInference:
        """Repeat the validation and open an instance whose contract equals the query's."""
        ...


@runtime_checkable
class TemporalInferenceFactory[A: Hashable](Protocol):
    """Opens temporal instances; querying a contract allocates no GPU memory."""

    @property
    def family_contract(self) -> TemporalFamilyContract:
        """What this factory offers, without an artifact or device."""
        ...

    def query_contract(
        self, artifact: A, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> TemporalOpenContract[A]:
        """Validate settings and return the contract an opened instance would have."""
        ...

    def open(
        self, artifact: A, /, *, precision: Precision, input_hw: tuple[int, int]
    ) -> StatefulImageInference:
        """Repeat the validation and open an instance whose contract equals the query's."""
        ...


@runtime_checkable
class CudaGraphFactoryProvider[F](Protocol):
    """A factory that can also hand out a CUDA Graph factory with the same inference form.

    ``F`` is StatelessInferenceFactory[...] or TemporalInferenceFactory[...].
    """

    def graph_factory(self) -> F:
        """Return a separate factory whose instances replay prepared CUDA Graphs."""
        ...
