"""CudaGraphSession: named backend operations captured once into CUDA graphs and replayed."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import Any, Self

from pixtreme.infer._cuda_graph._context import (
    CudaGraphStateError,
    _closed_error,
    _current_device_id,
    _current_stream,
    _is_default_stream,
    _stream_label,
)
from pixtreme.infer.errors import ContractError

Operation = Callable[[], object]
"""A callable that enqueues GPU work on the current stream using only fixed GPU addresses."""


def _validated_operations(operations: object) -> dict[str, Operation]:
    if not isinstance(operations, Mapping):
        raise ContractError(
            why="CudaGraphSession captures named operations",
            what=f"operations is {type(operations).__qualname__}, not a mapping",
            how="pass a mapping such as {'route-a': enqueue_a}",
        )
    if not operations:
        raise ContractError(
            why="a CudaGraphSession without operations has nothing to replay",
            what="operations is empty",
            how="pass at least one named operation, such as {'main': enqueue}",
        )
    validated: dict[str, Operation] = {}
    for name, operation in operations.items():
        if not isinstance(name, str) or not name:
            raise ContractError(
                why="replay(name) selects an operation by a non-empty string name",
                what=f"operation name {name!r} ({type(name).__qualname__})",
                how="name every operation with a non-empty string, such as 'route-a'",
            )
        if not callable(operation):
            raise ContractError(
                why="each operation is called with no arguments to enqueue its GPU work",
                what=f"operation {name!r} is {type(operation).__qualname__}, not callable",
                how="pass a zero-argument callable (a function or functools.partial)",
            )
        validated[name] = operation
    return validated


def _capture(stream: Any, name: str, operation: Operation) -> Any:
    """Capture one call of ``operation`` on ``stream`` and return the CuPy graph."""
    stream.begin_capture()
    try:
        operation()
    except BaseException as error:
        # Leave capture mode; the partial graph is discarded with the error.
        try:
            stream.end_capture()
        except Exception as end_error:  # the capture was invalidated by the failure
            error.add_note(
                f"ending the failed capture of operation {name!r} also raised "
                f"{type(end_error).__name__}: {end_error}"
            )
        raise
    return stream.end_capture()


class CudaGraphSession:
    """CUDA graphs captured once per named operation on an explicit non-default stream.

    Open it with the target device current and an explicit non-default CuPy stream current
    (``with cupy.cuda.Stream(non_blocking=True):``). For each operation, in order, the
    session calls it once to warm up, waits for the stream, and captures one call into a CUDA
    graph; then ``after_prepare`` runs (it restores history and controls written while
    preparing). If anything fails, every captured graph and retained reference is released
    and the error propagates: there is no partial session and no normal-path fallback.

    The operations (and so their owners) and ``resources`` are kept alive until ``close()``:
    every buffer and workspace a captured operation uses must outlive the graphs.
    """

    __slots__ = ("_closed", "_device_id", "_graphs", "_operations", "_resources", "_stream")

    def __init__(
        self,
        operations: Mapping[str, Callable[[], None]],
        *,
        resources: Iterable[object] = (),
        after_prepare: Callable[[], None] | None = None,
    ) -> None:
        self._closed = True
        self._graphs: dict[str, Any] = {}
        self._resources: tuple[object, ...] = ()
        self._operations: dict[str, Operation] = {}
        validated = _validated_operations(operations)
        if after_prepare is not None and not callable(after_prepare):
            raise ContractError(
                why="after_prepare is called once after every operation has been captured",
                what=f"after_prepare is {type(after_prepare).__qualname__}, not callable",
                how="pass a zero-argument callable, or None",
            )
        if isinstance(resources, (str, bytes)) or not isinstance(resources, Iterable):
            raise ContractError(
                why="resources is a collection of objects kept alive for the session",
                what=f"resources is {type(resources).__qualname__}",
                how="pass a tuple of the buffers, history and execution units the graphs use",
            )
        retained = tuple(resources)

        self._device_id = _current_device_id()
        stream = _current_stream()
        if _is_default_stream(stream):
            raise ContractError(
                why="CUDA graphs are captured and replayed on an explicit non-default stream",
                what=f"the current CuPy stream is {_stream_label(stream)}",
                how="open the session inside `with cupy.cuda.Stream(non_blocking=True):`",
            )
        if stream.is_capturing():
            raise ContractError(
                why="a CudaGraphSession captures its own graphs and cannot nest in a capture",
                what=f"{_stream_label(stream)} is already capturing",
                how="end the surrounding capture before opening the session",
            )
        self._stream = stream

        graphs: dict[str, Any] = {}
        try:
            for name, operation in validated.items():
                operation()
                self._check_unchanged_context(name, "its warm-up call")
                stream.synchronize()
                graphs[name] = _capture(stream, name, operation)
                self._check_unchanged_context(name, "its capture")
            if after_prepare is not None:
                after_prepare()
                self._check_unchanged_context("after_prepare", "its call")
        except BaseException:
            # A traceback keeps this frame (and `self`) alive: drop every graph explicitly.
            graphs.clear()
            retained = ()
            validated.clear()
            raise
        self._graphs = graphs
        # The callables' owners (bound objects, closures) and resources keep every address
        # used inside the graphs alive until close().
        self._operations = validated
        self._resources = retained
        self._closed = False

    def _check_unchanged_context(self, name: str, step: str) -> None:
        device_id = _current_device_id()
        stream = _current_stream()
        if device_id != self._device_id or int(stream.ptr) != int(self._stream.ptr):
            raise CudaGraphStateError(
                why="an operation must enqueue on the session's current device and stream",
                what=(
                    f"after {step}, {name!r} left device {device_id} and "
                    f"{_stream_label(stream)} current instead of device {self._device_id} "
                    f"and {_stream_label(self._stream)}"
                ),
                how="restore the device and stream inside the operation (use `with` blocks)",
            )

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the captured operations, in preparation order (empty once closed)."""
        return tuple(self._graphs)

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._closed

    @property
    def device_id(self) -> int:
        """The CUDA device the graphs were captured on."""
        return self._device_id

    @property
    def stream(self) -> Any:
        """The CuPy stream the graphs were captured on and replay on."""
        return self._stream

    def check_context(self) -> None:
        """Raise CudaGraphStateError unless open with its own device and stream current.

        Call it before copying inputs or resetting history for a request.
        """
        if self._closed:
            raise _closed_error("CudaGraphSession", "check_context()")
        device_id = _current_device_id()
        if device_id != self._device_id:
            raise CudaGraphStateError(
                why="graphs replay only on the device they were captured on",
                what=f"the current device is {device_id}; the session opened on {self._device_id}",
                how=f"call inside `with cupy.cuda.Device({self._device_id}):`, or open another "
                "instance on this device",
            )
        stream = _current_stream()
        if int(stream.ptr) != int(self._stream.ptr):
            raise CudaGraphStateError(
                why="requests are ordered on the stream the session was opened on",
                what=f"the current stream is {_stream_label(stream)}; the session opened on "
                f"{_stream_label(self._stream)}",
                how="make the session's stream current (`with session.stream:`), or open "
                "another instance on this stream",
            )

    def replay(self, name: str, /) -> None:
        """Enqueue the graph captured for ``name`` on the session's stream, without a wait."""
        if self._closed:
            raise _closed_error("CudaGraphSession", f"replay({name!r})")
        graph = self._graphs.get(name) if isinstance(name, str) else None
        if graph is None:
            known = ", ".join(repr(known) for known in self._graphs)
            close = difflib.get_close_matches(str(name), list(self._graphs), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ContractError(
                why="replay(name) launches one of the operations captured when opening",
                what=f"no operation named {name!r}; captured: {known}",
                how=f"{hint}pass one of the captured names, or open a session that captures it",
            )
        self.check_context()
        graph.launch(stream=self._stream)

    def close(self) -> None:
        """Release every graph and retained reference; idempotent, with no synchronisation.

        Finish or order outstanding work first: graphs already enqueued complete, but the
        resources they use are no longer kept alive by this session.
        """
        self._closed = True
        self._graphs = {}
        self._operations = {}
        self._resources = ()

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
        state = "closed" if self._closed else f"device {self._device_id}"
        return f"CudaGraphSession(names={self.names!r}, {state})"
