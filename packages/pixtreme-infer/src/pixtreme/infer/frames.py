"""The Frame boundary: check a pixtreme Frame's metadata and size against a FrameContract.

Every check here runs before any pixel access or backend work, so a rejected request leaves the
module and its GPU state untouched. Error messages name the observed and the declared value.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, NamedTuple

from pixtreme.infer._frame_contract import (
    FRAME_FIELDS,
    Exact,
    FrameContract,
    FrameMetadataWarning,
    field_value,
)
from pixtreme.infer.errors import ContractError

if TYPE_CHECKING:
    from pixtreme.core import Frame

__all__ = ["FieldMismatch", "check_frame", "frame_metadata", "metadata_mismatches"]


class FieldMismatch(NamedTuple):
    """One Frame field whose observed value breaks an Exact constraint."""

    field: str
    observed: object
    expected: object


def frame_metadata(frame: object) -> dict[str, object]:
    """The metadata of a pixtreme Frame (channels, colorspace, gamma, matrix, dtype).

    Raises ContractError for anything that is not a ``pixtreme.core.Frame``.
    """
    from pixtreme.core import Frame

    if not isinstance(frame, Frame):
        raise ContractError(
            why="inference modules accept pixtreme.core.Frame values only",
            what=f"received {type(frame).__module__}.{type(frame).__qualname__}",
            how="wrap the array with pixtreme.io.from_array(cupy_array, ...) to make a Frame",
        )
    return {
        "channels": tuple(frame.channels),
        "colorspace": frame.colorspace,
        "gamma": frame.gamma,
        "matrix": frame.matrix,
        "dtype": str(frame.dtype),
    }


def metadata_mismatches(
    metadata: dict[str, object], contract: FrameContract
) -> tuple[FieldMismatch, ...]:
    """The Exact fields of ``contract`` whose value in ``metadata`` differs, in field order."""
    found = []
    for name in FRAME_FIELDS:
        declared = getattr(contract, name)
        if isinstance(declared, Exact) and metadata[name] != declared.value:
            found.append(FieldMismatch(name, metadata[name], declared.value))
    return tuple(found)


def check_frame(
    frame: object,
    contract: FrameContract,
    *,
    expected_hw: tuple[int, int] | None = None,
    role: str = "input",
    warn_reference: bool = False,
) -> Frame:
    """Check a Frame's type, Exact metadata fields and optionally its size; return it.

    With ``warn_reference``, an accepted value of an unconstrained field that differs from the
    contract's reference issues a FrameMetadataWarning.
    """
    metadata = frame_metadata(frame)
    checked: Frame = frame  # frame_metadata proved the type (Frame is Any to mypy)
    mismatches = metadata_mismatches(metadata, contract)
    if mismatches:
        described = ", ".join(
            f"{item.field}={item.observed!r} (declared {item.expected!r})" for item in mismatches
        )
        raise ContractError(
            why=f"the {role} Frame must match the module's FrameContract",
            what=described,
            how="convert the Frame first (pixtreme color conversion or astype), or open a "
            "module declared for it",
        )
    declared_channels = len(field_value(contract.channels))
    if checked.data.shape[2] != declared_channels:
        raise ContractError(
            why=f"the {role} Frame must have the channel count its contract declares",
            what=f"observed {checked.data.shape[2]} channels, declared {declared_channels}",
            how="pass a Frame with the declared channels",
        )
    hw = (int(checked.height), int(checked.width))
    if expected_hw is not None and hw != expected_hw:
        raise ContractError(
            why=f"the {role} Frame must have the (height, width) the instance was opened for",
            what=f"observed (height, width)={hw}, opened for {expected_hw}",
            how="resize the Frame, or open another instance with input_hw set to its size",
        )
    if warn_reference:
        for name in FRAME_FIELDS:
            declared = getattr(contract, name)
            if not isinstance(declared, Exact) and metadata[name] != declared.reference:
                warnings.warn(
                    f"{role} Frame {name}={metadata[name]!r} differs from the module's "
                    f"reference {declared.reference!r}; it is accepted, but results were "
                    "validated for the reference value",
                    FrameMetadataWarning,
                    stacklevel=2,
                )
    return checked
