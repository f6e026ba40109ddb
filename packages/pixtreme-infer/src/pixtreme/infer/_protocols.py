"""Protocols an architecture implements: instances, factories and CUDA Graph providers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pixtreme.infer._module_contracts import (
    ArtifactIdentityT,
    Precision,
    StatelessFamilyContract,
    StatelessOpenContract,
    TemporalFamilyContract,
    TemporalOpenContract,
)

if TYPE_CHECKING:
    from pixtreme.core import Frame

FactoryT = TypeVar(  # noqa: PLC0105 (the published name)
    "FactoryT",
    bound="StatelessInferenceFactory[Any] | TemporalInferenceFactory[Any]",
    covariant=True,
)


class CudaGraphFactoryProvider(Protocol[FactoryT]):
    """A factory that can also hand out a CUDA Graph factory of the same inference form.

    Selecting the graph factory opens nothing and allocates no GPU storage; its query, open
    and request contracts are the original ones, and graphs are prepared during open.
    """

    def graph_factory(self) -> FactoryT:
        """Return the graph factory, keeping the original inference form."""
        ...


class StatelessImageInference(Protocol):
    """Stateless single-Frame inference with an integral spatial scale."""

    @property
    def scale(self) -> int:
        """The integral spatial scale of the output."""
        ...

    def __call__(self, frame: Frame, /) -> Frame:
        """Infer one Frame with no hidden recurrent state."""
        ...


class OpenedStatelessImageInference(StatelessImageInference, Protocol[ArtifactIdentityT]):
    """An opened stateless instance; ``scale`` equals ``contract.scale``.

    ``close`` releases instance resources without synchronizing: finish CUDA work first.
    Calls after close fail before any backend work.
    """

    @property
    def contract(self) -> StatelessOpenContract[ArtifactIdentityT]:
        """The opened configuration; equal to the query for the same settings."""
        ...

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Infer one Frame with the GPU array parameters the family declares."""
        ...

    def close(self) -> None:
        """Release instance resources; later calls fail before backend work."""
        ...


class StatefulImageInference(Protocol[ArtifactIdentityT]):
    """One sequential temporal stream with private state from open until close.

    The caller passes one Frame, the declared GPU array parameters and an optional boolean
    ``reset``, keeps inputs alive and ready on the current CUDA stream, uses that stream for
    every request and synchronizes before using results elsewhere or closing. Returned Frames
    belong to the caller and do not change with later requests, resets or close.
    """

    @property
    def scale(self) -> int:
        """Return ``contract.scale``."""
        ...

    @property
    def contract(self) -> TemporalOpenContract[ArtifactIdentityT]:
        """The opened configuration; equal to the query for the same settings."""
        ...

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Infer one Frame; ``reset=True`` clears the state before this Frame."""
        ...

    def close(self) -> None:
        """Release the persistent state; later calls fail before backend work."""
        ...


class StatelessInferenceFactory(Protocol[ArtifactIdentityT]):
    """Query a stateless configuration without GPU allocation, then open its instance.

    ``open`` repeats the query's validation; the instance's contract equals the query result.
    """

    @property
    def family_contract(self) -> StatelessFamilyContract:
        """The artifact-independent Frame and parameter declarations."""
        ...

    def query_contract(
        self,
        artifact_identity: ArtifactIdentityT,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> StatelessOpenContract[ArtifactIdentityT]:
        """Validate the settings and return their contract, allocating no GPU memory."""
        ...

    def open(
        self,
        artifact_identity: ArtifactIdentityT,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> OpenedStatelessImageInference[ArtifactIdentityT]:
        """Validate the settings again and open an instance with the matching contract."""
        ...


class TemporalInferenceFactory(Protocol[ArtifactIdentityT]):
    """Query a temporal configuration without state allocation, then open a fresh instance."""

    @property
    def family_contract(self) -> TemporalFamilyContract:
        """The artifact-independent declaration, with no model or device work."""
        ...

    def query_contract(
        self,
        artifact_identity: ArtifactIdentityT,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> TemporalOpenContract[ArtifactIdentityT]:
        """Describe the configuration without allocating state or device memory."""
        ...

    def open(
        self,
        artifact_identity: ArtifactIdentityT,
        /,
        *,
        precision: Precision,
        input_hw: tuple[int, int],
    ) -> StatefulImageInference[ArtifactIdentityT]:
        """Open fresh state matching query_contract, ready for the first request's stream."""
        ...
