"""Opened instances: the Frame boundary around a backend unit, normal and CUDA Graph paths.

Every call validates, in this order and before touching any GPU storage: closed, the keyword
parameters, the reset control (temporal), then the Frame (type, metadata and size). A rejected
request changes nothing. ``backend_launches`` counts the requests that got past validation and
started GPU work; the published verification reads it as the "backend started" probe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pixtreme.infer.contracts import (
    StatelessOpenContract,
    TemporalOpenContract,
    validate_call_params,
)
from pixtreme.infer.frames import check_frame
from pixtreme.infer.recipe_identity import RecipeIdentity

from ._errors import closed_error, parameter_error

if TYPE_CHECKING:
    from pixtreme.core import Frame
    from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession

_OpenContract = StatelessOpenContract[RecipeIdentity] | TemporalOpenContract[RecipeIdentity]


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


def _check_size(frame: Frame, input_hw: tuple[int, int]) -> None:
    observed = (int(frame.height), int(frame.width))
    if observed != input_hw:
        height, width = input_hw
        raise parameter_error(
            why="an opened instance serves exactly the input size it was opened for",
            what=f"observed H={observed[0]}, W={observed[1]}; accepted H in {(height, height)}, "
            f"W in {(width, width)} (opened input_hw={input_hw})",
            how="resize the Frame, or open another instance with input_hw set to its size",
        )


class _Boundary:
    """The request validation and bookkeeping every example instance shares."""

    def __init__(self, contract: _OpenContract) -> None:
        self._open_contract = contract
        self._module = contract.module_contract
        self._launches = 0
        self._closed = False

    @property
    def scale(self) -> int:
        """The integral spatial scale (``contract.scale``)."""
        return self._open_contract.scale

    @property
    def backend_launches(self) -> int:
        """How many requests have started GPU work on this instance (never a rejected one)."""
        return self._launches

    @property
    def output_hw(self) -> tuple[int, int]:
        """The (height, width) of every output Frame."""
        height, width = self._open_contract.input_hw
        return (height * self.scale, width * self.scale)

    def _validate(self, frame: object, params: dict[str, object]) -> tuple[Frame, bool]:
        """Closed, keywords, reset, then the Frame; returns the Frame and the reset flag."""
        if self._closed:
            raise closed_error(f"calling {type(self).__name__}")
        validate_call_params(self._module, set(params))
        temporal = isinstance(self._open_contract, TemporalOpenContract)
        reset = _check_reset(params.get("reset", False)) if temporal else False
        family = self._open_contract.family_contract
        checked = check_frame(frame, family.input_frame, role="input")
        _check_size(checked, self._open_contract.input_hw)
        self._launches += 1
        return checked, reset


def _new_frame(data: Any, like: Frame) -> Frame:
    from pixtreme.core import Frame

    return Frame(
        data=data,
        channels=like.channels,
        colorspace=like.colorspace,
        gamma=like.gamma,
        matrix=like.matrix,
    )


class UpscaleX2Inference(_Boundary):
    """An opened x2 upscaler (OpenedStatelessImageInference) on the normal path."""

    def __init__(self, contract: StatelessOpenContract[RecipeIdentity], unit: UpscaleUnit) -> None:
        super().__init__(contract)
        self._contract = contract
        self._upscaler: UpscaleUnit | None = unit

    @property
    def contract(self) -> StatelessOpenContract[RecipeIdentity]:
        """The contract this instance was opened with (equal to the query)."""
        return self._contract

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Upscale one Frame; returns a new Frame with the input's metadata."""
        checked, _ = self._validate(frame, params)
        assert self._upscaler is not None
        import cupy

        output = cupy.empty((*self.output_hw, 3), dtype=cupy.float32)
        self._upscaler.enqueue(import_frame_data(checked), output)
        return _new_frame(output, checked)

    def close(self) -> None:
        """Release the backend; idempotent, no synchronization."""
        if self._upscaler is not None:
            self._upscaler.close()
        self._upscaler = None
        self._closed = True


class RecursiveFilterInference(_Boundary):
    """An opened recursive filter (StatefulImageInference) on the normal path."""

    def __init__(self, contract: TemporalOpenContract[RecipeIdentity], unit: FilterUnit) -> None:
        super().__init__(contract)
        self._contract = contract
        self._filter: FilterUnit | None = unit
        self._primed = False

    @property
    def contract(self) -> TemporalOpenContract[RecipeIdentity]:
        """The contract this instance was opened with (equal to the query)."""
        return self._contract

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Filter the next Frame; ``reset=True`` restarts the sequence at this Frame."""
        checked, reset = self._validate(frame, params)
        assert self._filter is not None
        import cupy

        output = cupy.empty((*self.output_hw, 3), dtype=cupy.float32)
        restart = reset or not self._primed
        self._filter.enqueue(import_frame_data(checked), output, restart=restart)
        self._primed = True
        return _new_frame(output, checked)

    def close(self) -> None:
        """Release the backend and history; idempotent, no synchronization."""
        if self._filter is not None:
            self._filter.close()
        self._filter = None
        self._closed = True


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
    contract: _OpenContract,
    unit: UpscaleUnit | FilterUnit,
    operations: Callable[[CudaGraphBuffers], dict[str, Callable[[], None]]],
    *,
    after_prepare: Callable[[], None] | None = None,
) -> tuple[CudaGraphBuffers, CudaGraphSession]:
    """Fixed storage plus captured graphs over ``unit``; on failure everything is released."""
    from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession

    height, width = contract.input_hw
    fixed_input = _fixed_frame(contract.input_hw)
    fixed_output = _fixed_frame((height * contract.scale, width * contract.scale))
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


class _GraphPath(_Boundary):
    """The CUDA Graph request path shared by both graph instances."""

    _buffers: CudaGraphBuffers
    _graphs: CudaGraphSession
    _graph_unit: UpscaleUnit | FilterUnit

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
        if self._closed:
            return
        self._closed = True
        self._graphs.close()
        self._buffers.close()
        self._graph_unit.close()


class UpscaleX2GraphInference(_GraphPath):
    """An x2 upscaler that replays one captured CUDA Graph per call.

    Open it inside its device and an explicit non-default stream; calls must come from that
    device and stream.
    """

    def __init__(self, contract: StatelessOpenContract[RecipeIdentity], unit: UpscaleUnit) -> None:
        super().__init__(contract)
        self._contract = contract
        self._graph_unit = unit
        self._buffers, self._graphs = _open_graph_path(
            contract,
            unit,
            lambda buffers: {
                "upscale": lambda: unit.enqueue(buffers.input_array, buffers.output_array)
            },
        )

    @property
    def contract(self) -> StatelessOpenContract[RecipeIdentity]:
        """The contract this instance was opened with (equal to the query)."""
        return self._contract

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Copy the Frame into fixed storage, replay the graph, return an independent Frame."""
        checked, _ = self._validate(frame, params)
        return self._replay(checked, "upscale")


class RecursiveFilterGraphInference(_GraphPath):
    """A recursive filter with two captured graphs ("blend" and "restart") over fixed storage."""

    def __init__(self, contract: TemporalOpenContract[RecipeIdentity], unit: FilterUnit) -> None:
        super().__init__(contract)
        self._contract = contract
        self._graph_unit = unit
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
    def contract(self) -> TemporalOpenContract[RecipeIdentity]:
        """The contract this instance was opened with (equal to the query)."""
        return self._contract

    def __call__(self, frame: Frame, /, **params: object) -> Frame:
        """Copy in, replay "restart" (first frame or reset) or "blend", copy out."""
        checked, reset = self._validate(frame, params)
        result = self._replay(checked, "restart" if reset or not self._primed else "blend")
        self._primed = True
        return result


def backend_launches(instance: object) -> int:
    """The backend-started probe of the verification: ``instance.backend_launches``."""
    if not isinstance(instance, _Boundary):
        raise TypeError(f"not an example instance: {type(instance).__name__}")
    return instance.backend_launches
