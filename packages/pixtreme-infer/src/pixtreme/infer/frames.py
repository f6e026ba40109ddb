"""The Frame boundary: read a pixtreme Frame's metadata and check it against a contract.

Every check here runs before any pixel access or backend work, so a rejected request leaves the
module and its GPU state untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pixtreme.infer._contract_values import FrameContract, FrameMetadata
from pixtreme.infer.errors import ContractError

if TYPE_CHECKING:
    from pixtreme.core import Frame

__all__ = ("check_frame", "check_metadata", "frame_metadata")


def frame_metadata(frame: object) -> FrameMetadata:
    """Return the metadata of a pixtreme Frame, or raise ContractError for anything else."""
    from pixtreme.core import Frame

    if not isinstance(frame, Frame):
        raise ContractError(
            why="inference modules accept pixtreme.core.Frame values only",
            what=f"received {type(frame).__module__}.{type(frame).__qualname__}",
            how="wrap the array with pixtreme.io.from_array(cupy_array, ...) to make a Frame",
        )
    return FrameMetadata(
        channels=tuple(frame.channels),
        colorspace=str(frame.colorspace),
        gamma=str(frame.gamma),
        matrix=None if frame.matrix is None else str(frame.matrix),
        dtype=str(frame.dtype),
    )


def check_metadata(
    observed: FrameMetadata,
    contract: FrameContract,
    *,
    hw: tuple[int, int] | None = None,
    expected_hw: tuple[int, int] | None = None,
    role: str = "input",
) -> None:
    """Raise ContractError when ``observed`` breaks an Exact field or the expected size."""
    mismatches = contract.mismatches(observed)
    if mismatches:
        described = ", ".join(
            f"{item.field}={item.observed!r} (expected {item.expected!r})" for item in mismatches
        )
        raise ContractError(
            why=f"the {role} Frame must match the module's FrameContract",
            what=described,
            how="convert the Frame first (pixtreme.color / astype) or open a module for it",
        )
    if expected_hw is not None and hw != expected_hw:
        raise ContractError(
            why=f"the {role} Frame must have the (height, width) the instance was opened for",
            what=f"received (height, width)={hw}, expected {expected_hw}",
            how="resize the Frame, or open another instance with input_hw set to its size",
        )


def check_frame(
    frame: object,
    contract: FrameContract,
    *,
    expected_hw: tuple[int, int] | None = None,
    role: str = "input",
) -> Frame:
    """Check a Frame's type, metadata and optionally its size; return it typed as Frame."""
    observed = frame_metadata(frame)
    checked: Frame = frame  # frame_metadata proved the type (Frame is Any to mypy)
    check_metadata(
        observed,
        contract,
        hw=(checked.height, checked.width),
        expected_hw=expected_hw,
        role=role,
    )
    return checked
