"""Frame metadata contracts: each field is Exact or unconstrained with a reference value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeAlias, TypeVar

from pixtreme.infer.errors import ContractError

if TYPE_CHECKING:
    from pixtreme.core import Colorspace, Dtype, Gamma, Matrix

T = TypeVar("T")

FRAME_FIELDS = ("channels", "colorspace", "gamma", "matrix", "dtype")
"""The Frame metadata fields a FrameContract declares, in declaration order."""


class FrameMetadataWarning(UserWarning):
    """Accepted Frame metadata differs from the module's reference values."""


@dataclass(frozen=True)
class Exact(Generic[T]):  # noqa: UP046 (the published form)
    """A Frame field the contract fixes: the observed value must equal ``value``."""

    value: T


@dataclass(frozen=True)
class UnconstrainedWithReference(Generic[T]):  # noqa: UP046
    """A Frame field the contract leaves free; ``reference`` is the value it was built for."""

    reference: T


FrameField: TypeAlias = Exact[T] | UnconstrainedWithReference[T]  # noqa: UP040 (published form)


def field_value[V](field: Exact[V] | UnconstrainedWithReference[V]) -> V:
    """The fixed value of an Exact field, or the reference of an unconstrained one."""
    return field.value if isinstance(field, Exact) else field.reference


@dataclass(frozen=True)
class FrameContract:
    """Accepted or returned Frame metadata and storage dtype at one module boundary."""

    channels: FrameField[tuple[str, ...]]
    colorspace: FrameField[Colorspace]
    gamma: FrameField[Gamma]
    matrix: FrameField[Matrix | None]
    dtype: FrameField[Dtype]

    def __post_init__(self) -> None:
        for name in FRAME_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, Exact | UnconstrainedWithReference):
                raise ContractError(
                    why="each FrameContract field must choose Exact or "
                    "UnconstrainedWithReference semantics",
                    what=f"observed field={name!r}, value={value!r}",
                    how=f"wrap it: {name}=Exact({value!r}) to fix the value, or "
                    f"{name}=UnconstrainedWithReference({value!r}) to accept any valid value",
                )
