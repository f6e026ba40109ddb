"""Opened instances: the Frame boundary around a backend unit, normal and CUDA Graph paths.

Every call validates the keyword parameters, the reset control and the Frame (type, metadata
and size) before touching any GPU storage, so a rejected request changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pixtreme.infer.contracts import (
    StatelessModuleContract,
    TemporalModuleContract,
    validate_call_params,
)
from pixtreme.infer.frames import check_frame

from ._errors import closed_error, parameter_error

if TYPE_CHECKING:
    from pixtreme.core import Frame
    from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession


class UpscaleUnit(Protocol):
    """A backend that writes the x2 upscale of ``source`` into ``destination``."""

    def enqueue(self, source: Any, destination: Any) -> None:
        """Enqueue on the current stream; no allocation, no host wait."""

    def close(self) -> None:
        """Release the backend."""


class FilterUnit(Protocol):
    """A backend that runs one recursive-filter step and owns the GPU history."""

    @property
    def history(self) -> Any:
        """The GPU history y_{t-1}."""

    def enqueue(self, source: Any, destination: Any, *, restart: bool) -> None:
        """Enqueue on the current stream; no allocation, no host wait."""

    def close(self) -> None:
        """Release the backend and its history."""


def _new_frame(data: Any, like: Frame) -> Frame:
    from pixtreme.core import Frame

    return Frame(
        data=data,
        channels=like.channels,
        colorspace=like.colorspace,
        gamma=like.gamma,
        matrix=like.matrix,
    )


def import_frame_data(frame: Frame) -> Any:
    """The Frame's pixels as a CuPy array through DLPack: the caller's memory, not a copy.

    Only a non-contiguous Frame is copied (the kernels need C-contiguous HWC storage).
    """
    import cupy

    imported = cupy.from_dlpack(frame)
    return imported if imported.flags.c_contiguous else cupy.ascontiguousarray(imported)


def _check_reset(reset: object) -> bool:
    if not isinstance(reset, bool):
        raise parameter_error(
            why="reset is the temporal control and must be a bool",
            what=f"reset={reset!r} ({type(reset).__name__})",
            how="pass reset=True to restart the sequence at this frame, else reset=False",
        )
    return reset


class UpscaleX2Inference:
    """An opened x2 upscaler (OpenedStatelessImageInference) on the normal path."""

    def __init__(self, contract: StatelessModuleContract, unit: UpscaleUnit) -> None:
        self._contract = contract
        self._unit: UpscaleUnit | None = unit

    @property
    def contract(self) -> StatelessModuleContract:
        """The contract this instance serves."""
        return self._contract

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Upscale one Frame; returns a new Frame with the input's metadata."""
        if self._unit is None:
            raise closed_error("calling UpscaleX2Inference")
        validate_call_params(self._contract, params)
        checked = check_frame(
            frame, self._contract.input_frame, expected_hw=self._contract.input_hw
        )
        import cupy

        output = cupy.empty((*self._contract.output_hw, 3), dtype=cupy.float32)
        self._unit.enqueue(import_frame_data(checked), output)
        return _new_frame(output, checked)

    def close(self) -> None:
        """Release the backend; idempotent, no synchronization."""
        if self._unit is not None:
            self._unit.close()
        self._unit = None


class RecursiveFilterInference:
    """An opened recursive filter (StatefulImageInference) on the normal path."""

    def __init__(self, contract: TemporalModuleContract, unit: FilterUnit) -> None:
        self._contract = contract
        self._unit: FilterUnit | None = unit
        self._primed = False

    @property
    def contract(self) -> TemporalModuleContract:
        """The contract this instance serves."""
        return self._contract

    def __call__(self, frame: Frame, /, *, reset: bool = False, **params: object) -> Frame:
        """Filter the next Frame of the sequence; ``reset=True`` restarts it at this frame."""
        if self._unit is None:
            raise closed_error("calling RecursiveFilterInference")
        validate_call_params(self._contract, params)
        restart = _check_reset(reset) or not self._primed
        checked = check_frame(
            frame, self._contract.input_frame, expected_hw=self._contract.input_hw
        )
        import cupy

        output = cupy.empty((*self._contract.output_hw, 3), dtype=cupy.float32)
        self._unit.enqueue(import_frame_data(checked), output, restart=restart)
        self._primed = True
        return _new_frame(output, checked)

    def close(self) -> None:
        """Release the backend and history; idempotent, no synchronization."""
        if self._unit is not None:
            self._unit.close()
        self._unit = None


def _fixed_frame(hw: tuple[int, int]) -> Frame:
    import cupy
    from pixtreme.core import Frame

    return Frame(
        data=cupy.zeros((*hw, 3), dtype=cupy.float32),
        channels=("R", "G", "B"),
        colorspace="sRGB",
        gamma="sRGB",
        matrix=None,
    )


def _open_graph_path(
    contract: StatelessModuleContract | TemporalModuleContract,
    unit: UpscaleUnit | FilterUnit,
    operations: Callable[[CudaGraphBuffers], dict[str, Callable[[], None]]],
    *,
    after_prepare: Callable[[], None] | None = None,
) -> tuple[CudaGraphBuffers, CudaGraphSession]:
    """Fixed storage plus captured graphs over ``unit``; on failure everything is released."""
    from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession

    fixed_input = _fixed_frame(contract.input_hw)
    fixed_output = _fixed_frame(contract.output_hw)
    try:
        buffers = CudaGraphBuffers(fixed_input, fixed_output)
    except BaseException:
        unit.close()
        raise
    try:
        graphs = CudaGraphSession(
            operations(buffers),
            resources=(buffers, fixed_input, fixed_output, unit),
            after_prepare=after_prepare,
        )
    except BaseException:
        buffers.close()
        unit.close()
        raise
    return buffers, graphs


class _GraphPath:
    """The CUDA Graph request path shared by both graph instances."""

    _buffers: CudaGraphBuffers
    _graphs: CudaGraphSession
    _unit: UpscaleUnit | FilterUnit | None

    def _replay(self, checked: Frame, name: str) -> Frame:
        """Copy in, replay ``name``, copy out into independent storage (no host wait)."""
        self._graphs.check_context()
        self._buffers.copy_inputs(checked)
        self._graphs.replay(name)
        result: Frame = self._buffers.copy_output(
            channels=checked.channels,
            colorspace=checked.colorspace,
            gamma=checked.gamma,
            matrix=checked.matrix,
        )
        return result

    def close(self) -> None:
        """Release graphs, buffers and backend; idempotent, no synchronization."""
        if self._unit is None:
            return
        self._graphs.close()
        self._buffers.close()
        self._unit.close()
        self._unit = None


class UpscaleX2GraphInference(_GraphPath):
    """An x2 upscaler that replays one captured CUDA Graph per call.

    Open it inside its device and an explicit non-default stream; calls must come from that
    device and stream.
    """

    def __init__(self, contract: StatelessModuleContract, unit: UpscaleUnit) -> None:
        self._contract = contract
        self._unit = unit
        self._buffers, self._graphs = _open_graph_path(
            contract,
            unit,
            lambda buffers: {
                "upscale": lambda: unit.enqueue(buffers.input_array, buffers.output_array)
            },
        )

    @property
    def contract(self) -> StatelessModuleContract:
        """The contract this instance serves."""
        return self._contract

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Copy the Frame into fixed storage, replay the graph, return an independent Frame."""
        if self._unit is None:
            raise closed_error("calling UpscaleX2GraphInference")
        validate_call_params(self._contract, params)
        checked = check_frame(
            frame, self._contract.input_frame, expected_hw=self._contract.input_hw
        )
        return self._replay(checked, "upscale")


class RecursiveFilterGraphInference(_GraphPath):
    """A recursive filter with two captured graphs ("blend" and "restart") over fixed storage."""

    def __init__(self, contract: TemporalModuleContract, unit: FilterUnit) -> None:
        self._contract = contract
        self._unit = unit
        self._primed = False

        def restore_open_state() -> None:
            unit.history.fill(0)
            self._primed = False

        self._buffers, self._graphs = _open_graph_path(
            contract,
            unit,
            lambda buffers: {
                "restart": lambda: unit.enqueue(
                    buffers.input_array, buffers.output_array, restart=True
                ),
                "blend": lambda: unit.enqueue(
                    buffers.input_array, buffers.output_array, restart=False
                ),
            },
            after_prepare=restore_open_state,
        )

    @property
    def contract(self) -> TemporalModuleContract:
        """The contract this instance serves."""
        return self._contract

    def __call__(self, frame: Frame, /, *, reset: bool = False, **params: object) -> Frame:
        """Copy in, replay "restart" (first frame or reset) or "blend", copy out."""
        if self._unit is None:
            raise closed_error("calling RecursiveFilterGraphInference")
        validate_call_params(self._contract, params)
        restart = _check_reset(reset) or not self._primed
        checked = check_frame(
            frame, self._contract.input_frame, expected_hw=self._contract.input_hw
        )
        result = self._replay(checked, "restart" if restart else "blend")
        self._primed = True
        return result
