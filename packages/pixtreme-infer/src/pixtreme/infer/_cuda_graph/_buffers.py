"""CudaGraphBuffers: fixed GPU storage that captured graphs read and write, and its copies."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Any, Self

from pixtreme.infer._cuda_graph._arrays import (
    _destination_layout_problems,
    _host_layout,
    _import_cuda_array,
    _imported_layout,
    _Layout,
    _layout_problems,
    _overlap_problems,
    _param_name_problems,
    _param_request_problems,
    _wait_for_producer_stream,
)
from pixtreme.infer._cuda_graph._context import (
    CudaGraphStateError,
    _closed_error,
    _cupy,
    _current_device_id,
    _current_stream,
    _stream_label,
)
from pixtreme.infer.errors import ContractError

if TYPE_CHECKING:
    from pixtreme.core import Colorspace, Frame, Gamma, Matrix


def _frame_class() -> Any:
    return importlib.import_module("pixtreme.core").Frame


def _describe(obj: object) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _same_storage(first: Any, second: Any) -> bool:
    """Whether two CuPy arrays view exactly the same bytes with the same layout."""
    return bool(
        int(first.data.ptr) == int(second.data.ptr)
        and tuple(first.shape) == tuple(second.shape)
        and first.dtype == second.dtype
        and tuple(first.strides) == tuple(second.strides)
    )


class CudaGraphBuffers:
    """Fixed input, output and parameter storage for CUDA graphs, with per-request copies.

    ``input_frame`` and ``output_frame`` are pixtreme Frames whose storage is imported through
    DLPack; ``params`` maps names to CuPy arrays, CUDA Array Interface v3 producers or CUDA
    DLPack producers. Every destination must be C-contiguous on the current (opening) device.
    Captured operations use :attr:`input_array`, :attr:`output_array` and
    :attr:`param_arrays`, whose addresses never change until ``close()``. When the output
    Frame views exactly the input Frame's storage, both properties return one array object, so
    an in-place CuPy ufunc inside capture does not copy its input into a temporary.
    """

    __slots__ = (
        "_closed",
        "_device_id",
        "_input",
        "_input_layout",
        "_output",
        "_owners",
        "_param_layouts",
        "_params",
    )

    def __init__(
        self,
        input_frame: Frame,
        output_frame: Frame,
        *,
        params: Mapping[str, object] | None = None,
    ) -> None:
        self._closed = True
        frame_class = _frame_class()
        sources: Mapping[str, object] = {} if params is None else params
        if not isinstance(sources, Mapping):
            raise ContractError(
                why="params maps each auxiliary input name to its fixed GPU array",
                what=f"params is {_describe(sources)}, not a mapping",
                how="pass params={'name': gpu_array}, or leave it None",
            )
        problems: list[str] = []
        for role, frame in (("input_frame", input_frame), ("output_frame", output_frame)):
            if isinstance(frame, frame_class):
                problems.extend(_destination_layout_problems(role, _host_layout(frame.data)))
            else:
                problems.append(f"{role}: {_describe(frame)} is not a pixtreme Frame")
        problems.extend(_param_name_problems(sources))
        for name, source in sources.items():
            problems.extend(_destination_layout_problems(f"param {name!r}", _host_layout(source)))
        if problems:
            raise ContractError(
                why="fixed graph storage must be writable, C-contiguous CUDA arrays with "
                "identifier names",
                what="; ".join(problems),
                how="pass pixtreme Frames and contiguous CuPy / CUDA Array Interface v3 / "
                "CUDA DLPack arrays allocated by the module on this device",
            )

        cupy = _cupy()
        device_id = _current_device_id()
        imported_input = cupy.from_dlpack(input_frame)
        imported_output = cupy.from_dlpack(output_frame)
        if _same_storage(imported_input, imported_output):
            # One array object for shared storage: CuPy ufuncs copy an input that overlaps a
            # *different* output object, which would allocate a temporary inside capture.
            imported_output = imported_input
        imports = {name: _import_cuda_array(source) for name, source in sources.items()}
        imported_params = {name: array for name, (array, _) in imports.items()}
        layouts = {
            "input_frame": _imported_layout("Frame", imported_input),
            "output_frame": _imported_layout("Frame", imported_output),
            **{
                f"param {name!r}": _imported_layout("param", array)
                for name, array in imported_params.items()
            },
        }
        for role, layout in layouts.items():
            if layout.c_contiguous is False:
                problems.append(f"{role}: not C-contiguous")
            if layout.device_id != device_id:
                problems.append(f"{role}: on device {layout.device_id}")
        copied = {"input_frame": imported_input} | {
            f"param {name!r}": array for name, array in imported_params.items()
        }
        problems.extend(
            _overlap_problems(
                {role: (int(array.data.ptr), int(array.nbytes)) for role, array in copied.items()}
            )
        )
        if problems:
            raise ContractError(
                why="fixed graph storage must be C-contiguous on the device the buffers open on",
                what=f"current device {device_id}; " + "; ".join(problems),
                how="allocate every fixed array on the current device, or open the buffers "
                "inside `with cupy.cuda.Device(n):` for the device that holds them",
            )
        for _, producer_stream in imports.values():
            _wait_for_producer_stream(producer_stream)
        self._device_id = device_id
        self._input = imported_input
        self._output = imported_output
        self._params = imported_params
        self._input_layout = layouts["input_frame"]
        self._param_layouts: dict[str, _Layout] = {
            name: layouts[f"param {name!r}"] for name in imported_params
        }
        # The producers own the memory behind the imported views: keep them alive too.
        self._owners: tuple[object, ...] = (input_frame, output_frame, *sources.values())
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._closed

    @property
    def device_id(self) -> int:
        """The CUDA device that holds the fixed storage."""
        return self._device_id

    @property
    def input_array(self) -> Any:
        """The fixed input storage as a CuPy array (HWC, the input Frame's memory)."""
        self._require_open("input_array")
        return self._input

    @property
    def output_array(self) -> Any:
        """The fixed output storage as a CuPy array (HWC, the output Frame's memory)."""
        self._require_open("output_array")
        return self._output

    @property
    def param_arrays(self) -> Mapping[str, Any]:
        """The fixed auxiliary input storage by name, as CuPy arrays."""
        self._require_open("param_arrays")
        return MappingProxyType(self._params)

    def _require_open(self, operation: str) -> None:
        if self._closed:
            raise _closed_error("CudaGraphBuffers", operation)

    def _require_device(self, operation: str) -> None:
        device_id = _current_device_id()
        if device_id != self._device_id:
            raise CudaGraphStateError(
                why="fixed graph storage is copied on the device that holds it",
                what=f"{operation} ran with device {device_id} current; the buffers are on "
                f"device {self._device_id}",
                how=f"call inside `with cupy.cuda.Device({self._device_id}):`",
            )

    def copy_inputs(self, frame: Frame, /, **params: object) -> None:
        """Enqueue copies of ``frame`` and ``params`` into the fixed storage on the current stream.

        Every source is validated (exact names, shape, dtype, contiguity and device) before the
        first copy; nothing is cast, broadcast or moved from the host, and no host wait occurs.
        Sources must be ready on the current stream and stay alive until the copies complete.
        """
        self._require_open("copy_inputs()")
        problems: list[str] = []
        if isinstance(frame, _frame_class()):
            problems.extend(_layout_problems("frame", self._input_layout, _host_layout(frame.data)))
        else:
            problems.append(f"frame: {_describe(frame)} is not a pixtreme Frame")
        problems.extend(_param_request_problems(self._param_layouts, params))
        if problems:
            raise _request_error(problems)
        self._require_device("copy_inputs()")

        cupy = _cupy()
        imports = {name: _import_cuda_array(params[name]) for name in sorted(self._params)}
        pairs = [("frame", self._input_layout, self._input, cupy.from_dlpack(frame))]
        pairs.extend(
            (f"param {name!r}", self._param_layouts[name], self._params[name], source)
            for name, (source, _) in imports.items()
        )
        for role, expected, _, source in pairs:
            problems.extend(_layout_problems(role, expected, _imported_layout(role, source)))
        if problems:
            raise _request_error(problems)
        # Only now, with every source accepted: order after CAI v3 producers' streams.
        for _, producer_stream in imports.values():
            _wait_for_producer_stream(producer_stream)
        stream = _current_stream()
        for _, _, destination, source in pairs:
            destination.data.copy_from_device_async(source.data, destination.nbytes, stream)

    def copy_output(
        self,
        *,
        channels: tuple[str, ...],
        colorspace: Colorspace,
        gamma: Gamma,
        matrix: Matrix | None = None,
    ) -> Frame:
        """Return a new Frame holding a copy of the fixed output, with this request's metadata.

        The copy's storage is allocated here, outside any capture, and stays unchanged by later
        replays, resets and close(). The copy is enqueued on the current stream without a wait.
        """
        self._require_open("copy_output()")
        frame_class = _frame_class()
        # pixtreme validates the metadata against the fixed output's shape: no GPU work yet.
        checked = frame_class(
            data=self._output,
            channels=channels,
            colorspace=colorspace,
            gamma=gamma,
            matrix=matrix,
        )
        self._require_device("copy_output()")
        stream = _current_stream()
        if stream.is_capturing():
            raise CudaGraphStateError(
                why="copy_output allocates new storage, which is invalid inside a capture",
                what=f"{_stream_label(stream)} is capturing",
                how="call copy_output after replay(), outside the captured operations",
            )
        result = _cupy().empty(self._output.shape, dtype=self._output.dtype)
        result.data.copy_from_device_async(self._output.data, result.nbytes, stream)
        return frame_class.model_construct(
            data=result,
            channels=checked.channels,
            colorspace=checked.colorspace,
            gamma=checked.gamma,
            matrix=checked.matrix,
        )

    def close(self) -> None:
        """Release the fixed storage references; idempotent, with no synchronisation."""
        self._closed = True
        self._input = None
        self._output = None
        self._params = {}
        self._param_layouts = {}
        self._owners = ()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return "CudaGraphBuffers(closed)"
        return (
            f"CudaGraphBuffers(input={self._input_layout.shape} {self._input_layout.dtype}, "
            f"params={sorted(self._params)}, device {self._device_id})"
        )


def _request_error(problems: list[str]) -> ContractError:
    return ContractError(
        why="copy_inputs copies sources that match the fixed storage exactly: no casting, "
        "broadcasting or host transfer",
        what="; ".join(problems),
        how="pass a Frame and exactly the declared params, each C-contiguous with the fixed "
        "storage's shape and dtype on its device",
    )
