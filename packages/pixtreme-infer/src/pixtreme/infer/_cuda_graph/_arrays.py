"""GPU array sources for the CUDA Graph buffers: host-side layout, zero-copy import, checks.

A source is a CuPy array, a CUDA Array Interface v3 producer or a CUDA DLPack producer.
``_host_layout`` reads what can be known without any CUDA call (so a structurally wrong
request is rejected before the GPU is touched); ``_import_cuda_array`` then wraps the same
memory as a CuPy array without copying, casting or moving it to the host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pixtreme.infer._cuda_graph._context import _cupy, _current_stream

# DLPack device types (dlpack.h DLDeviceType).
_KDL_CUDA = 2
_DLPACK_DEVICE_NAMES = {1: "CPU (host memory)", 2: "CUDA", 3: "CUDA pinned host memory",
                        13: "CUDA managed memory"}  # fmt: skip
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED_PARAM_NAMES = frozenset({"frame", "reset"})


@dataclass(frozen=True, slots=True, kw_only=True)
class _Layout:
    """What is known about a GPU array; ``None`` where only an import can tell."""

    kind: str
    shape: tuple[int, ...] | None
    dtype: np.dtype[Any] | None
    c_contiguous: bool | None
    device_id: int | None
    readonly: bool = False


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _is_c_contiguous(shape: tuple[int, ...], strides: object, itemsize: int) -> bool:
    """Whether byte ``strides`` describe C order; the stride of an extent-1 axis is free."""
    if strides is None:
        return True
    if not isinstance(strides, tuple | list) or len(strides) != len(shape):
        return False
    expected = _c_strides(shape, itemsize)
    return all(
        extent == 1 or stride == want
        for extent, stride, want in zip(shape, strides, expected, strict=True)
    )


def _is_cupy_array(obj: object) -> bool:
    # CuPy is already imported whenever a CuPy array exists; never import it just to check.
    import sys

    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def _cai_layout(interface: object) -> _Layout | str:
    if not isinstance(interface, Mapping):
        return f"__cuda_array_interface__ is {type(interface).__qualname__}, not a dict"
    version = interface.get("version")
    if version != 3:
        return f"CUDA Array Interface version {version!r}; version 3 is required"
    if interface.get("mask") is not None:
        return "a masked CUDA Array Interface array (mask is not None)"
    shape = interface.get("shape")
    if not isinstance(shape, tuple | list) or not all(
        isinstance(extent, int) and not isinstance(extent, bool) and extent >= 0 for extent in shape
    ):
        return f"CUDA Array Interface shape {shape!r} is not a tuple of non-negative ints"
    shape = tuple(shape)
    typestr = interface.get("typestr")
    try:
        if not isinstance(typestr, str):
            raise TypeError(typestr)
        dtype = np.dtype(typestr)
    except TypeError:
        return f"CUDA Array Interface typestr {typestr!r} is not a dtype"
    data = interface.get("data")
    if not isinstance(data, tuple) or len(data) != 2 or not isinstance(data[0], int):
        return f"CUDA Array Interface data {data!r} is not (pointer, readonly)"
    contiguous = _is_c_contiguous(shape, interface.get("strides"), dtype.itemsize)
    return _Layout(
        kind="CUDA Array Interface v3",
        shape=shape,
        dtype=dtype,
        c_contiguous=contiguous,
        device_id=None,
        readonly=bool(data[1]),
    )


def _host_layout(obj: object) -> _Layout | str:
    """Return the layout of a GPU array source from host metadata alone, or why it is refused.

    No CUDA call is made. A CuPy array gives everything; a CUDA Array Interface v3 producer
    gives shape, dtype and strides; a DLPack producer gives its device only.
    """
    if _is_cupy_array(obj):
        array: Any = obj
        return _Layout(
            kind="CuPy array",
            shape=tuple(int(extent) for extent in array.shape),
            dtype=np.dtype(array.dtype),
            c_contiguous=bool(array.flags.c_contiguous),
            device_id=int(array.device.id),
        )
    if hasattr(obj, "__cuda_array_interface__"):
        return _cai_layout(obj.__cuda_array_interface__)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device_type, device_id = obj.__dlpack_device__()
        if int(device_type) != _KDL_CUDA:
            name = _DLPACK_DEVICE_NAMES.get(int(device_type), f"device type {device_type}")
            return f"a DLPack producer on {name}, not CUDA device memory"
        return _Layout(
            kind="DLPack producer",
            shape=None,
            dtype=None,
            c_contiguous=None,
            device_id=int(device_id),
        )
    return (
        f"{type(obj).__module__}.{type(obj).__qualname__} exposes neither DLPack nor the "
        "CUDA Array Interface (host data is never transferred)"
    )


def _layout_problems(
    role: str, expected: _Layout, observed: _Layout | str, *, writable: bool = False
) -> list[str]:
    """Return every way ``observed`` differs from ``expected`` (known fields only)."""
    if isinstance(observed, str):
        return [f"{role}: {observed}"]
    problems = []
    if observed.shape is not None and observed.shape != expected.shape:
        problems.append(f"{role}: shape {observed.shape} instead of {expected.shape}")
    if observed.dtype is not None and observed.dtype != expected.dtype:
        problems.append(f"{role}: dtype {observed.dtype} instead of {expected.dtype}")
    if observed.c_contiguous is False:
        problems.append(f"{role}: not C-contiguous")
    if observed.device_id is not None and observed.device_id != expected.device_id:
        problems.append(f"{role}: on device {observed.device_id} instead of {expected.device_id}")
    if writable and observed.readonly:
        problems.append(f"{role}: read-only, but a fixed destination is written")
    return problems


def _destination_layout_problems(role: str, observed: _Layout | str) -> list[str]:
    """Problems of a fixed destination that are knowable before import."""
    if isinstance(observed, str):
        return [f"{role}: {observed}"]
    problems = []
    if observed.c_contiguous is False:
        problems.append(f"{role}: not C-contiguous")
    if observed.readonly:
        problems.append(f"{role}: read-only, but a fixed destination is written")
    if observed.shape is not None and 0 in observed.shape:
        problems.append(f"{role}: empty shape {observed.shape}")
    return problems


def _overlap_problems(ranges: Mapping[str, tuple[int, int]]) -> list[str]:
    """Pairs of copy destinations whose (pointer, nbytes) byte ranges overlap."""
    ordered = sorted(ranges.items(), key=lambda item: item[1][0])
    problems = []
    for index, (role, (start, size)) in enumerate(ordered):
        for other, (other_start, other_size) in ordered[index + 1 :]:
            if other_start >= start + size:
                break
            if size and other_size:
                problems.append(
                    f"{role} and {other} share memory, so one copy would overwrite the other"
                )
    return problems


def _param_name_problems(names: Iterable[object]) -> list[str]:
    problems = []
    for name in names:
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            problems.append(f"param name {name!r} is not a Python identifier")
        elif name in _RESERVED_PARAM_NAMES:
            problems.append(f"param name {name!r} is reserved for the module call")
    return problems


def _param_request_problems(
    expected_params: Mapping[str, _Layout], params: Mapping[str, object]
) -> list[str]:
    """Host-side problems of a request's params (exact names, shapes, dtypes, known devices)."""
    problems = []
    missing = sorted(set(expected_params) - set(params))
    unexpected = sorted(set(params) - set(expected_params))
    if missing:
        problems.append(f"missing params {missing}")
    if unexpected:
        problems.append(f"undeclared params {unexpected}")
    for name in sorted(set(params) & set(expected_params)):
        problems.extend(
            _layout_problems(f"param {name!r}", expected_params[name], _host_layout(params[name]))
        )
    return problems


def _imported_layout(kind: str, array: Any) -> _Layout:
    return _Layout(
        kind=kind,
        shape=tuple(int(extent) for extent in array.shape),
        dtype=np.dtype(array.dtype),
        c_contiguous=bool(array.flags.c_contiguous),
        device_id=int(array.device.id),
    )


def _wait_for_producer_stream(handle: int | None) -> None:
    """Order the current stream after the work on a producer's stream so far (CAI v3).

    An event recorded on the producer's stream is waited for on the current stream: no host
    wait. ``None`` (no stream exported) and the current stream itself need nothing.
    """
    if handle is None:
        return
    cupy = _cupy()
    current = _current_stream()
    if handle == int(current.ptr):
        return
    event = cupy.cuda.Event(block=False, disable_timing=True, interprocess=False)
    cupy.cuda.runtime.eventRecord(event.ptr, handle)
    current.wait_event(event)


def _import_cuda_array(obj: object) -> tuple[Any, int | None]:
    """Wrap a GPU array source as a CuPy array over the same memory (no copy, no host wait).

    Returns the array and the stream a CUDA Array Interface v3 producer exported (``None``
    when there is nothing to wait for). Pass that handle to ``_wait_for_producer_stream``
    once every source has been validated and before the array is read. CuPy arrays are taken
    as ready on the current stream; DLPack producers order themselves after the current
    stream through the protocol's ``stream`` argument.
    """
    cupy = _cupy()
    if isinstance(obj, cupy.ndarray):
        return obj, None
    if hasattr(obj, "__cuda_array_interface__"):
        interface: Any = obj.__cuda_array_interface__
        handle = interface.get("stream")
        pointer = int(interface["data"][0])
        shape = tuple(int(extent) for extent in interface["shape"])
        dtype = np.dtype(interface["typestr"])
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        # UnownedMemory keeps `obj` alive and finds the pointer's device.
        memory = cupy.cuda.UnownedMemory(pointer, nbytes, obj)
        strides = interface.get("strides")
        if _is_c_contiguous(shape, strides, dtype.itemsize):
            strides = None  # C order; extent-1 axes may carry any stride
        array = cupy.ndarray(
            shape,
            dtype=dtype,
            memptr=cupy.cuda.MemoryPointer(memory, 0),
            strides=None if strides is None else tuple(int(step) for step in strides),
        )
        return array, None if handle is None else int(handle)
    return cupy.from_dlpack(obj), None
